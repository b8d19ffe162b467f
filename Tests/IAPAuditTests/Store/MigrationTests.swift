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

/// An older database (version 1, as iap-audit 0.1.0 made it) is upgraded to the current version when
/// opened: everything it holds is dropped (version 4 names Apple's tables `apple_record` and
/// `apple_transaction`; version 3 keys records differently and keeps facts beside them), the tables and
/// views made again; the next run reads its files again.
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
            db.execute("INSERT INTO verify_response (response_id, file_id, line, status, environment, raw_json) VALUES (1, 1, 1, 0, 'Production', '{\\"password\\": \\"old-secret-9d2b\\"}')")
            db.execute("INSERT INTO receipt_transaction (response_id, transaction_id, sections) VALUES (1, '1000000000000001', 'in_app')")
            db.commit()
            print(json.dumps(db.execute("PRAGMA user_version").fetchone()[0]))
            """, args: [folder, Self.fixture, input])
    }

    private func describe(_ database: String) throws -> [String: Any] {
        try PythonReader.run(
            """
            import json, sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            print(json.dumps({"version": db.execute("PRAGMA user_version").fetchone()[0],
                              "files": db.execute("SELECT path FROM source_file").fetchall(),
                              "items": db.execute("SELECT transaction_id FROM apple_transaction").fetchall(),
                              "columns": [r[1] for r in db.execute("PRAGMA table_info(apple_record)")],
                              "tables": sorted(r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")),
                              "views": sorted(r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'view'"))}))
            """, args: [database]) as! [String: Any]
    }

    /// A version-6 ledger (as iap-audit made it before the ledger kept missing files) is migrated in place: its
    /// records stay, and a file it holds that is no longer given keeps them.
    func testVersion6IsMigratedKeepingItsRecords() throws { try migrates(from: 6) }

    /// A version-7 ledger (before the findings' `loss_at`) is migrated in place as well: the next run stores its
    /// findings' loss dates.
    func testVersion7IsMigratedKeepingItsRecords() throws { try migrates(from: 7) }

    /// A version-8 ledger (before `fact_chunk.checksum`) is migrated in place: the checksums of the facts it keeps are
    /// computed (the next run reads every kept chunk, checked; a checksum left 0 would stop it as a damaged ledger).
    func testVersion8IsMigratedKeepingItsRecords() throws { try migrates(from: 8) }

    func testVersion9IsMigratedKeepingItsRecords() throws { try migrates(from: 9) }

    /// A version-10 ledger (before `manual_action`, `apple_record.asked_transaction_id` and `not_found`/`refuse`) is migrated
    /// in place: its findings are kept through the remade `finding` table.
    func testVersion10IsMigratedKeepingItsRecords() throws { try migrates(from: 10) }

    /// A version-11 ledger (before the lifecycle's `expired`) is migrated in place: `finding_state` and `finding_history`
    /// are made again with their rows, allowing `expired`, and `audit_run` gains `expired`.
    func testVersion11IsMigratedKeepingItsRecords() throws { try migrates(from: 11) }

    /// A ledger of version 5 is rebuilt keeping its lifecycle, whose `finding_state` lacks version 10's `acknowledged_by`:
    /// the column is added, so the next run stores its states and `ack --by` records who.
    func testAKeptLifecycleGainsTheColumnsOfLaterVersions() throws {
        let (input, out, _) = try ledger(of: 9)
        _ = try PythonReader.run(
            """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            db.execute("PRAGMA user_version = 5")
            db.commit()
            print(1)
            """, args: [out + "/audit.sqlite"])
        let result = try AuditPipeline.run(AuditOptions(paths: [input], outputDirectory: out))
        XCTAssertEqual(result.warnings.filter { $0.code == .ledgerUpgraded }.count, 1)
        let id = try XCTUnwrap(
            PythonReader.run(
                "import json, sqlite3, sys; print(json.dumps(sqlite3.connect(sys.argv[1]).execute("
                    + "\"SELECT finding_id FROM finding_state WHERE status = 'open' ORDER BY finding_id LIMIT 1\").fetchone()[0]))",
                args: [out + "/audit.sqlite"]) as? String)
        _ = try FindingAcknowledgement.acknowledge(id, note: "known", by: "alice", outputDirectory: out, nowMs: 1_790_000_000_000)
        let row =
            try PythonReader.run(
                """
                import json, sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                print(json.dumps([db.execute("SELECT acknowledged_by FROM finding_state WHERE finding_id = ?", (sys.argv[2],)).fetchone()[0],
                                  list(db.execute("SELECT code, open_code, status, acknowledged_by, note FROM finding_action WHERE finding_id = ?",
                                                  (sys.argv[2],)).fetchone())]))
                """, args: [out + "/audit.sqlite", id]) as? [Any]
        XCTAssertEqual(row?[0] as? String, "alice")
        XCTAssertEqual((row?[1] as? [Any?])?.compactMap { $0 as? String }.count, 5)
        XCTAssertEqual((row?[1] as? [Any])?[0] as? String, "none")
        XCTAssertEqual((row?[1] as? [Any])?[2] as? String, "acknowledged")
        XCTAssertEqual((row?[1] as? [Any])?[3] as? String, "alice")
        XCTAssertEqual((row?[1] as? [Any])?[4] as? String, "known")
    }

    /// A run killed after the open that migrated the ledger leaves the next run to say it (found by an on-call user test:
    /// the notice and its periods to close again were lost); once a run completes, it is not said again.
    func testAnUpgradeIsSaidByTheRunThatCompletes() throws {
        let (input, out, _) = try ledger(of: 7)
        let killed = try BuiltBinary.run(["run", input, "--out", out], environment: ["IAP_AUDIT_KILL_AT": "import_files"])
        XCTAssertEqual(killed.status, -SIGKILL, killed.err)
        XCTAssertEqual(try describe(out + "/audit.sqlite")["version"] as? Int, 12)
        // A close of 2026-09 since: it is no longer a period to close again (found by a retest); the close says the upgrade
        // too, and leaves it to the next run.
        let close = try BuiltBinary.run(["close", "--period", "2026-09", "--out", out, input])
        XCTAssertEqual(close.status, 0, close.err)
        XCTAssertTrue(close.err.contains("the periods closed before (2026-09)"), close.err)
        let next = try BuiltBinary.run(["run", input, "--out", out])
        XCTAssertEqual(next.status, 0, next.err)
        XCTAssertTrue(
            next.err.contains(
                "iap-audit: warning: the ledger (schema version 7) was migrated to version 12 in place, every record kept: the "
                    + "findings now give loss_at, when each loss happened; its stored facts now carry checksums, checked as they are "
                    + "read; the findings now carry their facts and actions (finding_action); it now keeps people's actions "
                    + "(iap-audit resolve) and Apple's answers by id (iap-audit ask-apple); its lifecycle now records a finding "
                    + "whose grace ran out as expired, not resolved\n"),
            next.err)
        let third = try BuiltBinary.run(["run", input, "--out", out])
        XCTAssertFalse(third.err.contains("was migrated"), third.err)
    }

    /// A ledger made from a copy of the sample's client and server logs, taken back to `version` (without the later
    /// versions' columns, with its fingerprint; of version 7, with a close of 2026-09): its input folder, its folder, and
    /// how many client reports it holds.
    private func ledger(of version: Int) throws -> (input: String, out: String, records: Int?) {
        let input = TestPaths.scratch("migrates\(version)"), out = TestPaths.scratch("migrated\(version)")
        try FileManager.default.copyItem(atPath: TestPaths.repoRoot + "/sample-data/client.jsonl", toPath: input + "/client.jsonl")
        try FileManager.default.copyItem(atPath: TestPaths.repoRoot + "/sample-data/server.jsonl", toPath: input + "/server.jsonl")
        _ = try AuditPipeline.run(AuditOptions(paths: [input], outputDirectory: out))
        let records =
            try PythonReader.run(
                """
                import json, sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                if sys.argv[3] == "6":
                    for column in ("given", "mtime_ns", "inode", "content_sha256"): db.execute(f"ALTER TABLE source_file DROP COLUMN {column}")
                if sys.argv[3] in ("6", "7"):
                    for column in ("loss_at", "loss_at_ms"): db.execute(f"ALTER TABLE finding DROP COLUMN {column}")
                    db.execute("ALTER TABLE close_loss DROP COLUMN loss_at_ms")
                if int(sys.argv[3]) <= 11:
                    # Version 12's lifecycle: the CHECKs without 'expired', audit_run without its count.
                    for (view,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'view'").fetchall(): db.execute(f"DROP VIEW {view}")
                    db.execute("ALTER TABLE audit_run DROP COLUMN expired")
                    for table in ("finding_state", "finding_history"):
                        extras = [r[0] for r in db.execute("SELECT sql FROM sqlite_master WHERE tbl_name = ? AND type IN ('index', 'trigger') "
                                                           "AND sql IS NOT NULL", (table,))]
                        sql = db.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)).fetchone()[0]
                        db.execute(f"ALTER TABLE {table} RENAME TO old_{table}")
                        db.execute(sql.replace(", 'expired'", ""))
                        db.execute(f"INSERT INTO {table} SELECT * FROM old_{table}")
                        db.execute(f"DROP TABLE old_{table}")
                        for extra in extras: db.execute(extra)
                if sys.argv[3] not in ("9", "10", "11"):
                    db.execute("ALTER TABLE fact_chunk DROP COLUMN checksum")
                if sys.argv[3] not in ("10", "11"):
                    db.execute("ALTER TABLE finding DROP COLUMN facts")
                    db.execute("ALTER TABLE finding_state DROP COLUMN acknowledged_by")
                    db.execute("DROP TABLE finding_action")
                if sys.argv[3] != "11":
                    db.execute("ALTER TABLE apple_record DROP COLUMN asked_transaction_id")
                    db.execute("DROP TABLE manual_action")
                if sys.argv[3] == "7":
                    db.execute("INSERT INTO close_period VALUES ('2026-09', 'gregorian', 'UTC', '2026-09-01', '2026-09-30', 0, 0, '[]', NULL, NULL)")
                db.execute("UPDATE ledger_schema SET value = ? WHERE name = 'tables'", (sys.argv[2],))
                db.execute(f"PRAGMA user_version = {sys.argv[3]}")
                db.commit()
                print(json.dumps(db.execute("SELECT count(*) FROM client_report").fetchone()[0]))
                """,
                args: [
                    out + "/audit.sqlite",
                    [
                        6: Schema.version6Fingerprint, 7: Schema.version7Fingerprint, 8: Schema.version8Fingerprint,
                        9: Schema.version9Fingerprint, 10: Schema.version10Fingerprint, 11: Schema.version11Fingerprint,
                    ][version]!, "\(version)",
                ])
            as? Int
        return (input, out, records)
    }

    private func migrates(from version: Int) throws {
        let (input, out, records) = try ledger(of: version)
        XCTAssertGreaterThan(records ?? 0, 2000)
        try FileManager.default.removeItem(atPath: input + "/client.jsonl")
        TestPaths.write("{}\n", to: input + "/other.jsonl")
        let result = try AuditPipeline.run(AuditOptions(paths: [input], outputDirectory: out))
        XCTAssertEqual(
            result.snapshot.recordCounts["client_report"], records.map(Int64.init), "kept through the migration and the file's absence")
        XCTAssertEqual(result.warnings.filter { $0.code == .inputVanished }.map(\.file), [input + "/client.jsonl"])
        XCTAssertEqual(try describe(out + "/audit.sqlite")["version"] as? Int, 12)
        // Version 12's lifecycle tables: `expired` allowed, and counted by the run that migrated (the ledger's first recorded).
        XCTAssertEqual(
            try PythonReader.run(
                """
                import json, sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                print(json.dumps([int(all("'expired'" in db.execute("SELECT sql FROM sqlite_master WHERE name = ?", (t,)).fetchone()[0]
                                      for t in ("finding_state", "finding_history"))),
                                  db.execute("SELECT group_concat(run || ':' || expired) FROM audit_run").fetchone()[0],
                                  db.execute("SELECT count(DISTINCT run) FROM finding_history").fetchone()[0]]))
                """, args: [out + "/audit.sqlite"]) as? [AnyHashable], [1, "1:0", 1])
        // Said, once (found by a user test: the upgrade was silent).
        XCTAssertEqual(
            result.warnings.filter { $0.code == .ledgerUpgraded }.map(\.message),
            [
                "the ledger (schema version \(version)) was migrated to version 12 in place, every record kept: "
                    + (version < 8 ? "the findings now give loss_at, when each loss happened; " : "")
                    + (version < 9 ? "its stored facts now carry checksums, checked as they are read; " : "")
                    + (version < 10 ? "the findings now carry their facts and actions (finding_action); " : "")
                    + (version < 11
                        ? "it now keeps people's actions (iap-audit resolve) and Apple's answers by id (iap-audit ask-apple); " : "")
                    + "its lifecycle now records a finding whose grace ran out as expired, not resolved"
                    + (version == 7
                        ? "; the periods closed before (2026-09) booked each loss when its finding was first seen: close them again to "
                            + "book it when it happened (a figure that moves is said, close_restated)" : "")
            ])
        // The schema is part of a run's identity: the first run after an upgrade is a new run, not a re-run.
        XCTAssertTrue(
            (try PythonReader.run(
                "import json, sqlite3, sys; print(json.dumps(sqlite3.connect(sys.argv[1]).execute("
                    + "'SELECT parameters FROM audit_run ORDER BY run DESC LIMIT 1').fetchone()[0]))", args: [out + "/audit.sqlite"])
                as? String)?.contains("\nschema 12\n") ?? false)
        let again = try AuditPipeline.run(AuditOptions(paths: [input], outputDirectory: out))
        XCTAssertEqual(again.warnings.filter { $0.code == .ledgerUpgraded }.count, 0)
        let losses =
            try PythonReader.run(
                """
                import json, sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                print(json.dumps(db.execute("SELECT count(*), count(loss_at_ms), count(*) FILTER (WHERE loss_at_ms >= first_seen_ms) "
                                            "FROM finding WHERE kind NOT IN ('verification_backlog', " + sys.argv[2] + ")").fetchone()))
                """, args: [out + "/audit.sqlite", FindingKind.infos.map { "'\($0.rawValue)'" }.joined(separator: ", ")]) as? [Int]
        XCTAssertGreaterThan(losses?.first ?? 0, 10)
        XCTAssertEqual(Set(losses ?? []).count, 1, "every problem finding has its loss date: \(String(describing: losses))")
    }

    func testVersion1IsUpgradedWithoutItsRecords() throws {
        let folder = TestPaths.scratch()
        try makeVersion1(in: folder, input: folder + "/gone.json")
        _ = try AuditStore(path: folder + "/audit.sqlite")
        let check = try describe(folder + "/audit.sqlite")
        XCTAssertEqual(check["version"] as? Int, Schema.version)
        XCTAssertEqual((check["files"] as? [Any])?.count, 0, "its files are read again by the next run")
        XCTAssertEqual((check["items"] as? [Any])?.count, 0)
        XCTAssertEqual((check["columns"] as? [String])?.contains("signature"), true, "the current columns")
        XCTAssertEqual(check["views"] as? [String], Schema.viewNames.sorted())
        XCTAssertEqual(
            check["tables"] as? [String],
            [
                "apple_record", "apple_transaction", "audit_run", "client_report", "close_bridge", "close_loss", "close_period",
                "close_refund", "close_sale", "close_total", "fact_chunk",
                "financial_report_line", "financial_report_total",
                "finding", "finding_action", "finding_history", "finding_state", "ledger_schema", "manual_action", "payment_summary_line",
                "pending_renewal",
                "rejection",
                "run_input", "run_parameter", "run_warning",
                "sales_report_line", "server_request", "source_file", "subscriber_report_line", "subscription_event_line",
                "subscription_report_line", "verify_status_code",
            ], "version 1's verify_response and receipt_transaction are gone")
        // Older versions stored the app's shared secret verbatim: no page of the dropped ledger keeps it.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: folder + "/audit.sqlite"))
        XCTAssertNil(bytes.range(of: Data("old-secret-9d2b".utf8)), "the dropped ledger's pages are wiped (SECURE_DELETE, VACUUM)")
    }

    func testNextRunReadsTheFilesAgainWithTheNewReaders() throws {
        let folder = TestPaths.scratch()
        let input = try TestPaths.realData("nov__itunes-receipt/valid.json")
        try makeVersion1(in: folder, input: input)
        let result = try AuditPipeline.run(AuditOptions(paths: [input], outputDirectory: folder))
        XCTAssertEqual(result.filesParsed, 1, "stored by an older version: read again")
        let ledger = try AuditStore(path: folder + "/audit.sqlite").loadLedger()
        XCTAssertEqual(ledger.appleRecords.map(\.items.count), [1])
        XCTAssertEqual(ledger.appleRecords[0].items[0].transactionId, "1000000001479608", "the file as read now, not the stored row")
        XCTAssertEqual((try describe(folder + "/audit.sqlite")["items"] as? [[String]]), [["1000000001479608"]])
    }

    /// A ledger of this version whose tables were declared otherwise (a field added to a record since)
    /// is dropped whole when opened, and the next run reads its files again.
    func testALedgerOfOtherlyDeclaredTablesIsReadAgain() throws {
        let folder = TestPaths.scratch()
        let input = try TestPaths.realData("nov__itunes-receipt/valid.json")
        _ = try AuditPipeline.run(AuditOptions(paths: [input], outputDirectory: folder))
        _ = try PythonReader.run(
            """
            import json, sqlite3, sys
            db = sqlite3.connect(sys.argv[1] + "/audit.sqlite")
            db.execute("UPDATE ledger_schema SET value = 'made-by-another-declaration' WHERE name = 'tables'")
            db.commit()
            print(1)
            """, args: [folder])
        let store = try AuditStore(path: folder + "/audit.sqlite")
        XCTAssertEqual(try store.storedFiles().count, 0, "dropped when opened")
        XCTAssertEqual(store.schemaChange, .rebuilt(from: 12))
        // Kept until a run completes.
        XCTAssertEqual(try AuditStore(path: folder + "/audit.sqlite").schemaChange, .rebuilt(from: 12))
        let again = try AuditPipeline.run(AuditOptions(paths: [input], outputDirectory: folder))
        XCTAssertEqual(again.filesParsed, 1)
        XCTAssertEqual(try describe(folder + "/audit.sqlite")["items"] as? [[String]], [["1000000001479608"]])
        XCTAssertEqual(again.warnings.filter { $0.code == .ledgerUpgraded }.count, 1)
        XCTAssertEqual(try AuditStore(path: folder + "/audit.sqlite").schemaChange, nil)
        let unchanged = try AuditPipeline.run(AuditOptions(paths: [input], outputDirectory: folder))
        XCTAssertEqual(unchanged.filesParsed, 0, "the same declaration: kept")
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

    /// Another program's database where audit.sqlite goes is refused and left as it is (no tables added).
    func testAnotherProgramsDatabaseIsRefusedAndLeftAlone() throws {
        let folder = TestPaths.scratch()
        _ = try PythonReader.run(
            """
            import json, sqlite3, sys
            db = sqlite3.connect(sys.argv[1] + "/audit.sqlite"); db.execute("CREATE TABLE orders (id)"); db.commit(); print(1)
            """, args: [folder])
        let run = CLIRun(["run", TestPaths.repoRoot + "/sample-data/client.jsonl", "--out", folder])
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(
            run.err,
            "iap-audit: \(folder)/audit.sqlite: error: cannot write output: another program's SQLite database (not iap-audit's); "
                + "it is left as it is: choose another --out")
        let tables =
            try PythonReader.run(
                """
                import json, sqlite3, sys
                db = sqlite3.connect(sys.argv[1] + "/audit.sqlite")
                print(json.dumps([r[0] for r in db.execute("SELECT name FROM sqlite_schema")]))
                """, args: [folder]) as? [String]
        XCTAssertEqual(tables, ["orders"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder + "/audit.xlsx"))
    }
}
