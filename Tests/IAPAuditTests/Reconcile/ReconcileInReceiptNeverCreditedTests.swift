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

/// semantics.md rule 9: dropped_order / in_receipt_never_credited — Apple took money nobody granted. The
/// finding, its details and what is excluded, as data: `Fixtures/cases/in-receipt-never-credited*`.
final class ReconcileInReceiptNeverCreditedTests: XCTestCase {
    private static let ours = AuditConfig(bundleIds: ["com.ours"])

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

    func testPurchasedOwnershipIsIncluded() {
        let b = LedgerBuilder()
        b.response(for: nil, receipt: [LedgerBuilder.item("T7", ownership: "PURCHASED")], at: nil)
        XCTAssertEqual(b.findings(), ["dropped_order/in_receipt_never_credited/T7"])
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
}
