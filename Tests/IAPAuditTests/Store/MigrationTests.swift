import Foundation
import XCTest

@testable import IAPAudit

/// A version-1 database (as iap-audit 0.1.0 made it) is migrated in place to version 2: its records
/// kept, the new columns filled with their defaults, the views made again; the next run re-reads its
/// files with the new readers.
final class MigrationTests: XCTestCase {
    private static var fixture: String { TestPaths.repoRoot + "/Tests/IAPAuditTests/Fixtures/schema-v1.sql" }

    /// A version-1 database in `folder` holding one verifyReceipt response of `input` with one item.
    private func makeVersion1(in folder: String, input: String) throws {
        _ = try PythonReader.run(
            """
            import json, sqlite3, sys
            db = sqlite3.connect(sys.argv[1] + "/audit.sqlite")
            db.executescript(open(sys.argv[2]).read())
            db.execute("INSERT INTO source_file VALUES (1, ?, 'abc', 10, 'verify_response', 'json', 'imported', 'x', 2, 1, 1, 0)", (sys.argv[3],))
            db.execute("INSERT INTO verify_response (response_id, file_id, line, status, environment, raw_json) VALUES (1, 1, 1, 0, 'Production', '{}')")
            db.execute("INSERT INTO receipt_transaction (response_id, transaction_id, sections) VALUES (1, '1000000000000001', 'in_app')")
            db.commit()
            print(json.dumps(db.execute("PRAGMA user_version").fetchone()[0]))
            """, args: [folder, Self.fixture, input])
    }

    func testVersion1IsMigratedInPlace() throws {
        let folder = TestPaths.scratch()
        try makeVersion1(in: folder, input: folder + "/gone.json")
        let store = try AuditStore(path: folder + "/audit.sqlite")
        let ledger = try store.loadLedger()
        XCTAssertEqual(ledger.verifyResponses.count, 1)
        XCTAssertEqual(ledger.verifyResponses[0].source, .verifyReceipt)
        XCTAssertEqual(ledger.verifyResponses[0].signature, .notChecked)
        XCTAssertEqual(ledger.verifyResponses[0].items.map(\.transactionId), ["1000000000000001"])
        XCTAssertEqual(ledger.verifyResponses[0].items[0].signature, .notChecked)
        let check =
            try PythonReader.run(
                """
                import json, sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                print(json.dumps({"version": db.execute("PRAGMA user_version").fetchone()[0],
                                  "summary": db.execute("SELECT source, signature, records FROM signature_summary").fetchall(),
                                  "views": sorted(r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'view'"))}))
                """, args: [folder + "/audit.sqlite"]) as! [String: Any]
        XCTAssertEqual(check["version"] as? Int, Schema.version)
        XCTAssertEqual((check["summary"] as? [[Any]])?.map { "\($0[0]) \($0[1]) \($0[2])" }, ["verify_receipt not_checked 1"])
        XCTAssertEqual(check["views"] as? [String], Schema.viewNames.sorted())
    }

    func testNextRunReadsTheFilesAgainWithTheNewReaders() throws {
        let folder = TestPaths.scratch()
        let input = TestPaths.realData("nov__itunes-receipt/valid.json")
        try makeVersion1(in: folder, input: input)
        let result = try AuditPipeline.run(AuditOptions(paths: [input], outputDirectory: folder))
        XCTAssertEqual(result.filesParsed, 1, "stored by reader version 2: read again")
        let ledger = try AuditStore(path: folder + "/audit.sqlite").loadLedger()
        XCTAssertEqual(ledger.verifyResponses.map(\.items.count), [1])
        XCTAssertEqual(ledger.verifyResponses[0].items[0].transactionId, "1000000001479608", "the file as read now, not the stored row")
    }

    func testANewerDatabaseIsRefused() throws {
        let folder = TestPaths.scratch()
        _ = try PythonReader.run(
            """
            import json, sqlite3, sys
            db = sqlite3.connect(sys.argv[1] + "/audit.sqlite"); db.execute("PRAGMA user_version = 99"); db.commit(); print(1)
            """, args: [folder])
        XCTAssertThrowsError(try AuditStore(path: folder + "/audit.sqlite")) {
            XCTAssertTrue("\($0)".contains("has schema version 99; this iap-audit knows \(Schema.version)"), "\($0)")
        }
    }
}
