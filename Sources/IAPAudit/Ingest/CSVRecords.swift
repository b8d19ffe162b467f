/// RFC 4180 CSV rows (comma-separated, `"` quoting with `""` escapes) read line by line.
///
/// A quoted field may span lines (up to `maxLinesPerRecord`); a record's line is its first line.
enum CSVRecords {
    static let maxLinesPerRecord = 20

    /// Joins lines whose quoted field continues on the next line into one record. When no closing
    /// quote comes within `maxLinesPerRecord` lines, the first line alone is the (bad) record and
    /// reading resumes on the next line, so one stray quote costs one line, never the file.
    static func records<S: Sequence>(_ lines: S) -> [(number: Int, text: String)] where S.Element == (number: Int, text: String) {
        let lines = Array(lines)
        var records: [(Int, String)] = []
        var i = 0
        while i < lines.count {
            var text = lines[i].text
            var end = i
            while (try? fields(text)) == nil && end + 1 < lines.count && end - i + 1 < maxLinesPerRecord {
                end += 1
                text += "\n" + lines[end].text
            }
            if (try? fields(text)) == nil {
                records.append((lines[i].number, lines[i].text))
                i += 1
            } else {
                records.append((lines[i].number, text))
                i = end + 1
            }
        }
        return records
    }

    /// Splits one line into fields; throws `IngestError` on an unterminated quote.
    static func fields(_ line: String) throws -> [String] {
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
                    } else if next == nil || next == "," {
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

    /// A row as a record object: header name → text; empty fields are left out (= null).
    static func record(header: [String], line: String) throws -> [String: Any] {
        let values = try fields(line)
        guard values.count == header.count else {
            throw IngestError.other("expected \(header.count) fields as in the header, found \(values.count)")
        }
        var record: [String: Any] = [:]
        for (name, value) in zip(header, values) where !value.isEmpty {
            record[name] = value
        }
        return record
    }
}
