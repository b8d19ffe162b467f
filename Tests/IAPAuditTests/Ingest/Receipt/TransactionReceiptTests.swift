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

/// iOS 6 transaction receipts (base64 of an old-style plist) from ../shared/real-data, read through `TestPaths.realData`:
/// each test skips with one line (XCTSkip) when ../shared is absent.
final class TransactionReceiptTests: XCTestCase {
    func testVoltrueSandboxReceipt() throws {
        let checker = StubReceiptChecker(.verified)
        let receipt = try ReceiptFixtures.read("voltrue2__in-app-purchase/apple", checker: checker)
        XCTAssertEqual(receipt.source, .transactionReceipt)
        XCTAssertEqual(receipt.status, 0)
        XCTAssertEqual(receipt.environment, "Sandbox")
        XCTAssertEqual(receipt.bundleId, "com.mindmobapp.MindMob")
        XCTAssertNil(receipt.receiptType)
        XCTAssertEqual(receipt.signature, .notChecked)
        XCTAssertTrue(checker.pkcs7Checks.isEmpty, "iOS 6 signatures are not sent to the checker")
        XCTAssertEqual(receipt.notes, ["iOS 6 transaction-receipt signatures are not checked"])
        XCTAssertEqual(receipt.signedDateMs, 1_335_798_355_868)
        XCTAssertEqual(receipt.items.count, 1)
        let item = receipt.items[0]
        XCTAssertEqual(item.transactionId, "1000000046178817")
        XCTAssertEqual(item.originalTransactionId, "1000000046178817")
        XCTAssertEqual(item.productId, "com.mindmobapp.download")
        XCTAssertEqual(item.quantity, 1)
        XCTAssertEqual(item.purchaseDateMs, 1_335_798_355_868)
        XCTAssertEqual(item.originalPurchaseDateMs, 1_335_798_355_868)
        XCTAssertNil(item.expiresDateMs)
        XCTAssertEqual(item.sections, ["transaction_receipt"])
        XCTAssertEqual(item.signature, .notChecked)
        let raw = try ReceiptFixtures.raw(receipt)
        XCTAssertEqual(raw["bid"] as? String, "com.mindmobapp.MindMob")
        XCTAssertEqual(raw["bvrs"] as? String, "20120427")
        XCTAssertEqual(raw["item_id"] as? String, "521129812")
        XCTAssertEqual(raw["purchase_date"] as? String, "2012-04-30 15:05:55 Etc/GMT")
        XCTAssertEqual(raw.count, 13, "every purchase-info key, '-' written '_'")
        XCTAssertTrue(receipt.rawJSON.hasPrefix(#"{"bid":"com.mindmobapp.MindMob","bvrs":"20120427","item_id":"521129812","#))
    }

    func testUnityWrapperHoldsTheSameReceipt() throws {
        let path = "voltrue2__in-app-purchase/unity_apple"
        let wrapper = try ReceiptFixtures.record(path)
        XCTAssertTrue(AppReceiptReader.isWrapper(wrapper))
        let receipt = try AppReceiptReader.readWrapped(wrapper, at: ReceiptFixtures.location(path), checker: StubReceiptChecker())
        let bare = try ReceiptFixtures.read("voltrue2__in-app-purchase/apple")
        XCTAssertEqual(receipt.items, bare.items)
        XCTAssertEqual(receipt.items.map(\.transactionId), ["1000000046178817"])
        XCTAssertEqual(receipt.items[0].productId, "com.mindmobapp.download")
        XCTAssertEqual(receipt.environment, "Sandbox")
        XCTAssertEqual(receipt.rawJSON, bare.rawJSON)
        XCTAssertNil(receipt.requestId)
        XCTAssertEqual(receipt.notes, ["iOS 6 transaction-receipt signatures are not checked"])
    }

    func testUnityTransactionIDNotInTheReceiptIsNoted() throws {
        try TestPaths.requireRealData()
        var wrapper = try ReceiptFixtures.json("voltrue2__in-app-purchase/unity_apple")
        wrapper["TransactionID"] = "1000000046178818"
        let receipt = try AppReceiptReader.readWrapped(
            RecordFixture.object(wrapper), at: SourceLocation(file: "u", line: 3), checker: StubReceiptChecker())
        XCTAssertEqual(
            receipt.notes,
            [
                "iOS 6 transaction-receipt signatures are not checked",
                "Unity receipt TransactionID 1000000046178818 is not among the receipt's purchases",
            ])
        wrapper["TransactionID"] = "1000000046178817"
        XCTAssertEqual(
            try AppReceiptReader.readWrapped(
                RecordFixture.object(wrapper), at: SourceLocation(file: "u", line: 3), checker: StubReceiptChecker()
            ).notes.count, 1)
        wrapper["Store"] = "GooglePlay"
        XCTAssertThrowsError(
            try AppReceiptReader.readWrapped(
                RecordFixture.object(wrapper), at: SourceLocation(file: "u", line: 3), checker: StubReceiptChecker())
        ) {
            XCTAssertEqual("\($0)", #"field 'Store': a Unity receipt of store "GooglePlay", not AppleAppStore"#)
        }
    }

    func testAppleLibraryLegacyTransaction() throws {
        let receipt = try ReceiptFixtures.read("apple__app-store-server-library-swift/legacyTransaction")
        XCTAssertEqual(receipt.source, .transactionReceipt)
        XCTAssertEqual(receipt.items.map(\.transactionId), ["33993399"])
        XCTAssertNil(receipt.environment, "no environment entry: unknown")
        XCTAssertNil(receipt.bundleId)
        XCTAssertNil(receipt.signedDateMs)
        XCTAssertNil(receipt.items[0].productId)
        XCTAssertEqual(receipt.rawJSON, #"{"transaction_id":"33993399"}"#)
    }

    func testInventedSubscriptionFields() throws {
        let info =
            #"{ "transaction-id" = "2000"; "original-transaction-id" = "1000"; "expires-date" = "1700000000000"; "#
            + #""purchase-date" = "2023-11-14 22:13:20 Etc/GMT"; "web-order-line-item-id" = "77"; "is-trial-period" = "true"; "cancellation-date" = ""; }"#
        let outer = #"{ "purchase-info" = "\#(Data(info.utf8).base64EncodedString())"; "environment" = "sandbox"; }"#
        let receipt = try AppReceiptReader.read(
            Data(Data(outer.utf8).base64EncodedString().utf8), at: SourceLocation(file: "x", line: 1), requestId: nil, receivedAtMs: nil,
            checker: StubReceiptChecker())
        XCTAssertEqual(receipt.environment, "Sandbox")
        let item = try XCTUnwrap(receipt.items.first)
        XCTAssertEqual(item.expiresDateMs, 1_700_000_000_000)
        XCTAssertEqual(item.purchaseDateMs, 1_700_000_000_000, "text date when purchase-date-ms is absent")
        XCTAssertEqual(item.webOrderLineItemId, "77")
        XCTAssertEqual(item.isTrialPeriod, true)
        XCTAssertNil(item.cancellationDateMs, "empty means absent")
        XCTAssertEqual(receipt.signedDateMs, item.purchaseDateMs)
    }

    func testMalformedTransactionReceipts() {
        func read(_ plist: String) throws -> AppleRecord {
            try AppReceiptReader.read(
                Data(Data(plist.utf8).base64EncodedString().utf8), at: SourceLocation(file: "x", line: 1), requestId: nil,
                receivedAtMs: nil,
                checker: StubReceiptChecker())
        }
        XCTAssertThrowsError(try read(#"{ "environment" = "Sandbox"; }"#)) {
            XCTAssertEqual("\($0)", #"iOS 6 transaction receipt without "purchase-info""#)
        }
        XCTAssertThrowsError(try read(#"{ "purchase-info" = "not base64!"; }"#)) {
            XCTAssertEqual("\($0)", #"iOS 6 transaction receipt: "purchase-info" is not base64"#)
        }
        let noId = Data(#"{ "product-id" = "a"; }"#.utf8).base64EncodedString()
        XCTAssertThrowsError(try read(#"{ "purchase-info" = "\#(noId)"; }"#)) {
            XCTAssertEqual("\($0)", #"iOS 6 purchase-info has no "transaction-id""#)
        }
        let badDate = Data(#"{ "transaction-id" = "1"; "purchase-date-ms" = "soon"; }"#.utf8).base64EncodedString()
        XCTAssertThrowsError(try read(#"{ "purchase-info" = "\#(badDate)"; }"#)) {
            XCTAssertEqual("\($0)", #"iOS 6 purchase-info: "purchase-date-ms" is not a date: "soon""#)
        }
        XCTAssertThrowsError(try read(#"{ "purchase-info" = "eyB9"; "#)) {
            XCTAssertEqual("\($0)", "old-style plist: unexpected end of text, expected a string at line 1, column 29")
        }
    }
}
