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

/// semantics.md rule 11: sandbox_leak, info sandbox_allowlisted, and unproven sandbox grants. The leak and
/// the allowlist as data: `Fixtures/cases/sandbox-*`.
final class ReconcileSandboxLeakTests: XCTestCase {
    func testProductionGrantDoesNotLeak() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], granted: true, at: "10:00")
        b.response(for: "r1", env: "Production", items: ["T1"], at: "10:01")
        XCTAssertEqual(b.findings(), [])
    }

    func testSandboxAnswerWithoutAGrantDoesNotLeak() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], at: "10:00")
        b.response(for: "r1", env: "Sandbox", items: ["T1"], at: "10:01")
        XCTAssertEqual(b.findings(), [])
    }

    func testServerLoggedSandboxCountsWhenAppleIsSilentOnTheEnvironment() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], granted: true, env: "Sandbox", at: "10:00")
        b.response(for: "r1", env: nil, items: ["T1"], at: "10:01")
        XCTAssertEqual(b.findings(), ["sandbox_leak/sandbox_credited/T1"])
    }

    func testAllowlistDoesNotCoverOtherUsers() {
        let b = LedgerBuilder(config: AuditConfig(sandboxAllowlist: ["reviewer"]))
        b.request("r1", ids: ["T1"], user: "u1", granted: true, at: "10:00")
        b.response(for: "r1", env: "Sandbox", items: ["T1"], at: "10:01")
        XCTAssertEqual(b.findings(), ["sandbox_leak/sandbox_credited/T1"])
    }

    func testUnprovenGrantOnASandboxAnswerIsInvalidCreditOnly() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], granted: true, at: "10:00")
        b.response(for: "r1", env: "Sandbox", items: ["T2"], at: "10:01")
        // T2: a sandbox item, so not in_receipt_never_credited either.
        XCTAssertEqual(b.findings(), ["invalid_credit/not_in_receipt/T1"])
    }

    func testGrantOnAnUnretried21007IsInvalidCreditOnly() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], granted: true, at: "10:00")
        b.response(for: "r1", status: 21007, env: nil, at: "10:01")
        XCTAssertEqual(b.findings(), ["invalid_credit/nonzero_status/T1"])
    }

    func testUnprovenSandboxGrantToAnAllowlistedUserIsInvalidCreditOnly() {
        let b = LedgerBuilder(config: AuditConfig(sandboxAllowlist: ["reviewer"]))
        b.request("r1", ids: ["T1"], user: "reviewer", granted: true, at: "10:00")
        b.response(for: "r1", status: 21007, env: nil, at: "10:01")
        XCTAssertEqual(b.findings(), ["invalid_credit/nonzero_status/T1"])
    }
}
