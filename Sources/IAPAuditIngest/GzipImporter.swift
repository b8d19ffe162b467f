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
        let gzip = try GzipInput(file.data, path: file.path, directory: directory, limits: file.limits) { file.release(upTo: $0) }
        var content = InputFile(
            path: file.path, data: InputFile.utf8(gzip.content.data), sha256: file.sha256, bytes: file.bytes, mapping: gzip.content)
        content.limits = file.limits
        let reason = gzip.damage.map(Self.reason)
        // Progress counts bytes of the archive: offsets in the content are scaled to them. A rejection the content's
        // reader makes at the damage's line (a document cut short), or of the rest of the content from a limit's cut,
        // holds that damage: it says both, and is counted once.
        var merged = false
        let inner = RecordSink(metrics: sink.metrics) { [content] batch in
            guard let damage = gzip.damage, let reason else { return try sink.write(batch) }
            var batch = batch
            for r in batch.rejections.indices
            where batch.rejections[r].location.line == damage.line || batch.rejections[r].location.line == content.cut.value?.line {
                batch.rejections[r].reason += "; " + reason
                merged = true
            }
            try sink.write(batch)
        }
        if let progress = sink.progress {
            let scale = Double(file.bytes) / Double(max(1, gzip.content.count))
            inner.progress = { offset, records in progress(Int(Double(offset) * scale), records) }
        }
        var result = try FileImporter.stream(
            content, checker: checker, sink: inner, fastPath: fastPath, scratchDirectory: scratchDirectory)
        result.note = "gzip: " + result.note
        guard let damage = gzip.damage, let reason else { return result }
        if merged {
            result.note += " (archive \(damage.kind) after line \(damage.line - 1))"
            return result
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
            result.note =
                damage.kind == "limit" ? "gzip archive over a limit: nothing read" : "gzip archive \(damage.kind): nothing could be read"
        } else {
            result.note += " (archive \(damage.kind) after line \(damage.line - 1))"
        }
        return result
    }

    /// What the rejection of a damaged archive's rest says.
    private static func reason(_ damage: GzipInput.Damage) -> String {
        let read = damage.line == 1 ? nil : "lines 1–\(damage.line - 1) were read"
        if damage.contentComplete {
            return "gzip archive \(damage.kind) (\(damage.detail)): every line before this one was read; those bytes were not"
        } else if damage.kind == "limit" {
            return
                "gzip archive not read past a limit (\(damage.detail)): "
                + (read.map { "\($0), the rest of the file was not" } ?? "nothing of it was read")
        } else if damage.kind == "truncated" {
            return
                "gzip archive truncated (\(damage.detail)): " + (read.map { "\($0), the rest is lost" } ?? "nothing could be read")
                + "; copy the whole archive again"
        } else {
            return
                "gzip archive corrupt (\(damage.detail)): "
                + (read.map { "\($0); the rest cannot be trusted and was not read" } ?? "its content cannot be trusted and was not read")
                + "; copy the archive again from its source"
        }
    }
}
