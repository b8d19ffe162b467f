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

/// Readings where SEMANTICS.md leaves room (documented in docs/findings.md).
final class ReconcileReadingChoicesTests: XCTestCase {
    /// Rule 4: one request_id logged twice is one request; the lines merge, so a grant logged on
    /// the second line counts, once.
    func testRequestLoggedTwiceMergesItsLines() {
        let b = LedgerBuilder()
        b.client("T1")
        b.request("r1", ids: ["T1"], granted: false, at: "10:00")
        b.request("r1", ids: ["T1"], granted: true, at: "10:00")
        b.response(for: "r1", receipt: [LedgerBuilder.item("T1")], at: "10:01")
        XCTAssertEqual(b.findings(), [])
    }

    /// Rule 10: a restore that came first, then a purchase grant of the same consumable, is a
    /// plain same_user duplicate: the restore was not a re-grant.
    func testRestoreFirstIsNotRestoreCreditedAsPurchase() {
        let b = LedgerBuilder(config: AuditConfig(products: ["p1": .consumable]))
        b.request("r1", ids: ["T1"], granted: true, restore: true, at: "10:00")
        b.response(for: "r1", receipt: [LedgerBuilder.item("T1", product: "p1")], at: "10:01")
        b.request("r2", ids: ["T1"], granted: true, at: "11:00")
        b.response(for: "r2", receipt: [LedgerBuilder.item("T1", product: "p1")], at: "11:01")
        XCTAssertEqual(b.findings(), ["duplicate_credit/same_user/T1"])
    }
}
