import IAPAuditModel

/// RFC 4180 CSV rows (comma-separated, `"` quoting with `""` escapes) read line by line.
///
/// A quoted field may span lines (up to `maxLinesPerRecord`; `CSVRecordAssembler` joins them); a
/// record's line is its first line.
package enum CSVRecords {
    /// Lines one record may span (a quoted field holding line breaks); blank lines are not counted.
    package static let maxLinesPerRecord = 20

    /// Splits one line into fields; throws `IngestError` on an unterminated quote.
    /// - Parameter textAfterQuote: keep text after a closing quote in the field (`"234.58" EUR` is
    ///   `234.58 EUR`, as Apple's payments summary writes its total) instead of refusing the line.
    static func fields(_ line: String, textAfterQuote: Bool = false) throws -> [String] {
        var fields: [String] = []
        var field = ""
        var inQuotes = false
        var iterator = line.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = nil
        while let c = pending ?? iterator.next() {
            pending = nil
            if inQuotes {
                if c == "\"" {
                    let next = iterator.next()
                    if next == "\"" {
                        field.unicodeScalars.append("\"")
                    } else if next == nil || next == "," || textAfterQuote {
                        inQuotes = false
                        pending = next
                    } else {
                        throw IngestError.other("text after a closing quote")
                    }
                } else {
                    field.unicodeScalars.append(c)
                }
            } else if c == "\"" && field.isEmpty {
                inQuotes = true
            } else if c == "," {
                fields.append(field)
                field = ""
            } else {
                field.unicodeScalars.append(c)
            }
        }
        if inQuotes { throw IngestError.other("unterminated quoted field") }
        fields.append(field)
        return fields
    }

    /// A row as a record: header name → text; empty fields are left out (= null).
    static func record(header: [String], line: String) throws -> CSVRow {
        let values = try fields(line)
        guard values.count == header.count else {
            throw IngestError.other("expected \(header.count) fields as in the header, found \(values.count)")
        }
        var record: [String: String] = [:]
        for (name, value) in zip(header, values) where !value.isEmpty {
            record[name] = value
        }
        return CSVRow(values: record)
    }
}

/// One CSV row as a `RecordObject`: every field is text (`FieldValue.string`), read through the same
/// vocabulary as JSON (`"1790812800000"` is a timestamp, `"true"` a boolean, `"1;2"` a list of ids).
struct CSVRow: RecordObject {
    /// Header name → the field's text; an empty field is absent.
    let values: [String: String]

    func field(_ key: String) -> FieldValue? { values[key].map(FieldValue.string) }
    func has(_ key: String) -> Bool { values[key] != nil }
    var fieldNames: [String] { Array(values.keys) }
}
