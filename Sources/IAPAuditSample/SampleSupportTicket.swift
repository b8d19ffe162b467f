import IAPAuditModel

/// The support ticket of docs/trace.md: "I paid on Oct 12 and got nothing; my Apple order id is
/// MQ7K2XW9PL". The app died before it reported the purchase (no client report, no server request), so
/// nothing of ours names the customer or the transaction: only the order id on Apple's emailed invoice.
/// Support fetched Look Up Order ID for it on 2026-10-20 (`order-lookup.jsonl`); the verified signed
/// transaction proves the payment, so the purchase is `dropped_order/in_receipt_never_credited`, confirmed,
/// and `iap-audit trace MQ7K2XW9PL` finds it from the order id alone.
extension SampleBuilder {
    /// The order id on the customer's invoice.
    static let supportOrderId = "MQ7K2XW9PL"

    /// Planted after the ordinary traffic and drawing nothing from `random`: every other record of the
    /// sample stays as it was (the client reports' split into JSON Lines and CSV draws after this).
    func plantSupportTicket() {
        planted("support ticket: a lost order known only by its Apple order id (Look Up Order ID)")
        let boughtAt = SampleClock.start + 11 * SampleClock.day + 14 * SampleClock.hour + 5 * 60
        var tx = SampleTransaction(
            id: nextTransactionId(), originalId: "", productId: "com.example.gems980", purchasedAt: boughtAt,
            originalPurchasedAt: boughtAt)
        tx.originalId = tx.id
        let (priced, details) = priced(tx, in: "USA")
        let fetchedAt = SampleClock.start + 19 * SampleClock.day + 9 * SampleClock.hour + 30 * 60
        listSigned(priced, details)
        log.addOrderLookup(
            orderId: Self.supportOrderId, receivedAt: fetchedAt,
            SampleSigner.orderLookup([SampleSigner.transaction(priced, details, signedAt: fetchedAt)]))
        expect(.droppedOrder, "in_receipt_never_credited", priced, confirmed: true)
    }
}
