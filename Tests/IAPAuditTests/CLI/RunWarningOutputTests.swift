import Foundation
import XCTest

@testable import IAPAuditCLI
@testable import IAPAuditModel
@testable import IAPAuditPipeline
@testable import IAPAuditReport
@testable import IAPAuditStore

/// A run's warnings reach every output: stderr, `--json`, table `run_warning` (read with Python's
/// sqlite3) and the Warnings block at the top of the Summary sheet (read with openpyxl).
final class RunWarningOutputTests: XCTestCase {
    static let noConfig =
        "no products, bundle_ids or sandbox_allowlist configured (--config): product types are unknown (a second grant counts as a "
        + "consumable's same_user duplicate), bundle ids are not checked, and no user is on the sandbox allowlist"
    static let noServerLog =
        "no server-log record was imported: nothing the server credited is known, so every purchase the client reported or Apple "
        + "listed shows as never credited (dropped_order); pass the server's transaction log too"
    static let noJWSAnchor =
        "no JWS trust anchor: every signed transaction and notification is untrusted_root; put Apple Root CA - G3 at "
        + "certs/AppleRootCA-G3.cer or name it in jws_trust_anchors (README: Trust anchors)"
    static let noReceiptAnchor =
        "no receipt trust anchor: every PKCS#7 app receipt is untrusted_root; put the Apple Inc. Root Certificate at "
        + "certs/AppleIncRootCertificate.cer or name it in receipt_trust_anchors (README: Trust anchors)"

    /// Client reports, a real signed transaction and a real (empty) app receipt, no server log, no config, no trust
    /// anchor (certs/ holds none): each anchor's warning, as the run holds a JWS and a PKCS#7 receipt.
    func testARunWithoutServerLogAndTrustAnchorsShowsItsWarningsInEveryOutput() throws {
        let input = TestPaths.scratch(), out = TestPaths.scratch()
        TestPaths.write(
            #"{"ts":"2026-10-01T12:00:00Z","user_id":"u1","transaction_id":"2000000400000001","product_id":"p","state":"purchased"}"#,
            to: input + "/client.jsonl")
        try FileManager.default.copyItem(
            atPath: try TestPaths.realData("apple__app-store-server-library-swift/transactionInfo"), toPath: input + "/transactionInfo")
        try FileManager.default.copyItem(
            atPath: try TestPaths.realData("apple__app-store-server-library-swift/xcode-app-receipt-empty"), toPath: input + "/receipt")
        let run = CLIRun(["run", input, "--out", out, "--json"])
        XCTAssertEqual(run.status, 0, run.err)
        let expected: [(code: String, message: String)] = [
            ("no_config", Self.noConfig), ("no_server_log", Self.noServerLog), ("no_trust_anchor", Self.noJWSAnchor),
            ("no_trust_anchor", Self.noReceiptAnchor),
        ]
        XCTAssertEqual(run.err, expected.map { "iap-audit: warning: " + $0.message }.joined(separator: "\n"))

        let summary = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any])
        let json = try XCTUnwrap(summary["warnings"] as? [[String: Any]])
        XCTAssertEqual(json.map { $0["code"] as? String }, expected.map(\.code))
        XCTAssertEqual(json.map { $0["message"] as? String }, expected.map(\.message))
        XCTAssertTrue(json.allSatisfy { $0["file"] is NSNull && $0.count == 3 }, "\(json)")

        let stored =
            try PythonReader.run(
                """
                import json, sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                print(json.dumps(db.execute("SELECT code, message, file FROM run_warning ORDER BY rowid").fetchall()))
                """, args: [out + "/audit.sqlite"]) as! [[Any]]
        XCTAssertEqual(stored.map { $0[0] as? String }, expected.map(\.code))
        XCTAssertEqual(stored.map { $0[1] as? String }, expected.map(\.message))
        XCTAssertTrue(stored.allSatisfy { $0[2] is NSNull })

        let sheet = try Self.summaryTop(out + "/audit.xlsx", rows: 8)
        XCTAssertEqual(sheet[0], ["Warnings: 4, read them first: they qualify the numbers below", nil, nil])
        XCTAssertEqual(sheet[1], ["warning", "code", "file"])
        for (row, warning) in expected.enumerated() {
            XCTAssertEqual(sheet[2 + row], [warning.message, warning.code, nil], "row \(3 + row)")
        }
        XCTAssertEqual(sheet[6], [nil, nil, nil], "a blank row, then the run's parameters")
        XCTAssertEqual(sheet[7], ["Run", nil, nil])
    }

    /// A run with nothing to warn about says so in one line at the top of the Summary, and stores no warning.
    func testARunWithoutWarningsSaysSo() throws {
        let out = TestPaths.scratch()
        // One purchase, verified in production and credited, with a config: nothing to warn about.
        let input = TestPaths.scratch()
        TestPaths.write(
            #"{"ts": "2026-10-01T09:00:00Z", "user_id": "u1", "transaction_id": "1000000000000001", "product_id": "p", "state": "purchased"}"#,
            to: input + "/client.jsonl")
        TestPaths.write(
            #"{"ts": "2026-10-01T09:00:02Z", "request_id": "r1", "user_id": "u1", "transaction_ids": ["1000000000000001"], "granted": true}"#,
            to: input + "/server.jsonl")
        TestPaths.write(
            #"{"request_id": "r1", "received_at": "2026-10-01T09:00:03Z", "response": {"status": 0, "environment": "Production", "#
                + #""receipt": {"receipt_type": "Production", "bundle_id": "com.example.app", "in_app": [{"quantity": "1", "product_id": "p", "#
                + #""transaction_id": "1000000000000001", "original_transaction_id": "1000000000000001", "purchase_date_ms": "1790845200000"}]}}}"#,
            to: input + "/verify.jsonl")
        TestPaths.write(#"{"bundle_ids": ["com.example.app"], "products": {"p": "consumable"}}"#, to: input + "/config.json")
        let run = CLIRun(["run", input, "--out", out, "--config", input + "/config.json"])
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertFalse(run.err.contains("warning"), run.err)
        let sheet = try Self.summaryTop(out + "/audit.xlsx", rows: 3)
        XCTAssertEqual(sheet, [["Warnings: none (nothing qualifies the numbers below)", nil, nil], [nil, nil, nil], ["Run", nil, nil]])
        let count =
            try PythonReader.run(
                "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT count(*) FROM run_warning').fetchone()[0])",
                args: [out + "/audit.sqlite"]) as? Int
        XCTAssertEqual(count, 0)
    }

    /// A file the last run into `--out` imported and this run was not given: its records stay in the ledger,
    /// and the warning says which file, how many and how to drop them (said the first run without it);
    /// `--forget-missing` drops them, and says so.
    func testAVanishedInputIsNamedWithTheRecordsItKeeps() throws {
        let input = TestPaths.scratch(), out = TestPaths.scratch()
        for name in ["client.jsonl", "server.jsonl", "verify.jsonl"] {
            try FileManager.default.copyItem(atPath: TestPaths.repoRoot + "/sample-data/" + name, toPath: input + "/" + name)
        }
        let config = ["--config", TestPaths.repoRoot + "/sample-data/config.json"]
        let first = CLIRun(["run", input, "--out", out, "--json"] + config)
        XCTAssertEqual(first.status, 0, first.err)
        // The sample's planted environment conflicts and iOS 6 answers (no environment) are warned about in
        // every run (rule 24); this test is about the others.
        let others = { (err: String) in
            err.components(separatedBy: "\n").filter {
                !$0.isEmpty && !$0.contains("environment signals disagree") && !$0.contains("name no environment")
            }
        }
        XCTAssertEqual(others(first.err), [])
        try FileManager.default.removeItem(atPath: input + "/server.jsonl")
        let second = CLIRun(["run", input, "--out", out, "--json"] + config)
        XCTAssertEqual(second.status, 0, second.err)
        let lines = try String(contentsOfFile: TestPaths.repoRoot + "/sample-data/server.jsonl", encoding: .utf8).split(separator: "\n")
            .count
        let message =
            "\(input)/server.jsonl: not given this run: its \(CountText.grouped(Int64(lines))) records were KEPT in the ledger "
            + "(imported by an earlier run); to drop them, run with --forget-missing"
        XCTAssertEqual(others(second.err), ["iap-audit: warning: " + message])
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(second.out.utf8)) as? [String: Any])
        let warning = try XCTUnwrap((json["warnings"] as? [[String: Any]])?.first)
        XCTAssertEqual(warning["code"] as? String, "input_vanished")
        XCTAssertEqual(warning["file"] as? String, input + "/server.jsonl")
        XCTAssertEqual(warning["message"] as? String, message)
        let kept = try XCTUnwrap((json["files"] as? [[String: Any]])?.first { ($0["path"] as? String)?.hasSuffix("/server.jsonl") == true })
        XCTAssertEqual(kept["imported"] as? Int, lines, "the summary lists it, with its records")
        XCTAssertEqual((kept["note"] as? String)?.hasSuffix(" (kept in the ledger: not given this run)"), true, "\(kept)")
        let stored =
            try PythonReader.run(
                """
                import json, sqlite3, sys
                print(json.dumps(sqlite3.connect(sys.argv[1]).execute("SELECT code, message, file FROM run_warning").fetchall()))
                """, args: [out + "/audit.sqlite"]) as! [[Any]]
        XCTAssertEqual(
            stored.map { $0.map { $0 as? String } }.filter { !($0[0] ?? "").hasPrefix("environment_") },
            [["input_vanished", message, input + "/server.jsonl"]])
        XCTAssertEqual(try Self.summaryTop(out + "/audit.xlsx", rows: 3)[2], [message, "input_vanished", input + "/server.jsonl"])
        let third = CLIRun(["run", input, "--out", out] + config)
        XCTAssertEqual(others(third.err), [], "said once: the first run without it")

        let forget = CLIRun(["run", input, "--out", out, "--forget-missing"] + config)
        let removed =
            "\(input)/server.jsonl: not given this run: its \(CountText.grouped(Int64(lines))) records were removed from the ledger "
            + "(--forget-missing)"
        XCTAssertEqual(others(forget.err), ["iap-audit: warning: " + removed, "iap-audit: warning: " + Self.noServerLog])
        let after = CLIRun(["run", input, "--out", out, "--forget-missing"] + config)
        XCTAssertEqual(others(after.err), ["iap-audit: warning: " + Self.noServerLog], "said once: the ledger now holds what is given")
    }

    /// The sentence, by what stays or left the ledger; a file that held no record (skipped, empty) leaves nothing behind.
    func testTheVanishedWarningCountsWhatLeft() {
        func message(_ imported: Int64, _ rejected: Int64, status: String = "imported", _ why: LedgerImporter.Vanished = .kept) -> String? {
            LedgerImporter.vanished(
                "f.jsonl", StoredFile(sha256: "", note: "", status: status, recordsImported: imported, recordsRejected: rejected), why)?
                .message
        }
        let tail = "KEPT in the ledger (imported by an earlier run); to drop them, run with --forget-missing"
        XCTAssertEqual(message(1, 0), "f.jsonl: not given this run: its 1 record was " + tail)
        XCTAssertEqual(message(5254, 3), "f.jsonl: not given this run: its 5,254 records (and 3 rejected) were " + tail)
        XCTAssertEqual(message(0, 2, status: "rejected"), "f.jsonl: not given this run: its 2 rejected records were " + tail)
        XCTAssertEqual(
            message(2, 0, .forgotten), "f.jsonl: not given this run: its 2 records were removed from the ledger (--forget-missing)")
        XCTAssertEqual(
            message(2, 0, .otherReader),
            "f.jsonl: not given this run: its 2 records were removed from the ledger: read by another iap-audit version, they cannot "
                + "be kept (give the file again to keep them)")
        XCTAssertNil(message(0, 0, status: "skipped"))
        XCTAssertEqual(CountText.grouped(1_000_000), "1,000,000")
        XCTAssertEqual(CountText.grouped(999), "999")
    }

    /// The first `rows` rows of the Summary sheet, columns A to C, as openpyxl reads them.
    static func summaryTop(_ workbook: String, rows: Int) throws -> [[String?]] {
        let values =
            try PythonReader.run(
                """
                import json, sys, openpyxl
                ws = openpyxl.load_workbook(sys.argv[1])["Summary"]
                print(json.dumps([[c.value for c in row] for row in ws.iter_rows(min_row=1, max_row=int(sys.argv[2]), max_col=3)]))
                """, args: [workbook, String(rows)]) as! [[Any]]
        return values.map { $0.map { $0 as? String } }
    }
}

extension RunWarningOutputTests {
    /// A run holding JWS but no PKCS#7 receipt is not told about a missing receipt anchor (found while
    /// building the close's sample), and the reverse.
    func testOnlyTheAnchorsOfWhatTheRunHoldsAreWarnedAbout() throws {
        for (file, expected) in [("transactionInfo", Self.noJWSAnchor), ("xcode-app-receipt-empty", Self.noReceiptAnchor)] {
            let input = TestPaths.scratch()
            try FileManager.default.copyItem(
                atPath: try TestPaths.realData("apple__app-store-server-library-swift/" + file), toPath: input + "/" + file)
            let result = try AuditPipeline.run(AuditOptions(paths: [input], outputDirectory: input + "/out"))
            XCTAssertEqual(result.warnings.filter { $0.code == .noTrustAnchor }.map(\.message), [expected], file)
        }
    }
}
