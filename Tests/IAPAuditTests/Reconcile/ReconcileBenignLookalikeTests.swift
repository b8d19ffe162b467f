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

/// Normal flows that look like problems and must produce no finding.
final class ReconcileBenignLookalikeTests: XCTestCase {
    func testSameTransactionInInAppAndLatestReceiptInfo() {
        let b = LedgerBuilder()
        b.client("T1")
        b.request("r1", ids: ["T1"], granted: true, at: "10:00")
        b.response(
            for: "r1", receipt: [LedgerBuilder.item("T1", original: "T1", sections: ["in_app", "latest_receipt_info"])],
            at: "10:01")
        XCTAssertEqual(b.findings(), [])
    }

    func testRenewalsSharingAnOriginalTransactionId() {
        let b = LedgerBuilder(config: AuditConfig(products: ["p.sub": .autoRenewable]))
        let t1 = LedgerBuilder.item(
            "T1", original: "T1", product: "p.sub", purchased: "2026-09-01T09:00:00Z",
            sections: ["in_app", "latest_receipt_info"])
        let t2 = LedgerBuilder.item(
            "T2", original: "T1", product: "p.sub", purchased: "2026-10-01T09:00:00Z",
            sections: ["in_app", "latest_receipt_info"])
        b.client("T1", product: "p.sub", at: "2026-09-01T09:00:00Z")
        b.request("r1", ids: ["T1"], granted: true, at: "2026-09-01T09:01:00Z")
        b.response(for: "r1", receipt: [t1], at: "2026-09-01T09:01:01Z")
        b.client("T2", product: "p.sub", original: "T1", at: "09:00")
        b.request("r2", ids: ["T2"], granted: true, at: "09:01")
        b.response(for: "r2", receipt: [t1, t2], at: "09:01")
        XCTAssertEqual(b.findings(), [])
    }

    func testARestoreWithANewTransactionId() {
        let b = LedgerBuilder(config: AuditConfig(products: ["p.nc": .nonConsumable]))
        let original = LedgerBuilder.item("T1", original: "T1", product: "p.nc", purchased: "2026-09-01T09:00:00Z")
        b.client("T1", product: "p.nc", at: "2026-09-01T09:00:00Z")
        b.request("r1", ids: ["T1"], granted: true, at: "2026-09-01T09:01:00Z")
        b.response(for: "r1", receipt: [original], at: "2026-09-01T09:01:01Z")
        b.client("T5", .restored, product: "p.nc", original: "T1", at: "09:00")
        b.request("r2", ids: ["T5"], granted: true, restore: true, at: "09:01")
        b.response(
            for: "r2", receipt: [original, LedgerBuilder.item("T5", original: "T1", product: "p.nc", purchased: "09:00")],
            at: "09:02")
        XCTAssertEqual(b.findings(), [])
    }

    func testAFailedPurchaseThenASuccessfulOne() {
        let b = LedgerBuilder()
        b.client(nil, .failed, at: "09:00")
        b.client("T1", at: "09:05")
        b.request("r1", ids: ["T1"], granted: true, at: "09:06")
        b.response(for: "r1", items: ["T1"], at: "09:07")
        XCTAssertEqual(b.findings(), [])
    }

    func testAFailedVerificationThenASuccessfulRetry() {
        let b = LedgerBuilder()
        b.client("T1", at: "09:05")
        b.request("r1", ids: ["T1"], at: "09:06")
        b.response(for: "r1", status: 21005, at: "09:07")
        b.request("r2", ids: ["T1"], at: "09:10")
        b.response(for: "r2", status: 21003, at: "09:11")
        b.request("r3", ids: ["T1"], granted: true, at: "09:20")
        b.response(for: "r3", items: ["T1"], at: "09:21")
        XCTAssertEqual(b.findings(), [])
    }

    func testAnUnansweredAttemptThenASuccessfulRetry() {
        let b = LedgerBuilder()
        b.client("T1", at: "09:05")
        b.request("r1", ids: ["T1"], at: "09:06")
        b.request("r2", ids: ["T1"], granted: true, at: "09:30")
        b.response(for: "r2", items: ["T1"], at: "09:31")
        XCTAssertEqual(b.findings(), [])
    }

    func testFamilySharedPurchaseNobodyHereBought() {
        let b = LedgerBuilder()
        b.client("T1")
        b.request("r1", ids: ["T1"], granted: true, at: "10:00")
        b.response(
            for: "r1", receipt: [LedgerBuilder.item("T1"), LedgerBuilder.item("T8", ownership: "FAMILY_SHARED")],
            at: "10:01")
        b.response(for: nil, receipt: [LedgerBuilder.item("T9", ownership: "FAMILY_SHARED")], at: nil)
        XCTAssertEqual(b.findings(), [])
    }

    func testOneRequestCreditingSeveralPurchases() {
        let b = LedgerBuilder()
        b.client("T1")
        b.client("T2")
        b.request("r1", ids: ["T1", "T2"], granted: true, at: "10:00")
        b.response(for: "r1", items: ["T1", "T2"], at: "10:01")
        XCTAssertEqual(b.findings(), [])
    }
}
