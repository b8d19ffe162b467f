import IAPAuditModel

/// Builds the ledger's sales from the close's inputs (docs/close.md).
package enum LedgerSales {
    /// - Parameters:
    ///   - products: the config's product types (else the JWS `type` decides how ids group).
    ///   - prices: the price list (`--prices`), for records without a JWS price.
    ///   - currencyOfCountry: the customer currency Apple's reports give for a country (alpha-2), for a price
    ///     list entry keyed by storefront.
    ///   - timeZone: the close's time zone (a price's `valid_from` day).
    package static func build(
        _ inputs: CloseInputs, products: [String: ProductType], prices: PriceList?, currencyOfCountry: [String: String],
        timeZone: PeriodTimeZone
    ) -> [LedgerSale] {
        var listingsByKey: [String: [CloseListing]] = [:]
        for l in inputs.listings { listingsByKey[key(l, products), default: []].append(l) }
        var sales: [LedgerSale] = []
        var listed = Set<String>()
        for (key, listings) in listingsByKey {
            for l in listings { listed.insert(l.transactionId) }
            sales.append(sale(key, listings, prices: prices, currencyOfCountry: currencyOfCountry, timeZone: timeZone))
        }
        // Purchases only the client reported: no Apple record lists any of their ids.
        var claimed: [String: [ClientPurchase]] = [:]
        for c in inputs.clientPurchases where !listed.contains(c.transactionId) {
            claimed[c.originalTransactionId.flatMap { listed.contains($0) ? nil : $0 } ?? c.transactionId, default: []].append(c)
        }
        for (key, reports) in claimed where !listed.contains(key) {
            let first = reports.min { $0.tsMs < $1.tsMs }!
            var sale = LedgerSale(
                key: key, transactionIds: ExactText.distinctSorted(reports.map(\.transactionId)), productId: first.productId,
                purchaseMs: first.tsMs, countryCode: nil, amount: nil, pricing: .unpriced, saleClass: .claimed, exclusion: nil,
                isTrial: false, refunds: [], evidence: reports.map(\.location).sorted())
            if let product = first.productId,
                let (amount, _) = estimate(product, storefront: nil, atMs: first.tsMs, prices, currencyOfCountry, timeZone)
            {
                (sale.amount, sale.pricing) = (amount, .estimated)
            }
            sales.append(sale)
        }
        return sales.sorted { ($0.purchaseMs ?? Int64.min, $0.key) < ($1.purchaseMs ?? Int64.min, $1.key) }
    }

    /// The purchase key of a listing (rule 18), by the config's product type, else the JWS `type`.
    static func key(_ l: CloseListing, _ products: [String: ProductType]) -> String {
        let type = l.productId.flatMap { products[$0] } ?? l.type.flatMap(ProductType.init(jwsType:))
        let original = l.originalTransactionId ?? l.transactionId
        switch type {
        case .consumable?: return l.transactionId
        case .nonConsumable?, .nonRenewing?: return original
        case .autoRenewable?, nil:
            if let line = l.webOrderLineItemId, line != "0" { return original + "/" + line }
            return original
        }
    }

    private static func sale(
        _ key: String, _ listings: [CloseListing], prices: PriceList?, currencyOfCountry: [String: String], timeZone: PeriodTimeZone
    ) -> LedgerSale {
        let paying = listings.filter { $0.evidence.provesPayment() }
        let saleClass: LedgerSale.Class
        var exclusion: String? = nil
        if !paying.isEmpty {
            saleClass = .paid
        } else if let excluded = listings.lazy.compactMap(Self.exclusion).first {
            (saleClass, exclusion) = (.excluded, excluded)
        } else {
            saleClass = .unproven
        }
        let main = paying.first ?? listings[0]
        // A restore or re-issue is dated by the original purchase.
        let purchaseMs = listings.compactMap { $0.originalPurchaseDateMs ?? $0.purchaseDateMs }.min()
        let priced = listings.first { $0.evidence.isSigned && $0.evidence.isTrusted && $0.priceMilliunits != nil && $0.currency != nil }
        let storefront = listings.lazy.compactMap(\.storefront).first
        var amount: Money? = nil
        var pricing = LedgerSale.Pricing.unpriced
        if let priced {
            (amount, pricing) = (Money(milliunits: priced.priceMilliunits!, currency: priced.currency!), .jws)
        } else if let product = main.productId, let atMs = purchaseMs,
            let (estimate, _) = estimate(product, storefront: storefront, atMs: atMs, prices, currencyOfCountry, timeZone)
        {
            (amount, pricing) = (estimate, .estimated)
        }
        return LedgerSale(
            key: key, transactionIds: ExactText.distinctSorted(listings.map(\.transactionId)), productId: main.productId,
            purchaseMs: purchaseMs, countryCode: storefront.flatMap(Storefront.countryCode(of:)), amount: amount, pricing: pricing,
            saleClass: saleClass, exclusion: exclusion, isTrial: listings.contains(where: \.isTrialPeriod) || amount?.milliunits == 0,
            refunds: refunds(listings, amount), evidence: Array(Set(listings.map(\.location))).sorted())
    }

    /// Why a listing is never a sale in Apple's reports, or nil.
    static func exclusion(_ l: CloseListing) -> String? {
        let e = l.evidence
        if e.familyShared { return "family_shared" }
        if e.environmentConflict { return "environment_conflict" }
        if e.environment.isSandbox { return e.environment.name ?? "other_environment" }
        if e.itemEnvironment != .none && e.itemEnvironment != .production { return e.itemEnvironment.name ?? "other_environment" }
        return nil
    }

    /// Refunds Apple stands behind, prorated, each undone by a REFUND_REVERSED issued after it.
    static func refunds(_ listings: [CloseListing], _ amount: Money?) -> [LedgerSale.Refund] {
        let trusted = listings.filter(\.evidence.isTrusted)
        let reversals = trusted.filter { $0.notificationType == "REFUND_REVERSED" }.compactMap(\.issuedMs)
        var seen = Set<Int64>()
        var result: [LedgerSale.Refund] = []
        for l in trusted.sorted(by: { ($0.cancellationDateMs ?? 0) < ($1.cancellationDateMs ?? 0) }) {
            guard let at = l.cancellationDateMs, seen.insert(at).inserted else { continue }
            if reversals.contains(where: { $0 > at }) { continue }
            let share = amount.map { a in l.revocationPercentage.map { a.share(milliPercent: $0) } ?? a }
            result.append(LedgerSale.Refund(atMs: at, amount: share, location: l.location))
        }
        return result
    }

    /// The price list's price of `product` at `atMs`: the storefront's entry, else the entry in the currency
    /// Apple's reports give for the storefront's country, else the product's only entry; in the currency
    /// Apple's reports give for a storefront-keyed entry.
    static func estimate(
        _ product: String, storefront: String?, atMs: Int64, _ prices: PriceList?, _ currencyOfCountry: [String: String],
        _ timeZone: PeriodTimeZone
    ) -> (Money, PriceListEntry)? {
        guard let prices else { return nil }
        let storefrontCurrency = storefront.flatMap(Storefront.countryCode(of:)).flatMap { currencyOfCountry[$0] }
        var tries: [[PriceScope]] = []
        if let storefront { tries.append([.storefront(storefront)]) }
        if let storefrontCurrency { tries.append([.currency(storefrontCurrency)]) }
        tries.append(prices.scopes(of: product))
        for scopes in tries {
            let found = scopes.compactMap { prices.price(of: product, in: $0, atMs: atMs, timeZone: timeZone) }
            guard found.count == 1, let entry = found.first else { continue }
            guard let money = entry.money(storefrontCurrency: storefrontCurrency) else { return nil }
            return (money, entry)
        }
        return nil
    }
}
