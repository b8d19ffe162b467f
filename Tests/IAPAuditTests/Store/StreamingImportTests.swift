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

/// JSON Lines files larger than one batch are streamed into the store batch by batch (parsed on every
/// core): every line still counted once, rejections at their own lines, records in line order.
final class StreamingImportTests: XCTestCase {
    func testAFileOfSeveralBatchesIsCountedExactly() throws {
        let dir = TestPaths.scratch()
        let lines = 3 * FileImporter.batchLines + 17
        let bad: Set<Int> = [1, FileImporter.batchLines, FileImporter.batchLines + 1, 2 * FileImporter.batchLines + 5, lines]
        var text = ""
        for n in 1...lines {
            if bad.contains(n) {
                text += "{\"ts\": \"2026-10-01T00:00:00Z\", \"state\": \"purchased\", \"transaction_id\": \"\(n)\",}\n"
            } else {
                text +=
                    "{\"ts\": \"2026-10-01T00:00:00Z\", \"user_id\": \"u\(n % 97)\", \"transaction_id\": \"\(1_000_000 + n)\", \"state\": \"purchased\"}\n"
            }
        }
        TestPaths.write(text, to: dir + "/client.jsonl")
        let out = TestPaths.scratch()
        let result = try AuditPipeline.run(AuditOptions(paths: [dir], outputDirectory: out))
        let file = try XCTUnwrap(result.snapshot.files.first)
        XCTAssertEqual(file.recordsIn, Int64(lines))
        XCTAssertEqual(file.recordsImported, Int64(lines - bad.count))
        XCTAssertEqual(file.recordsRejected, Int64(bad.count))
        XCTAssertEqual(try result.snapshot.rejections.all().map(\.location.line).sorted(), bad.sorted())
        let rows =
            try PythonReader.run(
                """
                import json, sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                lines = [r[0] for r in db.execute("SELECT line FROM client_report ORDER BY rowid")]
                print(json.dumps({"count": len(lines), "ordered": lines == sorted(lines), "first": lines[0], "last": lines[-1]}))
                """, args: [out + "/audit.sqlite"]) as! [String: Any]
        XCTAssertEqual(rows["count"] as? Int, lines - bad.count)
        XCTAssertEqual(rows["ordered"] as? Bool, true, "stored in line order")
        XCTAssertEqual(rows["first"] as? Int, 2)
        XCTAssertEqual(rows["last"] as? Int, lines - 1)
        let again = try AuditPipeline.run(AuditOptions(paths: [dir], outputDirectory: out))
        XCTAssertEqual(again.filesParsed, 0)
    }
}
