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

/// semantics.md rules 15 (the default as-of) and 16 (severity; every kind at once with its severity is
/// `Fixtures/cases/every-kind-at-once`).
final class ReconcileAsOfSeverityTests: XCTestCase {
    // MARK: Rule 15 — as-of

    func testAsOfDefaultsToTheNewestReceivedAt() {
        let b = LedgerBuilder()
        b.client("T2", at: "09:00")
        b.request("r1", ids: ["T1"], at: "10:00")
        b.request("r2", ids: ["T2"], granted: true, at: "10:30")
        b.response(for: "r2", items: ["T2"], at: "2026-10-03T10:00:00Z")
        let result = b.run(asOf: nil)
        XCTAssertEqual(result.asOfMs, LedgerBuilder.ms("2026-10-03T10:00:00Z"))
        XCTAssertEqual(b.findings(asOf: nil), ["verification_backlog/no_verify_response/T1"])
    }

    func testAsOfDefaultsToTheNewestClientTimestamp() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], at: "10:00")
        b.client("T2", at: "2026-10-05T00:00:00Z")
        XCTAssertEqual(b.run(asOf: nil).asOfMs, LedgerBuilder.ms("2026-10-05T00:00:00Z"))
        XCTAssertEqual(
            b.findings(asOf: nil),
            ["dropped_order/never_sent/T2", "verification_backlog/no_verify_response/T1"])
    }

    func testAsOfDefaultsToTheNewestServerTimestampRevokesIncluded() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], at: "10:00")
        b.revoke("v1", ids: ["T0"], user: "u1", at: "2026-10-04T00:00:00Z")
        XCTAssertEqual(b.run(asOf: nil).asOfMs, LedgerBuilder.ms("2026-10-04T00:00:00Z"))
        XCTAssertEqual(b.findings(asOf: nil), ["verification_backlog/no_verify_response/T1"])
    }

    func testDatesInsideReceiptsDoNotMoveTheAsOf() {
        let b = LedgerBuilder()
        b.client("T9", .restored, at: "09:00")
        b.request("r1", ids: ["T1"], at: "10:00")
        b.response(
            for: nil,
            receipt: [
                LedgerBuilder.item(
                    "T9", purchased: "2026-12-01T00:00:00Z",
                    cancelled: "2026-12-02T00:00:00Z")
            ], at: nil)
        XCTAssertEqual(b.run(asOf: nil).asOfMs, LedgerBuilder.ms("10:00"))
        XCTAssertEqual(b.findings(asOf: nil), ["pending_verification/no_verify_response/T1"])
    }

    func testAnExplicitAsOfWins() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], at: "10:00")
        XCTAssertEqual(b.run(asOf: "2026-10-07T00:00:00Z").asOfMs, LedgerBuilder.ms("2026-10-07T00:00:00Z"))
    }

    func testEmptyLedgerHasNoAsOfAndNoFindings() {
        let result = LedgerBuilder().run(asOf: nil)
        XCTAssertNil(result.asOfMs)
        XCTAssertEqual(result.findings, [])
    }

    // MARK: Rule 16 — severity

    func testInfoKindsAreInfoAndProblemKindsNever() {
        for kind in FindingKind.problems { XCTAssertNotEqual(kind.severity, .info, kind.rawValue) }
        for kind in FindingKind.infos { XCTAssertEqual(kind.severity, .info, kind.rawValue) }
        XCTAssertEqual(Set(FindingKind.problems).union(FindingKind.infos), Set(FindingKind.allCases))
        XCTAssertTrue(Set(FindingKind.problems).isDisjoint(with: FindingKind.infos))
    }
}
