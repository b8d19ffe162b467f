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

/// semantics.md rules 1–4: ids, the final response, logged statuses, revokes and repeated request ids.
/// More as data: `Fixtures/cases/ids-above-2-to-53-keep-every-digit`, `sandbox-*-21007*`, `request-logged-twice-merges`.
final class ReconcileInputRulesTests: XCTestCase {
    // MARK: Rule 1 — ids are exact text

    func testIdAbove2To53MatchesItsExactDigits() {
        let b = LedgerBuilder()
        b.client("9007199254740993")  // 2^53 + 1: a Double would round it to …992
        b.request("r1", ids: ["9007199254740993"], granted: true, at: "10:00")
        b.response(for: "r1", items: ["9007199254740993"], at: "10:01")
        XCTAssertEqual(b.findings(), [])
    }

    func testLeadingZeroAndSpacesMakeDifferentIds() {
        let b = LedgerBuilder()
        b.client("0123")
        b.client("T9 ")
        b.request("r1", ids: ["123", "T9"], granted: true, at: "10:00")
        b.response(for: "r1", items: ["123", "T9"], at: "10:01")
        XCTAssertEqual(b.findings(), ["dropped_order/never_sent/0123", "dropped_order/never_sent/T9 "])
    }

    func testNullClientTransactionIdHasNothingToReconcile() {
        let b = LedgerBuilder()
        b.client(nil, .failed)
        b.client(nil, .deferred)
        b.client(nil, .purchased)
        XCTAssertEqual(b.findings(), [])
    }

    func testNullIdBesideARealPurchaseOnlyReportsTheRealOne() {
        let b = LedgerBuilder()
        b.client(nil, .failed, at: "08:00")
        b.client("T1", at: "09:00")
        XCTAssertEqual(b.findings(), ["dropped_order/never_sent/T1"])
    }

    // MARK: Rule 2 — the final response

    func testFinalResponseIsTheLatestReceivedNotTheLastLine() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], granted: true, at: "10:00")
        b.response(for: "r1", items: ["T1"], at: "10:05")
        b.response(for: "r1", status: 21003, at: "10:02")
        XCTAssertEqual(b.findings(), [])
    }

    func testAnEarlierReceivedSuccessIsNotTheFinalResponse() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], granted: true, at: "10:00")
        b.response(for: "r1", status: 21003, at: "10:05")
        b.response(for: "r1", items: ["T1"], at: "10:02")
        XCTAssertEqual(b.findings(), ["invalid_credit/nonzero_status/T1"])
    }

    func testReceivedAtTieGoesToTheLaterLine() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], granted: true, at: "10:00")
        b.response(for: "r1", items: ["T1"], at: "10:02")
        b.response(for: "r1", status: 21003, at: "10:02")
        XCTAssertEqual(b.findings(), ["invalid_credit/nonzero_status/T1"])
    }

    func testReceivedAtTieWithSuccessOnTheLaterLineIsProof() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], granted: true, at: "10:00")
        b.response(for: "r1", status: 21003, at: "10:02")
        b.response(for: "r1", items: ["T1"], at: "10:02")
        XCTAssertEqual(b.findings(), [])
    }

    func testEnvironmentFromReceiptTypeSandbox() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], granted: true, at: "10:00")
        b.response(for: "r1", env: nil, receiptType: "Sandbox", items: ["T1"], at: "10:01")
        XCTAssertEqual(b.findings(), ["sandbox_leak/sandbox_credited/T1"])
    }

    func testReceiptTypeProductionIsNotSandbox() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], granted: true, env: "Sandbox", at: "10:00")
        b.response(for: "r1", env: nil, receiptType: "Production", items: ["T1"], at: "10:01")
        XCTAssertEqual(b.findings(), [])
    }

    /// Rule 24: `environment` Production with a `receipt_type` ending in Sandbox is a record whose signals
    /// disagree: it proves no production payment, and a credit resting on it is a sandbox leak.
    func testProductionWithASandboxReceiptTypeIsAnEnvironmentConflict() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], granted: true, at: "10:00")
        b.response(for: "r1", env: "Production", receiptType: "ProductionSandbox", items: ["T1"], at: "10:01")
        XCTAssertEqual(b.findings(), ["sandbox_leak/environment_conflict/T1"])
    }

    func testApplesSandboxBeatsTheServerLoggedProduction() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], granted: true, env: "Production", at: "10:00")
        b.response(for: "r1", env: "Sandbox", items: ["T1"], at: "10:01")
        XCTAssertEqual(b.findings(), ["sandbox_leak/sandbox_credited/T1"])
    }

    func testApplesProductionBeatsTheServerLoggedSandbox() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], granted: true, env: "Sandbox", at: "10:00")
        b.response(for: "r1", env: "Production", items: ["T1"], at: "10:01")
        XCTAssertEqual(b.findings(), [])
    }

    // MARK: Rule 3 — the logged verify_status is never proof

    func testLoggedStatusZeroWithoutAppleResponseIsNoProof() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], granted: true, status: 0, env: "Production", at: "10:00")
        XCTAssertEqual(b.findings(), ["invalid_credit/no_verify_response/T1"])
    }

    func testGrantWithOnlyALoggedFailureIsNoVerifyResponse() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], granted: true, status: 21003, at: "10:00")
        XCTAssertEqual(b.findings(), ["invalid_credit/no_verify_response/T1"])
    }

    func testApplesAnswerIsProofWhateverTheLoggedStatus() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], granted: true, status: 21003, at: "10:00")
        b.response(for: "r1", items: ["T1"], at: "10:01")
        XCTAssertEqual(b.findings(), [])
    }

    func testLoggedFailureClassifiesAnUnansweredRequest() {
        let b = LedgerBuilder()
        b.client("T1")
        b.request("r1", ids: ["T1"], status: 21003, at: "10:00")
        XCTAssertEqual(b.findings(), ["dropped_order/verify_failed/T1"])
        XCTAssertTrue(b.finding(.droppedOrder, "T1")?.detail.contains("21003") == true)
    }

    func testLoggedRetryableStatusPutsAnUnansweredRequestInTheBacklog() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], status: 21005, at: "10:00")
        XCTAssertEqual(b.findings(), ["verification_backlog/retryable_status/T1"])
    }

    func testNoLoggedStatusAndNoAnswerIsNoVerifyResponse() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], at: "10:00")
        XCTAssertEqual(b.findings(), ["verification_backlog/no_verify_response/T1"])
    }

    // MARK: Rule 4 — revokes; one request per request_id

    func testRevokeNeverCarriesGrantsOrEntersTheBacklog() {
        let b = LedgerBuilder()
        b.client("T1")
        b.revoke("v1", ids: ["T1"], user: "u1", granted: true, credited: ["T1"], at: "10:00")
        XCTAssertEqual(b.findings(), ["dropped_order/never_sent/T1"])
    }

    func testRevokeOfAnUnknownTransactionProducesNothing() {
        let b = LedgerBuilder()
        b.revoke("v1", ids: ["T5"], user: nil, granted: true, status: 21005, at: "10:00")
        XCTAssertEqual(b.findings(), [])
    }

    func testSameRequestIdLoggedTwiceIsOneRequest() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], granted: true, at: "10:00")
        b.request("r1", ids: ["T1"], granted: true, at: "10:00")
        b.response(for: "r1", items: ["T1"], at: "10:01")
        XCTAssertEqual(b.findings(), [])
    }

    func testSameRequestIdLoggedTwiceUnprovenIsOneGrantWithBothLines() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], granted: true, status: 0, at: "10:00")
        b.request("r1", ids: ["T1"], granted: true, status: 0, at: "10:00")
        XCTAssertEqual(b.findings(), ["invalid_credit/no_verify_response/T1"])
        XCTAssertEqual(LedgerBuilder.evidence(b.finding(.invalidCredit, "T1")), ["server.jsonl:1", "server.jsonl:2"])
    }

    func testTwoRequestIdsGrantingTheSameTransactionAreTwoGrants() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], granted: true, at: "10:00")
        b.response(for: "r1", items: ["T1"], at: "10:01")
        b.request("r2", ids: ["T1"], granted: true, at: "11:00")
        b.response(for: "r2", items: ["T1"], at: "11:01")
        XCTAssertEqual(b.findings(), ["duplicate_credit/same_user/T1"])
    }
}
