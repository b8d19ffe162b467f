import Foundation
import IAPAuditModel

/// Reads the payments summary of Payments and Financial Reports (`financial_report.csv`): a title line
/// naming the fiscal month, a header (`Region (Currency)`, `Units Sold`, `Earned`, … `Proceeds`, `Bank
/// Account Currency`), one row per region, an empty line, the total paid (`"234.58" EUR` under the bank
/// currency's column) and where it was paid. Region rows after an empty line are earnings below the
/// payment threshold (not paid this month). The total is checked against the paid rows' `Proceeds`.
/// Amounts may group thousands with commas (`"1,234.56"`), read exactly.
enum PaymentSummaryImporter {
    /// Columns a region row cannot be read without.
    static let required = ["Units Sold", "Earned", "Total Owed", "Exchange Rate", "Proceeds", "Bank Account Currency"]

    /// nil when none of the first lines is the payments summary's header (`Region (Currency),…`).
    static func read(_ file: InputFile, _ head: [(number: Int, text: String)], sink: RecordSink) throws -> ImportedFile? {
        guard
            let headerLine = head.prefix(5).first(where: {
                fields($0.text)?.first?.trimmingCharacters(in: .whitespaces) == "Region (Currency)"
            })
        else { return nil }
        let names = fields(headerLine.text)!.map { $0.trimmingCharacters(in: .whitespaces) }
        var result = ImportedFile(
            file: file, kind: .paymentsSummary, format: .csv, status: .imported, note: "App Store Connect payments summary")
        var reader = PaymentSummaryReader(names: names, headerLine: headerLine.number)
        let invalid = file.invalidUTF8Lines()
        var batch = RecordBatch()
        for line in file.lines() {
            let location = file.location(line.number)
            do {
                if let column = invalid[line.number] { throw IngestError.other("invalid UTF-8 at column \(column)") }
                let fields = try CSVRecords.fields(line.text, textAfterQuote: true)
                guard let record = try reader.read(fields, number: line.number, at: location) else { continue }
                batch.append(record)
            } catch {
                batch.rejections.append(Rejection(location: location, reason: "\(error)", rawText: line.text))
            }
            result.recordsIn += 1
        }
        result.count(batch)
        try sink.write(batch)
        return result
    }

    /// The fields of one line (Apple's CSV is not RFC 4180: the total's field is a quoted number followed
    /// by text); nil when a quote is left open.
    static func fields(_ line: String) -> [String]? { try? CSVRecords.fields(line, textAfterQuote: true) }
}

/// The state of one payments summary read line by line: where the header is, whether the paid rows
/// have ended, what they add up to.
struct PaymentSummaryReader {
    let names: [String]
    let headerLine: Int
    private var index: [String: Int] = [:]
    private var period: String? = nil
    private var paid = true
    private var sawRegion = false
    private var sawTotal = false
    /// The paid rows' proceeds by bank currency.
    private var proceeds: [String: Int128] = [:]

    init(names: [String], headerLine: Int) {
        (self.names, self.headerLine) = (names, headerLine)
        for (i, name) in names.enumerated() where !name.isEmpty && index[name] == nil { index[name] = i }
    }

    static let strayLine = IngestError.other("a line that is neither a region's row, the total paid nor where it was paid")

    /// The record of line `number`; nil for a line that is not one (the title, the header, an empty line).
    mutating func read(_ fields: [String], number: Int, at location: SourceLocation) throws -> PaymentSummaryLine? {
        let trimmed = fields.map { $0.trimmingCharacters(in: .whitespaces) }
        let filled = trimmed.filter { !$0.isEmpty }
        if number == headerLine || filled.isEmpty {
            if sawRegion { paid = false }
            return nil
        }
        if number < headerLine {
            // The title, e.g. `iTunes Connect - Payments and Financial Reports\t(September, 2014)`.
            guard filled.count == 1, trimmed[0] == filled[0], let open = filled[0].lastIndex(of: "("), filled[0].hasSuffix(")") else {
                throw IngestError.other("a line before the header (line \(headerLine)) that is not the report's title")
            }
            period = String(filled[0][filled[0].index(after: open)...].dropLast())
            return nil
        }
        if !trimmed[0].isEmpty { return try region(trimmed, at: location) }
        guard filled.count == 1 else { throw Self.strayLine }
        if let total = try total(filled[0], at: location) { return total }
        guard sawTotal else { throw Self.strayLine }
        return PaymentSummaryLine(location: location, kind: .paidTo, period: period, paidTo: filled[0])
    }

    private mutating func region(_ fields: [String], at location: SourceLocation) throws -> PaymentSummaryLine {
        guard fields.count >= names.count, fields.dropFirst(names.count).allSatisfy(\.isEmpty) else {
            throw IngestError.other(
                "expected \(names.count) comma-separated fields as in the header (line \(headerLine)), found \(fields.count)")
        }
        if let missing = PaymentSummaryImporter.required.first(where: { index[$0] == nil }) {
            throw IngestError.other("the header (line \(headerLine)) has no '\(missing)' column")
        }
        let name = fields[0]
        guard name.hasSuffix(")"), let open = name.lastIndex(of: "("), name.distance(from: open, to: name.endIndex) == 5 else {
            throw IngestError.badField("Region (Currency)", "expected a region and its currency in parentheses, found \(name)")
        }
        let currency = try ReportValue.currency(String(name[name.index(after: open)...].dropLast()), column: "Region (Currency)")
        func value(_ column: String) -> String? { index[column].map { fields[$0] }.flatMap { $0.isEmpty ? nil : $0 } }
        func money(_ column: String) throws -> Int64? {
            try value(column).map { try ReportValue.milliunits(Self.ungrouped($0), column: column) }
        }
        let rate = value("Exchange Rate")
        if let rate, !Self.isDecimal(rate) { throw IngestError.badField("Exchange Rate", "expected a decimal number, found \(rate)") }
        let bank = try value("Bank Account Currency").map { try ReportValue.currency($0, column: "Bank Account Currency") }
        let paidProceeds = try money("Proceeds")
        if paid, let bank, let paidProceeds { proceeds[bank, default: 0] += Int128(paidProceeds) }
        sawRegion = true
        return PaymentSummaryLine(
            location: location, kind: .region, period: period,
            region: String(name[..<open]).trimmingCharacters(in: .whitespaces), currency: currency, paid: paid,
            unitsSold: try value("Units Sold").map { try ReportValue.wholeNumber(Self.ungrouped($0), column: "Units Sold") },
            earnedMilliunits: try money("Earned"), preTaxSubtotalMilliunits: try money("Pre-Tax Subtotal"),
            inputTaxMilliunits: try money("Input Tax"), adjustmentsMilliunits: try money("Adjustments"),
            withholdingTaxMilliunits: try money("Withholding Tax"), totalOwedMilliunits: try money("Total Owed"),
            balanceMilliunits: try money("Balance"), exchangeRate: rate, proceedsMilliunits: paidProceeds, bankCurrency: bank)
    }

    /// The total paid (`234.58 EUR`, its number quoted by Apple), checked against the paid rows'
    /// proceeds; nil when `text` is not an amount and a currency.
    private mutating func total(_ text: String, at location: SourceLocation) throws -> PaymentSummaryLine? {
        let parts = text.split(separator: " ")
        let number = Self.ungrouped(String(parts.first ?? ""))
        guard parts.count == 2, Self.isDecimal(number.hasPrefix("-") ? String(number.dropFirst()) : number) else { return nil }
        let currency = try ReportValue.currency(String(parts[1]), column: "total")
        let amount = try ReportValue.milliunits(Self.ungrouped(String(parts[0])), column: "total")
        sawTotal = true
        guard proceeds.keys.sorted() == [currency], proceeds[currency] == Int128(amount) else {
            let sums = proceeds.keys.sorted().map { "\(ReportValue.decimal(proceeds[$0]!)) \($0)" }
            throw IngestError.other(
                "the total paid is \(parts[0]) \(currency) but "
                    + (sums.isEmpty
                        ? "no paid region's Proceeds were read" : "the paid regions' Proceeds add up to " + sums.joined(separator: " and "))
            )
        }
        return PaymentSummaryLine(location: location, kind: .total, period: period, proceedsMilliunits: amount, bankCurrency: currency)
    }

    /// Digits with one optional `.` between digits.
    static func isDecimal(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return (1...2).contains(parts.count) && parts.allSatisfy { !$0.isEmpty && $0.utf8.allSatisfy { $0 &- UInt8(ascii: "0") < 10 } }
    }

    /// `1,234.56` → `1234.56` when the commas group thousands exactly (`-12,345`, `1,000,000`); any other
    /// text unchanged (to be refused by the number's reader).
    static func ungrouped(_ text: String) -> String {
        guard text.contains(",") else { return text }
        let unsigned = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        let whole = unsigned.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let groups = whole.split(separator: ",", omittingEmptySubsequences: false)
        guard (1...3).contains(groups[0].count), groups.dropFirst().allSatisfy({ $0.count == 3 }) else { return text }
        return text.replacingOccurrences(of: ",", with: "")
    }
}
