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

/// semantics.md rule 12: refund_still_granted / cancelled_not_revoked. The finding and the revokes that
/// clear it or not, as data: `Fixtures/cases/refund-*`.
final class ReconcileRefundStillGrantedTests: XCTestCase {
    private static let cancelled = "2026-10-01T15:00:00Z"

    /// `user` granted T1 with proof at `time` (request `rid`).
    private static func grant(_ b: LedgerBuilder, _ rid: String, user: String?, at time: String) {
        b.request(rid, ids: ["T1"], user: user, granted: true, at: time)
        b.response(for: rid, items: ["T1"], at: time)
    }

    /// Apple's later answer (a bare response) showing T1 cancelled.
    private static func cancel(_ b: LedgerBuilder) {
        b.response(for: nil, receipt: [LedgerBuilder.item("T1", cancelled: cancelled)], at: nil)
    }

    func testCancellationInTheGrantingResponseCounts() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], granted: true, at: "16:00")
        b.response(for: "r1", receipt: [LedgerBuilder.item("T1", cancelled: Self.cancelled)], at: "16:01")
        XCTAssertEqual(b.findings(), ["refund_still_granted/cancelled_not_revoked/T1"])
    }

    /// The loss happened at the refund (money back, goods kept), or when the holding began if that was later: the
    /// holder's first grant since their last revoke.
    func testTheLossIsDatedAtTheRefundOrWhenTheHoldingBegan() {
        let b = LedgerBuilder()
        Self.grant(b, "r1", user: "u1", at: "10:00")
        Self.cancel(b)
        let refunded = b.finding(.refundStillGranted, "T1")
        XCTAssertEqual(refunded?.firstSeenMs, LedgerBuilder.ms("10:00"))
        XCTAssertEqual(refunded?.lossAtMs, LedgerBuilder.ms(Self.cancelled))
        // Granted again while held: held since 10:00, the loss is still the refund's.
        Self.grant(b, "r2", user: "u1", at: "17:00")
        XCTAssertEqual(b.finding(.refundStillGranted, "T1")?.lossAtMs, LedgerBuilder.ms(Self.cancelled))
        // Revoked at 16:00, granted again at 17:00 and 18:00: held since 17:00.
        b.revoke("v1", ids: ["T1"], user: "u1", at: "16:00")
        Self.grant(b, "r3", user: "u1", at: "18:00")
        XCTAssertEqual(b.finding(.refundStillGranted, "T1")?.lossAtMs, LedgerBuilder.ms("17:00"))
    }

    func testNoCancellationNoFinding() {
        let b = LedgerBuilder()
        Self.grant(b, "r1", user: "u1", at: "10:00")
        b.response(for: nil, items: ["T1"], at: nil)
        XCTAssertEqual(b.findings(), [])
    }

    func testCancelledButNeverGrantedIsNoRefundFinding() {
        let b = LedgerBuilder()
        b.client("T1")
        b.request("r1", ids: ["T1"], at: "10:00")
        b.response(for: "r1", receipt: [LedgerBuilder.item("T1", cancelled: Self.cancelled)], at: "16:00")
        XCTAssertEqual(b.findings(), ["dropped_order/not_credited/T1"])
    }

    func testRevokeAtTheLastGrantInstantClears() {
        let b = LedgerBuilder()
        // After the refund (15:00): the revoke is no lockout of a paying customer (rule 19).
        Self.grant(b, "r1", user: "u1", at: "16:00")
        Self.cancel(b)
        b.revoke("v1", ids: ["T1"], user: "u1", at: "16:00")
        XCTAssertEqual(b.findings(), [])
    }

    func testRevokeForAnotherUserDoesNotClear() {
        let b = LedgerBuilder()
        Self.grant(b, "r1", user: "u1", at: "10:00")
        Self.cancel(b)
        b.revoke("v1", ids: ["T1"], user: "u2", at: "16:00")
        XCTAssertEqual(b.findings(), ["refund_still_granted/cancelled_not_revoked/T1"])
        XCTAssertEqual(b.finding(.refundStillGranted, "T1")?.userIds, ["u1"])
    }

    func testRevokeOfAnotherTransactionDoesNotClear() {
        let b = LedgerBuilder()
        Self.grant(b, "r1", user: "u1", at: "10:00")
        Self.cancel(b)
        b.revoke("v1", ids: ["T2"], user: "u1", at: "16:00")
        XCTAssertEqual(b.findings(), ["refund_still_granted/cancelled_not_revoked/T1"])
    }

    func testUnprovenGrantsAloneAreNotCredited() {
        // "at least one credited grant": a grant Apple never confirmed is invalid_credit, not a refund.
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], granted: true, at: "10:00")
        b.response(for: "r1", status: 21003, at: "10:01")
        Self.cancel(b)
        XCTAssertEqual(b.findings(), ["invalid_credit/nonzero_status/T1"])
    }
}
