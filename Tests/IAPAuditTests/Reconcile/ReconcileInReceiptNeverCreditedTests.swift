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

/// SEMANTICS rule 9: dropped_order / in_receipt_never_credited — Apple took money nobody granted.
final class ReconcileInReceiptNeverCreditedTests: XCTestCase {
    private static let ours = AuditConfig(bundleIds: ["com.ours"])

    func testItemOfABareProductionResponse() {
        let b = LedgerBuilder(config: Self.ours)
        b.response(for: nil, bundle: "com.ours", items: ["T7"], at: nil)
        XCTAssertEqual(b.findings(), ["dropped_order/in_receipt_never_credited/T7"])
        let finding = b.finding(.droppedOrder, "T7")
        XCTAssertEqual(LedgerBuilder.evidence(finding), ["verify.jsonl:1"])
        XCTAssertEqual(finding?.severity, .error)
    }

    /// A refunded purchase nobody credited is still rule 9's dropped order, and its detail says Apple
    /// refunded it (the money was given back, not kept).
    func testRefundedItemSaysSoInItsDetail() {
        let b = LedgerBuilder(config: Self.ours)
        b.response(for: nil, bundle: "com.ours", receipt: [LedgerBuilder.item("T7", cancelled: "2026-10-02T08:00:00Z")], at: nil)
        b.response(for: nil, bundle: "com.ours", items: ["T8"], at: nil)
        XCTAssertEqual(
            b.finding(.droppedOrder, "T7")?.detail,
            "in 1 production record(s) from Apple (verify_receipt); never reported by the client, never granted; "
                + "Apple shows it cancelled (refunded) at 2026-10-02T08:00:00.000Z")
        XCTAssertEqual(
            b.finding(.droppedOrder, "T8")?.detail,
            "in 1 production record(s) from Apple (verify_receipt); never reported by the client, never granted")
    }

    func testItemOfALinkedResponseBesideTheGrantedOne() {
        let b = LedgerBuilder()
        b.client("T1")
        b.request("r1", ids: ["T1"], granted: true, at: "10:00")
        b.response(for: "r1", items: ["T1", "T7"], at: "10:01")
        XCTAssertEqual(b.findings(), ["dropped_order/in_receipt_never_credited/T7"])
    }

    func testItemOfANonFinalResponseCounts() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], granted: true, at: "10:00")
        b.response(for: "r1", items: ["T7"], at: "10:01")
        b.response(for: "r1", items: ["T1"], at: "10:02")
        XCTAssertEqual(b.findings(), ["dropped_order/in_receipt_never_credited/T7"])
    }

    func testResponseLinkedToAnUnknownRequestCounts() {
        let b = LedgerBuilder()
        b.response(for: "r-missing", items: ["T7"], at: "10:01")
        XCTAssertEqual(b.findings(), ["dropped_order/in_receipt_never_credited/T7"])
    }

    func testEnvironmentMissingIsNotSandbox() {
        let b = LedgerBuilder()
        b.response(for: nil, env: nil, items: ["T7"], at: nil)
        XCTAssertEqual(b.findings(), ["dropped_order/in_receipt_never_credited/T7"])
        XCTAssertEqual(
            b.finding(.droppedOrder, "T7")?.detail,
            "in 1 record(s) not marked Sandbox (no environment given) from Apple (verify_receipt); never reported by the client, never granted"
        )
    }

    func testSandboxResponseIsExcluded() {
        let b = LedgerBuilder()
        b.response(for: nil, env: "Sandbox", items: ["T7"], at: nil)
        b.response(for: nil, env: nil, receiptType: "ProductionSandbox", items: ["T8"], at: nil)
        XCTAssertEqual(b.findings(), [])
    }

    func testNonZeroStatusResponseIsExcluded() {
        let b = LedgerBuilder()
        b.response(for: nil, status: 21006, items: ["T7"], at: nil)
        XCTAssertEqual(b.findings(), [])
    }

    func testFamilySharedItemIsExcluded() {
        let b = LedgerBuilder()
        b.response(for: nil, receipt: [LedgerBuilder.item("T7", ownership: "FAMILY_SHARED")], at: nil)
        XCTAssertEqual(b.findings(), [])
    }

    func testPurchasedOwnershipIsIncluded() {
        let b = LedgerBuilder()
        b.response(for: nil, receipt: [LedgerBuilder.item("T7", ownership: "PURCHASED")], at: nil)
        XCTAssertEqual(b.findings(), ["dropped_order/in_receipt_never_credited/T7"])
    }

    func testForeignBundleIsExcluded() {
        let b = LedgerBuilder(config: Self.ours)
        b.response(for: nil, bundle: "com.someone.else", items: ["T7"], at: nil)
        XCTAssertEqual(b.findings(), [])
    }

    func testUnknownBundleIsIncluded() {
        let b = LedgerBuilder(config: Self.ours)
        b.response(for: nil, bundle: nil, items: ["T7"], at: nil)
        XCTAssertEqual(b.findings(), ["dropped_order/in_receipt_never_credited/T7"])
    }

    func testNoConfiguredBundleIncludesAnyBundle() {
        let b = LedgerBuilder()
        b.response(for: nil, bundle: "com.someone.else", items: ["T7"], at: nil)
        XCTAssertEqual(b.findings(), ["dropped_order/in_receipt_never_credited/T7"])
    }

    func testReportedByTheClientIsExcluded() {
        let b = LedgerBuilder()
        b.client("T7", .restored)
        b.client("T8", .failed)
        b.response(for: nil, items: ["T7", "T8"], at: nil)
        XCTAssertEqual(b.findings(), [])
    }

    func testGrantedIsExcluded() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T7"], user: "u2", granted: true, at: "10:00")
        b.response(for: "r1", items: ["T7"], at: "10:01")
        b.response(for: nil, items: ["T7"], at: nil)
        XCTAssertEqual(b.findings(), [])
    }

    func testGrantedWithoutProofIsExcluded() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T7"], granted: true, status: 0, at: "10:00")
        b.response(for: nil, items: ["T7"], at: nil)
        XCTAssertEqual(b.findings(), ["invalid_credit/no_verify_response/T7"])
    }

    func testPendingIsExcluded() {
        let b = LedgerBuilder()
        b.response(for: nil, items: ["T7"], at: nil)
        b.request("r1", ids: ["T7"], at: "10:00")
        XCTAssertEqual(b.findings(asOf: "10:30"), ["pending_verification/no_verify_response/T7"])
    }

    func testOverdueIsNotPending() {
        let b = LedgerBuilder()
        b.response(for: nil, items: ["T7"], at: nil)
        b.request("r1", ids: ["T7"], at: "10:00")
        XCTAssertEqual(
            b.findings(asOf: "2026-10-03T10:00:00Z"),
            ["dropped_order/in_receipt_never_credited/T7", "verification_backlog/no_verify_response/T7"])
    }

    func testCarriedButNotGrantedIsIncluded() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T7"], at: "10:00")
        b.response(for: "r1", items: ["T7"], at: "10:01")
        XCTAssertEqual(b.findings(), ["dropped_order/in_receipt_never_credited/T7"])
    }

    func testOneRowForAnItemListedByManyResponses() {
        let b = LedgerBuilder()
        b.response(for: nil, items: ["T7"], at: nil)
        b.response(for: nil, items: ["T7"], at: nil)
        XCTAssertEqual(b.findings(), ["dropped_order/in_receipt_never_credited/T7"])
        XCTAssertEqual(LedgerBuilder.evidence(b.finding(.droppedOrder, "T7")), ["verify.jsonl:1", "verify.jsonl:2"])
    }
}
