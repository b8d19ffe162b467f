import Foundation
import XCTest

@testable import IAPAuditAppleAPI
@testable import IAPAuditCLI
@testable import IAPAuditCrypto
@testable import IAPAuditModel

/// `ask-apple`'s retries, refusals and token (`AskAppleTests` has the stand-in server and the ledger).
extension AskAppleTests {
    func testTooManyRequestsThenAnswerHonoursRetryAfter() throws {
        let answer = #"{"signedTransactionInfo":"\#(Self.signed("2000000400000009", environment: "Production"))"}"#
        let server = try server([
            "/production/inApps/v1/transactions/2000000400000009": [
                .init(status: 429, headers: ["Retry-After": "1"], body: #"{"errorCode":4290000,"errorMessage":"Rate limit exceeded."}"#),
                .init(status: 200, body: answer),
            ]
        ])
        let started = Date()
        let run = CLIRun(arguments(server, ["2000000400000009"]))
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 1.0, "Retry-After: 1 is waited for")
        XCTAssertEqual(server.requests.count, 2)
        XCTAssertEqual(run.out.components(separatedBy: "\n").first, "2000000400000009  transaction  Production  found")
        let path = try XCTUnwrap(run.out.components(separatedBy: " saved in ").last?.components(separatedBy: "\n").first)
        let saved = try evidenceLines(path)
        XCTAssertEqual(saved.map { $0["http_status"] as? Int }, [200], "the 429 is no answer to keep")
    }

    func testServerErrorsAfterThreeRetriesFailThatIdOnly() throws {
        let server = try server([
            "/production/inApps/v1/transactions/2000000400000007": [
                .init(status: 500, body: #"{"errorCode":5000000,"errorMessage":"An unknown error occurred."}"#)
            ],
            "/production/inApps/v1/transactions/2000000400000008": [
                .init(status: 400, body: #"{"errorCode":4000006,"errorMessage":"Invalid transaction id."}"#)
            ],
        ])
        let run = CLIRun(arguments(server, ["2000000400000007", "2000000400000008", "--json"]))
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(server.requests.filter { $0.path.hasSuffix("/2000000400000007") }.count, 4, "the request and 3 retries")
        XCTAssertEqual(run.err, "iap-audit: ask-apple: 2000000400000007: HTTP 500 after 3 retries")
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any])
        XCTAssertEqual(json["exit"] as? Int, 1)
        XCTAssertEqual(json["summary"] as? String, "asked Apple about 2 ids: 1 invalid id, 1 failed")
        let asked = try XCTUnwrap(json["asked"] as? [[String: Any]])
        XCTAssertEqual(asked.map { $0["outcome"] as? String }, ["failed", "invalid id"])
        XCTAssertEqual(asked.map { $0["failure"] as? String }, ["HTTP 500 after 3 retries", nil])
        let saved = try evidenceLines(try XCTUnwrap(json["evidence"] as? String))
        XCTAssertEqual(saved.map { $0["transaction_id"] as? String }, ["2000000400000008"], "the failed id saves nothing")
        XCTAssertEqual(saved.first?["http_status"] as? Int, 400)
        try assertNoSecret(in: [run.out, run.err], server: server)
    }

    func testARedirectIsNotFollowed() throws {
        let server = try server([
            "/production/inApps/v1/transactions/2000000400000006": [.init(status: 302, headers: ["Location": "/elsewhere"])],
            "/elsewhere": [.init(status: 200, body: #"{"signedTransactionInfo":"x"}"#)],
        ])
        let run = CLIRun(arguments(server, ["2000000400000006"]))
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(server.requests.map(\.path), ["/production/inApps/v1/transactions/2000000400000006"], "the token goes nowhere else")
        XCTAssertEqual(run.err, "iap-audit: ask-apple: 2000000400000006: HTTP 302 with no answer of Apple's (no JSON object)")
        XCTAssertEqual(run.out.components(separatedBy: "\n").last, "no answer of Apple's to save: nothing written")
    }

    func testKeyReadableByOthersIsRefusedBeforeAnyRequest() throws {
        let server = try server([:])
        chmod(keyPath, 0o644)
        let run = CLIRun(arguments(server, ["2000000400000001"]))
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(
            run.err,
            "iap-audit: \(keyPath): error: cannot read input: the App Store Connect key may be read by group or others (mode 644): "
                + "run chmod 600 \(keyPath)")
        XCTAssertTrue(server.requests.isEmpty)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder + "/evidence"))
        let plain = CLIRun(arguments(server, ["2000000400000001", "--base-url", "http://api.example.com"]))
        XCTAssertEqual(plain.status, 64, "a token never goes over plain http to another machine")
    }

    func testNothingToAskWhenNoOpenAskAppleFinding() throws {
        let out = try ledger()
        for n in 1...2 {
            XCTAssertEqual(CLIRun(["ack", "dropped_order:200000040000000\(n)", "--note", "asked by hand", "--out", out]).status, 0)
        }
        let server = try server([:])
        let run = CLIRun(arguments(server, ["--out", out]))
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertEqual(
            run.out, "nothing to ask Apple: no open finding of \(out)/audit.sqlite calls for ask_apple, and no id was given")
        XCTAssertTrue(server.requests.isEmpty)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder + "/evidence"))
    }

    func testTokenClaimsAsAppleDocumentsThem() throws {
        let key = try AppStoreConnectKey(pem: try XCTUnwrap(FileManager.default.contents(atPath: keyPath)))
        let token = try key.token(keyId: Self.keyId, issuerId: Self.issuerId, bundleId: Self.bundleId, issuedAt: 1_796_000_000)
        let parts = token.split(separator: ".").map(String.init)
        XCTAssertEqual(parts.count, 3)
        XCTAssertEqual(
            String(decoding: try XCTUnwrap(TestJWS.base64URLDecode(Substring(parts[0]))), as: UTF8.self),
            #"{"alg":"ES256","kid":"TESTKEY123","typ":"JWT"}"#)
        XCTAssertEqual(
            String(decoding: try XCTUnwrap(TestJWS.base64URLDecode(Substring(parts[1]))), as: UTF8.self),
            #"{"iss":"57246542-96fe-1a63-e053-0824d011072a","iat":1796000000,"exp":1796001200,"aud":"appstoreconnect-v1","bid":"com.example"}"#
        )
        let signature = try XCTUnwrap(ES256Signature(raw: try XCTUnwrap(TestJWS.base64URLDecode(Substring(parts[2])))))
        XCTAssertTrue(signature.verifies(Data((parts[0] + "." + parts[1]).utf8), with: try XCTUnwrap(X509Certificate(der: certificate))))
        let long = try key.token(keyId: "K", issuerId: "I", bundleId: "B", issuedAt: 100, lifetime: 7200)
        let payload = try XCTUnwrap(TestJWS.base64URLDecode(Substring(long.split(separator: ".")[1])))
        XCTAssertEqual(String(decoding: payload, as: UTF8.self), #"{"iss":"I","iat":100,"exp":3700,"aud":"appstoreconnect-v1","bid":"B"}"#)
        XCTAssertThrowsError(try AppStoreConnectKey(pem: Data("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n".utf8)))
    }

    /// What is wrong with an `Authorization` header's token as Apple checks it: `Bearer` JWT, header alg ES256, kid, typ
    /// JWT; payload iss, aud appstoreconnect-v1, bid, exp after now and at most 60 minutes after iat; signed by the test key.
    static func tokenProblems(_ header: String?, certificate: Data) -> [String] {
        guard let header, header.hasPrefix("Bearer ") else { return ["no Bearer token"] }
        let parts = header.dropFirst(7).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let h = object(parts[0]), let p = object(parts[1]) else { return ["no JWT"] }
        var problems: [String] = []
        if h["alg"] as? String != "ES256" || h["kid"] as? String != keyId || h["typ"] as? String != "JWT" { problems.append("header") }
        if p["iss"] as? String != issuerId || p["aud"] as? String != "appstoreconnect-v1" || p["bid"] as? String != bundleId {
            problems.append("claims")
        }
        let now = Int(Date().timeIntervalSince1970)
        if let iat = p["iat"] as? Int, let exp = p["exp"] as? Int, exp > now, exp - iat <= 3600, iat <= now + 60 {
        } else {
            problems.append("times")
        }
        let signature = TestJWS.base64URLDecode(parts[2]).flatMap(ES256Signature.init(raw:))
        let key = X509Certificate(der: certificate)
        if signature == nil || key == nil || !signature!.verifies(Data("\(parts[0]).\(parts[1])".utf8), with: key!) {
            problems.append("signature")
        }
        return problems
    }

    private static func object(_ part: Substring) -> [String: Any]? {
        TestJWS.base64URLDecode(part).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
    }
}
