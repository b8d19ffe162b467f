import Foundation
import IAPAuditModel

/// Reads CSV with a header row (client reports, server transaction logs; docs/inputs.md §1–2) in
/// batches: records are assembled across line batches (a quoted field may hold line breaks), parsed
/// on every core and streamed to the sink, so memory does not grow with the file. Every record is
/// imported or rejected with `file:line` (the record's first line) and the reason.
enum CSVImporter {
    /// A file whose header is refused (`CSVHeader.refused`): one rejection at the header's line, no
    /// record read (status `rejected`, 1 record in = 1 rejected, as for a file of invalid JSON).
    /// - Parameter note: what the file was taken for (`server transaction log`).
    static func refuse(
        _ file: InputFile, header: (number: Int, text: String), note: String, shape: RecordShape, reason: String, sink: RecordSink
    ) throws -> ImportedFile {
        var result = ImportedFile(
            file: file, kind: shape.kind, format: .csv, status: .rejected, note: "\(note): CSV header refused, no record read",
            recordsIn: 1)
        var batch = RecordBatch()
        batch.rejections.append(Rejection(location: file.location(header.number), reason: reason, rawText: header.text))
        result.count(batch)
        try sink.write(batch)
        return result
    }

    /// Reads every record after the header (the file's first non-blank line); records go to `sink`
    /// batch by batch, and the result counts them. Rethrows the sink's errors.
    static func read(_ file: InputFile, shape: RecordShape, header: [String], note: String, sink: RecordSink) throws -> ImportedFile {
        var result = ImportedFile(file: file, kind: shape.kind, format: .csv, status: .imported, note: note)
        let reader = RecordReader(file: file, shape: shape, header: header, invalid: file.invalidUTF8Lines())
        var assembler = CSVRecordAssembler()
        var afterHeader = false
        func emit(_ records: [(number: Int, text: String)]) throws {
            guard !records.isEmpty else { return }
            result.recordsIn += records.count
            for batch in reader.parse(records) {
                result.count(batch)
                try sink.write(batch)
            }
        }
        try file.forEachLineBatch(batchSize: FileImporter.batchLines) { lines, endOffset in
            let records = assembler.feed(afterHeader ? lines[...] : lines.dropFirst(), final: false)
            afterHeader = true
            try emit(records)
            file.release(upTo: endOffset)
            sink.progress?(endOffset, result.recordsIn)
            return true
        }
        try emit(assembler.feed([], final: true))
        return result
    }

    /// Parses assembled records on every core, one `RecordBatch` per slice, in record order.
    private final class RecordReader {
        let file: InputFile
        let shape: RecordShape
        let header: [String]
        /// Lines holding bytes that are not UTF-8 → the column of the first one.
        let invalid: [Int: Int]
        /// The secret columns, redacted in a rejected row's text.
        let secrets: CSVSecrets

        init(file: InputFile, shape: RecordShape, header: [String], invalid: [Int: Int]) {
            (self.file, self.shape, self.header, self.invalid) = (file, shape, header, invalid)
            secrets = CSVSecrets(header: header)
        }

        /// Slice k reads its own records into its own batch; the reader's state is read only.
        func parse(_ records: [(number: Int, text: String)]) -> [RecordBatch] {
            let slices = records.count < 256 ? 1 : Parallel.cores
            let size = (records.count + slices - 1) / slices
            // Nothing in a slice throws.
            return try! Parallel.map(slices) { slice in
                var batch = RecordBatch()
                for record in records[min(records.count, slice * size)..<min(records.count, (slice + 1) * size)] {
                    read(record, into: &batch)
                }
                batch.encodeFacts()
                return batch
            }
        }

        private func read(_ record: (number: Int, text: String), into batch: inout RecordBatch) {
            let location = file.location(record.number)
            do {
                // A record's lines are its first and as many more as it holds line breaks.
                let span = record.number...(record.number + record.text.utf8.reduce(0) { $1 == 10 ? $0 + 1 : $0 })
                if let line = span.first(where: { invalid[$0] != nil }) {
                    throw IngestError.other("invalid UTF-8 at line \(line - record.number + 1), column \(invalid[line]!) of the record")
                }
                RecordDispatcher.add(
                    // The text of a row it rejects, without the secret columns' fields.
                    try CSVRecords.record(header: header, line: record.text), shape: shape,
                    raw: secrets.columns.isEmpty ? record.text : secrets.redacted(record.text),
                    at: location, NoSignatureChecking(), keepRaw: false, into: &batch)
            } catch {
                batch.rejections.append(Rejection(location: location, reason: "\(error)", rawText: secrets.redacted(record.text)))
            }
        }
    }
}

/// Assembles CSV records from lines fed batch by batch: lines whose quoted field continues on the
/// next line are joined into one record (its line is the first). A record still open at the end of
/// a batch waits for the next one; when no closing quote comes within `CSVRecords.maxLinesPerRecord`
/// lines, the first line alone is the (bad) record and reading resumes on the next line, so one
/// stray quote costs one line, never the file. The records do not depend on how the lines are batched.
struct CSVRecordAssembler {
    private var pending: [(number: Int, text: String)] = []

    /// The records complete after `lines`; `final`: no more lines come (the rest is flushed).
    mutating func feed(_ lines: ArraySlice<(number: Int, text: String)>, final: Bool) -> [(number: Int, text: String)] {
        pending += lines
        var records: [(number: Int, text: String)] = []
        var i = 0
        while i < pending.count {
            var text = pending[i].text
            var end = i
            var complete = (try? CSVRecords.fields(text)) != nil
            while !complete && end + 1 < pending.count && end - i + 1 < CSVRecords.maxLinesPerRecord {
                end += 1
                text += "\n" + pending[end].text
                complete = (try? CSVRecords.fields(text)) != nil
            }
            // Open at the end of what has come, with room for more lines: wait for them.
            if !complete && !final && end + 1 == pending.count && end - i + 1 < CSVRecords.maxLinesPerRecord { break }
            if complete {
                records.append((pending[i].number, text))
                i = end + 1
            } else {
                records.append((pending[i].number, pending[i].text))
                i += 1
            }
        }
        pending.removeFirst(i)
        return records
    }
}
