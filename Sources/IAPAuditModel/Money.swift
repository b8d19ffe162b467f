/// An amount of money: integer **milliunits** of an ISO 4217 currency (1 unit = 1000 milliunits), as
/// `../shared/FINANCE.md` ("Money") and the App Store Server API's JWS `price` use them. Never floating
/// point: amounts are read from decimal text exactly, added and multiplied with overflow checks, and
/// formatted at the edge with the currency's own decimals (JPY and KRW show none).
public struct Money: Hashable, Sendable, CustomStringConvertible {
    /// The amount in thousandths of one unit of `currency` (USD 4.49 = 4490).
    public var milliunits: Int64
    /// ISO 4217 alphabetic code, upper case (`USD`, `JPY`).
    public var currency: String

    public init(milliunits: Int64, currency: String) {
        (self.milliunits, self.currency) = (milliunits, currency)
    }

    /// Zero of `currency`.
    public static func zero(_ currency: String) -> Money { Money(milliunits: 0, currency: currency) }

    /// Why a text is not an amount.
    public enum ParseError: Error, Equatable, CustomStringConvertible {
        case notADecimal(String)
        case tooManyDecimals(String)
        case tooLarge(String)

        public var description: String {
            switch self {
            case .notADecimal(let text): return "not a decimal amount: '\(text)'"
            case .tooManyDecimals(let text): return "more than 3 decimals (finer than a milliunit): '\(text)'"
            case .tooLarge(let text): return "amount out of range: '\(text)'"
            }
        }
    }

    /// Reads a decimal amount exactly: `4.49`, `-12.17`, `.97` (Apple's legacy reports drop the leading
    /// zero), `179`, `+3`, `0.000`. Digits beyond the third decimal must be zeros (finer than a milliunit
    /// is refused, never rounded); no exponent, no thousands separator, no spaces.
    /// - Throws: `ParseError`.
    public static func milliunits(_ text: String) throws -> Int64 {
        var bytes = Substring(text).utf8[...]
        var negative = false
        if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
            negative = sign == UInt8(ascii: "-")
            bytes = bytes.dropFirst()
        }
        let dot = bytes.firstIndex(of: UInt8(ascii: "."))
        let whole = dot.map { bytes[..<$0] } ?? bytes
        let fraction = dot.map { bytes[bytes.index(after: $0)...] } ?? bytes[bytes.endIndex...]
        let isDigit = { (b: UInt8) in b &- UInt8(ascii: "0") < 10 }
        guard whole.allSatisfy(isDigit), fraction.allSatisfy(isDigit), !whole.isEmpty || !fraction.isEmpty,
            dot == nil || !fraction.isEmpty || !whole.isEmpty
        else { throw ParseError.notADecimal(text) }
        if fraction.count > 3 && !fraction.dropFirst(3).allSatisfy({ $0 == UInt8(ascii: "0") }) {
            throw ParseError.tooManyDecimals(text)
        }
        var value: Int64 = 0
        for b in whole {
            let (times, o1) = value.multipliedReportingOverflow(by: 10)
            let (plus, o2) = times.addingReportingOverflow(Int64(b - UInt8(ascii: "0")))
            guard !o1, !o2 else { throw ParseError.tooLarge(text) }
            value = plus
        }
        var thousandths: Int64 = 0
        for (k, b) in fraction.prefix(3).enumerated() { thousandths += Int64(b - UInt8(ascii: "0")) * [100, 10, 1][k] }
        let (scaled, o3) = value.multipliedReportingOverflow(by: 1000)
        let (total, o4) = scaled.addingReportingOverflow(thousandths)
        guard !o3, !o4 else { throw ParseError.tooLarge(text) }
        return negative ? -total : total
    }

    /// `milliunits(text)` of `currency`.
    public static func parse(_ text: String, currency: String) throws -> Money {
        Money(milliunits: try milliunits(text), currency: currency)
    }

    /// The sum; nil when the currencies differ or the sum overflows.
    public func adding(_ other: Money) -> Money? {
        guard currency == other.currency else { return nil }
        let (sum, overflow) = milliunits.addingReportingOverflow(other.milliunits)
        return overflow ? nil : Money(milliunits: sum, currency: currency)
    }

    /// `count` times this amount (a per-unit price times units); nil on overflow.
    public func times(_ count: Int64) -> Money? {
        let (product, overflow) = milliunits.multipliedReportingOverflow(by: count)
        return overflow ? nil : Money(milliunits: product, currency: currency)
    }

    /// The share `milliPercent` (thousandths of a percent: 50000 = 50 %, JWS `revocationPercentage`) of
    /// this amount, rounded half away from zero to a milliunit.
    public func share(milliPercent: Int64) -> Money {
        let numerator = milliunits.multipliedFullWidth(by: milliPercent)
        let (q, r) = Int64(100_000).dividingFullWidth(numerator)
        let roundAway = abs(r) * 2 >= 100_000 ? (milliunits < 0) != (milliPercent < 0) ? -1 : 1 : 0
        return Money(milliunits: q + Int64(roundAway), currency: currency)
    }

    /// The amount with the currency's own decimals, e.g. `USD 4.49`, `JPY 179`, `USD -12.17`; a value
    /// finer than those decimals keeps its milliunits (`USD 0.125`).
    public var description: String { "\(currency) \(Self.decimal(milliunits, digits: CurrencyDigits.minorUnits(currency)))" }

    /// `milliunits` as decimal text with at least `digits` decimals (0–3), more when needed to be exact.
    public static func decimal(_ milliunits: Int64, digits: Int) -> String {
        let negative = milliunits < 0
        let magnitude = milliunits.magnitude
        var fraction = String(magnitude % 1000)
        fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
        while fraction.count > digits && fraction.hasSuffix("0") { fraction.removeLast() }
        return (negative ? "-" : "") + String(magnitude / 1000) + (fraction.isEmpty ? "" : "." + fraction)
    }
}

/// ISO 4217 minor units: how many decimals a currency shows (2 unless listed).
public enum CurrencyDigits {
    /// Currencies without decimals (ISO 4217 minor unit 0).
    public static let none: Set<String> = [
        "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "UYI", "VND", "VUV", "XAF", "XOF", "XPF",
    ]
    /// Currencies with three decimals.
    public static let three: Set<String> = ["BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"]

    /// The decimals `currency` shows.
    public static func minorUnits(_ currency: String) -> Int { none.contains(currency) ? 0 : three.contains(currency) ? 3 : 2 }
}
