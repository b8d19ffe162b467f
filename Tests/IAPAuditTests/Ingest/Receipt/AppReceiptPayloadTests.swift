import Foundation
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

/// Receipt attribute decoding on invented receipts built with `DERTestEncoding`.
final class AppReceiptPayloadTests: XCTestCase {
    private typealias E = DERTestEncoding

    private func purchase(_ fields: [[UInt8]]) -> [UInt8] { E.field(17, E.set(fields)) }

    private func read(_ payload: [[UInt8]], checker: any SignatureChecking = StubReceiptChecker(.verified)) throws -> AppleRecord {
        let der = E.envelope(E.set(payload))
        return try AppReceiptReader.read(
            Data(Data(der).base64EncodedString().utf8), at: SourceLocation(file: "invented", line: 1), requestId: nil, receivedAtMs: nil,
            checker: checker)
    }

    func testFieldsAreMappedAndDuplicatesMerged() throws {
        let receipt = try read([
            E.field(0, E.utf8("ProductionVPPSandbox")), E.field(2, E.utf8("com.example.app")), E.field(12, E.ia5("2024-01-02T03:04:05Z")),
            E.field(4, [0xDE, 0xAD]),  // opaque value: skipped
            E.field(9999, E.integer(7)),  // unknown type: skipped
            purchase([
                E.field(1703, E.utf8("T1")), E.field(1702, E.utf8("p.month")), E.field(1701, E.integer(2)),
                E.field(1704, E.ia5("2024-01-01T00:00:00Z")), E.field(1708, E.ia5("")), E.field(1712, E.ia5("2024-01-01T12:00:00Z")),
                E.field(1711, E.integer(0)), E.field(1707, E.integer(3)),
            ]),
            purchase([
                E.field(1703, E.utf8("T1")), E.field(1705, E.utf8("T0")), E.field(1708, E.ia5("2024-02-01T00:00:00Z")),
                E.field(1711, E.integer(123_456_789_012)), E.field(1713, E.integer(1)), E.field(1719, E.integer(0)),
            ]),
            purchase([E.field(1703, E.utf8("T2")), E.field(1706, E.ia5("2023-12-31T23:00:00-0100"))]),
        ])
        XCTAssertEqual(receipt.receiptType, "ProductionVPPSandbox")
        XCTAssertEqual(receipt.environment, "Sandbox")
        XCTAssertEqual(receipt.bundleId, "com.example.app")
        XCTAssertEqual(receipt.signedDateMs, 1_704_164_645_000)
        XCTAssertEqual(receipt.items.map(\.transactionId), ["T1", "T2"])
        var expected = AppleTransaction(transactionId: "T1", sections: ["app_receipt"])
        expected.productId = "p.month"
        expected.quantity = 2
        expected.purchaseDateMs = 1_704_067_200_000
        expected.cancellationDateMs = 1_704_110_400_000
        expected.originalTransactionId = "T0"
        expected.expiresDateMs = 1_706_745_600_000
        expected.webOrderLineItemId = "123456789012"
        expected.isTrialPeriod = true
        expected.isInIntroOfferPeriod = false
        expected.signature = .verified
        XCTAssertEqual(receipt.items[0], expected)
        XCTAssertEqual(receipt.items[1].originalPurchaseDateMs, 1_704_067_200_000, "-0100 offset")
        XCTAssertEqual(
            receipt.rawJSON,
            #"{"bundle_id":"com.example.app","in_app":[{"cancellation_date":"2024-01-01T12:00:00Z","cancellation_date_ms":"1704110400000","#
                + #""product_id":"p.month","purchase_date":"2024-01-01T00:00:00Z","purchase_date_ms":"1704067200000","quantity":"2","transaction_id":"T1"},"#
                + #"{"expires_date":"2024-02-01T00:00:00Z","expires_date_ms":"1706745600000","is_in_intro_offer_period":"false","#
                + #""is_trial_period":"true","original_transaction_id":"T0","transaction_id":"T1","web_order_line_item_id":"123456789012"},"#
                + #"{"original_purchase_date":"2023-12-31T23:00:00-0100","original_purchase_date_ms":"1704067200000","transaction_id":"T2"}],"#
                + #""receipt_creation_date":"2024-01-02T03:04:05Z","receipt_creation_date_ms":"1704164645000","receipt_type":"ProductionVPPSandbox"}"#
        )
    }

    func testEnvironmentFromReceiptType() {
        XCTAssertEqual(AppReceiptPayload.environment(receiptType: "Production"), "Production")
        XCTAssertEqual(AppReceiptPayload.environment(receiptType: "ProductionVPP"), "Production")
        XCTAssertEqual(AppReceiptPayload.environment(receiptType: "ProductionSandbox"), "Sandbox")
        XCTAssertEqual(AppReceiptPayload.environment(receiptType: "Sandbox"), "Sandbox")
        XCTAssertEqual(AppReceiptPayload.environment(receiptType: "Xcode"), "Xcode")
        XCTAssertNil(AppReceiptPayload.environment(receiptType: "Other"))
        XCTAssertNil(AppReceiptPayload.environment(receiptType: nil))
    }

    func testNoReceiptTypeMeansUnknownEnvironment() throws {
        let receipt = try read([E.field(2, E.utf8("com.example.app"))])
        XCTAssertNil(receipt.environment)
        XCTAssertNil(receipt.signedDateMs)
        XCTAssertEqual(receipt.items, [])
        XCTAssertEqual(receipt.rawJSON, #"{"bundle_id":"com.example.app","in_app":[]}"#)
    }

    func testMalformedFieldsThrowNamingTheField() {
        XCTAssertThrowsError(try read([purchase([E.field(1702, E.utf8("p"))])])) {
            XCTAssertEqual("\($0)", "in-app purchase #0 has no transaction id (receipt field 1703)")
        }
        XCTAssertThrowsError(try read([purchase([E.field(1703, E.integer(5))])])) {
            XCTAssertEqual("\($0)", "receipt field 1703 (transaction id): receipt DER: expected UTF8String, found INTEGER at byte 0")
        }
        XCTAssertThrowsError(try read([E.field(12, E.ia5("yesterday"))])) {
            XCTAssertEqual("\($0)", #"receipt field 12 (receipt creation date): not a date: "yesterday""#)
        }
        XCTAssertThrowsError(try read([E.field(2, E.utf8("a") + [0x00])])) {
            XCTAssertEqual("\($0)", "receipt field 2 (bundle id): receipt DER: 1 unexpected byte after the value at byte 3")
        }
        XCTAssertThrowsError(try read([E.sequence(E.integer(2), E.integer(1))])) {
            XCTAssertEqual("\($0)", "receipt DER: missing field value at byte 10")
        }
        XCTAssertThrowsError(try AppReceiptPayload(der: E.sequence())) {
            XCTAssertEqual("\($0)", "the app receipt payload is not an ASN.1 SET of receipt fields (found SEQUENCE)")
        }
        XCTAssertThrowsError(try AppReceiptPayload(der: [])) { XCTAssertEqual("\($0)", "the app receipt payload is empty") }
    }

    func testBinaryThatIsNotAReceipt() {
        XCTAssertThrowsError(
            try AppReceiptReader.read(
                Data([0x89, 0x50, 0x4E, 0x47]), at: SourceLocation(file: "x", line: 1), requestId: nil, receivedAtMs: nil,
                checker: StubReceiptChecker())
        ) {
            XCTAssertEqual(
                "\($0)",
                "not a receipt: found 4 bytes of binary data starting 0x89504e47 (expected base64 or DER of a PKCS#7 app receipt or an iOS 6 transaction receipt)"
            )
        }
        XCTAssertThrowsError(
            try AppReceiptReader.read(
                Data(" \n".utf8), at: SourceLocation(file: "x", line: 1), requestId: nil, receivedAtMs: nil, checker: StubReceiptChecker())
        ) { XCTAssertEqual("\($0)", "not a receipt: the receipt data is empty") }
    }
}
