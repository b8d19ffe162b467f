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

/// semantics.md rule 14: verification_backlog vs info pending_verification, per transaction
/// (reasons `no_verify_response` | `retryable_status`). More as data: `Fixtures/cases/backlog-*`, `pending-*`.
final class ReconcileVerificationBacklogTests: XCTestCase {
    func testYoungerThanTheGraceIsPending() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], at: "10:00")
        XCTAssertEqual(b.findings(asOf: "10:05"), ["pending_verification/no_verify_response/T1"])
    }

    func testOneOverdueRequestMakesItABacklog() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], at: "2026-09-29T10:00:00Z")
        b.request("r2", ids: ["T1"], at: "10:00")
        XCTAssertEqual(b.findings(asOf: "10:30"), ["verification_backlog/no_verify_response/T1"])
    }

    func testALaterStatusZeroRequestClears() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], at: "10:00")
        b.request("r2", ids: ["T1"], granted: true, at: "11:00")
        b.response(for: "r2", items: ["T1"], at: "11:01")
        XCTAssertEqual(b.findings(), [])
    }

    func testAnEarlierStatusZeroRequestDoesNotClear() {
        let b = LedgerBuilder()
        b.request("r0", ids: ["T1"], granted: true, at: "09:00")
        b.response(for: "r0", items: ["T1"], at: "09:01")
        b.request("r1", ids: ["T1"], at: "10:00")
        XCTAssertEqual(b.findings(), ["verification_backlog/no_verify_response/T1"])
    }

    func testALaterFailedRequestDoesNotClear() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], at: "10:00")
        b.request("r2", ids: ["T1"], at: "11:00")
        b.response(for: "r2", status: 21003, at: "11:01")
        XCTAssertEqual(b.findings(), ["verification_backlog/no_verify_response/T1"])
    }

    func testAStatusZeroRequestForAnotherTransactionDoesNotClear() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], at: "10:00")
        b.request("r2", ids: ["T2"], granted: true, at: "11:00")
        b.response(for: "r2", items: ["T2"], at: "11:01")
        XCTAssertEqual(b.findings(), ["verification_backlog/no_verify_response/T1"])
    }

    func testRetryableStatuses() {
        for code in [21002, 21005, 21009, 21100, 21150, 21199] {
            let b = LedgerBuilder()
            b.request("r1", ids: ["T1"], at: "10:00")
            b.response(for: "r1", status: code, at: "10:01")
            XCTAssertEqual(b.findings(), ["verification_backlog/retryable_status/T1"], "status \(code)")
            XCTAssertEqual(b.findings(asOf: "10:30"), ["pending_verification/retryable_status/T1"], "status \(code)")
        }
    }

    func test211xxIsRetryableWhenAppleSaysSo() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], at: "10:00")
        b.response(for: "r1", status: 21150, retryable: true, at: "10:01")
        XCTAssertEqual(b.findings(), ["verification_backlog/retryable_status/T1"])
    }

    func test211xxWithIsRetryableFalseIsNotRetryable() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], at: "10:00")
        b.response(for: "r1", status: 21150, retryable: false, at: "10:01")
        XCTAssertEqual(b.findings(), [])
        b.client("T1")
        XCTAssertEqual(b.findings(), ["dropped_order/verify_failed/T1"])
    }

    func testIsRetryableFalseDoesNotOverrideTheFixedRetryableCodes() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], at: "10:00")
        b.response(for: "r1", status: 21005, retryable: false, at: "10:01")
        XCTAssertEqual(b.findings(), ["verification_backlog/retryable_status/T1"])
    }

    func testNonRetryableStatusesAreNotBacklog() {
        for code in [21000, 21003, 21004, 21006, 21008, 21010, 21099, 21200] {
            let b = LedgerBuilder()
            b.request("r1", ids: ["T1"], at: "10:00")
            b.response(for: "r1", status: code, at: "10:01")
            XCTAssertEqual(b.findings(), [], "status \(code)")
        }
    }

    func testApplesNonRetryableStatusBeatsALoggedRetryableOne() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], status: 21005, at: "10:00")
        b.response(for: "r1", status: 21003, at: "10:01")
        XCTAssertEqual(b.findings(), [])
    }

    func testPendingTransactionIsNotYetDropped() {
        let b = LedgerBuilder()
        b.client("T1")
        b.request("r1", ids: ["T1"], at: "10:00")
        b.response(for: "r1", status: 21009, at: "10:01")
        XCTAssertEqual(b.findings(asOf: "12:00"), ["pending_verification/retryable_status/T1"])
        XCTAssertEqual(b.findings(), ["dropped_order/verify_failed/T1", "verification_backlog/retryable_status/T1"])
    }
}
