import IAPAuditModel

/// The sample app's money: where it sells (storefronts, currencies, VAT), its prices there, what Apple
/// pays it, and the price list it gives the close for the purchases whose records carry no price.
///
/// Kept apart from the tool's own `Storefront`, `PriceList` and `Money` on purpose: the sample states
/// what Apple would report, so it must not share the arithmetic it checks.
enum SamplePrices {
    /// A storefront the sample sells in: ISO 3166-1 alpha-3 (JWS `storefront`), alpha-2 (Apple's
    /// reports), its currency, the VAT included in its prices (percent), and its Financial report region.
    struct Storefront {
        var alpha3: String
        var alpha2: String
        var currency: String
        var vatPercent: Int64
        var region: Region
    }

    /// A Financial report region: its file suffix, the payments summary's name, its currency.
    struct Region: Equatable {
        var code: String
        var name: String
        var currency: String
    }

    static let americas = Region(code: "US", name: "Americas", currency: "USD")
    static let euroZone = Region(code: "EU", name: "Euro-Zone", currency: "EUR")
    static let unitedKingdom = Region(code: "GB", name: "United Kingdom", currency: "GBP")
    static let japan = Region(code: "JP", name: "Japan", currency: "JPY")
    static let regions = [americas, euroZone, unitedKingdom, japan]

    static let storefronts = [
        Storefront(alpha3: "USA", alpha2: "US", currency: "USD", vatPercent: 0, region: americas),
        Storefront(alpha3: "DEU", alpha2: "DE", currency: "EUR", vatPercent: 19, region: euroZone),
        Storefront(alpha3: "FRA", alpha2: "FR", currency: "EUR", vatPercent: 20, region: euroZone),
        Storefront(alpha3: "GBR", alpha2: "GB", currency: "GBP", vatPercent: 20, region: unitedKingdom),
        Storefront(alpha3: "JPN", alpha2: "JP", currency: "JPY", vatPercent: 10, region: japan),
    ]

    static func storefront(_ alpha3: String) -> Storefront { storefronts.first { $0.alpha3 == alpha3 }! }

    /// Storefronts of a JWS purchase by weight.
    static let jwsStorefronts: [(String, Int)] = [("USA", 45), ("DEU", 15), ("FRA", 10), ("GBR", 15), ("JPN", 15)]

    /// Apple's customer price (milliunits) of each product in USD, EUR, GBP and JPY, all month long.
    static let customerPrices: [String: [String: Int64]] = [
        "com.example.gems60": ["USD": 990, "EUR": 990, "GBP": 990, "JPY": 160_000],
        "com.example.gems300": ["USD": 4990, "EUR": 4990, "GBP": 4990, "JPY": 800_000],
        "com.example.gems980": ["USD": 14_990, "EUR": 14_990, "GBP": 13_990, "JPY": 2_400_000],
        "com.example.gems1980": ["USD": 29_990, "EUR": 29_990, "GBP": 27_990, "JPY": 4_800_000],
        "com.example.gems3280": ["USD": 49_990, "EUR": 49_990, "GBP": 44_990, "JPY": 8_000_000],
        "com.example.gems6480": ["USD": 99_990, "EUR": 99_990, "GBP": 89_990, "JPY": 16_000_000],
        "com.example.coins.small": ["USD": 1990, "EUR": 1990, "GBP": 1990, "JPY": 300_000],
        "com.example.energy.refill": ["USD": 990, "EUR": 990, "GBP": 990, "JPY": 150_000],
        "com.example.premium": ["USD": 9990, "EUR": 9990, "GBP": 8990, "JPY": 1_500_000],
        "com.example.removeads": ["USD": 2990, "EUR": 2990, "GBP": 2990, "JPY": 450_000],
        "com.example.pack.halloween": ["USD": 3990, "EUR": 3990, "GBP": 3490, "JPY": 600_000],
        "com.example.pro.monthly": ["USD": 7990, "EUR": 7990, "GBP": 6990, "JPY": 1_200_000],
        "com.example.pro.weekly": ["USD": 2990, "EUR": 2990, "GBP": 2490, "JPY": 450_000],
        "com.example.season.pass": ["USD": 19_990, "EUR": 19_990, "GBP": 17_990, "JPY": 3_000_000],
        "com.example.legacy.coins": ["USD": 990],
    ]

    static func customerPrice(_ product: String, _ currency: String) -> Int64 { customerPrices[product]![currency]! }

    /// The one storefront each product's verifyReceipt-era purchases are sold in (their records carry no
    /// price and no storefront: only the generator knows it); EUR products sell in Germany or France.
    static let legacyCurrency: [String: String] = [
        "com.example.gems60": "USD", "com.example.gems300": "USD", "com.example.gems980": "EUR", "com.example.gems1980": "GBP",
        "com.example.gems3280": "JPY", "com.example.gems6480": "USD", "com.example.coins.small": "EUR",
        "com.example.energy.refill": "JPY", "com.example.premium": "USD", "com.example.removeads": "GBP",
        "com.example.pack.halloween": "EUR", "com.example.pro.monthly": "USD", "com.example.pro.weekly": "EUR",
        "com.example.season.pass": "GBP", "com.example.legacy.coins": "USD",
    ]

    /// A storefront selling in `currency`: the only one, or Germany or France for EUR.
    static func legacyStorefront(_ currency: String, _ random: inout SampleRandom) -> String {
        let matching = storefronts.filter { $0.currency == currency }.map(\.alpha3)
        return matching.count == 1 ? matching[0] : random.pick(matching)
    }

    /// One line of `prices.csv`: a price valid from a day (UTC, the close's `--tz`), in a currency or a
    /// storefront (alpha-3).
    struct ListedPrice {
        var productId: String
        var scope: String
        var milliunits: Int64
        var validFrom: String
    }

    /// `prices.csv`: the price of every verifyReceipt-era product in its one currency, with an older price
    /// before it where the price changed (so `valid_from` picks), except the legacy coins (unpriced: the
    /// list misses them). Two are deliberately stale (the close's `estimated_prices`): gems980 at EUR 13.99
    /// (Apple charges 14.99) and gems1980 at GBP 29.99 (Apple charges 27.99). The season pass is listed for
    /// the storefront GBR, not a currency.
    static let priceList: [ListedPrice] = {
        var list: [ListedPrice] = []
        for product in legacyCurrency.keys.sorted() where product != SampleCatalog.unknownProduct {
            let currency = legacyCurrency[product]!
            let scope = product == SampleCatalog.seasonPass ? "GBR" : currency
            let price = misestimated[product] ?? customerPrice(product, currency)
            if product == "com.example.gems300" || product == SampleCatalog.monthly {
                list.append(ListedPrice(productId: product, scope: scope, milliunits: price - 500, validFrom: "2025-01-01"))
                list.append(ListedPrice(productId: product, scope: scope, milliunits: price, validFrom: "2026-06-01"))
            } else {
                list.append(ListedPrice(productId: product, scope: scope, milliunits: price, validFrom: "2026-01-01"))
            }
        }
        return list
    }()

    /// Products the price list gets wrong, with the price it lists: never refunded in the sample, so the
    /// difference is all `estimated_prices`.
    static let misestimated: [String: Int64] = ["com.example.gems980": 13_990, "com.example.gems1980": 29_990]

    /// The listed price of a verifyReceipt-era product at a UTC day: (milliunits, currency, storefront when
    /// the line names one); nil when the list has none.
    static func estimate(_ product: String, day: String) -> (milliunits: Int64, currency: String, storefront: String?)? {
        guard let line = priceList.filter({ $0.productId == product && $0.validFrom <= day }).max(by: { $0.validFrom < $1.validFrom })
        else { return nil }
        if line.scope.count == 3, let storefront = storefronts.first(where: { $0.alpha3 == line.scope }) {
            return (line.milliunits, storefront.currency, storefront.alpha3)
        }
        return (line.milliunits, line.scope, nil)
    }

    /// `prices.csv` as written.
    static var priceListText: String {
        "product_id,storefront_or_currency,price,valid_from\n"
            + priceList.map { "\($0.productId),\($0.scope),\(decimal($0.milliunits, currency: $0.scope)),\($0.validFrom)\n" }.joined()
    }

    /// What Apple pays per unit sold at `price` in `storefront`: the price without its VAT, 70 % of it,
    /// rounded half up to the currency's smallest unit.
    static func proceeds(_ price: Int64, _ storefront: Storefront) -> Int64 {
        let unit: Int64 = storefront.currency == "JPY" ? 1000 : 10
        let denominator = (100 + storefront.vatPercent) * unit * 2
        return (price * 70 * 2 + denominator / 2) / denominator * unit
    }

    /// Milliunits as Apple writes them: 2 decimals, none for JPY (`0.99`, `-4.99`, `1200`).
    static func decimal(_ milliunits: Int64, currency: String) -> String {
        let digits = currency == "JPY" || currency == "JPN" ? 0 : 2
        let negative = milliunits < 0
        let magnitude = milliunits.magnitude
        var text = String(magnitude / 1000)
        if digits == 2 {
            let cents = magnitude % 1000 / 10
            text += "." + (cents < 10 ? "0" : "") + String(cents)
        }
        return (negative ? "-" : "") + text
    }
}
