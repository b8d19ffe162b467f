import IAPAuditModel

extension ImportedFile {
    /// An import result for `file`, with no records yet.
    package init(file: InputFile, kind: SourceKind, format: SourceFormat, status: ImportStatus, note: String, recordsIn: Int = 0) {
        self.init(
            path: file.path, sha256: file.sha256, bytes: file.bytes, kind: kind, format: format, status: status, note: note,
            recordsIn: recordsIn)
    }
}

extension ImportedFile {
    /// Adds a batch's rows as values (for callers that keep a whole file's records: `FileImporter.read`).
    /// - Parameter bytes: the file's bytes, for the raw text of JSON Lines records.
    mutating func add(_ batch: RecordBatch, bytes: UnsafePointer<UInt8>) {
        for r in batch.clients { clientReports.append(batch.clientReport(r, file: path)) }
        for r in batch.servers { serverRequests.append(batch.serverRequest(r, file: path)) }
        for r in batch.responses {
            let raw = r.rawRange.map { String(decoding: UnsafeBufferPointer(start: bytes + $0.lowerBound, count: $0.count), as: UTF8.self) }
            appleRecords.append(batch.verifyResponse(r, file: path, raw: raw))
        }
        rejections += batch.rejections
    }
}
