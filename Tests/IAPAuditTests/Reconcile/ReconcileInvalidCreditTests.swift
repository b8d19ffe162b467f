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

/// semantics.md rule 13: invalid_credit, one row per transaction, reason by precedence
/// bundle_mismatch > nonzero_status > not_in_receipt > no_verify_response. Each reason's own scenario
/// is data: `Fixtures/cases/invalid-credit-*`.
final class ReconcileInvalidCreditTests: XCTestCase {
    private static let ours = AuditConfig(bundleIds: ["com.ours"])

    /// A grant of T1 by `rid` (user u1) whose final answer is described by `answer`.
    private enum Answer { case none, status(Int), notInReceipt, foreignBundle, proof }

    private static func grant(_ b: LedgerBuilder, _ rid: String, _ answer: Answer, at time: String) {
        b.request(rid, ids: ["T1"], granted: true, status: 0, at: time)
        switch answer {
        case .none: break
        case .status(let code): b.response(for: rid, status: code, bundle: "com.ours", at: time)
        case .notInReceipt: b.response(for: rid, bundle: "com.ours", items: ["T2"], at: time)
        case .foreignBundle: b.response(for: rid, bundle: "com.evil", items: ["T1"], at: time)
        case .proof: b.response(for: rid, bundle: "com.ours", items: ["T1"], at: time)
        }
    }

    func testProvenGrantIsValid() {
        let b = LedgerBuilder(config: Self.ours)
        Self.grant(b, "r1", .proof, at: "10:00")
        XCTAssertEqual(b.findings(), [])
    }

    func testBundleMismatchBeatsNonZeroStatusInOneResponse() {
        let b = LedgerBuilder(config: Self.ours)
        b.request("r1", ids: ["T1"], granted: true, at: "10:00")
        b.response(for: "r1", status: 21006, bundle: "com.evil", items: ["T1"], at: "10:01")
        XCTAssertEqual(b.findings(), ["invalid_credit/bundle_mismatch/T1"])
    }

    func testBundleCheckSkippedWithoutConfiguredBundleIds() {
        let b = LedgerBuilder()
        Self.grant(b, "r1", .foreignBundle, at: "10:00")
        XCTAssertEqual(b.findings(), [])
    }

    func testBundleCheckSkippedWhenTheReceiptShowsNone() {
        let b = LedgerBuilder(config: Self.ours)
        b.request("r1", ids: ["T1"], granted: true, at: "10:00")
        b.response(for: "r1", bundle: nil, items: ["T1"], at: "10:01")
        XCTAssertEqual(b.findings(), [])
    }

    func testPrecedenceAcrossGrantsOfOneTransaction() {
        // Every request logs status 0, so none enters the backlog (rule 3); T2 is reported, so not rule 9.
        let cases: [([Answer], String)] = [
            ([.none, .status(21003), .notInReceipt, .foreignBundle], "bundle_mismatch"),
            ([.none, .notInReceipt, .status(21003)], "nonzero_status"),
            ([.none, .notInReceipt], "not_in_receipt"),
            ([.none, .proof], "no_verify_response"),
        ]
        for (answers, reason) in cases {
            let b = LedgerBuilder(config: Self.ours)
            for (i, answer) in answers.enumerated() { Self.grant(b, "r\(i + 1)", answer, at: "1\(i):00") }
            b.client("T2", .restored)
            XCTAssertEqual(b.findings(), ["duplicate_credit/same_user/T1", "invalid_credit/\(reason)/T1"], reason)
        }
    }

    func testAProvenGrantDoesNotExcuseAnUnprovenOne() {
        let b = LedgerBuilder(config: Self.ours)
        Self.grant(b, "r1", .proof, at: "10:00")
        Self.grant(b, "r2", .status(21010), at: "11:00")
        XCTAssertEqual(b.findings(), ["duplicate_credit/same_user/T1", "invalid_credit/nonzero_status/T1"])
        XCTAssertEqual(LedgerBuilder.evidence(b.finding(.invalidCredit, "T1")), ["server.jsonl:2", "verify.jsonl:2"])
    }

    func testNotGrantedIsNeverInvalidCredit() {
        let b = LedgerBuilder(config: Self.ours)
        b.request("r1", ids: ["T1"], granted: false, status: 0, at: "10:00")
        XCTAssertEqual(b.findings(), [])
    }
}
