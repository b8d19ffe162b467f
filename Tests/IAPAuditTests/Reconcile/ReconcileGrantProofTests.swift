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

/// semantics.md rules 5–7: the grant set, posted original ids, and what counts as proof.
final class ReconcileGrantProofTests: XCTestCase {
    // MARK: Rule 5 — credited_transaction_ids override transaction_ids

    func testCreditedIdsOverrideTheTransactionIds() {
        let b = LedgerBuilder()
        b.client("T1")
        b.client("T2")
        b.request("r1", ids: ["T1", "T2"], granted: true, credited: ["T1"], at: "10:00")
        b.response(for: "r1", items: ["T1", "T2"], at: "10:01")
        XCTAssertEqual(b.findings(), ["dropped_order/not_credited/T2"])
    }

    func testWithoutCreditedIdsEveryTransactionIdIsGranted() {
        let b = LedgerBuilder()
        b.client("T1")
        b.client("T2")
        b.request("r1", ids: ["T1", "T2"], granted: true, at: "10:00")
        b.response(for: "r1", items: ["T1", "T2"], at: "10:01")
        XCTAssertEqual(b.findings(), [])
    }

    func testACreditedIdThatWasNotPostedIsStillGranted() {
        let b = LedgerBuilder()
        b.client("T1")
        b.request("r1", ids: ["T1"], granted: true, credited: ["T9"], at: "10:00")
        b.response(for: "r1", items: ["T1"], at: "10:01")
        XCTAssertEqual(b.findings(), ["dropped_order/not_credited/T1", "invalid_credit/not_in_receipt/T9"])
    }

    func testAnEmptyCreditedListGrantsNothing() {
        let b = LedgerBuilder()
        b.client("T1")
        b.request("r1", ids: ["T1"], granted: true, credited: [], at: "10:00")
        b.response(for: "r1", items: ["T1"], at: "10:01")
        XCTAssertEqual(b.findings(), ["dropped_order/not_credited/T1"])
    }

    func testCreditedIdsOfARequestThatDidNotGrantGrantNothing() {
        let b = LedgerBuilder()
        b.client("T1")
        b.request("r1", ids: ["T1"], granted: false, credited: ["T1"], at: "10:00")
        b.response(for: "r1", items: ["T1"], at: "10:01")
        XCTAssertEqual(b.findings(), ["dropped_order/not_credited/T1"])
    }

    // MARK: Rule 6 — posted original ids

    func testPostedOriginalIdResolvesToTheNewestItemOfThatOriginal() {
        let b = LedgerBuilder()
        b.client("T2", at: "2026-09-01T09:00:00Z")
        b.request("r0", ids: ["T2"], granted: true, at: "2026-09-01T10:00:00Z")
        b.response(
            for: "r0", receipt: [LedgerBuilder.item("T2", original: "O1", purchased: "2026-09-01T09:00:00Z")],
            at: "2026-09-01T10:00:01Z")
        b.client("T3", at: "09:00")
        b.request("r1", ids: ["O1"], granted: true, at: "10:00")
        b.response(
            for: "r1",
            receipt: [
                LedgerBuilder.item("T3", original: "O1", purchased: "09:00"),
                LedgerBuilder.item("T2", original: "O1", purchased: "2026-09-01T09:00:00Z"),
            ], at: "10:01")
        XCTAssertEqual(b.findings(), [])
    }

    func testPostedIdThatIsATransactionIdStandsForItself() {
        let b = LedgerBuilder()
        b.client("T1")
        b.request("r1", ids: ["T1"], granted: true, at: "10:00")
        b.response(
            for: "r1",
            receipt: [
                LedgerBuilder.item("T1", original: "T1", purchased: "2026-09-01T09:00:00Z"),
                LedgerBuilder.item("T5", original: "T1", purchased: "09:00"),
            ], at: "10:01")
        // T1 stays T1 (proven); T5 is a newer purchase Apple lists that nobody reported or was granted.
        XCTAssertEqual(b.findings(), ["dropped_order/in_receipt_never_credited/T5"])
    }

    func testPostedIdMatchingNothingStandsForItself() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["O9"], granted: true, at: "10:00")
        b.response(for: "r1", receipt: [LedgerBuilder.item("T1", original: "O1", purchased: "10:00")], at: "10:01")
        XCTAssertEqual(b.findings(), ["dropped_order/in_receipt_never_credited/T1", "invalid_credit/not_in_receipt/O9"])
    }

    func testPostedOriginalIdCarriesTheResolvedTransaction() {
        let b = LedgerBuilder()
        b.client("T3")
        b.request("r1", ids: ["O1"], at: "10:00")
        b.response(for: "r1", receipt: [LedgerBuilder.item("T3", original: "O1", purchased: "09:00")], at: "10:01")
        XCTAssertEqual(b.findings(), ["dropped_order/not_credited/T3"])
    }

    func testResolutionReadsOnlyTheFinalResponse() {
        let b = LedgerBuilder()
        b.client("T2")
        b.request("r1", ids: ["O1"], granted: true, at: "10:00")
        b.response(for: "r1", receipt: [LedgerBuilder.item("T3", original: "O1", purchased: "09:30")], at: "10:01")
        b.response(for: "r1", receipt: [LedgerBuilder.item("T2", original: "O1", purchased: "09:00")], at: "10:02")
        // Final response lists T2 only: O1 stands for T2. T3 (earlier answer, production, status 0) nobody got.
        XCTAssertEqual(b.findings(), ["dropped_order/in_receipt_never_credited/T3"])
    }

    // MARK: Rule 7 — proof

    func testProofInInApp() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], granted: true, at: "10:00")
        b.response(for: "r1", receipt: [LedgerBuilder.item("T1", sections: ["in_app"])], at: "10:01")
        XCTAssertEqual(b.findings(), [])
    }

    func testProofInLatestReceiptInfoOnly() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], granted: true, at: "10:00")
        b.response(for: "r1", receipt: [LedgerBuilder.item("T1", sections: ["latest_receipt_info"])], at: "10:01")
        XCTAssertEqual(b.findings(), [])
    }

    func testProofInAnIOS6FlatReceipt() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], granted: true, at: "10:00")
        b.response(for: "r1", env: nil, receipt: [LedgerBuilder.item("T1", sections: ["receipt"])], at: "10:01")
        XCTAssertEqual(b.findings(), [])
    }

    /// Rule 7: 21006 (valid receipt, subscription expired) whose receipt lists T proves T was paid; one
    /// that does not list T proves nothing for T.
    func testStatus21006ListingTIsProof() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], granted: true, at: "10:00")
        b.response(for: "r1", status: 21006, receipt: [LedgerBuilder.item("T1", sections: ["receipt"])], at: "10:01")
        XCTAssertEqual(b.findings(), [])
        let other = LedgerBuilder()
        other.request("r1", ids: ["T1"], granted: true, at: "10:00")
        other.response(for: "r1", status: 21006, receipt: [LedgerBuilder.item("T2", sections: ["receipt"])], at: "10:01")
        XCTAssertEqual(other.findings(), ["invalid_credit/nonzero_status/T1"])
    }

    func testParsedLatestReceiptInfoObjectIsProof() throws {
        let b = LedgerBuilder(config: AuditConfig(bundleIds: ["com.ours"]))
        b.request("r1", ids: ["T1"], granted: true, at: "10:00")
        try b.parsedResponse(
            for: "r1",
            json: """
                {"status": 0, "environment": "Production", "receipt": {"bundle_id": "com.ours", "in_app": []},
                 "latest_receipt_info": {"transaction_id": "T1", "original_transaction_id": "T1", "product_id": "p.sub"}}
                """, at: "10:01")
        XCTAssertEqual(b.findings(), [])
    }

    func testParsedIOS6FlatReceiptIsProofAndItsBidIsTheBundle() throws {
        let ours = LedgerBuilder(config: AuditConfig(bundleIds: ["com.ours"]))
        let theirs = LedgerBuilder(config: AuditConfig(bundleIds: ["com.other"]))
        for b in [ours, theirs] {
            b.request("r1", ids: ["T1"], granted: true, at: "10:00")
            try b.parsedResponse(
                for: "r1",
                json: """
                    {"status": 0, "receipt": {"bid": "com.ours", "transaction_id": "T1", "quantity": "1", "product_id": "p.c"}}
                    """, at: "10:01")
        }
        XCTAssertEqual(ours.findings(), [])
        XCTAssertEqual(theirs.findings(), ["invalid_credit/bundle_mismatch/T1"])
    }

    func testParsedIOS6Status21006ListingTIsProof() throws {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], granted: true, at: "10:00")
        try b.parsedResponse(
            for: "r1",
            json: """
                {"status": 21006, "receipt": {"bid": "com.ours", "transaction_id": "T1", "product_id": "p.c"}}
                """, at: "10:01")
        XCTAssertEqual(b.findings(), [])
    }

    func testParsedSameTransactionInInAppAndLatestReceiptInfoIsOneItem() throws {
        let b = LedgerBuilder()
        b.client("T1")
        b.request("r1", ids: ["T1"], at: "10:00")
        try b.parsedResponse(
            for: "r1",
            json: """
                {"status": 0, "environment": "Production",
                 "receipt": {"in_app": [{"transaction_id": "T1"}, {"transaction_id": "T7"}]},
                 "latest_receipt_info": [{"transaction_id": "T1"}, {"transaction_id": "T7"}]}
                """, at: "10:01")
        XCTAssertEqual(b.findings(), ["dropped_order/in_receipt_never_credited/T7", "dropped_order/not_credited/T1"])
    }

    func testParsedNumericIdAbove2To53KeepsItsDigits() throws {
        let b = LedgerBuilder()
        b.client("9007199254740993")
        b.request("r1", ids: ["9007199254740993"], granted: true, at: "10:00")
        try b.parsedResponse(
            for: "r1",
            json: """
                {"status": 0, "environment": "Production", "receipt": {"in_app": [{"transaction_id": 9007199254740993}]}}
                """, at: "10:01")
        XCTAssertEqual(b.findings(), [])
    }
}
