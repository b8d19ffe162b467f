import IAPAuditModel

/// One line of a report, its fields read by column name. Apple writes an empty field as a space: a
/// field of only spaces is empty. Values are read exactly or refused with the column's name, never
/// guessed: amounts through `Money.milliunits`, counts as whole numbers, dates that exist.
struct ReportLine {
    let fields: [String]
    let header: ReportHeader

    /// The text of the first of `names` the header has; nil when it has none or the field is empty.
    func text(_ names: String...) -> String? { text(names) }

    func text(_ names: [String]) -> String? {
        guard let i = header.position(names), i < fields.count else { return nil }
        let value = fields[i]
        return value.allSatisfy({ $0 == " " }) ? nil : value
    }

    /// The name the header gives the first of `names` it has (`Royalty Price` in a legacy report), for
    /// messages; `names[0]` when it has none.
    func column(_ names: [String]) -> String { header.position(names).map { header.names[$0] } ?? names[0] }

    /// The text of a column a line must fill.
    func required(_ names: String...) throws -> String {
        guard let value = text(names) else { throw IngestError.missingField(column(names)) }
        return value
    }

    /// A whole number (`-3`, `12`); nil when empty.
    func count(_ names: String...) throws -> Int64? {
        try text(names).map { try ReportValue.wholeNumber($0, column: column(names)) }
    }

    /// A whole number a line must fill.
    func requiredCount(_ names: String...) throws -> Int64 {
        guard let value = text(names) else { throw IngestError.missingField(column(names)) }
        return try ReportValue.wholeNumber(value, column: column(names))
    }

    /// An amount a line must fill, in milliunits (read exactly: `Money.milliunits`).
    func requiredMoney(_ names: String...) throws -> Int64 {
        guard let value = text(names) else { throw IngestError.missingField(column(names)) }
        return try ReportValue.milliunits(value, column: column(names))
    }

    /// An ISO date (`2020-10-05`) from `MM/DD/YYYY` or `YYYY-MM-DD`; nil when empty.
    func date(_ names: String...) throws -> String? {
        try text(names).map { try ReportValue.isoDate($0, column: column(names)) }
    }

    /// A date a line must fill.
    func requiredDate(_ names: String...) throws -> String {
        guard let value = text(names) else { throw IngestError.missingField(column(names)) }
        return try ReportValue.isoDate(value, column: column(names))
    }

    /// An ISO 4217 code (three capital letters); nil when empty.
    func currency(_ names: String...) throws -> String? { try currency(names) }

    func currency(_ names: [String]) throws -> String? {
        try text(names).map { try ReportValue.currency($0, column: column(names)) }
    }

    /// The currency of a non-zero amount: an empty currency is refused unless the amount is zero.
    func currency(of amount: Int64, amountColumn: [String], _ names: String...) throws -> String? {
        let code = try currency(names)
        if code == nil && amount != 0 {
            throw IngestError.other(
                "'\(column(amountColumn))' \(Money.decimal(amount, digits: 2)) has no currency: '\(column(names))' is empty")
        }
        return code
    }

    /// An ISO 3166-1 alpha-2 code (two capital letters); nil when empty.
    func country(_ names: String...) throws -> String? {
        try text(names).map { try ReportValue.country($0, column: column(names)) }
    }
}

/// Value readers shared by the report readers (`ReportLine`, the trailer lines, the payments summary).
enum ReportValue {
    /// Digits, with `-` before a negative number: never a fraction, a sign `+`, spaces or an exponent; within ±2^53
    /// (`ExactNumber`).
    static func wholeNumber(_ text: String, column: String) throws -> Int64 {
        let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }), let value = Int64(text), value != .min
        else {
            throw IngestError.badField(column, "expected a whole number, found \(text)")
        }
        guard ExactNumber.holds(value) else { throw IngestError.badField(column, ExactNumber.outOfRange(value)) }
        return value
    }

    /// `Money.milliunits(text)`, its refusal named by the column; within ±2^53 milliunits (`ExactNumber`).
    static func milliunits(_ text: String, column: String) throws -> Int64 {
        let value: Int64
        do {
            value = try Money.milliunits(text)
        } catch {
            throw IngestError.badField(column, "\(error)")
        }
        guard ExactNumber.holds(value) else { throw IngestError.badField(column, ExactNumber.outOfRange(value) + " (milliunits)") }
        return value
    }

    /// An ISO 4217 code: three capital letters.
    static func currency(_ text: String, column: String) throws -> String {
        guard text.utf8.count == 3, text.utf8.allSatisfy({ $0 &- UInt8(ascii: "A") < 26 }) else {
            throw IngestError.badField(column, "expected an ISO 4217 currency code (3 capital letters), found \(text)")
        }
        return text
    }

    /// An ISO 3166-1 alpha-2 code: two capital letters.
    static func country(_ text: String, column: String) throws -> String {
        guard text.utf8.count == 2, text.utf8.allSatisfy({ $0 &- UInt8(ascii: "A") < 26 }) else {
            throw IngestError.badField(column, "expected an ISO 3166-1 alpha-2 country code (2 capital letters), found \(text)")
        }
        return text
    }

    /// Milliunits as a decimal with at least 2 decimals (`31.50`), however large (sums are kept in 128 bits).
    static func decimal(_ milliunits: Int128) -> String {
        if let small = Int64(exactly: milliunits) { return Money.decimal(small, digits: 2) }
        let magnitude = milliunits.magnitude
        var fraction = String(magnitude % 1000)
        fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
        if fraction.hasSuffix("0") { fraction.removeLast() }
        return (milliunits < 0 ? "-" : "") + String(magnitude / 1000) + "." + fraction
    }

    /// `a` × `b` exactly (a line total: units × a per-unit amount), refused beyond ±2^53 milliunits (`ExactNumber`).
    static func times(_ a: Int64, _ b: Int64, _ columns: (String, String)) throws -> Int64 {
        let (product, overflow) = a.multipliedReportingOverflow(by: b)
        guard !overflow, ExactNumber.holds(product) else {
            throw IngestError.other(
                "'\(columns.0)' × '\(columns.1)' is out of range (more than 2^53 = 9007199254740992 milliunits either way: the "
                    + "largest number a workbook cell holds exactly)")
        }
        return product
    }

    /// `YYYY-MM-DD` from `MM/DD/YYYY` (Apple's sales and financial reports) or `YYYY-MM-DD` (subscription
    /// reports); the day must exist.
    static func isoDate(_ text: String, column: String) throws -> String {
        let parts = text.split(separator: text.contains("/") ? "/" : "-", omittingEmptySubsequences: false)
        let numbers = parts.map { part in part.utf8.allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }) ? Int(part) : nil }
        let slashed = text.contains("/")
        let widths = slashed ? [2, 2, 4] : [4, 2, 2]
        guard parts.count == 3, zip(parts, widths).allSatisfy({ $0.count == $1 }), numbers.allSatisfy({ $0 != nil }) else {
            throw IngestError.badField(column, "expected a date MM/DD/YYYY or YYYY-MM-DD, found \(text)")
        }
        let (year, month, day) = slashed ? (numbers[2]!, numbers[0]!, numbers[1]!) : (numbers[0]!, numbers[1]!, numbers[2]!)
        guard (1...12).contains(month), (1...daysIn(month, of: year)).contains(day) else {
            throw IngestError.badField(column, "no such day: \(text)")
        }
        func padded(_ n: Int, _ width: Int) -> String { String(repeating: "0", count: max(0, width - String(n).count)) + String(n) }
        return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))"
    }

    private static func daysIn(_ month: Int, of year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Refuses a period that ends before it begins.
    static func checkOrder(_ begin: String, _ end: String, columns: (begin: String, end: String)) throws {
        if end < begin { throw IngestError.other("'\(columns.end)' \(end) is before '\(columns.begin)' \(begin)") }
    }
}
