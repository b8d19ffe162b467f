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

/// JSON wrappers around receipts: ours (`receipt_data`), client purchase objects (`transactionReceipt`).
final class ReceiptWrapperTests: XCTestCase {
    func testLaravelPurchaseObjectEmbedsA61PurchaseReceipt() throws {
        let path = "imdhemy__laravel-in-app-purchases/product-receipt.json"
        let wrapper = try ReceiptFixtures.record(path)
        XCTAssertTrue(AppReceiptReader.isWrapper(wrapper))
        let checker = StubReceiptChecker(.invalid("certificate_expired"))
        let receipt = try AppReceiptReader.readWrapped(wrapper, at: ReceiptFixtures.location(path), checker: checker)
        XCTAssertEqual(receipt.source, .appReceipt)
        XCTAssertEqual(receipt.environment, "Sandbox")
        XCTAssertEqual(receipt.bundleId, "com.twigano.fashion")
        XCTAssertEqual(receipt.signedDateMs, 1_606_677_704_000, "2020-11-29T19:21:44Z")
        XCTAssertEqual(checker.pkcs7Checks.map(\.atMs), [1_606_677_704_000])
        XCTAssertEqual(receipt.signature, .invalid("certificate_expired"))
        XCTAssertTrue(receipt.notes.isEmpty, "its orderId 1000000747778008 is in the receipt")
        XCTAssertEqual(receipt.items.count, 61)
        XCTAssertEqual(Set(receipt.items.map(\.transactionId)).count, 61)
        XCTAssertEqual(Array(receipt.items.prefix(3).map(\.transactionId)), ["1000000747778008", "1000000747777769", "1000000747777772"])
        XCTAssertEqual(receipt.items.last?.transactionId, "1000000747777660")
        XCTAssertEqual(
            Dictionary(grouping: receipt.items, by: { $0.productId ?? "" }).mapValues(\.count),
            ["month_premium": 48, "year_premium": 12, "boost": 1])
        XCTAssertEqual(
            Dictionary(grouping: receipt.items, by: { $0.originalTransactionId ?? "" }).mapValues(\.count),
            ["1000000723811158": 60, "1000000747778008": 1])
        let boost = receipt.items[0]
        XCTAssertEqual(boost.productId, "boost")
        XCTAssertEqual(boost.purchaseDateMs, 1_606_677_662_000, "the purchase object's purchaseTime")
        XCTAssertNil(boost.webOrderLineItemId)
        XCTAssertNil(boost.expiresDateMs)
        XCTAssertEqual(receipt.items[1].webOrderLineItemId, "1000000056284415")
        XCTAssertEqual(Set(receipt.items.compactMap(\.webOrderLineItemId)).count, 60)
    }

    /// SOURCES.md's re-issue pattern: the same subscription periods as the V1 notification of the
    /// same account (same web order line item ids and purchase dates) under new transaction ids and
    /// renamed products.
    func testLaravelReceiptReissuesTheNotificationPeriodsUnderNewIds() throws {
        let path = "imdhemy__laravel-in-app-purchases/product-receipt.json"
        let receipt = try AppReceiptReader.readWrapped(
            try ReceiptFixtures.record(path), at: ReceiptFixtures.location(path), checker: StubReceiptChecker())
        let notification = try ReceiptFixtures.json("imdhemy__appstore-iap/server-notification.json")
        let rows = try XCTUnwrap((notification["unified_receipt"] as? [String: Any])?["latest_receipt_info"] as? [[String: Any]])
        XCTAssertEqual(rows.count, 54)
        let byWebOrder = Dictionary(uniqueKeysWithValues: receipt.items.compactMap { item in item.webOrderLineItemId.map { ($0, item) } })
        var renamed: Set<String> = []
        for row in rows {
            let webOrder = try XCTUnwrap(row["web_order_line_item_id"] as? String)
            let item = try XCTUnwrap(byWebOrder[webOrder], "web order line item \(webOrder) is in the receipt")
            XCTAssertEqual(item.purchaseDateMs.map(String.init), row["purchase_date_ms"] as? String, webOrder)
            XCTAssertEqual(item.originalTransactionId, row["original_transaction_id"] as? String)
            XCTAssertNotEqual(item.transactionId, row["transaction_id"] as? String, webOrder)
            renamed.insert("\(row["product_id"] as? String ?? "")→\(item.productId ?? "")")
        }
        XCTAssertEqual(renamed, ["one_month_subscription→month_premium", "one_year_subscription→year_premium"])
        XCTAssertTrue(Set(rows.compactMap { $0["transaction_id"] as? String }).isDisjoint(with: receipt.items.map(\.transactionId)))
    }

    func testOurWrapperLinksTheReceiptToARequest() throws {
        let base64 = String(decoding: try ReceiptFixtures.data("tikhop__TPInAppReceipt/receipt-production"), as: UTF8.self)
        let wrapper: [String: Any] = ["request_id": "req-42", "received_at": "2024-02-23T17:30:00Z", "receipt_data": base64]
        XCTAssertTrue(AppReceiptReader.isWrapper(RecordFixture.object(wrapper)))
        let receipt = try AppReceiptReader.readWrapped(
            RecordFixture.object(wrapper), at: SourceLocation(file: "w.jsonl", line: 7), checker: StubReceiptChecker())
        XCTAssertEqual(receipt.requestId, "req-42")
        XCTAssertEqual(receipt.receivedAtMs, 1_708_709_400_000)
        XCTAssertEqual(receipt.location, SourceLocation(file: "w.jsonl", line: 7))
        XCTAssertEqual(receipt.items.count, 4)
        XCTAssertEqual(receipt.environment, "Production")

        var epoch = wrapper
        epoch["received_at"] = NSNumber(value: 1_708_709_400_000 as Int64)
        XCTAssertEqual(
            try AppReceiptReader.readWrapped(
                RecordFixture.object(epoch), at: SourceLocation(file: "w", line: 1), checker: StubReceiptChecker()
            ).receivedAtMs,
            1_708_709_400_000)
    }

    func testWrapperErrors() {
        let at = SourceLocation(file: "w", line: 1)
        let checker = StubReceiptChecker()
        XCTAssertThrowsError(
            try AppReceiptReader.readWrapped(
                RecordFixture.object(["received_at": "2024-01-01T00:00:00Z", "receipt_data": "eA=="]), at: at, checker: checker)
        ) {
            XCTAssertEqual("\($0)", "missing required field 'request_id'")
        }
        XCTAssertThrowsError(
            try AppReceiptReader.readWrapped(RecordFixture.object(["request_id": "r", "receipt_data": "eA=="]), at: at, checker: checker)
        ) {
            XCTAssertEqual("\($0)", "missing required field 'received_at'")
        }
        XCTAssertThrowsError(
            try AppReceiptReader.readWrapped(
                RecordFixture.object(["request_id": "r", "received_at": 1_700_000_000_000, "receipt_data": "NOT A RECEIPT"]), at: at,
                checker: checker)
        ) {
            XCTAssertEqual(
                "\($0)",
                #"field 'receipt_data': not a receipt: found the text "NOT A RECEIPT" (expected base64 or DER of a PKCS#7 app receipt or an iOS 6 transaction receipt)"#
            )
        }
        XCTAssertThrowsError(try AppReceiptReader.readWrapped(RecordFixture.object(["transactionReceipt": 42]), at: at, checker: checker)) {
            XCTAssertEqual("\($0)", "field 'transactionReceipt': expected base64 receipt text, found a number")
        }
        XCTAssertThrowsError(
            try AppReceiptReader.readWrapped(RecordFixture.object(["transactionReceipt": "aGVsbG8gd29ybGQ="]), at: at, checker: checker)
        ) {
            XCTAssertEqual(
                "\($0)",
                #"field 'transactionReceipt': not a receipt: base64 text decoding to the text "hello world" (expected base64 or DER of a PKCS#7 app receipt or an iOS 6 transaction receipt)"#
            )
        }
        XCTAssertFalse(AppReceiptReader.isWrapper(RecordFixture.object(["status": 0, "receipt": [:] as [String: Any]])))
        XCTAssertThrowsError(try AppReceiptReader.readWrapped(RecordFixture.object(["status": 0]), at: at, checker: checker)) {
            XCTAssertEqual("\($0)", "not a receipt wrapper: expected receipt_data, Store/Payload or transactionReceipt")
        }
    }

    func testClientPurchaseWhoseIdIsNotInTheReceiptIsNoted() throws {
        try TestPaths.requireRealData()
        var wrapper = try ReceiptFixtures.json("imdhemy__laravel-in-app-purchases/product-receipt.json")
        wrapper["transactionId"] = "1000000747778009"
        let receipt = try AppReceiptReader.readWrapped(
            RecordFixture.object(wrapper), at: SourceLocation(file: "p", line: 1), checker: StubReceiptChecker())
        XCTAssertEqual(receipt.notes, ["client purchase transactionId 1000000747778009 is not among the receipt's purchases"])
    }
}
