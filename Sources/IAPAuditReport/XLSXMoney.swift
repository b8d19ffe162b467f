import IAPAuditModel

/// How an amount becomes a cell: the exact integer milliunits, shown in units of its currency by a number
/// format whose trailing comma divides by 1000 (`#,##0.00,` shows 4490 as 4.49). The cell holds no
/// fraction, so a SUM over such cells is exact, in Excel and in LibreOffice alike.
///
/// This file is the one place an amount meets floating point: libxlsxwriter takes every number as a C
/// `double`. `cellValue` hands it over only when the integer is exactly representable (`Double(exactly:)`:
/// |milliunits| ≤ 2^53, 9 × 10^12 units); beyond that the workbook is refused, never rounded.
/// `MoneyFloatingPointLintTests` holds every other money source to no floating-point type at all.
enum XLSXMoney {
    /// The value handed to libxlsxwriter for `milliunits`: the same integer, or nil when a `double` cannot
    /// hold it exactly.
    static func cellValue(_ milliunits: Int64) -> Double? { Double(exactly: milliunits) }

    /// The decimals that show `milliunits` of `currency` exactly: the currency's own (ISO 4217: JPY 0,
    /// USD 2, KWD 3), more when the amount is finer (a prorated refund of USD 0.125 shows 3).
    static func decimals(_ milliunits: Int64, currency: String) -> Int {
        var decimals = CurrencyDigits.minorUnits(currency)
        var unit: Int64 = [1000, 100, 10, 1][decimals]
        while milliunits % unit != 0 {
            decimals += 1
            unit /= 10
        }
        return decimals
    }

    /// The number format showing milliunits in units with `decimals` decimals, negatives in red with a
    /// minus sign, and a little room on the right (`_)`) before a text column that follows.
    static func numberFormat(decimals: Int) -> String {
        let positive = "#,##0" + (decimals > 0 ? "." + String(repeating: "0", count: decimals) : "") + ",_)"
        return positive + ";[Red]-" + positive
    }

    /// The characters the amount takes shown with `decimals` decimals and thousands separators.
    static func displayLength(_ milliunits: Int64, decimals: Int) -> Int {
        let digits = String(milliunits.magnitude / 1000).count
        return (milliunits < 0 ? 1 : 0) + digits + (digits - 1) / 3 + (decimals > 0 ? decimals + 1 : 0) + 1
    }
}
