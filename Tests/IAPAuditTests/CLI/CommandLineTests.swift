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

/// Exit status 0 / 1 / 64, help texts, usage errors as Error / Usage / See --help.
final class CommandLineTests: XCTestCase {
    func smallInput() -> String {
        let dir = TestPaths.scratch()
        TestPaths.write(
            """
            {"ts": "2026-10-01T00:00:00Z", "user_id": "u1", "device_id": "d1", "transaction_id": "100", "product_id": "p", "state": "purchased"}
            {"ts": "2026-10-01T00:00:09Z", "user_id": "=HYPERLINK(\\"x\\", \\"y\\")", "transaction_id": "101", "product_id": "p", "state": "purchased"}
            """, to: dir + "/client.jsonl")
        return dir
    }

    func testHelp() {
        let main = CLIRun(["--help"])
        XCTAssertEqual(main.status, 0)
        XCTAssertTrue(main.out.contains("COMMANDS:"))
        let run = CLIRun(["run", "--help"])
        XCTAssertEqual(run.status, 0)
        for option in ["--out DIR", "--json", "--as-of TIME", "--grace HOURS", "--config FILE", "Exit status"] {
            XCTAssertTrue(run.out.contains(option), option)
        }
        XCTAssertEqual(CLIRun(["sample", "--help"]).status, 0)
    }

    func testUsageErrorsExit64() {
        let unknown = CLIRun(["run", "--frobnicate"])
        XCTAssertEqual(unknown.status, 64)
        XCTAssertEqual(
            unknown.err,
            """
            Error: unknown option '--frobnicate'
            Usage: \(RunCommand.usage)
              See 'iap-audit run --help'.
            """)
        XCTAssertEqual(CLIRun(["audit"]).status, 64)
        XCTAssertEqual(CLIRun(["run", "--out"]).status, 64)
        XCTAssertEqual(CLIRun(["run", "--grace", "soon"]).status, 64)
        XCTAssertEqual(CLIRun(["run", "--as-of", "tomorrow"]).status, 64)
        XCTAssertEqual(CLIRun(["sample", "--transactions", "0"]).status, 64)
    }

    /// `--as-of` as a month-end user types it: a date alone and epoch seconds are refused with the reason.
    func testAsOfDateAloneAndEpochSecondsAreRefusedWithTheReason() throws {
        let cases = [
            (
                "2026-10-31",
                "--as-of: a date alone is not an instant (its start or its end?); give one, e.g. 2026-10-31T00:00:00Z for its start: '2026-10-31'"
            ),
            ("1790812920", "--as-of: epoch milliseconds before 1973 (epoch seconds?); give milliseconds or ISO 8601: '1790812920'"),
            (
                "now",
                "--as-of: not a time: expected ISO 8601 with a time of day (2026-11-01T00:00:00Z) or epoch milliseconds, 1900 to 2200: 'now'"
            ),
        ]
        for (text, message) in cases {
            let run = CLIRun(["run", "--as-of", text])
            XCTAssertEqual(run.status, 64)
            XCTAssertEqual(run.err.components(separatedBy: "\n").first, "Error: " + message)
        }
        XCTAssertEqual(try RunCommand.asOf("1790812920000"), 1_790_812_920_000)
        XCTAssertEqual(try RunCommand.asOf("2026-10-31T00:00:00Z"), 1_793_404_800_000)
    }

    /// `--from` / `--to` (semantics.md rule 17): a date is its whole UTC day, both bounds inclusive; the
    /// window is in the text summary, the JSON and run_parameter; purchases outside it are info.
    func testAuditWindowFromTo() throws {
        XCTAssertEqual(try RunCommand.bound("2026-10-31", "--to", endOfDay: true), 1_793_491_199_999)
        XCTAssertEqual(try RunCommand.bound("2026-10-31", "--from", endOfDay: false), 1_793_404_800_000)
        XCTAssertEqual(try RunCommand.bound("2026-10-31T12:00:00Z", "--to", endOfDay: true), 1_793_448_000_000)
        let out = TestPaths.scratch()
        // 100 at 00:00:00 is inside a window from 2026-10-01; 101 at 00:00:09 is after --to 00:00:05.
        let run = CLIRun(["run", smallInput(), "--out", out, "--json", "--from", "2026-10-01", "--to", "2026-10-01T00:00:05Z"])
        XCTAssertEqual(run.status, 0, run.err)
        let summary = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any])
        XCTAssertEqual(summary["audit_window"] as? String, "from 2026-10-01T00:00:00.000Z to 2026-10-01T00:00:05.000Z")
        let findings = try XCTUnwrap(summary["findings"] as? [String: Any])
        XCTAssertEqual(
            findings["by_kind"] as? [String: [String: Int]], ["dropped_order": ["never_sent": 1], "outside_window": ["after_window": 1]])
        XCTAssertEqual(findings["dropped_orders"] as? [String: Int], ["apple_confirmed": 0, "apple_refunded": 0, "client_claimed": 1])
        let text = CLIRun(["run", smallInput(), "--out", TestPaths.scratch(), "--to", "2026-10-01T00:00:05Z"])
        XCTAssertTrue(
            text.out.contains("\naudit window: no start (no logs)") == false
                && text.out.contains("audit window: from 2026-10-01T00:00:00.000Z (the earliest log ts) to 2026-10-01T00:00:05.000Z"),
            text.out)
        XCTAssertTrue(text.out.contains("  dropped orders: 0 Apple confirms, 0 Apple refunded, 1 the client claims only"), text.out)
        for (arguments, message) in [
            (
                ["--from", "2026-10-02", "--to", "2026-10-01"],
                "--from 2026-10-02T00:00:00.000Z is after --to 2026-10-01T23:59:59.999Z: the audit window is empty"
            ),
            (
                ["--from", "yesterday"],
                "--from: not a date or time: expected 2026-10-01, ISO 8601 (2026-10-01T08:00:00Z) or epoch milliseconds: 'yesterday'"
            ),
            (
                ["--to", "1790812920"],
                "--to: not a date or time: expected 2026-10-01, ISO 8601 (2026-10-01T08:00:00Z) or epoch milliseconds: '1790812920'"
            ),
        ] {
            let bad = CLIRun(["run"] + arguments)
            XCTAssertEqual(bad.status, 64)
            XCTAssertEqual(bad.err.components(separatedBy: "\n").first, "Error: " + message)
        }
    }

    /// A source missing from the inputs (the server log not exported, Apple's answers left out) is
    /// warned about: otherwise thousands of findings look like money lost.
    func testAMissingServerLogOrAppleSourceIsWarnedAbout() throws {
        let noServer =
            "iap-audit: warning: no server-log record was imported: nothing the server credited is known, so every purchase "
            + "the client reported or Apple listed shows as never credited (dropped_order); pass the server's transaction log too"
        let noApple =
            "iap-audit: warning: no Apple record (verify response, signed transaction, notification, receipt) was imported: "
            + "no grant can be proven and every verification shows as unanswered; pass Apple's responses too"
        for (files, expected) in [
            (["verify.jsonl"], [noServer]), (["server.jsonl", "client.jsonl"], [noApple]), (["verify.jsonl", "server.jsonl"], []),
        ] {
            let input = TestPaths.scratch() + "/in"
            try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
            for f in files { try FileManager.default.copyItem(atPath: TestPaths.repoRoot + "/sample-data/" + f, toPath: input + "/" + f) }
            let run = CLIRun(["run", input, "--out", TestPaths.scratch(), "--config", TestPaths.repoRoot + "/sample-data/config.json"])
            XCTAssertEqual(run.status, 0, run.err)
            let warnings = run.err.components(separatedBy: "\n").filter { $0.hasPrefix("iap-audit: warning: no ") }
            XCTAssertEqual(warnings, expected, "\(files)")
        }
    }

    /// `sample` says how many transactions it wrote, and when the planted scenarios needed more than asked.
    func testSampleSaysWhenItRaisesTheTransactionCount() {
        let out = TestPaths.scratch()
        let run = CLIRun(["sample", "--out", out, "--transactions", "1", "--seed", "1"])
        XCTAssertEqual(run.status, 0)
        XCTAssertEqual(
            run.out.components(separatedBy: "\n").last,
            "Note: --transactions 1 was raised to 210 (and the support ticket's purchase): the planted scenarios alone need that many")
        XCTAssertTrue(
            run.out.contains("(211 client transactions, 123 planted findings and the close of 2026-10 in answer-key.json)"), run.out)
        // Enough asked for: N and the support ticket's purchase, and no note (it said "raised to 301" of 300).
        let enough = CLIRun(["sample", "--out", TestPaths.scratch(), "--transactions", "300", "--seed", "1"])
        XCTAssertEqual(enough.status, 0)
        XCTAssertFalse(enough.out.contains("Note:"), enough.out)
        XCTAssertTrue(enough.out.contains("(301 client transactions, "), enough.out)
    }

    /// An option whose value was left out does not take the next option for it (`--prices --out DIR` took `--out` as the
    /// price list and failed to read it, exit 1: a finance retest).
    func testAValueLeftOutIsAUsageError() {
        let run = CLIRun(["close", "--period", "2026-10", "--prices", "--out", TestPaths.scratch(), TestPaths.repoRoot + "/sample-data"])
        XCTAssertEqual(run.status, 64, run.err)
        XCTAssertTrue(
            run.err.contains(
                "missing value for '--prices': the next argument, '--out', is an option (a value spelled so goes as "
                    + "--prices=VALUE)"), run.err)
    }

    func testCouldNotCompleteExits1() {
        let missing = CLIRun(["run", "/nonexistent/input", "--out", TestPaths.scratch()])
        XCTAssertEqual(missing.status, 1)
        XCTAssertEqual(missing.err, "iap-audit: /nonexistent/input: error: cannot read input: no such file or folder")

        let input = smallInput()
        TestPaths.write(#"{"bundle_ids": ["a"], "sandbox_allowlst": []}"#, to: input + "/../bad-config.json")
        let badConfig = CLIRun(["run", input, "--out", TestPaths.scratch(), "--config", input + "/../bad-config.json"])
        XCTAssertEqual(badConfig.status, 1)
        XCTAssertTrue(badConfig.err.contains("bad config: unknown key 'sandbox_allowlst'"), badConfig.err)

        TestPaths.write(#"{"products": {"p": "consumible"}}"#, to: input + "/../bad-type.json")
        let badType = CLIRun(["run", input, "--out", TestPaths.scratch(), "--config", input + "/../bad-type.json"])
        XCTAssertEqual(badType.status, 1)
        XCTAssertTrue(badType.err.contains("product 'p': unknown type consumible"), badType.err)

        // Empty or space-padded ids in the config would match nothing; a folder is not a config.
        for (config, message) in [
            (#"{"products": {"": "consumable"}}"#, "bad config: product id '' is empty or has white space at its start or end"),
            (#"{"sandbox_allowlist": ["u1 "]}"#, "bad config: 'sandbox_allowlist': 'u1 ' is empty or has white space at its start or end"),
        ] {
            TestPaths.write(config, to: input + "/../padded.json")
            let run = CLIRun(["run", input, "--out", TestPaths.scratch(), "--config", input + "/../padded.json"])
            XCTAssertEqual(run.status, 1)
            XCTAssertTrue(run.err.hasSuffix(message), run.err)
        }
        let folderConfig = CLIRun(["run", input, "--out", TestPaths.scratch(), "--config", input])
        XCTAssertEqual(folderConfig.err, "iap-audit: \(input): error: bad config: is a folder, not a file (the config is one JSON file)")
        XCTAssertEqual(CLIRun(["run", input, "--out", ""]).status, 64, "an empty --out is a usage error")

        let blocker = TestPaths.scratch() + "/file"
        TestPaths.write("x", to: blocker)
        let unwritable = CLIRun(["run", input, "--out", blocker + "/out"])
        XCTAssertEqual(unwritable.status, 1)
        XCTAssertTrue(unwritable.err.contains("cannot write output"), unwritable.err)
    }

    func testJSONSummary() throws {
        let out = TestPaths.scratch()
        let run = CLIRun(["run", smallInput(), "--out", out, "--json", "--as-of", "2026-10-03T00:00:00Z"])
        XCTAssertEqual(run.status, 0, run.err)
        let summary = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any])
        XCTAssertEqual(summary["as_of"] as? String, "2026-10-03T00:00:00.000Z")
        let records = try XCTUnwrap(summary["records"] as? [String: Int])
        XCTAssertEqual(records, ["in": 2, "imported": 2, "rejected": 0])
        let findings = try XCTUnwrap(summary["findings"] as? [String: Any])
        XCTAssertEqual(findings["problems"] as? Int, 2)
        XCTAssertEqual((findings["by_kind"] as? [String: [String: Int]])?["dropped_order"], ["never_sent": 2])
        XCTAssertEqual((summary["outputs"] as? [String: String])?["sqlite"], out + "/audit.sqlite")
    }

    /// With `--json`, a failure is an object on stdout too (a scheduler parsing stdout sees it), besides
    /// the message on stderr; without it, stdout stays empty.
    func testJSONFailuresAreObjectsOnStdout() throws {
        let missing = CLIRun(["run", "/nonexistent/input", "--out", TestPaths.scratch(), "--json"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertEqual(missing.err, "iap-audit: /nonexistent/input: error: cannot read input: no such file or folder")
        XCTAssertEqual(missing.out, #"{"error":"/nonexistent/input: error: cannot read input: no such file or folder","exit":1}"#)
        let usage = CLIRun(["run", "--json", "--frobnicate"])
        XCTAssertEqual(usage.status, 64)
        XCTAssertTrue(usage.err.hasPrefix("Error: unknown option '--frobnicate'\nUsage: "), usage.err)
        XCTAssertEqual(usage.out, #"{"error":"unknown option '--frobnicate'","exit":64}"#)
        let parsed = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(usage.out.utf8)) as? [String: Any])
        XCTAssertEqual(parsed["exit"] as? Int, 64)
        XCTAssertEqual(CLIRun(["run", "/nonexistent/input", "--out", TestPaths.scratch()]).out, "", "no JSON unless asked for")
        XCTAssertEqual(CLIRun(["run", "--frobnicate"]).out, "")
    }

    /// Text that looks like a formula is written as text in the XLSX (read back by openpyxl).
    func testFormulaLookingTextStaysText() throws {
        let out = TestPaths.scratch()
        XCTAssertEqual(CLIRun(["run", smallInput(), "--out", out]).status, 0)
        let cells =
            try PythonReader.run(
                """
                import json, sys, openpyxl
                ws = openpyxl.load_workbook(sys.argv[1])["dropped_order"]
                print(json.dumps([[c.value, c.data_type] for c in ws["H"]]))
                """, args: [out + "/audit.xlsx"]) as! [[String]]
        XCTAssertEqual(cells, [["user_ids", "s"], ["u1", "s"], ["=HYPERLINK(\"x\", \"y\")", "s"]], "a comma inside a user id survives")
    }
}
