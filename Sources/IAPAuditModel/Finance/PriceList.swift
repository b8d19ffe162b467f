/// Where a listed price applies: column `storefront_or_currency` of a price list (`--prices`).
public enum PriceScope: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// An App Store storefront, ISO 3166-1 alpha-3 as the JWS `storefront` (`USA`): the price is in
    /// the currency the App Store sells in there.
    case storefront(String)
    /// An ISO 4217 currency (`USD`): the price wherever a purchase is in that currency, or its
    /// storefront is not listed.
    case currency(String)

    /// Reads `storefront_or_currency`: an App Store storefront code first, else an ISO 4217 code; nil
    /// for anything else (lower case too). Four codes are both a storefront and an ISO 4217 code (BTN,
    /// CHE, MKD, SLE): they are read as the storefronts Bhutan, Switzerland, North Macedonia and
    /// Sierra Leone, since the App Store sells in none of those currencies (Switzerland's is CHF).
    public init?(_ text: String) {
        if Storefront.countryCode(of: text) != nil {
            self = .storefront(text)
        } else if CurrencyCode.isISO4217(text) {
            self = .currency(text)
        } else {
            return nil
        }
    }

    /// The code as written: `USA`, `USD`.
    public var description: String {
        switch self {
        case .storefront(let code), .currency(let code): return code
        }
    }
}

/// One line of a price list: the price of a product in a storefront or currency from a day on.
public struct PriceListEntry: Hashable, Sendable {
    /// The App Store product id (`com.example.pro.monthly`), exact text.
    public let productId: String
    /// The storefront or currency the price is for.
    public let scope: PriceScope
    /// The price in milliunits (USD 4.99 = 4990) of the scope's currency: the currency's own, or for a
    /// storefront the currency the App Store sells in there. The customer price, not proceeds.
    public let milliunits: Int64
    /// The first day the price applies, in the time zone a lookup names.
    public let validFrom: CalendarDate
    /// The price list's file and line.
    public let location: SourceLocation

    /// The price `milliunits` of `productId` in `scope` from `validFrom` on, listed at `location`.
    public init(productId: String, scope: PriceScope, milliunits: Int64, validFrom: CalendarDate, location: SourceLocation) {
        (self.productId, self.scope, self.milliunits, self.validFrom, self.location) = (productId, scope, milliunits, validFrom, location)
    }

    /// The price as money: in the listed currency, or for a storefront in `storefrontCurrency` (the
    /// currency the purchase or Apple's report gives for that storefront); nil for a storefront when
    /// that is not known. Amounts from a price list are *estimated* (FINANCE.md: receipts carry no price).
    public func money(storefrontCurrency: String? = nil) -> Money? {
        switch scope {
        case .currency(let code): return Money(milliunits: milliunits, currency: code)
        case .storefront: return storefrontCurrency.map { Money(milliunits: milliunits, currency: $0) }
        }
    }
}

/// The prices a user supplies (`--prices FILE`, read by Ingest's `PriceListReader`) for purchases
/// whose records carry no price (verifyReceipt answers, receipts, JWS transactions from before Apple
/// added `price`): per product and storefront or currency, each price valid from a day until the
/// next listed price of the same product and scope. FINANCE.md: amounts priced from it are estimated.
public struct PriceList: Sendable, Equatable {
    private struct Key: Hashable, Sendable {
        var productId: String
        var scope: PriceScope
    }
    /// Product and scope → its prices, ascending `validFrom`, one per day.
    private var prices: [Key: [PriceListEntry]] = [:]

    /// An empty price list.
    public init() {}

    /// Every entry, by product id, scope and `validFrom`.
    public var entries: [PriceListEntry] {
        prices.values.flatMap { $0 }.sorted { ($0.productId, $0.scope, $0.validFrom) < ($1.productId, $1.scope, $1.validFrom) }
    }

    /// How many prices are listed.
    public var count: Int { prices.values.reduce(0) { $0 + $1.count } }

    /// Adds `entry`; when the list already has a price for the same product, scope and `validFrom`,
    /// adds nothing and returns that entry (the line `entry` repeats or contradicts).
    @discardableResult
    public mutating func add(_ entry: PriceListEntry) -> PriceListEntry? {
        let key = Key(productId: entry.productId, scope: entry.scope)
        var list = prices[key, default: []]
        let index = list.firstIndex { $0.validFrom >= entry.validFrom } ?? list.endIndex
        if index < list.endIndex && list[index].validFrom == entry.validFrom { return list[index] }
        list.insert(entry, at: index)
        prices[key] = list
        return nil
    }

    /// The price of `productId` in `scope` on `date`: the entry with the latest `validFrom` at or
    /// before `date`; nil when the product has no price in that scope by then.
    /// The storefronts and currencies the list prices `productId` in, sorted.
    public func scopes(of productId: String) -> [PriceScope] { prices.keys.filter { $0.productId == productId }.map(\.scope).sorted() }

    public func price(of productId: String, in scope: PriceScope, on date: CalendarDate) -> PriceListEntry? {
        prices[Key(productId: productId, scope: scope)]?.last { $0.validFrom <= date }
    }

    /// The price of `productId` in `scope` at the instant `ms` (UTC milliseconds), `valid_from` days
    /// beginning at midnight in `timeZone` (the close's `--tz`).
    public func price(of productId: String, in scope: PriceScope, atMs ms: Int64, timeZone: PeriodTimeZone = .utc) -> PriceListEntry? {
        price(of: productId, in: scope, on: timeZone.date(containing: ms))
    }
}
