import IAPAuditModel

/// Reads a financial report (one region, or all regions in one file): its rows, then the totals Apple
/// states after them (`Total_Rows`, `Total_Amount`, `Total_Units`, and in the all-regions report a
/// summary table by country and currency), each checked against the rows read. A total the rows do not
/// add up to is rejected at its `file:line` (the report is incomplete or was edited). What only the end
/// tells is said at a header line, which is not a record itself (so it is never a line another reader,
/// such as gzip's, reports on): a report without its `Total_Rows` line at the report's header, rows the
/// summary table leaves out at the table's header.
struct FinancialReportReader {
    private enum Section {
        case rows, totals
        /// The summary table, with its columns by name, and its header line.
        case summary([String: Int], count: Int, header: (number: Int, text: String))
    }

    /// The rows of one country of sale in one currency, added up.
    private struct Sums {
        var net: Int128 = 0
        var sales: Int128 = 0
        var amount: Int128 = 0
    }

    private struct Key: Hashable, Comparable {
        var country: String
        var currency: String
        static func < (a: Key, b: Key) -> Bool { (a.country, a.currency) < (b.country, b.currency) }
        var description: String { "\(country) \(currency)" }
    }

    private var section = Section.rows
    private var rowLines = 0
    private var rejectedRows = 0
    private var amounts: [String: Int128] = [:]
    private var salesUnits: Int128 = 0
    private var byCountry: [Key: Sums] = [:]
    private var summarized: Set<Key> = []
    private var sawTotalRows = false

    static let totalLabels: [String: FinancialReportTotalKind] = [
        "Total_Rows": .totalRows, "Total_Amount": .totalAmount, "Total_Units": .totalUnits,
    ]

    /// Reads line `number` (after the header): a row, a total, or the summary table's header or rows.
    /// Returns false for a line that is not a record (the summary table's header).
    mutating func read(_ fields: [String], number: Int, header: ReportHeader, at location: SourceLocation, into batch: inout RecordBatch)
        throws -> Bool
    {
        let first = fields[0].trimmingCharacters(in: .whitespaces)
        if let kind = Self.totalLabels[first] {
            section = .totals
            batch.append(try total(kind, fields, at: location))
            return true
        }
        switch section {
        case .rows:
            rowLines += 1
            do {
                try ReportImporter.checkFieldCount(fields, header: header)
                let row = try Self.row(ReportLine(fields: fields, header: header), at: location)
                add(row)
                batch.append(row)
            } catch {
                rejectedRows += 1
                throw error
            }
        case .totals:
            let names = fields.map { $0.trimmingCharacters(in: .whitespaces) }
            let columns = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
            guard ["Country Of Sale", "Partner Share Currency", "Quantity", "Extended Partner Share"].allSatisfy({ columns[$0] != nil })
            else { throw Self.strayLine }
            section = .summary(columns, count: names.count, header: (number, fields.joined(separator: "\t")))
            return false
        case .summary(let columns, let count, _):
            batch.append(try summaryRow(fields, columns, count: count, at: location))
        }
        return true
    }

    /// The rejection due once every line is read, at a header line: a report without its `Total_Rows`
    /// line (at the report's `header`), or rows whose country and currency the summary table leaves out
    /// (at the table's header).
    func finish(header: (number: Int, text: String), file: InputFile) -> Rejection? {
        if !sawTotalRows {
            let rows = rowLines == 1 ? "1 row" : "\(rowLines) rows"
            return Rejection(
                location: file.location(header.number),
                reason: "the report ends without its Total_Rows line after \(rows): it may have been cut short", rawText: header.text)
        }
        guard case .summary(_, _, let table) = section else { return nil }
        let missing = byCountry.keys.filter { !summarized.contains($0) }.sorted()
        guard !missing.isEmpty else { return nil }
        return Rejection(
            location: file.location(table.number),
            reason: "the summary table has no row for \(missing.map(\.description).joined(separator: ", ")), which the report's rows hold",
            rawText: table.text)
    }

    static let strayLine = IngestError.other(
        "a line after the report's totals that is neither a total (Total_Rows, Total_Amount, Total_Units) nor a row of its summary table")

    /// A row: `Extended Partner Share` must be `Quantity` × `Partner Share`, exactly.
    static func row(_ l: ReportLine, at location: SourceLocation) throws -> FinancialReportLine {
        let start = try l.requiredDate("Start Date")
        let end = try l.requiredDate("End Date")
        try ReportValue.checkOrder(start, end, columns: ("Start Date", "End Date"))
        let quantity = try l.requiredCount("Quantity")
        let share = try l.requiredMoney("Partner Share")
        let extended = try l.requiredMoney("Extended Partner Share")
        let product = try ReportValue.times(quantity, share, ("Quantity", "Partner Share"))
        guard product == extended else {
            throw IngestError.other(
                "'Extended Partner Share' \(Money.decimal(extended, digits: 2)) is not 'Quantity' \(quantity) × 'Partner Share' "
                    + "\(Money.decimal(share, digits: 2)) = \(Money.decimal(product, digits: 2))")
        }
        let salesOrReturn = try l.required("Sales or Return")
        guard salesOrReturn == "S" || salesOrReturn == "R" else {
            throw IngestError.badField("Sales or Return", "expected S (a sale) or R (a return), found \(salesOrReturn)")
        }
        let price = try l.requiredMoney("Customer Price")
        return FinancialReportLine(
            location: location, startDate: start, endDate: end, upc: l.text("UPC"), isrcIsbn: l.text("ISRC/ISBN"),
            vendorIdentifier: l.text("Vendor Identifier"), quantity: quantity, partnerShareMilliunits: share,
            extendedPartnerShareMilliunits: extended,
            partnerShareCurrency: try l.currency("Partner Share Currency") ?? l.required("Partner Share Currency"),
            salesOrReturn: salesOrReturn, appleIdentifier: l.text("Apple Identifier"), developer: l.text("Artist/Show/Developer/Author"),
            title: l.text("Title"), label: l.text("Label/Studio/Network/Developer/Publisher"), grid: l.text("Grid"),
            productTypeIdentifier: l.text("Product Type Identifier"), isanOtherIdentifier: l.text("ISAN/Other Identifier"),
            countryOfSale: try l.country("Country Of Sale"), preOrderFlag: l.text("Pre-order Flag"), promoCode: l.text("Promo Code"),
            customerPriceMilliunits: price,
            customerCurrency: try l.currency(of: price, amountColumn: ["Customer Price"], "Customer Currency"),
            customerPriceTotalMilliunits: try ReportValue.times(quantity, abs(price), ("Quantity", "Customer Price")))
    }

    private mutating func add(_ row: FinancialReportLine) {
        amounts[row.partnerShareCurrency, default: 0] += Int128(row.extendedPartnerShareMilliunits)
        if row.salesOrReturn == "S" { salesUnits += Int128(row.quantity) }
        let key = Key(country: row.countryOfSale ?? "", currency: row.partnerShareCurrency)
        byCountry[key, default: Sums()].net += Int128(row.quantity)
        if row.salesOrReturn == "S" { byCountry[key, default: Sums()].sales += Int128(row.quantity) }
        byCountry[key, default: Sums()].amount += Int128(row.extendedPartnerShareMilliunits)
    }

    /// ` (2 rows above were rejected)` when some were: why the rows may not add up.
    private var rejectedNote: String {
        rejectedRows == 0 ? "" : rejectedRows == 1 ? " (1 row above was rejected)" : " (\(rejectedRows) rows above were rejected)"
    }

    /// A `Total_*` line (its label, its value; any further field empty), checked against the rows.
    private mutating func total(_ kind: FinancialReportTotalKind, _ fields: [String], at location: SourceLocation) throws
        -> FinancialReportTotal
    {
        let label = fields[0].trimmingCharacters(in: .whitespaces)
        guard fields.count >= 2, fields.dropFirst(2).allSatisfy({ $0.allSatisfy { $0 == " " } }) else {
            throw IngestError.other("expected '\(label)' and one value separated by a tab, found \(fields.count) fields")
        }
        let value = fields[1].trimmingCharacters(in: .whitespaces)
        switch kind {
        case .totalRows:
            sawTotalRows = true
            let rows = try ReportValue.wholeNumber(value, column: label)
            guard rows == Int64(rowLines) else {
                throw IngestError.other("Total_Rows is \(rows) but the report has \(rowLines) rows: it is incomplete or was edited")
            }
            return FinancialReportTotal(location: location, kind: kind, rows: rows)
        case .totalUnits:
            let units = try ReportValue.wholeNumber(value, column: label)
            guard Int128(units) == salesUnits else {
                throw IngestError.other("Total_Units is \(units) but the sales (S) rows' Quantity add up to \(salesUnits)\(rejectedNote)")
            }
            return FinancialReportTotal(location: location, kind: kind, units: units)
        default:
            let amount = try ReportValue.milliunits(value, column: label)
            guard amounts.count <= 1 else {
                throw IngestError.other(
                    "Total_Amount \(value) cannot be checked: the rows are in several currencies (\(amounts.keys.sorted().joined(separator: ", ")))"
                )
            }
            let sum = amounts.values.first ?? 0
            guard Int128(amount) == sum else {
                throw IngestError.other(
                    "Total_Amount is \(value) but the rows' Extended Partner Share add up to \(ReportValue.decimal(sum))\(rejectedNote)")
            }
            return FinancialReportTotal(
                location: location, kind: kind, amountMilliunits: amount, currency: amounts.keys.first)
        }
    }

    /// A row of the summary table: its amount must be what the rows of its country and currency add up
    /// to, its quantity their net `Quantity` or that of their sales (Apple does not say which it gives).
    private mutating func summaryRow(_ fields: [String], _ columns: [String: Int], count: Int, at location: SourceLocation) throws
        -> FinancialReportTotal
    {
        guard fields.count == count else {
            throw IngestError.other("expected \(count) tab-separated fields as in the summary table's header, found \(fields.count)")
        }
        func value(_ name: String) -> String { fields[columns[name]!].trimmingCharacters(in: .whitespaces) }
        let country = try ReportValue.country(value("Country Of Sale"), column: "Country Of Sale")
        let currency = try ReportValue.currency(value("Partner Share Currency"), column: "Partner Share Currency")
        let quantity = try ReportValue.wholeNumber(value("Quantity"), column: "Quantity")
        let amount = try ReportValue.milliunits(value("Extended Partner Share"), column: "Extended Partner Share")
        let key = Key(country: country, currency: currency)
        summarized.insert(key)
        let sums = byCountry[key] ?? Sums()
        guard Int128(amount) == sums.amount, Int128(quantity) == sums.net || Int128(quantity) == sums.sales else {
            throw IngestError.other(
                "the summary gives \(key.description) Quantity \(quantity) and Extended Partner Share \(value("Extended Partner Share")), "
                    + "but the report's rows of \(country) in \(currency) add up to Quantity \(sums.net) (sales \(sums.sales)) and "
                    + "\(ReportValue.decimal(sums.amount))\(rejectedNote)")
        }
        return FinancialReportTotal(
            location: location, kind: .countrySummary, units: quantity, amountMilliunits: amount, currency: currency,
            countryOfSale: country)
    }
}
