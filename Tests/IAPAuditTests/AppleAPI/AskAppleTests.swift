import Foundation
import XCTest

@testable import IAPAuditAppleAPI
@testable import IAPAuditCLI
@testable import IAPAuditCrypto
@testable import IAPAuditModel
@testable import IAPAuditSample

/// `iap-audit ask-apple` against a stand-in App Store Server API on 127.0.0.1 (`StandInAppleServer`): which ids it asks,
/// the token it sends (checked by the server with the test key's certificate), the sandbox after a 4040010, the retries,
/// the evidence file read back with Python's json, and that no secret is printed or written.
final class AskAppleTests: XCTestCase {
    static let keyId = "TESTKEY123", issuerId = "57246542-96fe-1a63-e053-0824d011072a", bundleId = "com.example"
    static let notFound = #"{"errorCode":4040010,"errorMessage":"Transaction id not found."}"#
    var folder = ""
    var keyPath = ""
    /// The test key's certificate (DER): the server checks each token's signature with it.
    var certificate = Data()

    override func setUpWithError() throws {
        folder = TestPaths.scratch()
        addTeardownBlock { [folder] in try? FileManager.default.removeItem(atPath: folder) }
        let fixtures = try OpenSSLFixtures(folder: folder)
        certificate = try fixtures.makeChain("asc").leaf
        keyPath = folder + "/asc-leaf.key"
        chmod(keyPath, 0o600)
        setenv(AskAppleCommand.backoffVariable, "10", 1)
        addTeardownBlock { unsetenv(AskAppleCommand.backoffVariable) }
    }

    /// A signed transaction as Apple sends it (signed by the sample's test CA).
    static func signed(_ id: String, environment: String) -> String {
        SampleSigner.sign(
            .object([
                ("transactionId", .string(id)), ("bundleId", .string(bundleId)), ("productId", .string("com.example.gems60")),
                ("environment", .string(environment)), ("signedDate", .int(1_791_000_000_000)),
            ]))
    }

    /// A server answering each path with its replies in turn (the last one again after), checking every token first.
    func server(_ script: [String: [StandInAppleServer.Reply]]) throws -> StandInAppleServer {
        let replies = Replies(script)
        let certificate = certificate
        let server = try StandInAppleServer { request in
            guard Self.tokenProblems(request.headers["authorization"], certificate: certificate).isEmpty else { return .init(status: 401) }
            return replies.next(request.path)
        }
        addTeardownBlock { server.stop() }
        return server
    }

    func arguments(_ server: StandInAppleServer, _ more: [String]) -> [String] {
        [
            "ask-apple", "--key", keyPath, "--key-id", Self.keyId, "--issuer-id", Self.issuerId, "--bundle-id", Self.bundleId,
            "--evidence", folder + "/evidence", "--base-url", server.baseURL + "/production", "--sandbox-base-url",
            server.baseURL + "/sandbox/",
        ] + more
    }

    /// A ledger whose open ask_apple findings are dropped_order:2000000400000001 and …0002 (never sent); …0003's is
    /// acknowledged (not asked).
    func ledger() throws -> String {
        let input = folder + "/input", out = folder + "/reports"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let lines = (1...3).map { n in
            #"{"ts":"2026-10-01T09:00:0\#(n)Z","user_id":"u\#(n)","device_id":"6F1C0001-8C2B-4FB7-8EC2-AD2F8EC0000\#(n)","#
                + #""transaction_id":"200000040000000\#(n)","original_transaction_id":"200000040000000\#(n)","#
                + #""product_id":"com.example.gems60","state":"purchased","quantity":1}"#
        }
        TestPaths.write(lines.joined(separator: "\n") + "\n", to: input + "/client.jsonl")
        XCTAssertEqual(CLIRun(["run", input, "--out", out, "--as-of", "2026-10-10T00:00:00Z"]).status, 0)
        XCTAssertEqual(CLIRun(["ack", "dropped_order:2000000400000003", "--note", "refunded by hand", "--out", out]).status, 0)
        return out
    }

    /// The evidence file's lines, each parsed by Python's json (sorted keys, as Python dumps them).
    func evidenceLines(_ path: String) throws -> [[String: Any]] {
        let script =
            "import json, sys\nprint(json.dumps([json.loads(l) for l in open(sys.argv[1], encoding='utf-8').read().split('\\n') if l]))"
        return try XCTUnwrap(try PythonReader.run(script, args: [path]) as? [[String: Any]])
    }

    func testFoundSandboxFallbackAndOrderSavedAsApplesAnswers() throws {
        let out = try ledger()
        let prod1 = Self.signed("2000000400000001", environment: "Production"),
            sandbox2 = Self.signed("2000000400000002", environment: "Sandbox")
        // Look Up Order ID's status: 0 valid, 1 invalid (as the library's sample lookupOrderIdResponse.json, pretty-printed).
        let valid = "{\n  \"status\": 0,\n  \"signedTransactions\": [\n    \"\(prod1)\"\n  ]\n}\n"
        let invalid =
            "{\n  \"status\": 1,\n  \"signedTransactions\": [\n    \"signed_transaction_one\",\n    \"signed_transaction_two\"\n  ]\n}\n"
        let server = try server([
            "/production/inApps/v1/transactions/2000000400000001": [.init(status: 200, body: #"{"signedTransactionInfo":"\#(prod1)"}"#)],
            "/production/inApps/v1/transactions/2000000400000002": [.init(status: 404, body: Self.notFound)],
            "/sandbox/inApps/v1/transactions/2000000400000002": [.init(status: 200, body: #"{"signedTransactionInfo":"\#(sandbox2)"}"#)],
            "/production/inApps/v1/lookup/MQ7KL2ABCD": [.init(status: 200, body: valid)],
            "/production/inApps/v1/lookup/MQ7KL2ZZZZ": [.init(status: 200, body: invalid)],
        ])
        let run = CLIRun(arguments(server, ["--out", out, "2000000400000001", "--order-id", "MQ7KL2ABCD", "--order-id", "MQ7KL2ZZZZ"]))
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertEqual(
            server.requests.map(\.path),
            [
                "/production/inApps/v1/transactions/2000000400000001", "/production/inApps/v1/transactions/2000000400000002",
                "/sandbox/inApps/v1/transactions/2000000400000002", "/production/inApps/v1/lookup/MQ7KL2ABCD",
                "/production/inApps/v1/lookup/MQ7KL2ZZZZ",
            ])
        for request in server.requests {
            XCTAssertEqual(Self.tokenProblems(request.headers["authorization"], certificate: certificate), [])
        }
        let lines = run.out.components(separatedBy: "\n")
        XCTAssertEqual(lines[0], "2000000400000001  transaction  Production  found  for dropped_order:2000000400000001")
        XCTAssertEqual(lines[1], "2000000400000002  transaction  Production, Sandbox  found in sandbox  for dropped_order:2000000400000002")
        XCTAssertEqual(lines[2], "MQ7KL2ABCD  order  Production  found (1 transaction)")
        XCTAssertEqual(lines[3], "MQ7KL2ZZZZ  order  Production  invalid id")
        XCTAssertEqual(lines[4], "asked Apple about 4 ids: 2 found, 1 found in sandbox, 1 invalid id")
        let path = try XCTUnwrap(lines[5].components(separatedBy: " saved in ").last)
        XCTAssertEqual(lines[5], "Apple's answers (5 answers) saved in \(path)")
        XCTAssertEqual(lines.count, 7)
        XCTAssertTrue(lines[6].hasPrefix("next: run again with the evidence folder among the inputs"))
        XCTAssertTrue(path.hasPrefix(folder + "/evidence/ask-apple-") && path.hasSuffix("Z.jsonl"), path)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder + "/evidence"), [(path as NSString).lastPathComponent])
        let saved = try evidenceLines(path)
        XCTAssertEqual(saved.count, 5)
        let expected: [(String, String, String, String, Int, Any)] = [
            ("transaction_id", "2000000400000001", "Production", "get_transaction_info", 200, ["signedTransactionInfo": prod1]),
            (
                "transaction_id", "2000000400000002", "Production", "get_transaction_info", 404,
                ["errorCode": 4_040_010, "errorMessage": "Transaction id not found."]
            ),
            ("transaction_id", "2000000400000002", "Sandbox", "get_transaction_info", 200, ["signedTransactionInfo": sandbox2]),
            ("order_id", "MQ7KL2ABCD", "Production", "look_up_order_id", 200, ["status": 0, "signedTransactions": [prod1]]),
            ("order_id", "MQ7KL2ZZZZ", "Production", "look_up_order_id", 200, try JSONSerialization.jsonObject(with: Data(invalid.utf8))),
        ]
        for (line, want) in zip(saved, expected) {
            XCTAssertEqual(Set(line.keys), [want.0, "received_at", "environment", "endpoint", "http_status", "response"])
            XCTAssertEqual(line[want.0] as? String, want.1)
            XCTAssertEqual(line["environment"] as? String, want.2)
            XCTAssertEqual(line["endpoint"] as? String, want.3)
            XCTAssertEqual(line["http_status"] as? Int, want.4)
            XCTAssertEqual(line["response"] as? NSDictionary, want.5 as? NSDictionary)
            let at = try XCTUnwrap(line["received_at"] as? String)
            XCTAssertNotNil(at.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"#, options: .regularExpression), at)
        }
        try assertNoSecret(in: [run.out, run.err, try String(contentsOfFile: path, encoding: .utf8)], server: server)
    }

    /// The next run turns Apple's answers into verdicts (docs/semantics.md rule 25): the id production found is a dropped
    /// order Apple confirms (credit), the one production does not know is `not_found` (refuse), both read back from the
    /// ledger with Python's sqlite3; the ask_apple finding acknowledged before, and never asked, keeps its state.
    func testTheNextRunTurnsTheAnswersIntoVerdicts() throws {
        let out = try ledger()
        let found = Self.signed("2000000400000001", environment: "Production")
        let server = try server([
            "/production/inApps/v1/transactions/2000000400000001": [.init(status: 200, body: #"{"signedTransactionInfo":"\#(found)"}"#)],
            "/production/inApps/v1/transactions/2000000400000002": [.init(status: 404, body: Self.notFound)],
            "/sandbox/inApps/v1/transactions/2000000400000002": [.init(status: 404, body: Self.notFound)],
        ])
        XCTAssertEqual(CLIRun(arguments(server, ["--out", out])).status, 0)
        let root = TestPaths.repoRoot + "/sample-data/test-ca/sample-root-ca.TEST-ONLY.pem"
        let rerun = CLIRun(
            ["run", folder + "/input", folder + "/evidence", "--out", out, "--as-of", "2026-10-10T00:00:00Z", "--jws-root", root])
        XCTAssertEqual(rerun.status, 0, rerun.err)
        let rows =
            try PythonReader.run(
                """
                import json, sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                print(json.dumps(db.execute("SELECT f.finding_id, f.apple_confirmation, a.code, a.status FROM finding f "
                                            "JOIN finding_action a USING (finding_id) ORDER BY f.finding_id").fetchall()))
                """, args: [out + "/audit.sqlite"]) as? [[Any]]
        XCTAssertEqual(
            rows?.map { $0.map { "\($0)" } },
            [
                ["dropped_order:2000000400000001", "confirmed", "credit", "open"],
                ["dropped_order:2000000400000002", "not_found", "refuse", "open"],
                ["dropped_order:2000000400000003", "claimed", "none", "acknowledged"],
            ])
    }

    /// Neither the key's bytes nor any token the server received appear in `texts`.
    func assertNoSecret(in texts: [String], server: StandInAppleServer) throws {
        let pem = try String(contentsOfFile: keyPath, encoding: .utf8)
        let keyLines = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.map(String.init)
        let tokens = server.requests.compactMap { $0.headers["authorization"] }
        XCTAssertFalse(tokens.isEmpty)
        for secret in keyLines + tokens + tokens.map { String($0.dropFirst("Bearer ".count)) } {
            for text in texts { XCTAssertFalse(text.contains(secret), "a secret was printed or written") }
        }
        for text in texts { XCTAssertFalse(text.contains("eyJhbGciOiJFUzI1NiIsImtpZCI"), "a token's header was printed or written") }
    }
}

/// Each path's scripted replies, handed out in turn (the last again once the others are used).
final class Replies: @unchecked Sendable {
    private var script: [String: [StandInAppleServer.Reply]]
    private let lock = NSLock()

    init(_ script: [String: [StandInAppleServer.Reply]]) { self.script = script }

    func next(_ path: String) -> StandInAppleServer.Reply {
        lock.lock()
        defer { lock.unlock() }
        guard var replies = script[path], let first = replies.first else { return .init(status: 404, body: "") }
        if replies.count > 1 {
            replies.removeFirst()
            script[path] = replies
        }
        return first
    }
}
