import Foundation
import XCTest

@testable import IAPAuditCLI
@testable import IAPAuditCrypto
@testable import IAPAuditModel

/// The key of `--redact`: usage errors (exit 64) that never show it, the environment variable, and rejected
/// lines (their text and quoted ids) kept out of the outputs and, under `--redact-ledger`, out of the ledger.
final class RedactionKeyTests: XCTestCase {
    static let key = "key-test-9d3e1f0a7b6c5d4e"

    /// The options of each key that is a usage error (exit 64), and what the message says; `openKeyFlag` goes with
    /// the key file every user may read (`trace` takes no `--redact-ledger`), `missing` is no file.
    static func keyErrorCases(openKeyFlag: String, missing: String) -> [([String], String)] {
        [
            (
                ["--redact"],
                "--redact needs a key: --redact-key FILE (a file other users cannot read: chmod 600) or the environment variable "
                    + "IAP_AUDIT_REDACT_KEY"
            ),
            (["--redact", "--redact-key", RedactionCheck.keyFile("short-secret")], "the key is 12 bytes, shorter than 16"),
            (["--redact", "--redact-key", RedactionCheck.keyFile("")], "the key is empty"),
            (
                [openKeyFlag, "--redact-key", RedactionCheck.keyFile(Self.key, mode: 0o644)],
                "the key file may be read or written by every user of this machine (mode 644): run chmod 600"
            ),
            (
                ["--redact", "--redact-key", missing],
                "--redact-key: cannot read the key file given (\(missing.count) characters, not repeated here in case it is a key "
                    + "given in a file's place): No such file or directory"
            ),
            // The key itself given in the file's place (found by a privacy user test: it was printed back).
            (["--redact", "--redact-key", Self.key], "cannot read the key file given (25 characters, not repeated here"),
            (["--redact", "--redact-key", RedactionCheck.keyFile("k")], "the key is 1 byte, shorter than 16"),
            (["--redact-key", RedactionCheck.keyFile(Self.key)], "--redact-key is given without --redact"),
        ]
    }

    func testAMissingShortEmptyOrOpenKeyIsAUsageErrorThatShowsNoKey() throws {
        let out = TestPaths.scratch()
        let cases = Self.keyErrorCases(openKeyFlag: "--redact-ledger", missing: out + "/none")
        for (options, message) in cases {
            let run = CLIRun(["run", TestPaths.repoRoot + "/sample-data", "--out", out, "--json"] + options)
            XCTAssertEqual(run.status, 64, "\(options)")
            XCTAssertTrue(run.err.contains("Error: ") && run.err.contains(message), run.err)
            XCTAssertTrue(run.out.contains(#""exit":64"#), run.out)
            for secret in [Self.key, "short-secret"] { XCTAssertFalse((run.out + run.err).contains(secret), "\(options)") }
            XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/audit.sqlite"), "nothing written")
        }
        let close = CLIRun(["close", "--period", "2026-10", "--out", out, "--redact"])
        XCTAssertEqual(close.status, 64, close.err)
    }

    /// The key from the environment, as a scheduler gives it (argv holds no key: `ps` shows none), gives the
    /// tokens of the same key in a file.
    func testTheEnvironmentVariableGivesTheSameTokensAsTheKeyFile() throws {
        let input = Self.rejectingInput(), out = TestPaths.scratch()
        let run = try BuiltBinary.run(
            ["IAP_AUDIT_REDACT_KEY=\(Self.key)", BuiltBinary.path, "run", input, "--out", out, "--redact", "--json"],
            executable: "/usr/bin/env")
        XCTAssertEqual(run.status, 0, run.err)
        let look = try RedactionCheck.look(out: out, key: Self.key, inputs: [input], captured: run.out + "\n" + run.err)
        XCTAssertEqual(look["leaked"] as? [String: [String]], [:])
        XCTAssertEqual(look["captured_leaks"] as? [String], [])
        XCTAssertEqual(look["mismatched"] as? [[String]], [])
        XCTAssertEqual(look["key_in_captured"] as? Bool, false)
        XCTAssertEqual(look["files_with_key"] as? [String], [])
        let shown = try Self.rejectedSheet(out)
        let location = "\(input)/client.jsonl:2"
        XCTAssertEqual(
            shown.first { $0[0] == location },
            [
                location, "field 'user_id': [redacted] has white space at its start or end (ids are exact text: remove it)",
                "[not shown: redacted (250 characters); the line is at \(location)]",
            ])
        XCTAssertTrue(run.err.contains("\(location): error: field 'user_id': [redacted] has white space"), run.err)
        // The ledger keeps the rejected lines' text.
        let stored =
            try PythonReader.run(
                "import sqlite3, sys, json; print(json.dumps([r for (r,) in sqlite3.connect(sys.argv[1]).execute("
                    + "'SELECT raw_text FROM rejection ORDER BY line')]))", args: [out + "/audit.sqlite"]) as? [String]
        XCTAssertEqual(stored?.count, 2)
        XCTAssertTrue(stored?.first?.contains("alice-rejected-0002") == true)
        // The same key in a file: the same tokens.
        let fileOut = TestPaths.scratch()
        let fromFile = CLIRun(["run", input, "--out", fileOut, "--redact", "--redact-key", RedactionCheck.keyFile(Self.key)])
        XCTAssertEqual(fromFile.status, 0, fromFile.err)
        let other = try RedactionCheck.look(out: fileOut, key: Self.key, inputs: [input], captured: fromFile.out + "\n" + fromFile.err)
        XCTAssertEqual(other["mismatched"] as? [[String]], [])
        XCTAssertEqual(other["user_tokens_known"] as? Int, look["user_tokens_known"] as? Int)
        XCTAssertGreaterThan(look["user_tokens_known"] as? Int ?? 0, 0)
    }

    func testARedactedLedgerHoldsNoRejectedText() throws {
        let input = Self.rejectingInput(), out = TestPaths.scratch()
        let run = CLIRun(["run", input, "--out", out, "--redact-ledger", "--redact-key", RedactionCheck.keyFile(Self.key)])
        XCTAssertEqual(run.status, 0, run.err)
        let database = try Data(contentsOf: URL(fileURLWithPath: out + "/audit.sqlite"))
        for id in ["alice-rejected-0002", "alice-broken-0003", "alice-0001", "DEVICE-ALICE-0001", "bob-0004"] {
            XCTAssertNil(database.range(of: Data(id.utf8)), "\(id) in the redacted ledger")
            XCTAssertFalse((run.out + run.err).contains(id), id)
        }
        XCTAssertNil(database.range(of: Data(Self.key.utf8)))
    }

    /// A client log whose line 2 is rejected quoting a user id, and line 3 is broken JSON holding one.
    static func rejectingInput(name: String = #function) -> String {
        let input = TestPaths.scratch(name)
        let line = { (user: String, device: String, id: String) in
            #"{"ts":"2026-10-01T00:01:09Z","user_id":"\#(user)","device_id":"\#(device)","transaction_id":"\#(id)","#
                + #""original_transaction_id":"\#(id)","product_id":"com.example.gems60","state":"purchased","quantity":1}"#
        }
        TestPaths.write(
            [
                line("alice-0001", "DEVICE-ALICE-0001", "2000000400000001"),
                line(" alice-rejected-0002", "DEVICE-ALICE-0002", "2000000400000002") + String(repeating: " ", count: 8),
                #"{"ts":"2026-10-01T00:02:00Z","user_id":"alice-broken-0003","device_id": oops}"#,
                line("bob-0004", "DEVICE-BOB-0004", "2000000400000004"),
            ].joined(separator: "\n") + "\n", to: input + "/client.jsonl")
        return input
    }

    /// The Rejected sheet's rows (file:line, reason, raw_text).
    static func rejectedSheet(_ out: String) throws -> [[String]] {
        let rows =
            try PythonReader.run(
                PythonReader.xlsxPrelude + """
                    ws = openpyxl.load_workbook(sys.argv[1])["Rejected"]
                    print(json.dumps([["%s:%s" % (r[0], r[1]), r[2], r[3]] for r in ws.iter_rows(min_row=2, values_only=True) if r[1]]))
                    """, args: [out + "/audit.xlsx"]) as? [[String]]
        return rows ?? []
    }
}
