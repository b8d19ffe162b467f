import Foundation

/// Detects a file's kind from its content and reads its records: every record is imported
/// or rejected with `file:line` and a reason.
enum FileImporter {
    static func read(_ file: InputFile) -> ImportedFile {
        let first = file.data.first(where: { !($0 == 32 || $0 == 9 || $0 == 10 || $0 == 13) })
        guard let first else {
            return ImportedFile(file: file, kind: .other, format: .none, status: .skipped, note: "empty file")
        }
        if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") { return readJSON(file) }
        if let csv = readCSV(file) { return csv }
        return ImportedFile(file: file, kind: .other, format: .none, status: .skipped, note: BinaryShape.describe(file.data))
    }

    // MARK: JSON: one document, or JSON Lines

    private static func readJSON(_ file: InputFile) -> ImportedFile {
        let lines = file.lines()
        // A document spread over several lines (Apple's pretty-printed responses).
        if lines.count > 1, (try? JSONField.parseObject(Data(lines[0].text.utf8))) == nil {
            do {
                let object = try JSONField.parseObject(file.data)
                return readDocument(object, file: file)
            } catch {
                if let array = try? JSONSerialization.jsonObject(with: file.data) as? [Any] {
                    let note =
                        array.allSatisfy({ ($0 as? String)?.hasPrefix("MI") == true })
                        ? "JSON array of base64 certificates (an x5c chain) (not evidence)"
                        : "JSON array (records must be one object per line) (not supported)"
                    return ImportedFile(file: file, kind: .other, format: .jsonDocument, status: .skipped, note: note)
                }
                // Not a document: maybe JSON Lines whose first line is bad.
                if let shape = lines.lazy.compactMap({ try? JSONField.parseObject(Data($0.text.utf8)) }).first.map(RecordShape.of),
                    shape.kind != .other
                {
                    return readLines(lines, shape: shape, file: file)
                }
                var result = ImportedFile(
                    file: file, kind: .other, format: .jsonDocument, status: .rejected,
                    note: "not valid JSON", recordsIn: 1)
                result.rejections.append(
                    Rejection(
                        location: file.location(errorLine(error) ?? 1), reason: "\(error)",
                        rawText: String(decoding: file.data, as: UTF8.self)))
                return result
            }
        }
        guard let firstObject = try? JSONField.parseObject(Data(lines[0].text.utf8)) else {
            var result = ImportedFile(file: file, kind: .other, format: .jsonLines, status: .rejected, note: "not valid JSON", recordsIn: 1)
            let reason = (try? JSONField.parseObject(Data(lines[0].text.utf8))).map { _ in "" } ?? errorText(lines[0].text)
            result.rejections.append(Rejection(location: file.location(lines[0].number), reason: reason, rawText: lines[0].text))
            return result
        }
        let shape = RecordShape.of(firstObject)
        if lines.count == 1 && shape.kind == .other { return readDocument(firstObject, file: file) }
        return readLines(lines, shape: shape, file: file)
    }

    /// The line a JSON syntax error names ("… at line 4, column 1"), for `file:line`.
    private static func errorLine(_ error: Error) -> Int? {
        let text = "\(error)"
        guard let range = text.range(of: " at line ") else { return nil }
        return Int(text[range.upperBound...].prefix { $0.isNumber })
    }

    private static func errorText(_ line: String) -> String {
        do { _ = try JSONField.parseObject(Data(line.utf8)); return "" } catch { return "\(error)" }
    }

    private static func readDocument(_ object: [String: Any], file: InputFile) -> ImportedFile {
        let shape = RecordShape.of(object)
        switch shape {
        case .unsupported(let what), .unknown(let what):
            return ImportedFile(file: file, kind: .other, format: .jsonDocument, status: .skipped, note: what)
        case .auditConfig:
            return ImportedFile(
                file: file, kind: .other, format: .jsonDocument, status: .skipped,
                note: "iap-audit configuration (not evidence; pass it with --config)")
        default:
            var result = ImportedFile(
                file: file, kind: shape.kind, format: .jsonDocument, status: .imported,
                note: note(for: shape), recordsIn: 1)
            add(object, shape: shape, raw: String(decoding: file.data, as: UTF8.self), at: file.location(1), to: &result)
            return result
        }
    }

    private static func readLines(_ lines: [(number: Int, text: String)], shape: RecordShape, file: InputFile) -> ImportedFile {
        guard shape.kind != .other else {
            let what: String
            switch shape {
            case .unsupported(let w), .unknown(let w): what = w
            default: what = "iap-audit configuration (not evidence)"
            }
            return ImportedFile(file: file, kind: .other, format: .jsonLines, status: .skipped, note: "JSON Lines of \(what)")
        }
        var result = ImportedFile(
            file: file, kind: shape.kind, format: .jsonLines, status: .imported,
            note: note(for: shape), recordsIn: lines.count)
        for line in lines {
            let location = file.location(line.number)
            do {
                let object = try JSONField.parseObject(Data(line.text.utf8))
                add(object, shape: shape, raw: line.text, at: location, to: &result)
            } catch {
                result.rejections.append(Rejection(location: location, reason: "\(error)", rawText: line.text))
            }
        }
        return result
    }

    // MARK: CSV with a header

    private static func readCSV(_ file: InputFile) -> ImportedFile? {
        let lines = file.lines()
        guard let headerLine = lines.first, headerLine.text.contains(","),
            let header = try? CSVRecords.fields(headerLine.text).map({ $0.trimmingCharacters(in: .whitespaces).lowercased() })
        else { return nil }
        let names = Set(header)
        let shape: RecordShape
        if names.isSuperset(of: ["request_id", "transaction_ids"]) {
            shape = .serverRequest
        } else if names.isSuperset(of: ["state", "transaction_id"]) {
            shape = .clientReport
        } else {
            return nil
        }
        var result = ImportedFile(file: file, kind: shape.kind, format: .csv, status: .imported, note: note(for: shape))
        for record in CSVRecords.records(lines.dropFirst()) {
            let location = file.location(record.number)
            result.recordsIn += 1
            do {
                add(try CSVRecords.record(header: header, line: record.text), shape: shape, raw: record.text, at: location, to: &result)
            } catch {
                result.rejections.append(Rejection(location: location, reason: "\(error)", rawText: record.text))
            }
        }
        return result
    }

    // MARK: Records

    private static func note(for shape: RecordShape) -> String {
        switch shape {
        case .clientReport: return "client reports"
        case .serverRequest: return "server transaction log"
        case .wrappedVerifyResponse: return "verifyReceipt responses linked to server requests"
        case .bareVerifyResponse: return "verifyReceipt responses (bare, not linked to a request)"
        default: return ""
        }
    }

    /// Parses one record of the file's shape; a record of another shape or with bad fields is rejected.
    private static func add(_ o: [String: Any], shape: RecordShape, raw: String, at location: SourceLocation, to result: inout ImportedFile)
    {
        do {
            switch shape {
            case .clientReport:
                result.clientReports.append(try ClientReportParser.parse(o, at: location))
            case .serverRequest:
                result.serverRequests.append(try ServerRequestParser.parse(o, at: location))
            case .wrappedVerifyResponse:
                guard let body = o["response"] as? [String: Any] else {
                    throw IngestError.badField("response", "expected Apple's response object")
                }
                let requestId = try RecordFields.requiredText(o, "request_id")
                let received = try RecordFields.optionalTimestamp(o, "received_at")
                result.verifyResponses.append(
                    try VerifyResponseParser.parse(body, at: location, requestId: requestId, receivedAtMs: received, raw: raw))
            case .bareVerifyResponse:
                if o["request_id"] != nil || o["transaction_ids"] != nil || o["state"] != nil {
                    throw IngestError.other("a \(RecordShape.of(o).kind.rawValue) record in a file of verifyReceipt responses")
                }
                result.verifyResponses.append(
                    try VerifyResponseParser.parse(o, at: location, requestId: nil, receivedAtMs: nil, raw: raw))
            default:
                throw IngestError.other("unsupported record")
            }
        } catch {
            result.rejections.append(Rejection(location: location, reason: "\(error)", rawText: raw))
        }
    }
}
