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

/// semantics.md rule 10: duplicate_credit (cross_account, same_user, restore_credited_as_purchase)
/// and info regranted. Each reason's own scenario is data: `Fixtures/cases/duplicate-*`, `regranted-*`.
final class ReconcileDuplicateCreditTests: XCTestCase {
    private static func config(_ type: ProductType?) -> AuditConfig {
        AuditConfig(products: type.map { ["p1": $0] } ?? [:])
    }

    /// T1 (product p1) granted by r1 at 10:00 and r2 at 11:00, both with proof.
    private static func twoGrants(
        _ type: ProductType?, users: (String?, String?) = ("u1", "u1"),
        secondIsRestore: Bool = false
    ) -> LedgerBuilder {
        let b = LedgerBuilder(config: config(type))
        b.request("r1", ids: ["T1"], user: users.0, granted: true, at: "10:00")
        b.response(for: "r1", receipt: [LedgerBuilder.item("T1", product: "p1")], at: "10:01")
        b.request("r2", ids: ["T1"], user: users.1, granted: true, restore: secondIsRestore, at: "11:00")
        b.response(for: "r2", receipt: [LedgerBuilder.item("T1", product: "p1")], at: "11:01")
        return b
    }

    /// The detail states the grant count as a number of its own (not the 2 of `r2`).
    private static func mentionsCount(_ detail: String, _ count: Int) -> Bool {
        detail.range(of: "\\b\(count)\\b", options: .regularExpression) != nil
    }

    /// The loss happened at the second credit (the close books it then), not at the first record.
    func testTheLossIsDatedAtTheSecondCredit() {
        let finding = Self.twoGrants(.consumable).finding(.duplicateCredit, "T1")
        XCTAssertEqual(finding?.firstSeenMs, LedgerBuilder.ms("10:00"))
        XCTAssertEqual(finding?.lossAtMs, LedgerBuilder.ms("11:00"))
        // An info finding is no loss.
        XCTAssertNil(Self.twoGrants(.nonConsumable).finding(.regranted, "T1")?.lossAtMs)
    }

    /// A grant without proof of an older purchase is a loss when it was granted (found by a finance user test: it was
    /// booked at the purchase's first record, the month before).
    func testAGrantWithoutProofIsDatedWhenGranted() {
        let b = LedgerBuilder(config: Self.config(.consumable))
        b.client("T1", product: "p1", at: "09:00")
        b.request("r1", ids: ["T1"], user: "u1", granted: true, at: "10:00")
        b.response(for: "r1", status: 21003, at: "10:01")
        let finding = b.finding(.invalidCredit, "T1")
        XCTAssertEqual(finding?.firstSeenMs, LedgerBuilder.ms("09:00"))
        XCTAssertEqual(finding?.lossAtMs, LedgerBuilder.ms("10:00"))
    }

    func testOneGrantIsNoDuplicate() {
        let b = LedgerBuilder(config: Self.config(.consumable))
        b.client("T1", product: "p1")
        b.request("r1", ids: ["T1"], granted: true, at: "10:00")
        b.response(for: "r1", receipt: [LedgerBuilder.item("T1", product: "p1")], at: "10:01")
        XCTAssertEqual(b.findings(), [])
    }

    func testCrossAccountWinsOverANonConsumableType() {
        XCTAssertEqual(Self.twoGrants(.nonConsumable, users: ("u1", "u2")).findings(), ["duplicate_credit/cross_account/T1"])
        XCTAssertEqual(Self.twoGrants(.autoRenewable, users: ("u1", "u2")).findings(), ["duplicate_credit/cross_account/T1"])
    }

    func testCrossAccountWinsOverARestore() {
        XCTAssertEqual(
            Self.twoGrants(.consumable, users: ("u1", "u2"), secondIsRestore: true).findings(),
            ["duplicate_credit/cross_account/T1"])
    }

    func testThreeGrantsCountInTheDetail() {
        let b = Self.twoGrants(.consumable, users: ("u1", "u2"))
        b.request("r3", ids: ["T1"], user: "u3", granted: true, at: "12:00")
        b.response(for: "r3", receipt: [LedgerBuilder.item("T1", product: "p1")], at: "12:01")
        let finding = b.finding(.duplicateCredit, "T1")
        XCTAssertEqual(finding?.userIds, ["u1", "u2", "u3"])
        XCTAssertTrue(Self.mentionsCount(finding?.detail ?? "", 3), finding?.detail ?? "")
    }

    func testANullUserIsNotASecondAccount() {
        XCTAssertEqual(Self.twoGrants(.consumable, users: ("u1", nil)).findings(), ["duplicate_credit/same_user/T1"])
    }

    func testUnknownProductTypeIsSameUser() {
        XCTAssertEqual(Self.twoGrants(nil).findings(), ["duplicate_credit/same_user/T1"])
    }

    func testUnknownProductTypeReGrantedByARestoreIsSameUser() {
        XCTAssertEqual(Self.twoGrants(nil, secondIsRestore: true).findings(), ["duplicate_credit/same_user/T1"])
    }

    func testProductTypeFromApplesItemBeforeTheClientReport() {
        let b = Self.twoGrants(nil)
        b.config.products = ["p1": .nonConsumable, "p.client": .consumable]
        b.client("T1", product: "p.client")
        XCTAssertEqual(b.findings(), ["regranted/non_consumable/T1"])
    }

    func testProductTypeFromTheClientReportWhenAppleHasNone() {
        let b = LedgerBuilder(config: AuditConfig(products: ["p.client": .nonConsumable]))
        b.client("T1", product: "p.client")
        b.request("r1", ids: ["T1"], granted: true, at: "10:00")
        b.response(for: "r1", items: ["T1"], at: "10:01")
        b.request("r2", ids: ["T1"], granted: true, at: "11:00")
        b.response(for: "r2", items: ["T1"], at: "11:01")
        XCTAssertEqual(b.findings(), ["regranted/non_consumable/T1"])
    }

    func testGrantsWithoutProofCountToo() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], granted: true, status: 0, at: "10:00")
        b.request("r2", ids: ["T1"], granted: true, status: 0, at: "11:00")
        XCTAssertEqual(b.findings(), ["duplicate_credit/same_user/T1", "invalid_credit/no_verify_response/T1"])
    }

    func testTheSameIdPostedTwiceInOneRequestIsOneGrant() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1", "T1"], granted: true, at: "10:00")
        b.response(for: "r1", items: ["T1"], at: "10:01")
        XCTAssertEqual(b.findings(), [])
    }

    func testOriginalAndTransactionIdOfOnePurchaseInOneRequestIsOneGrant() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["O1", "T1"], granted: true, at: "10:00")
        b.response(for: "r1", receipt: [LedgerBuilder.item("T1", original: "O1")], at: "10:01")
        XCTAssertEqual(b.findings(), [])
    }
}
