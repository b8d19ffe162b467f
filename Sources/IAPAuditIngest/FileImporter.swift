import Foundation
import IAPAuditModel

/// Detects a file's kind from its content and reads its records: every record is imported
/// or rejected with `file:line` and a reason.
package enum FileImporter {
    /// Reads the file: its records go to `sink` batch by batch (JSON Lines and CSV parsed on every core,
    /// in line order), so memory does not grow with the file; the result says what the file was taken
    /// for and counts its records. Rethrows the sink's errors.
    /// - Parameters:
    ///   - checker: checks the signatures of JWS and PKCS#7 records.
    ///   - fastPath: read JSON Lines through the fast readers where they are sure (the default); false
    ///     reads every line with the strict reader (tests compare the two).
    ///   - scratchDirectory: where a gzip input is inflated (an unlinked temporary file); nil: `TMPDIR`.
    ///
    /// A line over `file.limits.lineBytes`, or past `file.limits.records` lines, ends what is read: the rest of the
    /// file is one rejection naming the limit (`LimitCut`), the lines before it are read as usual.
    package static func stream(
        _ file: InputFile, checker: any SignatureChecking, sink: RecordSink, fastPath: Bool = true, scratchDirectory: String? = nil
    ) throws -> ImportedFile {
        if GzipInput.isGzip(file.data) {
            return try GzipImporter.stream(file, checker: checker, sink: sink, fastPath: fastPath, scratchDirectory: scratchDirectory)
        }
        var result = try read(file, checker: checker, sink: sink, fastPath: fastPath)
        // A document read whole (at most `maxDocumentBytes`), or rejected whole (one rejection: the file), was not cut,
        // whatever its lines.
        guard let cut = file.cut.value, result.format != .jsonDocument else { return result }
        var batch = RecordBatch()
        batch.rejections.append(Rejection(location: file.location(cut.line), reason: cut.reason, rawText: cut.rawText))
        result.recordsIn += 1
        result.count(batch)
        try sink.write(batch)
        if result.status == .skipped {
            // Nothing before the cut was read as records: the file is the rejected record.
            (result.status, result.kind, result.format) = (.rejected, .other, .none)
            result.note = "not read past the \(cut.limit) limit"
        } else {
            result.note += " (not read from line \(cut.line): \(cut.limit) limit)"
        }
        return result
    }

    /// What `stream` reads of a file that is not gzip, up to a limit's cut.
    private static func read(
        _ file: InputFile, checker: any SignatureChecking, sink: RecordSink, fastPath: Bool
    ) throws -> ImportedFile {
        if BinaryShape.isTarArchive(file.data) {
            return ImportedFile(file: file, kind: .other, format: .none, status: .skipped, note: BinaryShape.tarNote)
        }
        let first = file.data.first(where: { !($0 == 32 || $0 == 9 || $0 == 10 || $0 == 13) })
        guard let first else {
            return ImportedFile(file: file, kind: .other, format: .none, status: .skipped, note: "empty file")
        }
        let head = file.lines(limit: kindSearchLines + 1)
        guard !head.isEmpty else {
            // Its first line is over a limit. Binary content (an archive, a certificate) is not text: skipped as before,
            // not cut. Text: nothing is read (`stream` rejects the file from there).
            if file.data.prefix(4096).contains(where: { $0 < 9 || (14..<32).contains($0) }) {
                file.cut.clear()
                return ImportedFile(file: file, kind: .other, format: .none, status: .skipped, note: BinaryShape.describe(file.data))
            }
            return ImportedFile(file: file, kind: .other, format: .none, status: .skipped, note: "nothing read")
        }
        if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") {
            return try readJSON(file, head, checker, sink, fastPath)
        }
        // CSV with a known header: streamed, never read whole.
        if let first = file.lines(limit: 1).first, let header = CSVHeader.of(first.text) {
            switch header {
            case .records(let shape, let names):
                return try CSVImporter.read(file, shape: shape, header: names, note: note(for: shape), sink: sink)
            case .refused(let shape, let reason):
                return try CSVImporter.refuse(file, header: first, note: note(for: shape), shape: shape, reason: reason, sink: sink)
            }
        }
        // App Store Connect's sales, subscription and financial reports, told by their header line.
        if let report = try ReportImporter.read(file, sink: sink) { return report }
        let lines = file.lines()
        if let signed = try SignedTextImporter.read(file, lines, checker: checker, sink: sink) { return signed }
        // JSON Lines whose first line(s) are not JSON (a banner, a stack trace): read them, rejecting
        // those lines, however many there are.
        if let shape = knownShape(lines, limit: Int.max) { return try readLines(shape: shape, file: file, checker, sink, fastPath) }
        return ImportedFile(file: file, kind: .other, format: .none, status: .skipped, note: BinaryShape.describe(file.data))
    }

    /// Whether `data` is an iap-audit config file (a JSON object `RecordShape` takes for one:
    /// `bundle_ids`, `sandbox_allowlist` or a `products` object), at most `maxConfigBytes`.
    package static func isAuditConfig(_ data: Data) -> Bool {
        let text = InputFile.utf8(data)
        guard text.count <= maxConfigBytes, text.first(where: { !($0 == 32 || $0 == 9 || $0 == 10 || $0 == 13) }) == UInt8(ascii: "{"),
            let object = try? JSONField.parseObject(text)
        else { return false }
        return RecordShape.of(object) == .auditConfig
    }

    /// The largest file looked at as a possible config (a config is a few hundred bytes).
    package static let maxConfigBytes = 1 << 20

    // MARK: JSON: one document, or JSON Lines

    /// The largest file tried as one JSON document.
    static let maxDocumentBytes = 64 << 20

    /// How many leading lines are searched for the first record of a known kind.
    static let kindSearchLines = 100

    /// The shape of the first record of a known kind among the first `limit` lines, if any.
    private static func knownShape(_ lines: [(number: Int, text: String)], limit: Int = kindSearchLines) -> RecordShape? {
        leadingObjects(lines, limit: limit).map { RecordShape.of($0) }.first { $0.kind != .other }
    }

    /// Leading lines that parse as JSON objects (at most `limit` lines are looked at).
    private static func leadingObjects(_ lines: [(number: Int, text: String)], limit: Int = kindSearchLines)
        -> some Sequence<JSONRef>
    {
        lines.prefix(limit).lazy.filter(startsAnObject).compactMap { try? JSONField.parseObject(Array($0.text.utf8)) }
    }

    private static func startsAnObject(_ line: (number: Int, text: String)) -> Bool {
        line.text.drop { $0 == " " || $0 == "\t" }.first == "{"
    }

    /// The shape of the first record of a known kind after line `after`, reading on through the file
    /// (for a file whose leading lines are all unreadable: its good lines must not be lost).
    private static func knownShape(_ file: InputFile, after: Int) -> RecordShape? {
        var found: RecordShape? = nil
        file.forEachLineBatch(batchSize: 4096) { lines, _ in
            found = knownShape(lines.filter { $0.number > after }, limit: Int.max)
            return found == nil
        }
        return found
    }

    /// `lines`: the leading lines only (enough to decide what the file is).
    private static func readJSON(
        _ file: InputFile, _ lines: [(number: Int, text: String)], _ checker: any SignatureChecking, _ sink: RecordSink,
        _ fastPath: Bool
    ) throws -> ImportedFile {
        let firstObject = try? JSONField.parseObject(Array(lines[0].text.utf8))
        var documentError: Error? = nil
        // A single document is at most `maxDocumentBytes` (Apple's responses are KBs): a big file whose
        // first line does not parse is JSON Lines with a bad line, not copied whole to be tried as one.
        if lines.count > 1 && firstObject == nil && file.data.count <= maxDocumentBytes {
            // A document spread over several lines (Apple's pretty-printed responses)?
            do {
                let root = try JSONTape([UInt8](file.data), limits: file.limits).root
                if root.kind == .array {
                    return ImportedFile(file: file, kind: .other, format: .jsonDocument, status: .skipped, note: arrayNote(root))
                }
                return try readDocument(try JSONField.object(root), file: file, checker, sink)
            } catch {
                documentError = error
            }
        } else if lines.count == 1, let firstObject, RecordShape.of(firstObject).kind == .other {
            return try readDocument(firstObject, file: file, checker, sink)
        }
        // JSON Lines: the kind of the first record of a known kind; other lines are rejected.
        if let shape = knownShape(lines) { return try readLines(shape: shape, file: file, checker, sink, fastPath) }
        // Past the leading lines (objects of no known kind, a heartbeat, or unreadable ones), read on
        // through the file: records further down must not be lost with the file skipped.
        if lines.count > kindSearchLines, let shape = knownShape(file, after: lines[kindSearchLines - 1].number) {
            return try readLines(shape: shape, file: file, checker, sink, fastPath)
        }
        if let object = leadingObjects(lines).first(where: { _ in true }) {
            return try readLines(shape: RecordShape.of(object), file: file, checker, sink, fastPath)
        }
        // Every line an object, none readable: JSON Lines, each line rejected with its own reason.
        if lines.count > 1 && lines.allSatisfy(startsAnObject) { return try rejectEveryLine(file, sink) }
        // Nothing parses: one rejection with the parser's message, or, for a document too large to be
        // tried, with the limit (its first line alone, `{`, would only say that a key is missing).
        let tooLarge = lines.count > 1 && firstObject == nil && file.data.count > maxDocumentBytes
        let error = tooLarge ? IngestError.other(documentTooLarge(file.data.count)) : documentError ?? parseError(lines[0].text)
        let line = documentError.flatMap(errorLine) ?? lines[0].number
        var result = ImportedFile(
            file: file, kind: .other, format: lines.count > 1 ? .jsonDocument : .jsonLines, status: .rejected,
            note: tooLarge ? "JSON document over \(maxDocumentBytes >> 20) MB (not read)" : "not valid JSON", recordsIn: 1)
        var batch = RecordBatch()
        batch.rejections.append(
            Rejection(location: file.location(line), reason: "\(error)", rawText: String(decoding: file.data, as: UTF8.self)))
        result.count(batch)
        try sink.write(batch)
        return result
    }

    /// A JSON Lines file of which no line can be read: every line is a rejection, with its parser's
    /// message (streamed to `sink` like records).
    private static func rejectEveryLine(_ file: InputFile, _ sink: RecordSink) throws -> ImportedFile {
        let result = ImportedFile(
            file: file, kind: .other, format: .jsonLines, status: .rejected, note: "not valid JSON (no line could be read)")
        return try rejectingEveryLine(file, result, sink) { line in
            (try? JSONField.parseLine(Array(line.text.utf8))).map {
                "a JSON object of no known record kind (keys: \($0.keys.sorted().prefix(8).joined(separator: ", ")))"
            } ?? "\(parseError(line.text))"
        }
    }

    /// `result` with every line of `file` a rejection, `reason` saying why: streamed to `sink` batch by batch, like records.
    static func rejectingEveryLine(
        _ file: InputFile, _ result: ImportedFile, _ sink: RecordSink, reason: ((number: Int, text: String)) -> String
    ) throws -> ImportedFile {
        var result = result
        try file.forEachLineBatch(batchSize: batchLines) { lines, endOffset in
            var batch = RecordBatch()
            for line in lines {
                batch.rejections.append(Rejection(location: file.location(line.number), reason: reason(line), rawText: line.text))
            }
            result.recordsIn += lines.count
            result.count(batch)
            try sink.write(batch)
            file.release(upTo: endOffset)
            return true
        }
        return result
    }

    /// Why a document over `maxDocumentBytes` is not read.
    static func documentTooLarge(_ bytes: Int) -> String {
        "JSON document too large: \(CountText.grouped(Int64(bytes))) bytes, over the limit of \(maxDocumentBytes >> 20) MB "
            + "(\(CountText.grouped(Int64(maxDocumentBytes))) bytes) for one document; not read (JSON Lines, one record a line, "
            + "has no such limit)"
    }

    /// The note for a JSON array document (not a record format).
    private static func arrayNote(_ array: JSONRef) -> String {
        let certificates = array.elements.allSatisfy {
            guard $0.kind == .string, case .string(let text) = $0.value else { return false }
            return text.hasPrefix("MI")
        }
        return certificates
            ? "JSON array of base64 certificates (an x5c chain) (not evidence)"
            : "JSON array (records must be one object per line) (not supported)"
    }

    /// The line a JSON syntax error names ("… at line 4, column 1"), for `file:line`.
    private static func errorLine(_ error: Error) -> Int? {
        let text = "\(error)"
        guard let range = text.range(of: " at line ") else { return nil }
        return Int(text[range.upperBound...].prefix { $0.isNumber })
    }

    private static func parseError(_ line: String) -> Error {
        do {
            _ = try JSONField.parseLine(Array(line.utf8))
            return IngestError.other("not a JSON object")
        } catch {
            return error
        }
    }

    private static func readDocument(_ object: JSONRef, file: InputFile, _ checker: any SignatureChecking, _ sink: RecordSink) throws
        -> ImportedFile
    {
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
            var batch = RecordBatch()
            RecordDispatcher.add(
                object, shape: shape, raw: String(decoding: file.data, as: UTF8.self), at: file.location(1), checker,
                keepRaw: true, into: &batch)
            result.count(batch)
            try sink.write(batch)
            return result
        }
    }

    /// Lines read per batch: parsed in parallel halves, then handed on in line order.
    static let batchLines = 8192

    private static func readLines(
        shape: RecordShape, file: InputFile, _ checker: any SignatureChecking, _ sink: RecordSink, _ fastPath: Bool
    ) throws -> ImportedFile {
        guard shape.kind != .other else {
            let what: String
            switch shape {
            case .unsupported(let w), .unknown(let w): what = w
            default: what = "iap-audit configuration (not evidence)"
            }
            return ImportedFile(file: file, kind: .other, format: .jsonLines, status: .skipped, note: "JSON Lines of \(what)")
        }
        var result = ImportedFile(file: file, kind: shape.kind, format: .jsonLines, status: .imported, note: note(for: shape))
        let parser = BatchParser(shape: shape, file: file, checker: checker, metrics: sink.metrics, fastPath: fastPath)
        let fileBytes = file.data.count
        try file.forEachLineRangeBatch(batchSize: batchLines) { bytes, lines, endOffset in
            var batches = parser.parse(lines, bytes: bytes)
            // The file's last line has no line break (it ends the batch at the file's end): a writer may still be
            // writing it. Its rejection says so.
            if let last = lines.last, last.end == endOffset, endOffset == fileBytes {
                for b in batches.indices {
                    for r in batches[b].rejections.indices
                    where batches[b].rejections[r].location.line == last.number && batches[b].rejections[r].reason.hasPrefix("invalid JSON")
                    {
                        batches[b].rejections[r].reason += Self.unterminatedNote
                    }
                }
            }
            result.recordsIn += lines.count
            for batch in batches {
                result.count(batch)
                try sink.write(batch)
            }
            file.release(upTo: endOffset)
            sink.progress?(endOffset, result.recordsIn)
            return true
        }
        let kinds = parser.shapes.sorted { $0.value < $1.value }.map(\.key)
        if kinds.count > 1 {
            // A mixed file: each line was read as what it is.
            let sourceKinds = Set(kinds.map(\.kind))
            result.kind = sourceKinds.count == 1 ? sourceKinds.first! : .mixed
            result.note = "mixed: " + kinds.map(note(for:)).joined(separator: ", ")
        }
        return result
    }

    /// Added to the reason of a last line without a line break that is not JSON: cut short by a writer still at work.
    static let unterminatedNote =
        " (the file's last line, with no line break: still being written? A later run reads the file again once it has grown)"

    // MARK: Records

    private static func note(for shape: RecordShape) -> String {
        switch shape {
        case .clientReport: return "client reports"
        case .serverRequest: return "server transaction log"
        case .wrappedVerifyResponse: return "verifyReceipt responses linked to server requests"
        case .bareVerifyResponse: return "verifyReceipt responses (bare, not linked to a request)"
        case .wrappedSignedTransaction: return "JWS signed transactions linked to server requests"
        case .wrappedOrderLookup: return "App Store Server API Look Up Order ID responses with their order ids"
        case .wrappedTransactionLookup: return "App Store Server API Get Transaction Info responses with the ids asked"
        case .postedReceipt: return "app receipts as clients posted them"
        case .signed(.notificationV2): return "App Store Server Notifications V2"
        case .signed(.notificationV1): return "App Store Server Notifications V1"
        case .signed(.serverAPIResponse): return "App Store Server API responses"
        case .signed: return "JWS payloads (signed transactions, renewal info, app transactions)"
        default: return ""
        }
    }
}
