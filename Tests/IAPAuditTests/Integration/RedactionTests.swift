import Foundation
import XCTest

@testable import IAPAuditCLI
@testable import IAPAuditCrypto
@testable import IAPAuditModel

/// `--redact`, `--redact-key`, `--redact-ledger` (docs/operations.md, "Redaction") on the sample month and the
/// real data: no original user or device id in the workbooks, the JSON or stderr; each finding's users as the
/// HMAC Python computes; the ledger keeps the ids unless `--redact-ledger`; the key nowhere.
final class RedactionTests: XCTestCase {
    static let key = "redaction-test-key-4b1d9e77c2a05f38"
    var sample: String { TestPaths.repoRoot + "/sample-data" }
    var sampleRun: [String] { ["run", sample, "--config", sample + "/config.json"] }

    func testTheSampleRunShowsTokensOnlyAndTheLedgerKeepsTheIds() throws {
        let key = RedactionCheck.keyFile(Self.key), out = TestPaths.scratch()
        let run = CLIRun(sampleRun + ["--out", out, "--redact", "--redact-key", key, "--json"])
        XCTAssertEqual(run.status, 0, run.err)
        let look = try RedactionCheck.look(out: out, key: Self.key, inputs: [sample], captured: run.out + "\n" + run.err)
        XCTAssertEqual(look["users"] as? Int, 450)
        XCTAssertEqual(look["devices"] as? Int, 513)
        XCTAssertEqual(look["leaked"] as? [String: [String]], [:])
        XCTAssertEqual(look["captured_leaks"] as? [String], [])
        XCTAssertEqual(look["mismatched"] as? [[String]], [])
        XCTAssertEqual(look["finding_rows"] as? Int, 164, "every finding row checked against the HMAC")
        XCTAssertEqual(look["user_tokens_known"] as? Int, look["tokens"] as? Int, "every token on the sheets is a known user's")
        XCTAssertGreaterThan(look["tokens"] as? Int ?? 0, 100)
        XCTAssertEqual(look["token_u1"] as? String, HMACSHA256.redactor(key: Array(Self.key.utf8)).user("u1"))
        XCTAssertEqual((look["ledger_users"] as? [String])?.count, 442, "the ledger keeps the original ids (the clients' users)")
        XCTAssertEqual((look["ledger_originals"] as? [String])?.isEmpty, false)
        XCTAssertEqual(look["key_in_captured"] as? Bool, false)
        XCTAssertEqual(look["files_with_key"] as? [String], [])
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any])
        // 112 before rule 26: the purchase after the logs end (2000000400594857) is pending evidence now.
        XCTAssertEqual((json["findings"] as? [String: Any])?["problems"] as? Int, 111)
        // The same findings and tokens again: a second key gives other tokens, the same key the same ones.
        let again = CLIRun(sampleRun + ["--out", out, "--redact", "--redact-key", key])
        XCTAssertEqual(again.status, 0, again.err)
        XCTAssertTrue(again.out.contains("run 1 again"), again.out)
        XCTAssertEqual(try RedactionCheck.look(out: out, key: Self.key, inputs: [sample], captured: "")["mismatched"] as? [[String]], [])
    }

    func testARedactedLedgerHoldsTokensOnlyAndRefusesAnotherKeyOrNone() throws {
        let key = RedactionCheck.keyFile(Self.key), out = TestPaths.scratch(), shown = TestPaths.scratch()
        let run = CLIRun(sampleRun + ["--out", out, "--redact-ledger", "--redact-key", key, "--json"])
        XCTAssertEqual(run.status, 0, run.err)
        let look = try RedactionCheck.look(
            out: out, key: Self.key, inputs: [sample], captured: run.out + "\n" + run.err, ledgerRedacted: true)
        XCTAssertEqual(look["ledger_originals"] as? [String], [])
        XCTAssertEqual(look["ledger_non_tokens"] as? [String], [])
        XCTAssertEqual(look["sqlite_holds_long_ids"] as? [String], [])
        XCTAssertEqual(look["leaked"] as? [String: [String]], [:])
        XCTAssertEqual(look["mismatched"] as? [[String]], [])
        XCTAssertEqual((look["ledger_users"] as? [String])?.count, 442, "one token per client user: the ids still join")
        XCTAssertEqual(look["files_with_key"] as? [String], [])
        // The same findings, and the same tokens on the sheets, as --redact over a ledger of originals.
        let outputs = CLIRun(sampleRun + ["--out", shown, "--redact", "--redact-key", key, "--json"])
        let (a, b) = try (
            XCTUnwrap(JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any]),
            XCTUnwrap(JSONSerialization.jsonObject(with: Data(outputs.out.utf8)) as? [String: Any])
        )
        XCTAssertEqual(
            (a["findings"] as? [String: Any])?["by_kind"] as? [String: [String: Int]],
            (b["findings"] as? [String: Any])?["by_kind"] as? [String: [String: Int]])
        let rows =
            try PythonReader.run(
                PythonReader.xlsxPrelude + """
                    # A finding's users are listed in the order of their ids: tokens sort otherwise than originals.
                    def cell(c):
                        s = str(c)
                        return ", ".join(sorted(s.split(", "))) if re.fullmatch(r'[ud]_[0-9a-f]{16}(, [ud]_[0-9a-f]{16})*', s) else s
                    rows = []
                    for path in sys.argv[1:]:
                        wb = openpyxl.load_workbook(path)
                        rows.append(sorted([cell(c) for c in r] for ws in wb.worksheets for r in ws.iter_rows(values_only=True)
                                           if ws.title not in ("Summary", "Changes")))
                    print(json.dumps(rows[0] == rows[1]))
                    """, args: [out + "/audit.xlsx", shown + "/audit.xlsx"]) as? Bool
        XCTAssertEqual(rows, true, "the two workbooks' finding sheets are the same")
        let parameter =
            try PythonReader.run(
                "import sqlite3, sys, json; print(json.dumps(sqlite3.connect(sys.argv[1]).execute("
                    + "\"SELECT value FROM run_parameter WHERE name = 'redaction'\").fetchone()[0]))", args: [out + "/audit.sqlite"])
            as? String
        let fingerprint = HMACSHA256.redactor(key: Array(Self.key.utf8)).fingerprint
        XCTAssertEqual(parameter, "ledger, key \(fingerprint)")

        // Mixing is refused, naming the fingerprint; the ledger is left as it was.
        let plain = CLIRun(sampleRun + ["--out", out])
        XCTAssertEqual(plain.status, 1)
        XCTAssertTrue(plain.err.contains("this ledger holds redacted ids (made with --redact-ledger, key \(fingerprint))"), plain.err)
        let outputsOnly = CLIRun(sampleRun + ["--out", out, "--redact", "--redact-key", key])
        XCTAssertEqual(outputsOnly.status, 1, outputsOnly.err)
        let other = RedactionCheck.keyFile("another-key-of-more-than-16-bytes")
        let otherKey = CLIRun(sampleRun + ["--out", out, "--redact-ledger", "--redact-key", other, "--json"])
        XCTAssertEqual(otherKey.status, 1)
        XCTAssertTrue(otherKey.err.contains("this ledger was redacted with another key (\(fingerprint);"), otherKey.err)
        XCTAssertTrue(otherKey.out.contains(#""exit":1"#), otherKey.out)
        XCTAssertFalse((plain.err + otherKey.err + otherKey.out).contains("another-key-of"), "no key in a message")
        // Into a ledger of originals, --redact-ledger is refused too.
        let takeOver = CLIRun(sampleRun + ["--out", shown, "--redact-ledger", "--redact-key", key])
        XCTAssertEqual(takeOver.status, 1)
        XCTAssertTrue(takeOver.err.contains("--redact-ledger: this ledger holds original ids from earlier runs"), takeOver.err)
        // The same key again: a re-run of the redacted ledger.
        let same = CLIRun(sampleRun + ["--out", out, "--redact-ledger", "--redact-key", key])
        XCTAssertEqual(same.status, 0, same.err)
        XCTAssertTrue(same.out.contains("run 1 again"), same.out)
    }

    func testTheCloseWorkbookShowsTokens() throws {
        let key = RedactionCheck.keyFile(Self.key), out = TestPaths.scratch()
        let run = CLIRun([
            "close", "--period", "2026-10", "--prices", sample + "/prices.csv", sample, "--config", sample + "/config.json", "--out", out,
            "--redact", "--redact-key", key, "--json",
        ])
        XCTAssertEqual(run.status, 0, run.err)
        let look = try RedactionCheck.look(
            out: out, workbook: "close-2026-10.xlsx", key: Self.key, inputs: [sample], captured: run.out + "\n" + run.err)
        XCTAssertEqual(look["leaked"] as? [String: [String]], [:])
        XCTAssertEqual(look["captured_leaks"] as? [String], [])
        XCTAssertGreaterThan(look["user_tokens_known"] as? Int ?? 0, 50, "the Losses sheet's users")
        XCTAssertEqual(look["user_tokens_known"] as? Int, look["tokens"] as? Int)
        XCTAssertEqual(look["files_with_key"] as? [String], [])
        // The close writes no audit.xlsx (the ledger's findings stay the last run's: none here).
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/audit.xlsx"))
    }

    /// The real data (read in place): app account tokens of real JWS transactions are users too.
    func testTheRealDataShowsTokensOnly() throws {
        let key = RedactionCheck.keyFile(Self.key), out = TestPaths.scratch()
        let run = CLIRun(["run", try TestPaths.realData, "--out", out, "--redact", "--redact-key", key, "--json"])
        XCTAssertEqual(run.status, 0, run.err)
        let look = try RedactionCheck.look(out: out, key: Self.key, inputs: [try TestPaths.realData], captured: run.out + "\n" + run.err)
        XCTAssertGreaterThan(look["users"] as? Int ?? 0, 0, "\(look)")
        XCTAssertEqual(look["leaked"] as? [String: [String]], [:])
        XCTAssertEqual(look["captured_leaks"] as? [String], [])
        XCTAssertEqual(look["mismatched"] as? [[String]], [])
        XCTAssertEqual(look["files_with_key"] as? [String], [])
        XCTAssertEqual(look["key_in_captured"] as? Bool, false)
    }
}
