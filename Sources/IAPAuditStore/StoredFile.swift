/// A file already in the ledger: its content hash and the note it was stored with.
public struct StoredFile: Equatable, Sendable {
    public var sha256: String
    public var note: String
    /// `imported`, `skipped` or `rejected`.
    public var status: String
    /// Stored by this version's readers (else the file must be read again).
    public var isCurrentReader: Bool = true
    /// Size in bytes (a file of another size has changed).
    public var bytes: Int = 0
    /// Records imported from it (`source_file.records_imported`): what leaves the ledger with it.
    public var recordsImported: Int64 = 0
    /// Records rejected from it (`source_file.records_rejected`), whose rejections leave with it.
    public var recordsRejected: Int64 = 0
    /// Given by the last run (`source_file.given`); false: kept in the ledger though no longer given.
    public var given = true
    /// Its size, modification time and inode when it was stored (nil or 0s: unknown).
    public var stamp: FileStamp?
    /// The SHA-256 of its content (a gzip file's inflated bytes), else `sha256`.
    public var contentSha256 = ""
    /// `source_file.format` (`jsonl`…): a JSON Lines file that grew is read from its old end.
    public var format = ""

    package init(
        sha256: String, note: String, status: String, isCurrentReader: Bool = true, bytes: Int = 0, recordsImported: Int64 = 0,
        recordsRejected: Int64 = 0
    ) {
        (self.sha256, self.note, self.status, self.isCurrentReader, self.bytes) = (sha256, note, status, isCurrentReader, bytes)
        (self.recordsImported, self.recordsRejected) = (recordsImported, recordsRejected)
    }

    public static func == (a: StoredFile, b: StoredFile) -> Bool {
        (a.sha256, a.note, a.status, a.isCurrentReader) == (b.sha256, b.note, b.status, b.isCurrentReader)
    }
}
