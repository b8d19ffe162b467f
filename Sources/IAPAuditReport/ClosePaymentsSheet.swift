import IAPAuditModel

/// The Payments sheet: Apple's payments summary (`financial_report.csv`) of the period's fiscal months,
/// each region's row against the Financial reports — Earned against their proceeds, withholding tax,
/// what Apple owes converted at its exchange rate (exact, to the milliunit) against what it paid in the
/// bank currency (docs/close.md).
enum PaymentsSheet {
    static func build(_ report: CloseReport) -> ReportSheet {
        let header = [
            "region", "currency", "units", "Financial proceeds (currency)", "Earned", "Earned − Financial (currency)", "withholding tax",
            "owed",
            "exchange rate", "bank currency", "owed × rate", "proceeds paid", "paid − owed × rate", "evidence",
        ]
        let rows: [[ReportCell]] = report.payments.map { p in
            let currency = p.line.earned.currency
            let bank = p.line.proceeds.currency
            return [
                .text(p.line.region), .text(currency), .integer(p.line.units), CloseWorkbook.money(p.financialProceeds, currency),
                CloseWorkbook.money(p.line.earned), CloseWorkbook.money(p.earnedVariance, currency),
                CloseWorkbook.money(p.line.withholdingTax), CloseWorkbook.money(p.owed, currency), .text(p.line.exchangeRate),
                .text(bank), p.converted.map { CloseWorkbook.money($0, bank) } ?? .empty, CloseWorkbook.money(p.line.proceeds),
                p.conversionDifference.map { CloseWorkbook.money($0, bank) } ?? .empty, .text(p.line.location.description),
            ]
        }
        let caption = ReportTable.note(
            report.payments.isEmpty
                ? "No payments summary (financial_report.csv) of the period's fiscal months among the inputs: give it to explain "
                    + "currency conversion and withholding tax"
                : "Apple's payments summary of \(report.fiscalMonths.map { "\($0.month)" }.joined(separator: ", ")): Earned should equal "
                    + "the Financial reports' proceeds (per currency: the Financial reports of regions sharing one, Americas and Rest of "
                    + "World in USD, are summed, and so are their Earned); what Apple owes after withholding tax, × its exchange rate, "
                    + "against what it paid "
                    + "(the last difference is Apple's rounding to the bank currency's cents)")
        // What Apple paid into each bank currency, in all (found by a finance user test: the sum the bank shows was nowhere).
        let footer = CloseWorkbook.currencyTotals(rows, width: header.count, currencyColumn: 9, sums: [10, 11, 12], amounts: [10, 11, 12])
        return ReportSheet(name: "Payments", tables: [caption, ReportTable(header: header, rows: rows, footer: footer, isPrimary: true)])
    }
}
