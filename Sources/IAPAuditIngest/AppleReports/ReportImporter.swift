import IAPAuditModel

/// Reads an App Store Connect report (tab-separated, a header line naming the columns) line by line:
/// every line after the header is imported as a record of its layout or rejected with `file:line` and
/// the reason, batch by batch into the sink. Not transaction evidence: the records make no
/// reconciliation fact.
enum ReportImporter {
    /// Reads `file` when it is one of App Store Connect's reports (told by its header line, never its
    /// name): a tab-separated report, or the payments summary; nil when it is neither.
    static func read(_ file: InputFile, sink: RecordSink) throws -> ImportedFile? {
        let head = file.lines(limit: 5)
        guard let first = head.first else { return nil }
        if let report = try read(file, first: first, sink: sink) { return report }
        return try PaymentSummaryImporter.read(file, head, sink: sink)
    }

    /// nil when `first` (the file's first non-blank line) is not the header of a report this version reads.
    private static func read(_ file: InputFile, first: (number: Int, text: String), sink: RecordSink) throws -> ImportedFile? {
        guard let detected = ReportHeader.of(first.text, number: first.number) else { return nil }
        guard let header = detected.header else {
            let layout = detected.untabbed!
            return try refuse(
                file, layout,
                header: "a header whose columns are not separated by tabs (tabs turned into spaces, or saved as CSV?): "
                    + "none of the report's lines can be read",
                line: "the report's header (line \(first.number)) is not tab-separated: the columns of this line cannot be told apart",
                sink: sink)
        }
        if let missing = header.missingColumn {
            return try refuse(
                file, header.layout, header: "the report's header has no '\(missing)' column: none of its lines can be read",
                line: "the report's header (line \(first.number)) has no '\(missing)' column", sink: sink)
        }
        var result = ImportedFile(file: file, kind: header.layout.kind, format: .tsv, status: .imported, note: header.layout.note)
        let invalid = file.invalidUTF8Lines()
        var financial = FinancialReportReader()
        try file.forEachLineBatch(batchSize: FileImporter.batchLines) { lines, endOffset in
            var batch = RecordBatch()
            for line in lines where line.number != first.number {
                let location = file.location(line.number)
                do {
                    if let column = invalid[line.number] { throw IngestError.other("invalid UTF-8 at column \(column)") }
                    let fields = line.text.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
                    if header.layout == .financial {
                        guard try financial.read(fields, number: line.number, header: header, at: location, into: &batch) else { continue }
                    } else {
                        try checkFieldCount(fields, header: header)
                        try append(ReportLine(fields: fields, header: header), at: location, into: &batch)
                    }
                } catch {
                    batch.rejections.append(Rejection(location: location, reason: "\(error)", rawText: line.text))
                }
                result.recordsIn += 1
            }
            result.count(batch)
            try sink.write(batch)
            file.release(upTo: endOffset)
            sink.progress?(endOffset, result.recordsIn)
            return true
        }
        // What only the end tells: a financial report cut before its totals, a summary table leaving rows out.
        if header.layout == .financial, let rejection = financial.finish(header: first, file: file) {
            var batch = RecordBatch()
            batch.rejections.append(rejection)
            result.recordsIn += 1
            result.count(batch)
            try sink.write(batch)
        }
        return result
    }

    /// A line of `header`'s layout (not financial) as its record.
    private static func append(_ line: ReportLine, at location: SourceLocation, into batch: inout RecordBatch) throws {
        switch line.header.layout {
        case .summarySales, .legacyDailySales: batch.append(try SalesReportReaders.salesLine(line, at: location))
        case .subscription: batch.append(try SalesReportReaders.subscriptionLine(line, at: location))
        case .subscriptionEvent: batch.append(try SalesReportReaders.eventLine(line, at: location))
        case .subscriber: batch.append(try SalesReportReaders.subscriberLine(line, at: location))
        case .financial: preconditionFailure("read by FinancialReportReader")
        }
    }

    /// A row must have the header's columns: a field more or less (a tab lost, or turned into spaces)
    /// would shift every value after it.
    static func checkFieldCount(_ fields: [String], header: ReportHeader) throws {
        guard fields.count != header.names.count else { return }
        let hint = fields.count == 1 && fields[0].contains(" ") ? " (tabs turned into spaces?)" : ""
        throw IngestError.other(
            "expected \(header.names.count) tab-separated fields as in the header (line \(header.line)), found \(fields.count)\(hint)")
    }

    /// A report whose header cannot be read: every line (the header too) rejected, the header's with
    /// `header`, the others with `line`.
    private static func refuse(_ file: InputFile, _ layout: ReportLayout, header: String, line: String, sink: RecordSink) throws
        -> ImportedFile
    {
        let result = ImportedFile(
            file: file, kind: layout.kind, format: .tsv, status: .rejected, note: "\(layout.note): header refused, no line read")
        var first = true
        return try FileImporter.rejectingEveryLine(file, result, sink) { _ in
            defer { first = false }
            return first ? header : line
        }
    }
}
