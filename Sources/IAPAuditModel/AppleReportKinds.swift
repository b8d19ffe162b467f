/// Which layout of Apple's daily sales report a `SalesReportLine` was read from (both read by header name).
public enum SalesReportLayout: String, Sendable {
    /// Sales and Trends, Summary Sales (`SALES`/`SUMMARY`, versions 1_0…1_3): `SKU`, `Developer Proceeds`,
    /// `Currency of Proceeds`.
    case summarySales = "summary_sales"
    /// iTunes Connect's daily sales report of 2009–2010: `Vendor Identifier`, `Royalty Price`,
    /// `Royalty Currency` in those columns' places.
    case legacyDailySales = "legacy_daily_sales"
}

/// What a `FinancialReportTotal` line states: one of the trailer lines after a financial report's rows,
/// or a row of the all-regions report's summary table (after its `Total_Rows` line).
public enum FinancialReportTotalKind: String, Sendable {
    /// `Total_Rows`: how many rows the report holds.
    case totalRows = "total_rows"
    /// `Total_Amount`: the sum of the rows' `Extended Partner Share` (one currency: a region's report).
    case totalAmount = "total_amount"
    /// `Total_Units`: the sum of the `Quantity` of the sales (`S`) rows.
    case totalUnits = "total_units"
    /// A row of the summary table (`Country Of Sale`, `Partner Share Currency`, `Quantity`,
    /// `Extended Partner Share`): the rows of that country and currency added up.
    case countrySummary = "country_summary"
}

/// What a line of the payments summary (`financial_report.csv`) is.
public enum PaymentSummaryLineKind: String, Sendable {
    /// One region (currency): units, earned, taxes, the amount owed, the exchange rate, the proceeds.
    case region
    /// The total paid, in the bank account's currency (`"234.58" EUR`).
    case total
    /// Where it was paid (`Paid to FICTIONAL BANK -****1299`).
    case paidTo = "paid_to"
}
