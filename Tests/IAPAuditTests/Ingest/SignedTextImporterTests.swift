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

/// One bad line in a file of compact JWS or base64 receipts is rejected on its own; the good lines
/// are still imported (found by a fresh-user trial: the whole file used to be skipped).
final class SignedTextImporterTests: XCTestCase {
    private func real(_ relative: String) throws -> String {
        try String(contentsOfFile: try TestPaths.realData(relative), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testABadLineInAJWSFileIsRejectedAlone() throws {
        let jws = try real("apple__app-store-server-library-swift/testNotification")
        let text = [jws, "hello", jws, String(jws.prefix(100)), "{\"a\": 1}"].joined(separator: "\n")
        let file = FileImporter.read(InputFile(path: "n.jws", data: Data(text.utf8)))
        XCTAssertEqual(file.kind, .notificationV2)
        XCTAssertEqual(file.status, .imported)
        XCTAssertEqual(file.recordsIn, 5)
        XCTAssertEqual(file.appleRecords.map(\.location.line), [1, 3])
        XCTAssertEqual(file.rejections.map(\.location.line), [2, 4, 5])
        XCTAssertTrue(file.rejections.allSatisfy { !$0.reason.isEmpty })
    }

    func testABadLineInAReceiptFileIsRejectedAlone() throws {
        let receipt = try real("RevenueCat__purchases-ios/base64encodedreceiptsample1.txt")
        let text = [receipt, "hello", receipt.dropLast(200) + ""].joined(separator: "\n")
        let file = FileImporter.read(InputFile(path: "r.txt", data: Data(text.utf8)))
        XCTAssertEqual(file.kind, .appReceipt)
        XCTAssertEqual(file.note, "base64 app receipts, one per line")
        XCTAssertEqual(file.appleRecords.map(\.location.line), [1])
        XCTAssertEqual(file.appleRecords.first?.items.count, 9)
        XCTAssertEqual(file.rejections.map(\.location.line), [2, 3])
    }

    func testAFileOfOnlyBadJWSLinesKeepsItsKind() throws {
        let file = FileImporter.read(InputFile(path: "x.jws", data: Data("eyJhbGciOiJFUzI1NiJ9.e30\neyJ.x.y\n".utf8)))
        XCTAssertEqual(file.kind, .signedTransaction)
        XCTAssertEqual(file.recordsIn, 2)
        XCTAssertEqual(file.rejections.count, 2)
    }
}
