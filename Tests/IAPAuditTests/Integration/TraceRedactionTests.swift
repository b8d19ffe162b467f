import Foundation
import XCTest

@testable import IAPAuditCLI
@testable import IAPAuditCrypto
@testable import IAPAuditModel
@testable import IAPAuditPipeline

/// `iap-audit trace ID --redact` (docs/trace.md, "Redaction") over the sample's ledger: the exact text for a user
/// id, a device id and a transaction id (Fixtures/trace/sample-redacted-*.txt); no original user or device id in
/// the text, the JSON or any workbook cell, and every token the HMAC Python computes; a token traced on a ledger
/// of originals and on a `--redact-ledger` ledger; the usage errors; the key nowhere.
final class TraceRedactionTests: XCTestCase {
    static let key = "redaction-test-key-4b1d9e77c2a05f38"
    static let out = TestPaths.scratch("traceredactsample")
    nonisolated(unsafe) static var ran = false
    static let deviceId = "F7C25EB8-EE1C-47BD-ABEC-FDA67A3A7F2E"
    /// A duplicate credit: its finding's detail names two users.
    static let transactionId = "2000000400594197"

    var keyFile: String { RedactionCheck.keyFile(Self.key) }

    /// The sample's ledger of original ids (made once).
    func ledger() throws -> String {
        if !Self.ran {
            let sample = TestPaths.repoRoot + "/sample-data"
            let run = CLIRun(["run", sample, "--config", sample + "/config.json", "--out", Self.out])
            XCTAssertEqual(run.status, 0, run.err)
            Self.ran = true
        }
        return Self.out
    }

    func trace(_ arguments: [String]) -> CLIRun { CLIRun(["trace"] + arguments) }

    /// Compares `run`'s text with Fixtures/trace/`name`.txt (`IAP_AUDIT_RECORD_TRACE=1` writes a missing one).
    func assertGolden(_ name: String, _ run: CLIRun, out: String, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(run.status, 0, run.err, file: file, line: line)
        let text = TraceTests.portable(run.out, out: out) + "\n"
        let path = TraceTests.goldenFolder + "/\(name).txt"
        guard let expected = try? String(contentsOfFile: path, encoding: .utf8) else {
            if ProcessInfo.processInfo.environment["IAP_AUDIT_RECORD_TRACE"] == "1" {
                try text.write(toFile: path, atomically: true, encoding: .utf8)
            }
            return XCTFail("no \(path) (IAP_AUDIT_RECORD_TRACE=1 records it from this build)", file: file, line: line)
        }
        XCTAssertEqual(text, expected, "differs from Fixtures/trace/\(name).txt", file: file, line: line)
    }

    // MARK: The exact text

    func testUserIdShowsOnlyTokens() throws {
        let out = try ledger()
        let run = trace(["u104", "--out", out, "--redact", "--redact-key", keyFile])
        try assertGolden("sample-redacted-user-id", run, out: out)
        // The trace without --redact, each id as its token and the redaction said: nothing else differs.
        let plain = try String(contentsOfFile: TraceTests.goldenFolder + "/sample-user-id.txt", encoding: .utf8)
        var lines = plain.replacingOccurrences(of: "u104", with: "u_96c4317cb47412aa")
            .replacingOccurrences(of: "6F172721-2510-4D73-A7B6-C3F5D4EF58C0", with: "d_588f90e8dfd87d49").components(separatedBy: "\n")
        lines.insert("redacted (--redact, key k_83f952a40e281ad9): user and device ids are shown as tokens", at: 2)
        // The search hint's command repeats --redact.
        lines = lines.map { $0.contains(" is a user (") ? $0 + " --redact" : $0 }
        XCTAssertEqual(TraceTests.portable(run.out, out: out) + "\n", lines.joined(separator: "\n"))
    }

    func testDeviceIdShowsOnlyTokens() throws {
        let out = try ledger()
        try assertGolden("sample-redacted-device-id", trace([Self.deviceId, "--out", out, "--redact", "--redact-key", keyFile]), out: out)
    }

    func testTransactionIdShowsOnlyTokens() throws {
        let out = try ledger()
        try assertGolden(
            "sample-redacted-transaction-id", trace([Self.transactionId, "--out", out, "--redact", "--redact-key", keyFile]), out: out)
    }

    // MARK: No original id anywhere; the tokens are the HMAC

    /// Text, JSON and workbook of each id, read by Python: no user or device id of the ledger in them (as a word,
    /// or inside a cell for ids of 8 characters or more), every token one of a ledger id's HMAC, the key nowhere.
    func testNoOriginalIdInTextJSONOrWorkbookAndTokensAreTheHMAC() throws {
        let out = try ledger(), key = keyFile
        var files: [String] = []
        for (n, id) in ["u104", Self.deviceId, Self.transactionId].enumerated() {
            let text = trace([id, "--out", out, "--redact", "--redact-key", key])
            let json = trace([id, "--out", out, "--redact", "--redact-key", key, "--format", "json"])
            let xlsx = trace([id, "--out", out, "--redact", "--redact-key", key, "--format", "xlsx"])
            XCTAssertEqual([text.status, json.status, xlsx.status], [0, 0, 0], text.err + json.err + xlsx.err)
            let workbook = try XCTUnwrap(xlsx.out.components(separatedBy: "Wrote ").last)
            for (suffix, content) in [("txt", text.out + "\n" + text.err + xlsx.out + xlsx.err), ("json", json.out + "\n" + json.err)] {
                let path = out + "/../captured-\(n).\(suffix)"
                TestPaths.write(content, to: path)
                files.append(path)
            }
            files.append(workbook)
        }
        defer { for f in files where !f.hasSuffix(".xlsx") { try? FileManager.default.removeItem(atPath: f) } }
        let look = try XCTUnwrap(
            PythonReader.run(PythonReader.xlsxPrelude + Self.lookScript, args: [out + "/audit.sqlite", Self.key] + files) as? [String: Any])
        XCTAssertEqual(look["leaks"] as? [String: [String]], [:])
        XCTAssertEqual(look["unknown_tokens"] as? [String], [])
        XCTAssertEqual(look["key_found"] as? [String], [])
        XCTAssertEqual(look["tokens"] as? Int, 8, "the distinct tokens the three traces show")
        XCTAssertGreaterThan(look["xlsx_cells"] as? Int ?? 0, 100, "every cell of the three workbooks read")
        let redactor = HMACSHA256.redactor(key: Array(Self.key.utf8))
        XCTAssertEqual(look["token_u104"] as? String, redactor.user("u104"))
        XCTAssertEqual(look["token_u104"] as? String, "u_96c4317cb47412aa")
        XCTAssertEqual(look["token_device"] as? String, "d_d1512e177a7e71f1")
        // The workbooks are named by the token (and the transaction id).
        XCTAssertEqual(
            files.filter { $0.hasSuffix(".xlsx") }.map { ($0 as NSString).lastPathComponent },
            ["trace-u_96c4317cb47412aa.xlsx", "trace-d_d1512e177a7e71f1.xlsx", "trace-\(Self.transactionId).xlsx"])
        let json = try XCTUnwrap(
            JSONSerialization.jsonObject(
                with: Data(trace(["u104", "--out", out, "--redact", "--redact-key", key, "--format", "json"]).out.utf8))
                as? [String: Any])
        XCTAssertEqual(json["id"] as? String, "u_96c4317cb47412aa")
        XCTAssertEqual(json["redaction"] as? String, "outputs, key \(redactor.fingerprint)")
    }

    static let lookScript = #"""
        import hashlib, hmac, os, sqlite3
        ledger, key = sys.argv[1:3]
        files = sys.argv[3:]
        def tok(prefix, role, i):
            return prefix + hmac.new(key.encode(), (role + i).encode(), hashlib.sha256).hexdigest()[:16]
        db = sqlite3.connect(ledger)
        users = set(u for (u,) in db.execute("SELECT user_id FROM client_report UNION SELECT user_id FROM server_request "
                                             "UNION SELECT app_account_token FROM apple_transaction") if u)
        devices = set(d for (d,) in db.execute("SELECT device_id FROM client_report UNION SELECT device_id FROM server_request") if d)
        ids = users | devices
        known = {tok("u_", "user:", u) for u in users} | {tok("d_", "device:", d) for d in devices}
        def leaks(text):
            found = set(w for w in re.split(r'[\s,;():"\[\]{}=]+', text) if w in ids)
            return found | set(i for i in ids if len(i) >= 8 and i in text)
        leaked, tokens, key_found, cells = {}, set(), [], 0
        for f in files:
            if f.endswith(".xlsx"):
                texts = []
                for ws in openpyxl.load_workbook(f).worksheets:
                    for row in ws.iter_rows(values_only=True):
                        texts += [str(v) for v in row if v is not None]
                cells += len(texts)
                z = zipfile.ZipFile(f)
                if any(key.encode() in z.read(n) for n in z.namelist()): key_found.append(f)
            else:
                texts = [open(f, encoding="utf-8").read()]
                if key in texts[0]: key_found.append(f)
            for t in texts:
                tokens.update(re.findall(r'\b[ud]_[0-9a-f]{16}\b', t))
                found = leaks(t)
                if found: leaked.setdefault(os.path.basename(f), []).extend(sorted(found))
        print(json.dumps({"leaks": leaked, "tokens": len(tokens), "unknown_tokens": sorted(tokens - known), "key_found": key_found,
                          "xlsx_cells": cells, "token_u104": tok("u_", "user:", "u104"),
                          "token_device": tok("d_", "device:", "F7C25EB8-EE1C-47BD-ABEC-FDA67A3A7F2E")}))
        """#

    // MARK: Tracing a token

    /// The trace past its first three lines (the heading, the ledger, the redaction note).
    /// The trace below its heading, ledger and redaction lines, without the search hint (it names each trace's folder).
    func body(_ run: CLIRun) -> String {
        run.out.components(separatedBy: "\n").dropFirst(3).filter { !$0.contains(" is a user (") }.joined(separator: "\n")
    }

    func testATokenIsTracedOnALedgerOfOriginalsWithTheKeyAndNotWithout() throws {
        let out = try ledger(), key = keyFile
        let byId = trace(["u104", "--out", out, "--redact", "--redact-key", key])
        let byToken = trace(["u_96c4317cb47412aa", "--out", out, "--redact", "--redact-key", key])
        XCTAssertEqual(byToken.status, 0, byToken.err)
        XCTAssertEqual(byToken.out, byId.out, "the token leads to the user's id: the same trace")
        let device = trace(["d_d1512e177a7e71f1", "--out", out, "--redact", "--redact-key", key])
        XCTAssertEqual(device.out, trace([Self.deviceId, "--out", out, "--redact", "--redact-key", key]).out)
        let nobody = trace(["u_0000000000000000", "--out", out, "--redact", "--redact-key", key])
        XCTAssertEqual(nobody.status, 2)
        XCTAssertEqual(
            nobody.out.components(separatedBy: "\n")[3],
            "the id given has a token's form but is the token of no user id of this ledger under this key")
        let noKey = trace(["u_96c4317cb47412aa", "--out", out])
        XCTAssertEqual(noKey.status, 2)
        XCTAssertEqual(
            noKey.out.components(separatedBy: "\n")[2],
            "u_96c4317cb47412aa has the form of a token (--redact): this ledger holds original ids; to trace a token give --redact "
                + "and the key that made it")
    }

    func testARedactedLedgerIsTracedByTokenWithoutTheKeyAndByIdWithIt() throws {
        let sample = TestPaths.repoRoot + "/sample-data", key = keyFile, redacted = TestPaths.scratch()
        let run = CLIRun(["run", sample, "--config", sample + "/config.json", "--out", redacted, "--redact-ledger", "--redact-key", key])
        XCTAssertEqual(run.status, 0, run.err)
        let expected = trace(["u104", "--out", try ledger(), "--redact", "--redact-key", key])
        let fingerprint = HMACSHA256.redactor(key: Array(Self.key.utf8)).fingerprint
        let held = "this ledger holds redacted ids (made with --redact-ledger, key \(fingerprint)): "
        // A token, without the key: the ledger's own ids.
        let byToken = trace(["u_96c4317cb47412aa", "--out", redacted])
        XCTAssertEqual(byToken.status, 0, byToken.err)
        XCTAssertEqual(byToken.out.components(separatedBy: "\n")[0], expected.out.components(separatedBy: "\n")[0])
        XCTAssertEqual(
            byToken.out.components(separatedBy: "\n")[2],
            held
                + "its user and device ids are tokens; trace one by its token (u_…, d_…), or by the original id with --redact and the same key"
        )
        XCTAssertEqual(body(byToken), body(expected), "the same timeline and verdict as --redact over the ledger of originals")
        // The original id with the same key; without it, nothing holds it (and the output says why).
        for arguments in [["u104", "--redact", "--redact-key", key], ["u_96c4317cb47412aa", "--redact", "--redact-key", key]] {
            let withKey = trace(arguments + ["--out", redacted])
            XCTAssertEqual(withKey.status, 0, withKey.err)
            XCTAssertEqual(withKey.out.components(separatedBy: "\n")[0], expected.out.components(separatedBy: "\n")[0])
            XCTAssertEqual(withKey.out.components(separatedBy: "\n")[2], held + "user and device ids are tokens")
            XCTAssertEqual(body(withKey), body(expected))
        }
        let original = trace(["u104", "--out", redacted])
        XCTAssertEqual(original.status, 2)
        XCTAssertTrue(original.out.hasPrefix("trace u104: no record in the ledger holds this id\n"), original.out)
        XCTAssertTrue(original.out.contains(held), original.out)
        // A transaction id needs no key.
        let transaction = trace([Self.transactionId, "--out", redacted])
        XCTAssertEqual(transaction.status, 0, transaction.err)
        XCTAssertEqual(
            body(transaction), body(trace([Self.transactionId, "--out", try ledger(), "--redact", "--redact-key", key])))
        // Another key: refused, naming both fingerprints and neither key.
        let other = trace([
            "u104", "--out", redacted, "--redact", "--redact-key", RedactionCheck.keyFile("another-key-of-more-than-16-bytes"),
        ])
        XCTAssertEqual(other.status, 1)
        XCTAssertTrue(other.err.contains("this ledger was redacted with another key (\(fingerprint); the key given is k_"), other.err)
        XCTAssertFalse((other.out + other.err).contains("another-key-of"))
    }

    // MARK: Usage

    func testUsageErrorsAreRunsAndShowNoKey() throws {
        let out = try ledger()
        let cases =
            RedactionKeyTests.keyErrorCases(openKeyFlag: "--redact", missing: out + "/none")
            + [(["--redact-ledger", "--redact-key", keyFile], "--redact-ledger is run's: trace never changes the ledger")]
        for (options, message) in cases {
            let run = trace(["u104", "--out", out, "--format", "json"] + options)
            XCTAssertEqual(run.status, 64, "\(options)")
            XCTAssertTrue(run.err.contains("Error: ") && run.err.contains(message), run.err)
            XCTAssertTrue(run.err.contains("Usage: iap-audit trace ID [--out DIR | --ledger FILE] [--format text|json|xlsx] [--redact"))
            XCTAssertTrue(run.out.contains(#""exit":64"#), run.out)
            for secret in [Self.key, RedactionKeyTests.key, "short-secret"] {
                XCTAssertFalse((run.out + run.err).contains(secret), "\(options)")
            }
        }
        let help = trace(["--help"])
        XCTAssertTrue(help.out.contains("--redact-key FILE"), help.out)
    }
}
