import Foundation
import XCTest

@testable import IAPAuditCLI
@testable import IAPAuditModel
@testable import IAPAuditPipeline

/// A credit granted on Apple's error (status 21003: `invalid_credit/nonzero_status`) that a later day's
/// verifyReceipt answer lists, paid: the finding stays (rule 13 judges a grant by its own request's
/// answer), and the next action must not ask to re-verify what Apple has confirmed.
final class TraceConfirmedCreditTests: XCTestCase {
    static let inputs: [String: String] = [
        "config.json": #"{"bundle_ids": ["com.example.app"], "products": {"com.example.gems60": "consumable"}}"#,
        "client.jsonl": #"""
        {"ts": "2026-10-12T09:00:01Z", "user_id": "u311", "device_id": "D311", "transaction_id": "2000000400000301", "product_id": "com.example.gems60", "state": "purchased"}
        """#,
        "server.jsonl": #"""
        {"ts": "2026-10-12T09:00:02Z", "request_id": "r1", "user_id": "u311", "transaction_ids": ["2000000400000301"], "verify_status": 21003, "granted": true}
        """#,
        "verify.jsonl": #"""
        {"request_id": "r1", "received_at": "2026-10-12T09:00:03Z", "response": {"status": 21003}}
        {"request_id": "r2", "received_at": "2026-10-13T10:00:00Z", "response": {"status": 0, "environment": "Production", "receipt": {"receipt_type": "Production", "bundle_id": "com.example.app", "in_app": [{"quantity": "1", "product_id": "com.example.gems60", "transaction_id": "2000000400000301", "original_transaction_id": "2000000400000301", "purchase_date_ms": "1791795600000"}]}}}
        """#,
    ]

    func testACreditAppleConfirmsIsNotToBeReverified() throws {
        let out = TestPaths.scratch("traceconfirmedcredit")
        let folder = out + "/in"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (name, text) in Self.inputs { try (text + "\n").write(toFile: folder + "/" + name, atomically: true, encoding: .utf8) }
        var options = AuditOptions(paths: [folder], outputDirectory: out, config: try ConfigLoader.load(path: folder + "/config.json"))
        options.asOfMs = Timestamp.parseMs("2026-10-15T00:00:00Z")
        _ = try AuditPipeline.run(options)
        let run = TraceTests.trace(["2000000400000301", "--out", out])
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertEqual(
            TraceTests.portable(run.out, out: out).components(separatedBy: "\n").suffix(5),
            [
                "  invalid_credit/nonzero_status (warning): granted without proof by r1 (nonzero_status)",
                "    invalid_credit:2000000400000301: open since run 1",
                "Apple: confirms the payment (OUT/in/verify.jsonl:2)",
                "credited: u311 by r1 (OUT/in/server.jsonl:1)",
                "next action: no action on the credit: Apple confirms the payment (OUT/in/verify.jsonl:2), so the credit to u311 "
                    + "stands; the finding stays: it was granted without proof (Apple answered status 21003: receipt could not be "
                    + "authenticated): check the server's verification, then ack the finding",
            ])
        let verdict = try XCTUnwrap(
            try TracePipeline.run(id: "2000000400000301", ledgerPath: out + "/audit.sqlite").result.transactions.first?.verdict)
        XCTAssertEqual(verdict.action, .noAction)
    }
}
