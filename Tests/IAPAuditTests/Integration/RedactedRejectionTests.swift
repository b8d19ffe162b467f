import Foundation
import XCTest

@testable import IAPAuditCLI
@testable import IAPAuditCrypto
@testable import IAPAuditModel

/// What `--redact` shows of ids out of their place (docs/operations.md and docs/trace.md, "Redaction"; found by a
/// privacy user test): a CSV line whose columns shifted puts a user id under `ts`, and the reason quoting it was
/// shown in clear on stderr, the Summary and Rejected sheets, and kept in a `--redact-ledger` ledger; `trace`
/// echoed an id it found nothing of but that was a device's in another case, only in a rejected line, or a real
/// user id of a token's form.
final class RedactedRejectionTests: XCTestCase {
    static let key = "redaction-test-key-4b1d9e77c2a05f38"
    static let device = "7A1B2C3D-0000-4000-8000-00000000ABCE"
    static let tokenLike = "u_0123456789abcdef"

    /// A client CSV: a row whose columns shifted (its user `u4242` under `ts`), two readable rows (one of a user id
    /// of a token's form).
    func input() -> String {
        let folder = TestPaths.scratch() + "/in"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let rows = [
            "ts,user_id,device_id,transaction_id,original_transaction_id,product_id,state,error_code,quantity",
            "u4242,1790820384004,7A1B2C3D-0000-4000-8000-00000000ABCD,2000000499999244,2000000499999244,com.example.gems60,purchased,,1",
            "1790820384000,u4243,\(Self.device),2000000499999240,2000000499999240,com.example.gems60,purchased,,1",
            "1790820385000,\(Self.tokenLike),7A1B2C3D-0000-4000-8000-00000000ABCF,2000000499999241,2000000499999241,com.example.gems60,purchased,,1",
            // A numeric user id shifted under `ts`: read as epoch milliseconds of 1970 (a privacy retest: the value and the
            // times read from it were shown).
            "1790812920,1790820384009,7A1B2C3D-0000-4000-8000-00000000ABD0,2000000499999242,2000000499999242,com.example.gems60,purchased,,1",
        ]
        TestPaths.write(rows.joined(separator: "\n") + "\n", to: folder + "/client.csv")
        // A map of users (no record shape): its keys were listed in the skipped file's note.
        TestPaths.write(#"{"uPLkey01": 1, "uPLkey02": 2}"# + "\n", to: folder + "/usermap.jsonl")
        // A Server API answer whose signed transaction is no JWS: the note quoting it was on the Apple Records sheet.
        TestPaths.write(
            #"{"revision": "r", "hasMore": false, "bundleId": "com.example", "appAppleId": 323232, "environment": "Production", "#
                + #""signedTransactions": ["not-a-jws-uPLnote01"]}"# + "\n", to: folder + "/history.jsonl")
        return folder
    }

    /// Every file under `folder` (the workbook's XML unzipped) that holds `text`.
    func files(in folder: String, holding text: String) throws -> [String] {
        try PythonReader.run(
            """
            import json, os, sys, zipfile
            folder, text = sys.argv[1], sys.argv[2].encode()
            found = []
            for root, _, names in os.walk(folder):
                for n in names:
                    p = os.path.join(root, n)
                    data = open(p, "rb").read()
                    if n.endswith(".xlsx"):
                        z = zipfile.ZipFile(p)
                        data = b"".join(z.read(i) for i in z.namelist())
                    if text in data: found.append(os.path.relpath(p, folder))
            print(json.dumps(sorted(found)))
            """, args: [folder, text]) as! [String]
    }

    func testAQuotedValueOfAnyFieldIsRedactedInEveryOutputAndTheRedactedLedger() throws {
        let key = RedactionCheck.keyFile(Self.key), input = input()
        for mode in ["--redact", "--redact-ledger"] {
            let out = TestPaths.scratch(#function + mode)
            let run = CLIRun(["run", input, "--out", out, mode, "--redact-key", key, "--json"])
            XCTAssertEqual(run.status, 0, run.err)
            for planted in ["u4242", "1790812920", "uPLkey01", "uPLnote01"] {
                XCTAssertFalse((run.out + run.err).contains(planted), mode + ": " + planted + ": " + run.out + run.err)
                XCTAssertEqual(try files(in: out, holding: planted), mode == "--redact" ? ["audit.sqlite"] : [], mode + ": " + planted)
            }
            XCTAssertTrue(
                run.err.contains("client.csv:2: error: field 'ts': not a timestamp: [redacted] (expected ISO 8601 or epoch milliseconds"),
                run.err)
            // The workbook (Summary, Rejected); and the ledger too when it is redacted.
            XCTAssertEqual(try files(in: out, holding: "u4242"), mode == "--redact" ? ["audit.sqlite"] : [], mode)
        }
    }

    /// A rejected price-list line's reason hides the value it quotes in single quotes under `close --redact` (a privacy retest).
    func testAPriceListReasonHidesItsValueUnderRedaction() throws {
        let key = RedactionCheck.keyFile(Self.key), out = TestPaths.scratch(), sample = TestPaths.repoRoot + "/sample-data"
        let prices = out + "/../prices-with-ids.csv"
        let lines =
            try String(contentsOfFile: sample + "/prices.csv", encoding: .utf8)
            + "com.example.gems60,USD,uPLprice01,2026-10-01\ncom.example.gems60,uPLsf02,0.99,2026-10-01\n"
        TestPaths.write(lines, to: prices)
        let run = CLIRun(["close", "--period", "2026-10", "--prices", prices, sample, "--out", out, "--redact", "--redact-key", key])
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertTrue(run.err.contains(":18: error: field 'price': not a decimal amount: [redacted]"), run.err)
        for planted in ["uPLprice01", "uPLsf02"] {
            XCTAssertFalse((run.out + run.err).contains(planted), planted)
            XCTAssertEqual(try files(in: out, holding: planted), [], planted)
        }
    }

    /// On a `--redact-ledger` ledger, a real user id of a token's form is found by its token (it was found by nothing).
    func testARealIdOfATokensFormIsTracedOnARedactedLedger() throws {
        let key = RedactionCheck.keyFile(Self.key), out = TestPaths.scratch()
        XCTAssertEqual(CLIRun(["run", input(), "--out", out, "--redact-ledger", "--redact-key", key]).status, 0)
        let redactor = HMACSHA256.redactor(key: Array(Self.key.utf8))
        let traced = CLIRun(["trace", Self.tokenLike, "--out", out, "--redact", "--redact-key", key])
        XCTAssertEqual(traced.status, 0, traced.out + traced.err)
        XCTAssertTrue(traced.out.hasPrefix("trace \(redactor.user(Self.tokenLike)): user id ("), traced.out)
        XCTAssertFalse((traced.out + traced.err).contains(Self.tokenLike), traced.out)
    }

    func testTraceShowsAnIdItFoundNothingOfAsAToken() throws {
        let key = RedactionCheck.keyFile(Self.key), out = TestPaths.scratch()
        XCTAssertEqual(CLIRun(["run", input(), "--out", out]).status, 0)
        let redactor = HMACSHA256.redactor(key: Array(Self.key.utf8))
        // A device's id in another case: a near match, and nothing else.
        let other = Self.device.lowercased()
        let near = CLIRun(["trace", other, "--out", out, "--redact", "--redact-key", key, "--format", "xlsx"])
        XCTAssertEqual(near.status, 2, near.err)
        let nearText = CLIRun(["trace", other, "--out", out, "--redact", "--redact-key", key])
        XCTAssertEqual(
            nearText.out.components(separatedBy: "\n").first, "trace \(redactor.given(other)): no record in the ledger holds this id")
        XCTAssertTrue(nearText.out.contains("near matches: \(redactor.device(Self.device)) (device id: other case)"), nearText.out)
        XCTAssertFalse((nearText.out + nearText.err).lowercased().contains(other), nearText.out)
        XCTAssertEqual(
            try files(in: out, holding: "00000000abce").filter { $0.hasPrefix("trace-") }, [],
            "no trace workbook named by the id or holding it")
        // An id only a rejected line holds.
        let rejected = CLIRun(["trace", "u4242", "--out", out, "--redact", "--redact-key", key])
        XCTAssertEqual(rejected.status, 2)
        XCTAssertFalse((rejected.out + rejected.err).contains("u4242"), rejected.out)
        XCTAssertTrue(rejected.out.contains("/client.csv:2 (field 'ts': not a timestamp: [redacted] ("), rejected.out)
        // A real user id of a token's form: looked up as given, shown as its token.
        let tokenLike = CLIRun(["trace", Self.tokenLike, "--out", out, "--redact", "--redact-key", key])
        XCTAssertEqual(tokenLike.status, 0, tokenLike.err)
        XCTAssertFalse((tokenLike.out + tokenLike.err).contains(Self.tokenLike), tokenLike.out)
        XCTAssertTrue(tokenLike.out.hasPrefix("trace \(redactor.user(Self.tokenLike)): user id ("), tokenLike.out)
    }
}
