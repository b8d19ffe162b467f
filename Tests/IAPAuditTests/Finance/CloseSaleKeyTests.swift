import XCTest

@testable import IAPAuditModel
@testable import IAPAuditReconcile

/// Each purchase is one `close_sale` row (its key is the table's key with the period): a close failed on
/// `UNIQUE constraint failed: close_sale` when the client reported one renewal of a subscription and Apple's receipt
/// listed another of the same original transaction (issue 27, attack c).
final class CloseSaleKeyTests: XCTestCase {
    typealias Bridge = BridgeTests

    /// A receipt's listing of renewal 12 of original 10 (no web order line item: keyed by the original), and the client's
    /// reports of renewal 13 of the same original, and of 10 itself: renewal 13 is its own claimed purchase, 10 is
    /// Apple's purchase (booked once, by the receipt).
    func testAClientRenewalOfAnOriginalAppleListsIsBookedOnceUnderItsOwnKey() throws {
        var receipt = Bridge.paid
        receipt.itemSignature = .notChecked
        var renewal = Bridge.listing("12", at: "2026-10-10T12:00:00Z", price: nil, evidence: receipt, signed: false)
        renewal.originalTransactionId = "10"
        var inputs = CloseInputs()
        inputs.listings = [renewal]
        inputs.clientPurchases = [
            ClientPurchase(
                location: SourceLocation(file: "client.jsonl", line: 3), transactionId: "13", originalTransactionId: "10", productId: "p",
                tsMs: Bridge.ms("2026-10-11T12:00:00Z")),
            ClientPurchase(
                location: SourceLocation(file: "client.jsonl", line: 4), transactionId: "10", originalTransactionId: "10", productId: "p",
                tsMs: Bridge.ms("2026-09-10T12:00:00Z")),
        ]
        let sales = LedgerSales.build(inputs, products: [:], prices: Bridge.listPrices, currencyOfCountry: ["US": "USD"], timeZone: .utc)
        XCTAssertEqual(
            sales.map { "\($0.key) \($0.transactionIds) \($0.saleClass.rawValue) \($0.evidence.map(\.description))" },
            [
                #"10 ["12"] paid ["apple.jsonl:12"]"#,
                #"13 ["13"] claimed ["client.jsonl:3"]"#,
            ])
    }
}
