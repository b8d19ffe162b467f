import IAPAuditModel

extension ImportedFile {
    /// An import result for `file`, with no records yet.
    package init(file: InputFile, kind: SourceKind, format: SourceFormat, status: ImportStatus, note: String, recordsIn: Int = 0) {
        self.init(
            path: file.path, sha256: file.sha256, bytes: file.bytes, kind: kind, format: format, status: status, note: note,
            recordsIn: recordsIn)
    }
}
