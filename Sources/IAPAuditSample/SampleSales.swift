import IAPAuditModel

/// A purchase as docs/close.md says the ledger knows it ("Sales in the ledger"), made from the
/// generator's book, with what Apple's reports say of it.
struct SampleSale {
    enum Class: String { case paid, excluded, unproven, claimed }
    enum Pricing: String { case jws, estimated, unpriced }

    /// A refund: when (UTC seconds), how much of the amount (milliunits; nil when unpriced), and the
    /// share refunded (thousandths of a percent; nil = all).
    struct Refund {
        var at: Int64
        var amount: Int64?
        var percent: Int64?
    }

    var key: String
    var transactionIds: [String]
    var productId: String
    /// The purchase instant (UTC seconds): Apple's purchase date, a non-consumable's original purchase,
    /// else the client's earliest `purchased` report.
    var at: Int64
    var saleClass: Class
    var trial: Bool
    /// Units bought (a consumable's `quantity`).
    var quantity: Int64
    /// The purchase's total in `currency` (milliunits): the JWS price, else the price list's price ×
    /// quantity; nil when unpriced.
    var amount: Int64?
    var currency: String?
    var pricing: Pricing
    var refunds: [Refund]
    /// Where Apple sold it (alpha-3) and its customer price per unit there: what Apple's reports say.
    var storefront: String
    var unitPrice: Int64

    /// The bridge row's currency: `—` for an unpriced purchase.
    var rowCurrency: String { currency ?? "—" }
    /// Units and amount as the ledger counts them: a trial is units at zero.
    var value: (units: Int64, milliunits: Int64) { (quantity, trial ? 0 : amount ?? 0) }
    var inPeriod: Bool { at >= SampleClock.start && at < SampleClock.periodEnd }
}

extension SampleBook {
    /// The ledger's purchases: every key the listings group into, then the purchases only the client
    /// reported (no Apple record lists their ids), sorted by key.
    func sales() -> [SampleSale] {
        var byKey: [String: [Listing]] = [:]
        for l in listings { byKey[Self.key(l), default: []].append(l) }
        var sales = byKey.map { sale($0.key, $0.value) }
        let listed = Set(listings.map(\.tx.id))
        var claimed: [String: [ClientPurchase]] = [:]
        for c in clientPurchases where !listed.contains(c.transactionId) {
            let original = c.originalTransactionId.flatMap { listed.contains($0) ? nil : $0 }
            claimed[original ?? c.transactionId, default: []].append(c)
        }
        for (key, reports) in claimed where !listed.contains(key) {
            let first = reports.min { $0.at < $1.at }!
            let estimate = SamplePrices.estimate(first.productId, day: SampleClock.utcDay(first.at))
            let currency = SamplePrices.legacyCurrency[first.productId]!
            sales.append(
                SampleSale(
                    key: key, transactionIds: Array(Set(reports.map(\.transactionId))).sorted(), productId: first.productId, at: first.at,
                    saleClass: .claimed, trial: false, quantity: 1, amount: estimate?.milliunits, currency: estimate?.currency,
                    pricing: estimate == nil ? .unpriced : .estimated, refunds: [], storefront: "USA",
                    unitPrice: SamplePrices.customerPrice(first.productId, currency)))
        }
        return sales.sorted { $0.key < $1.key }
    }

    private func sale(_ key: String, _ listings: [Listing]) -> SampleSale {
        let paying = listings.filter { $0.proof == .proves }
        let saleClass: SampleSale.Class =
            !paying.isEmpty ? .paid : listings.contains { $0.proof == .excluded } ? .excluded : .unproven
        let main = paying.first ?? listings[0]
        let product = main.tx.productId
        // A non-consumable is dated by its original purchase (a restore is no sale); anything else by its
        // own purchase date (a renewal's, not its subscription's first).
        let at =
            Self.productTypes[product] == "non_consumable"
            ? listings.map(\.tx.originalPurchasedAt).min()! : listings.map(\.tx.purchasedAt).min()!
        let quantity = Int64(main.tx.quantity)
        let signed = listings.first { $0.price != nil }
        var amount: Int64? = nil
        var currency: String? = nil
        var pricing = SampleSale.Pricing.unpriced
        if let signed {
            (amount, currency, pricing) = (signed.price, signed.currency, .jws)
        } else if let estimate = SamplePrices.estimate(product, day: SampleClock.utcDay(at)) {
            (amount, currency, pricing) = (estimate.milliunits * quantity, estimate.currency, .estimated)
        }
        let storefront = signed?.storefront ?? main.tx.storefront
        let realCurrency = SamplePrices.storefront(storefront).currency
        let unitPrice = signed.map { $0.price! / quantity } ?? SamplePrices.customerPrice(product, realCurrency)
        var refunds: [SampleSale.Refund] = []
        for l in listings.sorted(by: { ($0.tx.cancelledAt ?? 0) < ($1.tx.cancelledAt ?? 0) }) {
            guard let at = l.tx.cancelledAt, !refunds.contains(where: { $0.at == at }) else { continue }
            let share = amount.map { a in l.revocationPercentage.map { (a * $0 + 50_000) / 100_000 } ?? a }
            refunds.append(SampleSale.Refund(at: at, amount: share, percent: l.revocationPercentage))
        }
        return SampleSale(
            key: key, transactionIds: Array(Set(listings.map(\.tx.id))).sorted(), productId: product, at: at, saleClass: saleClass,
            trial: listings.contains { $0.tx.trial }, quantity: quantity,
            amount: amount, currency: currency, pricing: pricing, refunds: refunds, storefront: storefront, unitPrice: unitPrice)
    }
}
