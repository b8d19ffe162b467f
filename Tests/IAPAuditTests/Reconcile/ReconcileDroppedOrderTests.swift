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

/// SEMANTICS rule 8: dropped_order reasons, in order of precedence, and what suppresses them.
final class ReconcileDroppedOrderTests: XCTestCase {
    func testNeverSent() {
        let b = LedgerBuilder()
        b.client("T1", user: "u1", at: "09:00")
        XCTAssertEqual(b.findings(), ["dropped_order/never_sent/T1"])
        let finding = b.finding(.droppedOrder, "T1")
        XCTAssertEqual(finding?.userIds, ["u1"])
        XCTAssertEqual(LedgerBuilder.evidence(finding), ["client.jsonl:1"])
        XCTAssertEqual(finding?.firstSeenMs, LedgerBuilder.ms("09:00"))
    }

    func testARestoreIsNoPayment() {
        let b = LedgerBuilder()
        b.client("T1", .restored)
        XCTAssertEqual(b.findings(), [])
    }

    func testOtherClientStatesAreNoPayment() {
        let b = LedgerBuilder()
        b.client("T1", .purchasing)
        b.client("T2", .failed)
        b.client("T3", .deferred)
        XCTAssertEqual(b.findings(), [])
    }

    func testEverySandboxAnswerIsSandboxRefusedNotDropped() {
        let b = LedgerBuilder()
        b.client("T1")
        b.request("r1", ids: ["T1"], at: "10:00")
        b.response(for: "r1", env: "Sandbox", items: ["T1"], at: "10:01")
        b.request("r2", ids: ["T1"], at: "10:10")
        b.response(for: "r2", status: 21007, env: nil, at: "10:11")
        XCTAssertEqual(b.findings(), ["sandbox_refused/sandbox_receipt/T1"])
        XCTAssertEqual(b.finding(.sandboxRefused, "T1")?.severity, .info)
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

    func testPendingIsNothingYet() {
        let b = LedgerBuilder()
        b.client("T1", at: "09:59")
        b.request("r1", ids: ["T1"], at: "10:00")
        XCTAssertEqual(b.findings(asOf: "11:00"), ["pending_verification/no_verify_response/T1"])
    }

    func testOverdueIsDroppedAndBacklog() {
        let b = LedgerBuilder()
        b.client("T1", at: "09:59")
        b.request("r1", ids: ["T1"], at: "10:00")
        XCTAssertEqual(
            b.findings(asOf: "2026-10-02T10:01:00Z"),
            ["dropped_order/no_verify_response/T1", "verification_backlog/no_verify_response/T1"])
    }

    func testNotCredited() {
        let b = LedgerBuilder()
        b.client("T1")
        b.request("r1", ids: ["T1"], at: "10:00")
        b.response(for: "r1", items: ["T1"], at: "10:01")
        XCTAssertEqual(b.findings(), ["dropped_order/not_credited/T1"])
        XCTAssertEqual(
            LedgerBuilder.evidence(b.finding(.droppedOrder, "T1")),
            ["client.jsonl:1", "server.jsonl:1", "verify.jsonl:1"])
    }

    func testNotInReceipt() {
        let b = LedgerBuilder()
        b.client("T1")
        b.request("r1", ids: ["T1"], at: "10:00")
        b.response(for: "r1", items: [], at: "10:01")
        XCTAssertEqual(b.findings(), ["dropped_order/not_in_receipt/T1"])
    }

    func testVerifyFailedGivesTheStatusAndItsMeaning() {
        let b = LedgerBuilder()
        b.client("T1")
        b.request("r1", ids: ["T1"], at: "10:00")
        b.response(for: "r1", status: 21003, at: "10:01")
        XCTAssertEqual(b.findings(), ["dropped_order/verify_failed/T1"])
        let detail = b.finding(.droppedOrder, "T1")?.detail ?? ""
        XCTAssertTrue(detail.contains("21003"), detail)
        XCTAssertTrue(detail.contains(VerifyStatus.meaning(21003)), detail)
    }

    func testVerifyFailedGivesTheLastStatus() {
        let b = LedgerBuilder()
        b.client("T1")
        b.request("r1", ids: ["T1"], at: "10:00")
        b.response(for: "r1", status: 21010, at: "10:01")
        b.request("r2", ids: ["T1"], at: "11:00")
        b.response(for: "r2", status: 21003, at: "11:01")
        XCTAssertEqual(b.findings(), ["dropped_order/verify_failed/T1"])
        let detail = b.finding(.droppedOrder, "T1")?.detail ?? ""
        XCTAssertTrue(detail.contains("21003"), detail)
        XCTAssertFalse(detail.contains("21010"), detail)
    }

    func testNoVerifyResponseWhenOnlyTheServerLoggedAStatus() {
        // Logged 0 with Apple silent: answered for the backlog (rule 3), but no Apple answer to classify by.
        let b = LedgerBuilder()
        b.client("T1")
        b.request("r1", ids: ["T1"], status: 0, env: "Production", at: "10:00")
        XCTAssertEqual(b.findings(), ["dropped_order/no_verify_response/T1"])
    }

    func testVerifyFailedGivesTheLatestStatusEvenWhenLoggedOutOfOrder() {
        // Server log lines out of time order (e.g. two hosts' logs): "last" is the latest in time.
        let b = LedgerBuilder()
        b.client("T1")
        b.request("r2", ids: ["T1"], at: "11:00")
        b.response(for: "r2", status: 21003, at: "11:01")
        b.request("r1", ids: ["T1"], at: "10:00")
        b.response(for: "r1", status: 21010, at: "10:01")
        XCTAssertEqual(b.findings(), ["dropped_order/verify_failed/T1"])
        let detail = b.finding(.droppedOrder, "T1")?.detail ?? ""
        XCTAssertTrue(detail.contains("21003"), detail)
        XCTAssertFalse(detail.contains("21010"), detail)
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

    func testVerifyFailedBeatsNoVerifyResponse() {
        let b = LedgerBuilder()
        b.client("T1")
        b.request("r1", ids: ["T1"], at: "10:00")
        b.response(for: "r1", status: 21003, at: "10:01")
        b.request("r2", ids: ["T1"], status: 0, at: "11:00")  // logged 0, Apple silent: no proof, no backlog
        XCTAssertEqual(b.findings(), ["dropped_order/verify_failed/T1"])
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
