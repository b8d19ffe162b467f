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

/// A small server log and client report around the 9 real transaction ids of RevenueCat's
/// verifyReceipt sample (read from ../shared/real-data, wrapped as the server would log it),
/// with one planted dropped order and one planted cross-account credit. Skipped, with one line, when ../shared is
/// absent (a bare clone).
final class RevenueCatEndToEndTests: XCTestCase {
    static let ids: [(id: String, purchaseMs: Int64)] = [
        ("1000000692878476", 1_594_755_206_000), ("1000000692879214", 1_594_755_400_000),
        ("1000000692901513", 1_594_762_977_000), ("1000000692902182", 1_594_763_277_000),
        ("1000000692902990", 1_594_763_577_000), ("1000000692905419", 1_594_763_877_000),
        ("1000000692905971", 1_594_764_177_000), ("1000000692906727", 1_594_764_500_000),
        ("1000000696553650", 1_595_439_546_000),
    ]
    static let dropped = "1000000696553650"
    static let replayed = "1000000692905971"

    func testExactlyThePlantedFindings() throws {
        try TestPaths.requireRealData()
        let dir = TestPaths.scratch()
        let apple = try String(
            contentsOfFile: try TestPaths.realData("RevenueCat__purchases-ios/verifyReceiptSample1.txt"), encoding: .utf8)
        let appleLine = apple.replacingOccurrences(of: "\n", with: " ")
        var client: [String] = []
        var server: [String] = []
        var verify: [String] = []
        for (i, t) in Self.ids.enumerated() {
            client.append(
                #"{"ts": \#(t.purchaseMs), "user_id": "u-alice", "device_id": "d-1", "transaction_id": "\#(t.id)", "original_transaction_id": "1000000692878476", "product_id": "com.revenuecat.monthly_4.99.1_week_intro", "state": "purchased"}"#
            )
            if t.id == Self.dropped { continue }  // planted: the client reported it, the server never saw it
            let request = "r-alice-\(i)"
            server.append(
                #"{"ts": \#(t.purchaseMs + 2000), "request_id": "\#(request)", "user_id": "u-alice", "device_id": "d-1", "transaction_ids": ["\#(t.id)"], "restore": false, "receipt_sha256": "ab12", "verify_status": 0, "environment": "Sandbox", "granted": true, "latency_ms": 900}"#
            )
            verify.append(#"{"request_id": "\#(request)", "received_at": \#(t.purchaseMs + 2900), "response": \#(appleLine)}"#)
        }
        // Planted: the same receipt replayed by another account, crediting one transaction again.
        // Replayed after the last purchase's day: the server log then runs past the dropped order's grace (rule 26).
        let replayMs = Self.ids[8].purchaseMs + 86_400_000 + 60_000
        server.append(
            #"{"ts": \#(replayMs), "request_id": "r-mallory", "user_id": "u-mallory", "device_id": "d-9", "transaction_ids": ["\#(Self.replayed)"], "restore": false, "receipt_sha256": "ab12", "verify_status": 0, "environment": "Sandbox", "granted": true, "latency_ms": 1200}"#
        )
        verify.append(#"{"request_id": "r-mallory", "received_at": \#(replayMs + 1200), "response": \#(appleLine)}"#)
        TestPaths.write(client.joined(separator: "\n") + "\n", to: dir + "/client.jsonl")
        TestPaths.write(server.joined(separator: "\n") + "\n", to: dir + "/server.jsonl")
        TestPaths.write(verify.joined(separator: "\n") + "\n", to: dir + "/verify.jsonl")
        // RevenueCat's sample app lives in the sandbox: its accounts are testers.
        let config = AuditConfig(
            bundleIds: ["com.revenuecat.sampleapp"], sandboxAllowlist: ["u-alice", "u-mallory"],
            products: [
                "com.revenuecat.monthly_4.99.1_week_intro": .autoRenewable,
                "com.revenuecat.annual_39.99.2_week_intro": .autoRenewable,
            ])
        let result = try AuditPipeline.run(AuditOptions(paths: [dir], outputDirectory: dir + "/out", config: config))

        let problems = (try result.snapshot.findings.all()).filter { !$0.kind.isInfo }
        XCTAssertEqual(
            problems.map { "\($0.kind.rawValue)/\($0.reason)/\($0.transactionId)" },
            ["dropped_order/never_sent/\(Self.dropped)", "duplicate_credit/cross_account/\(Self.replayed)"])
        XCTAssertEqual(problems[1].userIds, ["u-alice", "u-mallory"])
        XCTAssertEqual(problems[1].productId, "com.revenuecat.monthly_4.99.1_week_intro")
        XCTAssertEqual(problems[0].evidence.map(\.description), [dir + "/client.jsonl:9"])
        // Every credit rests on a Sandbox answer to an allowlisted tester: info, never a leak.
        let info = (try result.snapshot.findings.all()).filter { $0.kind.isInfo }
        XCTAssertEqual(Set(info.map(\.kind)), [.sandboxAllowlisted])
        XCTAssertEqual(info.map(\.transactionId).sorted(), Self.ids.map(\.id).filter { $0 != Self.dropped }.sorted())
        XCTAssertEqual(result.snapshot.recordCounts["apple_transaction"], 9 * 9)
    }
}
