import Foundation
import XCTest

@testable import IAPAuditCLI
@testable import IAPAuditCrypto
@testable import IAPAuditIngest
@testable import IAPAuditModel
@testable import IAPAuditPipeline
@testable import IAPAuditReconcile
@testable import IAPAuditReport
@testable import IAPAuditSample
@testable import IAPAuditStore

/// A CSV header that would make its records read wrongly without a word is refused whole (the
/// messages are in the error catalogue, `Fixtures/errors/csv-header-*`); other unknown columns are ignored.
final class CSVHeaderTests: XCTestCase {
    static let row = "2026-10-01T09:00:02Z,r1,u1,2000000400000001,true"

    func read(_ header: String, rows: [String] = [row]) -> ImportedRecords {
        FileImporter.read(InputFile(path: "server.csv", data: Data(([header] + rows).joined(separator: "\n").utf8)))
    }

    /// A repeated column (1,679 false dropped orders when the last `granted` silently won) or a near
    /// miss: the file is rejected, its header line the one record in, nothing imported.
    func testARefusedHeaderRejectsTheFileAsOneRecord() {
        for header in [
            "ts,request_id,user_id,transaction_ids,granted,granted", "ts,request_id,user_id,trasaction_ids,granted",
            "ts,request_id,user_id,transaction_ids,granted?", " TS , Request_ID ,user_id,transaction_ids,Granted ,granted",
        ] {
            let read = read(header, rows: [Self.row, Self.row])
            XCTAssertEqual(read.status, .rejected, header)
            XCTAssertEqual(read.kind, .serverLog, header)
            XCTAssertEqual(read.format, .csv, header)
            XCTAssertEqual(read.note, "server transaction log: CSV header refused, no record read")
            XCTAssertEqual([read.recordsIn, read.recordsImported, read.recordsRejected], [1, 0, 1], header)
            XCTAssertEqual(read.rejections.map(\.location.line), [1], header)
            XCTAssertEqual(read.rejections.first?.rawText, header)
            XCTAssertTrue(read.serverRequests.isEmpty, header)
        }
    }

    /// Columns unlike any known one are ignored, and so is one holding a known name that is there too.
    func testOtherUnknownColumnsAreIgnored() {
        for header in [
            "ts,request_id,user_id,transaction_ids,granted,notes", "ts,request_id,user_id,transaction_ids,granted,granted_at",
            "ts,request_id,user_id,transaction_ids,granted,", "ts,request_id,user_id,transaction_ids,granted,tz",
        ] {
            let read = read(header, rows: [Self.row + ",x"])
            XCTAssertEqual(read.status, .imported, header)
            XCTAssertEqual(read.serverRequests.map(\.granted), [true], header)
            XCTAssertEqual(read.rejections.map(\.reason), [], header)
        }
    }

    func testNearMisses() {
        let server = CSVHeader.serverColumns
        XCTAssertEqual(CSVHeader.resembled("trasaction_ids", server, header: []), "transaction_ids")
        XCTAssertEqual(CSVHeader.resembled("transaction_id s", server, header: []), "transaction_ids")
        XCTAssertEqual(CSVHeader.resembled("granted?", server, header: []), "granted")
        XCTAssertEqual(CSVHeader.resembled("is_granted", server, header: []), "granted")
        XCTAssertNil(CSVHeader.resembled("is_granted", server, header: ["granted"]))
        XCTAssertNil(CSVHeader.resembled("tz", server, header: []), "`ts` has no near misses")
        XCTAssertNil(CSVHeader.resembled("product_id", server, header: []))
        XCTAssertEqual(CSVHeader.distance("kitten", "sitting"), 3)
    }

    /// Another CSV (Apple's payments summary) is read as what it is, never refused for near-miss columns of ours.
    func testOtherCSVIsNotTakenForOurs() throws {
        let path = try TestPaths.realData + "/fedoco__apple-slicer/financial_report.csv"
        let read = FileImporter.read(InputFile(path: path, data: try Data(contentsOf: URL(fileURLWithPath: path))))
        XCTAssertEqual(read.status, .imported)
        XCTAssertEqual(read.kind, .paymentsSummary)
        XCTAssertNil(CSVHeader.of("Transaction ID,Amount,Currency"))
    }
}
