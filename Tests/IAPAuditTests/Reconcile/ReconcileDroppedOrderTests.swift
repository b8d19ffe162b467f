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

/// semantics.md rule 8: dropped_order reasons, in order of precedence, and what suppresses them. Each
/// reason's own scenario is data: `Fixtures/cases/dropped-*`, `sandbox-refused*`, `client-states-that-are-no-payment`.
final class ReconcileDroppedOrderTests: XCTestCase {
    /// A dropped order is a loss of its purchase's date as the audit window dates it (rule 17: the client's report), not of
    /// its first record (a request logged an hour before the client's report), so that a close judges and books it alike.
    func testTheLossIsDatedAtThePurchaseAsTheWindowDatesIt() {
        let b = LedgerBuilder()
        b.client("T1", at: "09:00")
        b.request("r1", ids: ["T1"], at: "08:00")
        b.response(for: "r1", env: "Production", items: ["T1"], at: "08:01")
        let finding = b.finding(.droppedOrder, "T1")
        XCTAssertEqual(finding?.reason, "not_credited")
        XCTAssertEqual(finding?.firstSeenMs, LedgerBuilder.ms("08:00"))
        XCTAssertEqual(finding?.lossAtMs, LedgerBuilder.ms("09:00"))
    }

    func testSandboxRefusedIgnoresUnansweredRequests() {
        let b = LedgerBuilder()
        b.client("T1")
        b.request("r1", ids: ["T1"], at: "10:00")
        b.response(for: "r1", env: "Sandbox", items: ["T1"], at: "10:01")
        b.request("r2", ids: ["T1"], at: "10:10")
        XCTAssertEqual(b.findings(), ["sandbox_refused/sandbox_receipt/T1", "verification_backlog/no_verify_response/T1"])
    }

    func testOneProductionAnswerIsNotSandboxRefused() {
        let b = LedgerBuilder()
        b.client("T1")
        b.request("r1", ids: ["T1"], at: "10:00")
        b.response(for: "r1", env: "Sandbox", items: ["T1"], at: "10:01")
        b.request("r2", ids: ["T1"], at: "10:10")
        b.response(for: "r2", env: "Production", items: ["T1"], at: "10:11")
        XCTAssertEqual(b.findings(), ["dropped_order/not_credited/T1"])
    }

    func testNotCreditedBeatsNotInReceiptBeatsVerifyFailed() {
        let b = LedgerBuilder()
        b.client("T1")
        b.request("r1", ids: ["T1"], at: "10:00")
        b.response(for: "r1", status: 21003, at: "10:01")
        b.request("r2", ids: ["T1"], at: "11:00")
        b.response(for: "r2", items: [], at: "11:01")
        XCTAssertEqual(b.findings(), ["dropped_order/not_in_receipt/T1"])
        b.request("r3", ids: ["T1"], at: "12:00")
        b.response(for: "r3", items: ["T1"], at: "12:01")
        XCTAssertEqual(b.findings(), ["dropped_order/not_credited/T1"])
    }

    func testAnUnprovenGrantMeansNotDropped() {
        let b = LedgerBuilder()
        b.client("T1")
        b.request("r1", ids: ["T1"], granted: true, at: "10:00")
        b.response(for: "r1", status: 21003, at: "10:01")
        XCTAssertEqual(b.findings(), ["invalid_credit/nonzero_status/T1"])
    }

    func testAProvenGrantMeansNotDropped() {
        let b = LedgerBuilder()
        b.client("T1")
        b.request("r1", ids: ["T1"], at: "10:00")
        b.response(for: "r1", status: 21003, at: "10:01")
        b.request("r2", ids: ["T1"], granted: true, at: "11:00")
        b.response(for: "r2", items: ["T1"], at: "11:01")
        XCTAssertEqual(b.findings(), [])
    }

    func testAGrantBySomeoneElseStillMeansNotDropped() {
        let b = LedgerBuilder()
        b.client("T1", user: "u1")
        b.request("r1", ids: ["T1"], user: "u2", granted: true, at: "10:00")
        b.response(for: "r1", items: ["T1"], at: "10:01")
        XCTAssertEqual(b.findings(), [])
    }

    func testDroppedOrderIsAnErrorNotInfo() {
        let b = LedgerBuilder()
        b.client("T1")
        XCTAssertEqual(b.finding(.droppedOrder, "T1")?.severity, .error)
    }
}
