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

/// `run` end to end on signed evidence made at test time by a throwaway CA (openssl CLI): wrapped
/// JWS transactions linked to server requests, a REFUND notification delivered twice, a DID_RENEW
/// notification nobody credited, a forged JWS, and a PKCS#7 receipt posted with `receipt_data`.
final class SignedEvidenceEndToEndTests: XCTestCase {
    private struct Scenario {
        let folder: String
        let input: String
        let anchor: String
    }

    private static let bundle = "com.example.app"

    private func transaction(_ id: String, signedMs: Int64, revoked: Int64? = nil) -> [String: Any] {
        var payload: [String: Any] = [
            "transactionId": id, "originalTransactionId": id, "bundleId": Self.bundle, "productId": "com.example.gems60",
            "purchaseDate": 1_790_848_800_000, "quantity": 1, "type": "Consumable", "inAppOwnershipType": "PURCHASED",
            "environment": "Production", "signedDate": signedMs, "price": 990, "currency": "EUR", "storefront": "FRA",
            "transactionReason": "PURCHASE",
        ]
        if let revoked {
            payload["revocationDate"] = revoked
            payload["revocationReason"] = 0
            payload["revocationType"] = "REFUND_FULL"
        }
        return payload
    }

    private func makeScenario() throws -> Scenario {
        let folder = TestPaths.scratch()
        let certs = folder + "/certs"
        let input = folder + "/input"
        for path in [certs, input] { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        let fixtures = try OpenSSLFixtures(folder: certs)
        let chain = try fixtures.makeChain("e2e")
        let anchor = certs + "/root.der"
        try chain.root.write(to: URL(fileURLWithPath: anchor))
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let header: [String: Any] = ["alg": "ES256", "x5c": chain.x5c.map { $0.base64EncodedString() }]
        func sign(_ payload: [String: Any]) throws -> String { try fixtures.signJWS(header: header, payload: payload, by: chain) }
        func line(_ object: [String: Any]) throws -> String {
            String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
        }
        // A forged copy: the payload of T2 swapped for one claiming T2 was bought in production by a
        // different product, the signature kept.
        let genuineT2 = try sign(transaction("T2", signedMs: now))
        let parts = genuineT2.split(separator: ".")
        var altered = transaction("T2", signedMs: now)
        altered["productId"] = "com.example.gems6000"
        let forgedPayload = TestJWS.base64URLEncode(try JSONSerialization.data(withJSONObject: altered, options: [.sortedKeys]))
        let forgedT2 = "\(parts[0]).\(forgedPayload).\(parts[2])"

        let server = [
            #"{"ts": "2026-10-01T10:00:00Z", "request_id": "r1", "user_id": "u1", "transaction_ids": ["T1"], "granted": true}"#,
            #"{"ts": "2026-10-01T10:05:00Z", "request_id": "r2", "user_id": "u2", "transaction_ids": ["T2"], "granted": true}"#,
            #"{"ts": "2026-10-01T10:10:00Z", "request_id": "r4", "user_id": "u4", "transaction_ids": ["T4"], "granted": true}"#,
            // A revoke of nothing these records know, two days on: the server log runs past every grace here (rule 26).
            #"{"ts": "2026-10-03T12:00:00Z", "request_id": "v9", "event": "revoke", "user_id": "u9", "transaction_ids": ["T9"]}"#,
        ]
        try server.joined(separator: "\n").write(toFile: input + "/server.jsonl", atomically: true, encoding: .utf8)
        let apple = [
            try line([
                "request_id": "r1", "received_at": "2026-10-01T10:00:01Z", "signed_transaction": try sign(transaction("T1", signedMs: now)),
            ]),
            try line(["request_id": "r2", "received_at": "2026-10-01T10:05:01Z", "signed_transaction": forgedT2]),
        ]
        try apple.joined(separator: "\n").write(toFile: input + "/apple.jsonl", atomically: true, encoding: .utf8)
        let refund = try sign([
            "notificationType": "REFUND", "notificationUUID": "n-refund-1", "version": "2.0", "signedDate": now,
            "data": [
                "bundleId": Self.bundle, "environment": "Production", "status": 1,
                "signedTransactionInfo": try sign(transaction("T1", signedMs: now, revoked: 1_790_900_000_000)),
            ],
        ])
        let renew = try sign([
            "notificationType": "DID_RENEW", "notificationUUID": "n-renew-1", "version": "2.0", "signedDate": now,
            "data": [
                "bundleId": Self.bundle, "environment": "Production", "signedTransactionInfo": try sign(transaction("T3", signedMs: now)),
            ],
        ])
        let notifications = [try line(["signedPayload": refund]), try line(["signedPayload": refund]), try line(["signedPayload": renew])]
        try notifications.joined(separator: "\n").write(toFile: input + "/notifications.jsonl", atomically: true, encoding: .utf8)

        let creation = Timestamp.iso(now).replacingOccurrences(of: ".000", with: "")
        let purchase = DERTestEncoding.set([
            DERTestEncoding.field(1701, DERTestEncoding.integer(1)),
            DERTestEncoding.field(1702, DERTestEncoding.utf8("com.example.gems60")),
            DERTestEncoding.field(1703, DERTestEncoding.utf8("T4")), DERTestEncoding.field(1705, DERTestEncoding.utf8("T4")),
            DERTestEncoding.field(1704, DERTestEncoding.ia5("2026-10-01T10:09:00Z")),
        ])
        let payload = DERTestEncoding.set([
            DERTestEncoding.field(0, DERTestEncoding.utf8("Production")), DERTestEncoding.field(2, DERTestEncoding.utf8(Self.bundle)),
            DERTestEncoding.field(12, DERTestEncoding.ia5(creation)), DERTestEncoding.field(17, purchase),
        ])
        let receipt = try fixtures.signPKCS7(Data(payload), by: chain)
        let posted = try line(["request_id": "r4", "received_at": "2026-10-01T10:10:01Z", "receipt_data": receipt.base64EncodedString()])
        try posted.write(toFile: input + "/receipts.jsonl", atomically: true, encoding: .utf8)
        return Scenario(folder: folder, input: input, anchor: anchor)
    }

    private func run(_ scenario: Scenario, anchored: Bool, out: String) throws -> AuditResult {
        var config = AuditConfig(bundleIds: [Self.bundle])
        if anchored {
            config.jwsTrustAnchors = [scenario.anchor]
            config.receiptTrustAnchors = [scenario.anchor]
        } else {
            config.jwsTrustAnchors = [try TestPaths.realData("namecare__app-store-server-library-rust/AppleRootCA-G3.cer")]
            config.receiptTrustAnchors = [try TestPaths.realData("tikhop__TPInAppReceipt/AppleIncRootCertificate.cer")]
        }
        // The as-of of the records before v9 (r4's receipt), as rule 14 judged them.
        var options = AuditOptions(paths: [scenario.input], outputDirectory: out, config: config)
        options.asOfMs = Timestamp.parseMs("2026-10-01T10:10:01Z")
        return try AuditPipeline.run(options)
    }

    private func keys(_ result: AuditResult) throws -> [String] {
        (try result.snapshot.findings.all()).map { "\($0.kind.rawValue)/\($0.reason)/\($0.transactionId)" }.sorted()
    }

    func testSignedEvidenceGivesTheExactFindings() throws {
        let scenario = try makeScenario()
        let out = scenario.folder + "/out"
        let result = try run(scenario, anchored: true, out: out)
        XCTAssertEqual(
            try keys(result),
            [
                "dropped_order/in_receipt_never_credited/T3", "invalid_credit/signature_invalid/T2",
                // r2's only answer is forged: no answer (docs/security.md, "Trust levels").
                "pending_verification/no_verify_response/T2", "refund_still_granted/cancelled_not_revoked/T1",
            ])
        let kinds = Dictionary(
            result.snapshot.files.map { (URL(fileURLWithPath: $0.path).lastPathComponent, $0.kind) }, uniquingKeysWith: { a, _ in a })
        XCTAssertEqual(
            kinds,
            [
                "server.jsonl": "server_log", "apple.jsonl": "signed_transaction", "notifications.jsonl": "notification_v2",
                "receipts.jsonl": "app_receipt",
            ])
        let refund = try XCTUnwrap(try result.snapshot.findings.all().first { $0.kind == .refundStillGranted })
        XCTAssertEqual(refund.userIds, ["u1"])
        XCTAssertEqual(
            refund.evidence.map { "\(URL(fileURLWithPath: $0.file).lastPathComponent):\($0.line)" }.sorted(),
            ["apple.jsonl:1", "notifications.jsonl:1", "server.jsonl:1"], "the redelivery (line 2) is not evidence twice")
        XCTAssertTrue(refund.detail.contains("revocationType REFUND_FULL"), refund.detail)

        let rows =
            try PythonReader.run(
                """
                import json, sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                q1 = "SELECT f.path, r.line, r.source, r.signature FROM apple_record r JOIN source_file f USING (file_id) ORDER BY f.path, r.line"
                q2 = "SELECT notification_uuid, deliveries FROM notification_delivery ORDER BY 1"
                q3 = "SELECT transaction_id, price_milliunits, currency, storefront, signature FROM apple_transaction WHERE transaction_id = 'T1' ORDER BY signature"
                print(json.dumps({"records": [[r[0].split("/")[-1], r[1], r[2], r[3]] for r in db.execute(q1)],
                                  "deliveries": db.execute(q2).fetchall(), "t1": db.execute(q3).fetchall()}))
                """, args: [out + "/audit.sqlite"]) as! [String: Any]
        XCTAssertEqual(
            (rows["records"] as? [[Any]])?.map { "\($0[0]):\($0[1]) \($0[2]) \($0[3])" },
            [
                "apple.jsonl:1 signed_transaction verified", "apple.jsonl:2 signed_transaction invalid:bad_signature",
                "notifications.jsonl:1 notification_v2 verified", "notifications.jsonl:2 notification_v2 verified",
                "notifications.jsonl:3 notification_v2 verified", "receipts.jsonl:1 app_receipt verified",
            ])
        XCTAssertEqual((rows["deliveries"] as? [[Any]])?.map { "\($0[0]) \($0[1])" }, ["n-refund-1 2", "n-renew-1 1"])
        XCTAssertEqual(
            (rows["t1"] as? [[Any]])?.map { $0.map { "\($0)" }.joined(separator: " ") },
            ["T1 990 EUR FRA verified", "T1 990 EUR FRA verified", "T1 990 EUR FRA verified"])
    }

    /// Under Apple's anchors the throwaway chain is untrusted: every grant it backs is signature_invalid (its request
    /// unanswered: pending), and it proves no refund and no dropped order. Changing the anchors makes every file be read again.
    func testUntrustedRootProvesNothingAndAnchorsChangeRereadsFiles() throws {
        let scenario = try makeScenario()
        let out = scenario.folder + "/out"
        let untrusted = try run(scenario, anchored: false, out: out)
        XCTAssertEqual(
            try keys(untrusted),
            [
                "invalid_credit/signature_invalid/T1", "invalid_credit/signature_invalid/T2", "invalid_credit/signature_invalid/T4",
                "pending_verification/no_verify_response/T1", "pending_verification/no_verify_response/T2",
                "pending_verification/no_verify_response/T4",
            ])
        XCTAssertTrue(
            (try untrusted.snapshot.appleRecords.all()).allSatisfy {
                $0.signature == "untrusted_root" || $0.signature == "invalid:bad_signature"
            })
        let trusted = try run(scenario, anchored: true, out: out)
        XCTAssertEqual(trusted.filesParsed, 4, "new anchors: every file read again")
        XCTAssertEqual(try keys(trusted).count, 4)
        let again = try run(scenario, anchored: true, out: out)
        XCTAssertEqual(again.filesParsed, 0, "same anchors, same files: nothing read again")
        XCTAssertEqual(try keys(again), try keys(trusted))
    }
}
