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

/// Issue 3's findings from signed evidence: signature_invalid, bundle_mismatch from JWS `bundleId`,
/// dropped orders proven from Apple's side, refunds from JWS/notifications (REFUND_REVERSED clears),
/// id_reissued, FAMILY_SHARED, Xcode/LocalTesting never production, notification redeliveries.
final class ReconcileSignedEvidenceTests: XCTestCase {
    private static func jws(
        _ id: String, original: String? = nil, webOrder: String? = nil, bundle: String? = nil, revoked: String? = nil,
        type: String? = nil, percent: Int? = nil, ownership: String? = nil
    ) -> AppleTransaction {
        var item = LedgerBuilder.item(id, original: original, product: "gems.100", purchased: "09:00", ownership: ownership)
        item.sections = ["signed_transaction"]
        item.webOrderLineItemId = webOrder
        item.bundleId = bundle
        item.cancellationDateMs = revoked.map(LedgerBuilder.ms)
        item.revocationType = type
        item.revocationPercentage = percent
        return item
    }

    func testGrantBackedOnlyByAFailedSignatureIsSignatureInvalid() {
        for status in [SignatureStatus.invalid("bad_signature"), .untrustedRoot] {
            let b = LedgerBuilder()
            b.request("r1", ids: ["T1"], granted: true, at: "10:00")
            b.signed(.signedTransaction, for: "r1", signature: status, items: [Self.jws("T1")], at: "10:00")
            // An answer whose signature failed is none (docs/security.md): the request waits for Apple's answer.
            XCTAssertEqual(
                b.findings(), ["invalid_credit/signature_invalid/T1", "verification_backlog/no_verify_response/T1"], status.text)
        }
    }

    func testVerifiedJWSIsProof() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], granted: true, at: "10:00")
        b.signed(.signedTransaction, for: "r1", items: [Self.jws("T1")], at: "10:00")
        XCTAssertEqual(b.findings(), [])
    }

    func testSignatureInvalidOutranksBundleMismatch() {
        let b = LedgerBuilder(config: AuditConfig(bundleIds: ["com.ours"]))
        b.request("r1", ids: ["T1"], granted: true, at: "10:00")
        b.signed(
            .signedTransaction, for: "r1", signature: .invalid("bad_signature"), items: [Self.jws("T1", bundle: "com.other")], at: "10:00")
        XCTAssertEqual(b.findings(), ["invalid_credit/signature_invalid/T1", "verification_backlog/no_verify_response/T1"])
    }

    func testBundleMismatchFromTheJWSBundleId() {
        let b = LedgerBuilder(config: AuditConfig(bundleIds: ["com.ours"]))
        b.request("r1", ids: ["T1"], granted: true, at: "10:00")
        b.signed(.signedTransaction, for: "r1", items: [Self.jws("T1", bundle: "com.other")], at: "10:00")
        XCTAssertEqual(b.findings(), ["invalid_credit/bundle_mismatch/T1"])
    }

    func testDroppedOrderProvenFromApplesSide() {
        let b = LedgerBuilder()
        b.signed(.notificationV2, items: [Self.jws("T9")], notification: "DID_RENEW", uuid: "n1")
        b.signed(.signedTransaction, items: [Self.jws("T8")])
        b.signed(.appReceipt, items: [Self.jws("T7")])
        XCTAssertEqual(
            b.findings(),
            [
                "dropped_order/in_receipt_never_credited/T7", "dropped_order/in_receipt_never_credited/T8",
                "dropped_order/in_receipt_never_credited/T9",
            ])
        XCTAssertEqual(
            b.finding(.droppedOrder, "T9")?.detail,
            "in 1 production record(s) from Apple (notification_v2 verified); never reported by the client, never granted")
    }

    func testUnverifiedOrNonProductionAppleDataProvesNothing() {
        let b = LedgerBuilder()
        b.signed(.signedTransaction, signature: .untrustedRoot, items: [Self.jws("T1")])
        b.signed(.signedTransaction, signature: .invalid("certificate_expired"), items: [Self.jws("T2")])
        b.signed(.signedTransaction, env: "Xcode", items: [Self.jws("T3")])
        b.signed(.signedTransaction, env: "LocalTesting", items: [Self.jws("T4")])
        b.signed(.signedTransaction, env: "LocalTestingxxx", items: [Self.jws("T5")])
        b.signed(.signedTransaction, items: [Self.jws("T6", ownership: "FAMILY_SHARED")])
        b.signed(.signedTransaction, signature: .notChecked, items: [Self.jws("T7")])
        b.signed(.transactionReceipt, signature: .notChecked, items: [Self.jws("T8")])
        XCTAssertEqual(b.findings(), [])
    }

    func testXcodeAnswerToAGrantIsASandboxLeak() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], granted: true, at: "10:00")
        b.signed(.signedTransaction, for: "r1", env: "Xcode", items: [Self.jws("T1")], at: "10:00")
        XCTAssertEqual(b.findings(), ["sandbox_leak/sandbox_credited/T1"])
    }

    func testRefundNotificationAfterAGrant() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], granted: true, at: "10:00")
        b.signed(.signedTransaction, for: "r1", items: [Self.jws("T1")], at: "10:00")
        b.signed(
            .notificationV2, items: [Self.jws("T1", revoked: "14:00", type: "REFUND_PRORATED", percent: 50000)],
            notification: "REFUND", uuid: "n1", signed: "14:00")
        XCTAssertEqual(b.findings(), ["refund_still_granted/cancelled_not_revoked/T1"])
        XCTAssertEqual(
            b.finding(.refundStillGranted, "T1")?.detail,
            "cancelled at 2026-10-01T14:00:00.000Z, revocationType REFUND_PRORATED, "
                + "revocationPercentage 50000 (50% refunded); still granted to u1")
    }

    func testRefundReversedAfterTheRefundClearsIt() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], granted: true, at: "10:00")
        b.signed(.signedTransaction, for: "r1", items: [Self.jws("T1")], at: "10:00")
        b.signed(
            .notificationV2, items: [Self.jws("T1", revoked: "14:00", type: "REFUND_FULL")], notification: "REFUND", uuid: "n1",
            signed: "14:00")
        b.signed(.notificationV2, items: [Self.jws("T1")], notification: "REFUND_REVERSED", uuid: "n2", signed: "15:00")
        XCTAssertEqual(b.findings(), [])
    }

    func testRefundReversedBeforeANewerRefundDoesNotClearIt() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], granted: true, at: "10:00")
        b.signed(.signedTransaction, for: "r1", items: [Self.jws("T1")], at: "10:00")
        b.signed(.notificationV2, items: [Self.jws("T1")], notification: "REFUND_REVERSED", uuid: "n2", signed: "12:00")
        b.signed(.notificationV2, items: [Self.jws("T1", revoked: "14:00")], notification: "REFUND", uuid: "n1", signed: "14:00")
        XCTAssertEqual(b.findings(), ["refund_still_granted/cancelled_not_revoked/T1"])
    }

    func testRefundFromAFailedSignatureProvesNothing() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], granted: true, at: "10:00")
        b.signed(.signedTransaction, for: "r1", items: [Self.jws("T1")], at: "10:00")
        b.signed(.notificationV2, signature: .invalid("bad_signature"), items: [Self.jws("T1", revoked: "14:00")], notification: "REFUND")
        XCTAssertEqual(b.findings(), [])
    }

    func testReissuedIdsAreOneBillingEvent() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["1001"], granted: true, at: "10:00")
        b.signed(.appReceipt, for: "r1", items: [Self.jws("1001", original: "1000", webOrder: "77")], at: "10:00")
        b.signed(
            .appReceipt, items: [Self.jws("1005", original: "1000", webOrder: "77"), Self.jws("1001", original: "1000", webOrder: "77")])
        XCTAssertEqual(b.findings(), ["id_reissued/same_billing_event/1001"])
        let finding = b.finding(.idReissued, "1001")
        XCTAssertEqual(finding?.severity, .info)
        XCTAssertEqual(finding?.detail, "one purchase under 2 transaction ids: 1001, 1005; granted as 1001")
        XCTAssertEqual(LedgerBuilder.evidence(finding), ["apple.jsonl:1", "apple.jsonl:2"])
    }

    func testReissuedIdsNobodyGrantedAreOneDroppedOrder() {
        let b = LedgerBuilder()
        b.signed(
            .appReceipt, items: [Self.jws("1001", original: "1000", webOrder: "77"), Self.jws("1005", original: "1000", webOrder: "77")])
        XCTAssertEqual(
            b.findings(),
            [
                "dropped_order/in_receipt_never_credited/1001", "id_reissued/same_billing_event/1001",
            ])
    }

    func testAReissuedIdStillDroppedWhenOnlyItsLaterSiblingQualifies() {
        let b = LedgerBuilder()
        b.signed(.appReceipt, env: "Sandbox", items: [Self.jws("1001", original: "1000", webOrder: "77")])
        b.signed(.notificationV1, signature: .notChecked, items: [Self.jws("1005", original: "1000", webOrder: "77")])
        XCTAssertEqual(b.findings(), ["dropped_order/in_receipt_never_credited/1005", "id_reissued/same_billing_event/1001"])
    }

    func testFamilySharedIsNeverAReissueOfThePurchase() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["1001"], granted: true, at: "10:00")
        b.signed(.signedTransaction, for: "r1", items: [Self.jws("1001", original: "1000", webOrder: "77")], at: "10:00")
        b.signed(.signedTransaction, items: [Self.jws("2001", original: "1000", webOrder: "77", ownership: "FAMILY_SHARED")])
        XCTAssertEqual(b.findings(), [])
    }

    func testNotificationRedeliveryCountsOnce() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], granted: true, at: "10:00")
        b.signed(.signedTransaction, for: "r1", items: [Self.jws("T1")], at: "10:00")
        b.signed(.notificationV2, items: [Self.jws("T1", revoked: "14:00")], notification: "REFUND", uuid: "same", signed: "14:00")
        b.signed(.notificationV2, items: [Self.jws("T1", revoked: "14:00")], notification: "REFUND", uuid: "same", signed: "14:00")
        let finding = b.finding(.refundStillGranted, "T1")
        XCTAssertEqual(LedgerBuilder.evidence(finding), ["apple.jsonl:1", "apple.jsonl:2", "server.jsonl:1"])
    }
}

/// Found by a fresh-user trial: signatures are judged per listing, forged deliveries claim nothing,
/// unchecked payloads prove no refund.
final class ReconcileSignedListingTests: XCTestCase {
    private static func listing(_ id: String, _ signature: SignatureStatus, revoked: String? = nil) -> AppleTransaction {
        var item = LedgerBuilder.item(id, product: "gems.100", purchased: "10:00", sections: ["server_api"])
        item.signature = signature
        item.cancellationDateMs = revoked.map(LedgerBuilder.ms)
        return item
    }

    /// A Server API page whose record-level signature is the worst of its items.
    @discardableResult
    private static func page(_ b: LedgerBuilder, for request: String? = nil, _ items: [AppleTransaction], at time: String? = nil)
        -> SourceLocation
    {
        let location = b.signed(.serverAPI, for: request, signature: .invalid("bad_signature"), items: [], at: time)
        let index = b.ledger.appleRecords.count - 1
        b.ledgerResponses[index].items = items
        return location
    }

    func testAForgedSiblingDoesNotTaintAVerifiedListing() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], granted: true, at: "10:00")
        Self.page(b, for: "r1", [Self.listing("T1", .verified), Self.listing("T2", .invalid("bad_signature"))], at: "10:00")
        Self.page(b, [Self.listing("T3", .verified), Self.listing("T4", .untrustedRoot)])
        XCTAssertEqual(b.findings(), ["dropped_order/in_receipt_never_credited/T3"])
    }

    func testAVerifiedRefundInAPageWithAForgedSiblingCounts() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], granted: true, at: "10:00")
        b.signed(.signedTransaction, for: "r1", items: [LedgerBuilder.item("T1")], at: "10:00")
        Self.page(b, [Self.listing("T1", .verified, revoked: "14:00"), Self.listing("T9", .invalid("bad_signature"))])
        XCTAssertEqual(b.findings(), ["refund_still_granted/cancelled_not_revoked/T1"])
    }

    func testAnUncheckedDecodedPayloadProvesNoRefund() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], granted: true, at: "10:00")
        b.signed(.signedTransaction, for: "r1", items: [LedgerBuilder.item("T1")], at: "10:00")
        b.signed(.signedTransaction, signature: .notChecked, items: [LedgerBuilder.item("T1", cancelled: "14:00")])
        XCTAssertEqual(b.findings(), [])
    }

    func testAForgedDeliveryCannotHideTheGenuineNotification() {
        let b = LedgerBuilder()
        b.request("r1", ids: ["T1"], granted: true, at: "10:00")
        b.signed(.signedTransaction, for: "r1", items: [LedgerBuilder.item("T1")], at: "10:00")
        b.signed(.notificationV2, signature: .untrustedRoot, items: [], notification: "TEST", uuid: "same")
        b.signed(.notificationV2, items: [LedgerBuilder.item("T1", cancelled: "14:00")], notification: "REFUND", uuid: "same")
        XCTAssertEqual(b.findings(), ["refund_still_granted/cancelled_not_revoked/T1"])
    }
}
