import Foundation
import XCTest

@testable import IAPAuditCLI
@testable import IAPAuditModel
@testable import IAPAuditPipeline
@testable import IAPAuditReport

/// What `trace` shows of records that lead to no transaction, over the lost-order case
/// (Fixtures/cases/order-id-lookup-lost-order) and a few more lines written here (OUT/in): u7's records
/// naming no transaction, written out of time order.
final class TraceUnattachedTests: XCTestCase {
    static let out = TestPaths.scratch("traceunattached")
    nonisolated(unsafe) static var ran = false

    /// The lines added to the case, by file.
    static let inputs: [String: [String]] = [
        "client.jsonl": [
            #"{"ts": "2026-10-13T08:00:00Z", "user_id": "u7", "device_id": "D7", "product_id": "com.example.gems300", "state": "failed", "error_code": 2}"#,
            #"{"ts": "2026-10-11T08:00:00Z", "user_id": "u7", "device_id": "D7", "product_id": "com.example.gems300", "state": "purchasing"}"#,
        ]
    ]

    func ledger() throws -> String {
        if !Self.ran {
            let folder = Self.out + "/in"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for (name, lines) in Self.inputs {
                try (lines.joined(separator: "\n") + "\n").write(toFile: folder + "/" + name, atomically: true, encoding: .utf8)
            }
            try TraceLostOrderTests.run(into: Self.out, more: [folder])
            Self.ran = true
        }
        return Self.out
    }

    func trace(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
        TraceLostOrderTests.trace(arguments, out: Self.out)
    }

    /// A user's records naming no transaction, oldest first (the log has them newest first), in the text
    /// and in the workbook's Timeline.
    func testRecordsNamingNoTransactionAreInTimeOrder() throws {
        let run = try trace(["u7", "--out", try ledger()])
        XCTAssertEqual(run.status, 0, run.err)
        let section = try XCTUnwrap(run.out.components(separatedBy: "\n\n").last)
        XCTAssertEqual(
            section,
            """
            == records of u7 naming no transaction
            time (UTC)  source  file:line  what it says
            2026-10-11T08:00:00.000Z  client_report  OUT/in/client.jsonl:2  client: purchasing com.example.gems300, no transaction id (user u7, device D7)
            2026-10-13T08:00:00.000Z  client_report  OUT/in/client.jsonl:1  client: failed com.example.gems300, error_code 2 (cancelled), no transaction id (user u7, device D7)
            """)
        let result = try TracePipeline.run(id: "u7", ledgerPath: try ledger() + "/audit.sqlite").result
        let timeline = try XCTUnwrap(TraceWorkbook.build(result).sheets.first { $0.name == "Timeline" }?.tables.first?.rows).all()
        XCTAssertEqual(
            timeline.suffix(2).map { row -> String in
                guard case .text(let location) = row[3] else { return "?" }
                return TraceTests.portable(location, out: Self.out)
            }, ["OUT/in/client.jsonl:2", "OUT/in/client.jsonl:1"])
    }
}
