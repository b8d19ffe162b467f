import Foundation
import IAPAuditModel

/// Reads a gzip input (`GzipInput`): its content is read as any file is (JSON Lines, CSV, a JSON
/// document, JWS, receipts), its records at the `file:line` of the inflated content; the file keeps
/// its path, size and SHA-256 on disk, and its note starts `gzip: `.
///
/// An archive truncated or corrupt is never half-counted silently: its complete lines are read, and
/// one rejection at the line after the last complete one says what happened and that the lines
/// before it were read (so records in = imported + rejected still holds).
enum GzipImporter {
    /// - Parameter scratchDirectory: where the content is inflated; nil: `TMPDIR`.
    /// - Throws: what `GzipInput` throws (no room for the inflated content), and the sink's errors.
    static func stream(
        _ file: InputFile, checker: any SignatureChecking, sink: RecordSink, fastPath: Bool, scratchDirectory: String?
    ) throws -> ImportedFile {
        let directory = scratchDirectory ?? String(NSTemporaryDirectory().reversed().drop { $0 == "/" }.reversed())
        let gzip = try GzipInput(file.data, path: file.path, directory: directory) { file.release(upTo: $0) }
        let content = InputFile(
            path: file.path, data: InputFile.utf8(gzip.content.data), sha256: file.sha256, bytes: file.bytes, mapping: gzip.content)
        // Progress counts bytes of the archive: offsets in the content are scaled to them.
        let inner = RecordSink(metrics: sink.metrics, sink.write)
        if let progress = sink.progress {
            let scale = Double(file.bytes) / Double(max(1, gzip.content.count))
            inner.progress = { offset, records in progress(Int(Double(offset) * scale), records) }
        }
        var result = try FileImporter.stream(
            content, checker: checker, sink: inner, fastPath: fastPath, scratchDirectory: scratchDirectory)
        result.note = "gzip: " + result.note
        guard let damage = gzip.damage else { return result }
        let read = damage.line == 1 ? nil : "lines 1–\(damage.line - 1) were read"
        let reason: String
        if damage.contentComplete {
            reason = "gzip archive \(damage.kind) (\(damage.detail)): every line before this one was read; those bytes were not"
        } else if damage.kind == "truncated" {
            reason =
                "gzip archive truncated (\(damage.detail)): " + (read.map { "\($0), the rest is lost" } ?? "nothing could be read")
                + "; copy the whole archive again"
        } else {
            reason =
                "gzip archive corrupt (\(damage.detail)): "
                + (read.map { "\($0); the rest cannot be trusted and was not read" } ?? "its content cannot be trusted and was not read")
                + "; copy the archive again from its source"
        }
        var batch = RecordBatch()
        batch.rejections.append(Rejection(location: file.location(damage.line), reason: reason, rawText: damage.tail))
        result.recordsIn += 1
        result.count(batch)
        try sink.write(batch)
        if result.status == .skipped {
            // Nothing of it could be read as records: the archive itself is the rejected record.
            result.status = .rejected
            result.kind = .other
            result.format = .none
            result.note = "gzip archive \(damage.kind): nothing could be read"
        } else {
            result.note += " (archive \(damage.kind) after line \(damage.line - 1))"
        }
        return result
    }
}
