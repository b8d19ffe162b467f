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
        // Each purchase's listings by their index in `inputs.listings` (not copies of them: at 1M transactions the
        // copies took about 400 MB beside the originals).
        var groupOf: [String: Int] = [:]
        var groups: [(key: String, byOriginal: Bool, listings: [Int32])] = []
        // A listing below the trust level the rules need (a failed signature, a decoded payload given unsigned) adds
        // nothing to a purchase: no id, no evidence, no class (docs/security.md, "Trust levels"). Only a purchase that
        // nothing else shows is made of such listings, `unproven`, after the others.
        var unprovenListings: [Int32] = []
        for (i, l) in inputs.listings.enumerated() {
            guard l.evidence.isTrusted else {
                unprovenListings.append(Int32(i))
                continue
            }
            let (key, original) = purchase(l, products)
            if let g = groupOf[key] {
                groups[g].listings.append(Int32(i))
                groups[g].byOriginal = groups[g].byOriginal || original
            } else {
                groupOf[key] = groups.count
                groups.append((key, original, [Int32(i)]))
            }
        }
        // The keys Apple's purchases took: a purchase only the client reported is never keyed as one of them (a renewal the
        // client reported of a subscription whose other renewal a receipt lists, keyed by the original id alone: booked
        // twice under one key, and the close failed on `close_sale`'s key).
        let booked = Set(groupOf.keys)
        groupOf = [:]
        var sales: [LedgerSale] = []
        sales.reserveCapacity(groups.count)
        var listed = inputs.listedElsewhere
        for group in groups {
            let listings = group.listings.map { inputs.listings[Int($0)] }
            for l in listings { listed.insert(l.transactionId) }
            sales.append(
                sale(
                    group.key, listings, byOriginal: group.byOriginal, prices: prices, currencyOfCountry: currencyOfCountry,
                    timeZone: timeZone))
        }
        groups = []
        // Purchases only the client reported: no Apple record lists any of their ids.
        var claimed: [String: [ClientPurchase]] = [:]
        for c in inputs.clientPurchases where !listed.contains(c.transactionId) {
            let original = c.originalTransactionId.flatMap { listed.contains($0) || booked.contains($0) ? nil : $0 }
            claimed[original ?? c.transactionId, default: []].append(c)
        }
        // A report whose own id is an Apple purchase's key is that purchase (booked once, by Apple's records).
        for (key, reports) in claimed where !listed.contains(key) && !booked.contains(key) {
            sales.append(claimedSale(key, reports, prices: prices, currencyOfCountry: currencyOfCountry, timeZone: timeZone))
        }
        // Purchases only unproven listings show: none of their ids or keys is a purchase above, or one the client reported.
        let reported = Set(inputs.clientPurchases.map(\.transactionId)).union(claimed.keys)
        let unprovenGroups = unprovenPurchases(
            unprovenListings, inputs, products, taken: { booked.contains($0) || reported.contains($0) },
            listed: { listed.contains($0) || reported.contains($0) })
        for group in unprovenGroups {
            sales.append(
                sale(
                    group.key, group.listings, byOriginal: group.byOriginal, prices: prices, currencyOfCountry: currencyOfCountry,
                    timeZone: timeZone))
        }
        return sales.sorted { ($0.purchaseMs ?? Int64.min, $0.key) < ($1.purchaseMs ?? Int64.min, $1.key) }
    }

    /// A purchase only the client reported (`reports`, under `key`): unpriced, or estimated from the price list.
    private static func claimedSale(
        _ key: String, _ reports: [ClientPurchase], prices: PriceList?, currencyOfCountry: [String: String], timeZone: PeriodTimeZone
    ) -> LedgerSale {
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
        return sale
    }

    /// The purchases only unproven listings (`indices` into `inputs.listings`) show, grouped by purchase key: those whose key
    /// is not `taken` and none of whose ids is `listed`.
    private static func unprovenPurchases(
        _ indices: [Int32], _ inputs: CloseInputs, _ products: [String: ProductType], taken: (String) -> Bool,
        listed: (String) -> Bool
    ) -> [(key: String, byOriginal: Bool, listings: [CloseListing])] {
        var unprovenGroups: [(key: String, byOriginal: Bool, listings: [CloseListing])] = []
        var unprovenGroupOf: [String: Int] = [:]
        for i in indices {
            let l = inputs.listings[Int(i)]
            let (key, original) = purchase(l, products)
            guard !taken(key), !listed(l.transactionId) else { continue }
            if let g = unprovenGroupOf[key] {
                unprovenGroups[g].listings.append(l)
                unprovenGroups[g].byOriginal = unprovenGroups[g].byOriginal || original
            } else {
                unprovenGroupOf[key] = unprovenGroups.count
                unprovenGroups.append((key, original, [l]))
            }
        }
        return unprovenGroups
    }

    /// The purchase key of a listing (rule 18), by the config's product type, else the JWS `type`.
    static func key(_ l: CloseListing, _ products: [String: ProductType]) -> String { purchase(l, products).key }

    /// The purchase key, and whether the purchase is dated by its original purchase (a non-consumable or
    /// non-renewing purchase, whose restores bring new ids; a subscription period and a consumable are
    /// dated by their own purchase date).
    static func purchase(_ l: CloseListing, _ products: [String: ProductType]) -> (key: String, byOriginal: Bool) {
        let type = l.productId.flatMap { products[$0] } ?? l.type.flatMap(ProductType.init(jwsType:))
        let original = l.originalTransactionId ?? l.transactionId
        switch type {
        case .consumable?: return (l.transactionId, false)
        case .nonConsumable?, .nonRenewing?: return (original, true)
        case .autoRenewable?, nil:
            if let line = l.webOrderLineItemId, line != "0" { return (original + "/" + line, false) }
            return (original, type == nil)
        }
    }

    private static func sale(
        _ key: String, _ listings: [CloseListing], byOriginal: Bool, prices: PriceList?, currencyOfCountry: [String: String],
        timeZone: PeriodTimeZone
    ) -> LedgerSale {
        let paying = listings.filter { $0.evidence.provesPayment() }
        // A purchase of unproven listings alone (`build`) is `unproven`: what they say excludes nothing either.
        let trusted = listings.filter(\.evidence.isTrusted)
        let saleClass: LedgerSale.Class
        var exclusion: String? = nil
        if !paying.isEmpty {
            saleClass = .paid
        } else if let excluded = trusted.lazy.compactMap(Self.exclusion).first {
            (saleClass, exclusion) = (.excluded, excluded)
        } else {
            saleClass = .unproven
        }
        // A purchase's dates, product, units, storefront and trial are those of its listings of the highest trust level
        // present (docs/security.md, "Trust levels"): a Notification V1 body no request asked for yields to a verified
        // or logged listing.
        let read = best(trusted.isEmpty ? listings : trusted)
        let main = paying.first { $0.level == read[0].level } ?? paying.first ?? read[0]
        // A restore is dated by the original purchase; a subscription period and a consumable by their own.
        let purchaseMs = read.compactMap { byOriginal ? $0.originalPurchaseDateMs ?? $0.purchaseDateMs : $0.purchaseDateMs }.min()
        let units = read.map(\.quantity).max() ?? 1
        // JWS `price` of a record Apple stands behind (the transaction's own signature verified, whether or
        // not the page or notification around it is signed): the transaction's total, never × quantity.
        let priced = listings.first { $0.evidence.itemSignature == .verified && $0.priceMilliunits != nil && $0.currency != nil }
        let storefront = read.lazy.compactMap(\.storefront).first
        var country = storefront.flatMap(Storefront.countryCode(of:))
        var amount: Money? = nil
        var pricing = LedgerSale.Pricing.unpriced
        if let priced {
            (amount, pricing) = (Money(milliunits: priced.priceMilliunits!, currency: priced.currency!), .jws)
        } else if let product = main.productId, let atMs = purchaseMs,
            let (unitPrice, entry) = estimate(product, storefront: storefront, atMs: atMs, prices, currencyOfCountry, timeZone),
            let total = unitPrice.times(units)
        {
            (amount, pricing) = (total, .estimated)
            if country == nil, case .storefront(let code) = entry.scope { country = Storefront.countryCode(of: code) }
        }
        let isTrial = read.contains(where: \.isTrialPeriod)
        return LedgerSale(
            key: key, transactionIds: ExactText.distinctSorted(listings.map(\.transactionId)), productId: main.productId,
            purchaseMs: purchaseMs, countryCode: country, amount: isTrial ? amount.map { Money.zero($0.currency) } : amount,
            pricing: pricing, saleClass: saleClass, exclusion: exclusion, isTrial: isTrial, units: units,
            refunds: refunds(listings, amount), evidence: Array(Set(listings.map(\.location))).sorted())
    }

    /// The listings of the highest trust level among `listings` (not empty).
    private static func best(_ listings: [CloseListing]) -> [CloseListing] {
        let top = listings.lazy.map(\.level).max()!
        return listings.filter { $0.level == top }
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
            result.append(LedgerSale.Refund(atMs: at, amount: share, location: l.location, milliPercent: l.revocationPercentage))
        }
        return result
    }

    /// The price list's unit price of `product` at `atMs`: for a purchase whose storefront is known, its
    /// storefront's entry, else the entry in the currency Apple's reports give for its country (never another
    /// currency); for one whose storefront is unknown (a receipt), the product's only entry. A
    /// storefront-keyed entry is in the currency Apple's reports give for that storefront's country.
    static func estimate(
        _ product: String, storefront: String?, atMs: Int64, _ prices: PriceList?, _ currencyOfCountry: [String: String],
        _ timeZone: PeriodTimeZone
    ) -> (Money, PriceListEntry)? {
        guard let prices else { return nil }
        var tries: [[PriceScope]] = []
        if let storefront {
            tries.append([.storefront(storefront)])
            if let currency = Storefront.countryCode(of: storefront).flatMap({ currencyOfCountry[$0] }) {
                tries.append([.currency(currency)])
            }
        } else {
            tries.append(prices.scopes(of: product))
        }
        for scopes in tries {
            let found = scopes.compactMap { prices.price(of: product, in: $0, atMs: atMs, timeZone: timeZone) }
            guard found.count == 1, let entry = found.first else { continue }
            var entryCurrency: String? = nil
            if case .storefront(let code) = entry.scope {
                entryCurrency = Storefront.countryCode(of: code).flatMap { currencyOfCountry[$0] }
            }
            guard let money = entry.money(storefrontCurrency: entryCurrency) else { return nil }
            return (money, entry)
        }
        return nil
    }
}
