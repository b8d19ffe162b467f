import Foundation
import IAPAuditModel
import IAPAuditStore

/// The warnings of the files the ledger holds that this run does not read as they were.
extension LedgerImporter {
    /// Whether a file no longer given keeps its records in the ledger: one holding records or rejections,
    /// read by this version's readers (another's facts could be misread, and the file is not there to read again).
    static func keeps(_ file: StoredFile) -> Bool { file.isCurrentReader && file.recordsImported + file.recordsRejected > 0 }

    /// What became of the records of a file no longer given.
    enum Vanished {
        /// Kept in the ledger (the default).
        case kept
        /// Removed: `--forget-missing`.
        case forgotten
        /// Removed: read by another version's readers, they cannot be kept.
        case otherReader
    }

    /// A file that held `held` records and holds none now (`input_emptied`).
    static func emptied(_ path: String, bytes: Int, held: Int64) -> RunWarning {
        RunWarning(
            .inputEmptied,
            "\(path): holds no record now (\(CountText.counted(Int64(bytes), "byte"))): the \(CountText.counted(held, "record")) the "
                + "ledger held from it were removed with its old content (a file rewritten in place replaces its records); a "
                + "failed or cut export? Deliver it again under this name and run again: its records come back", file: path)
    }

    /// The warning for a file of the ledger that is not given this run, when it holds records (a skipped or
    /// empty file leaves nothing behind: no warning). `copy`: a file of this run skipped as its copy (its content
    /// given under another name: the logrotate step that gzips `client.jsonl.1` into `client.jsonl.2.gz`).
    /// `unreadable`: why the path, given, could not be read (a dangling symbolic link where the file was).
    static func vanished(
        _ path: String, _ file: StoredFile, _ why: Vanished = .kept, copy: String? = nil, unreadable: String? = nil
    ) -> RunWarning? {
        let (imported, rejected) = (file.recordsImported, file.recordsRejected)
        guard imported + rejected > 0 else { return nil }
        let records =
            imported > 0
            ? "its \(CountText.counted(imported, "record"))\(rejected > 0 ? " (and \(CountText.grouped(rejected)) rejected)" : "")"
            : "its \(CountText.counted(rejected, "rejected record"))"
        let were = imported + rejected == 1 ? "was" : "were"
        let what: String
        switch why {
        case .kept:
            if let copy {
                return RunWarning(
                    .inputVanished,
                    "\(path): not given this run, but its content is, as \(copy) (skipped as its copy): \(records) \(were) KEPT in "
                        + "the ledger under this name, nothing lost or counted twice (--forget-missing would drop them and read \(copy) "
                        + "instead)", file: path)
            }
            what = "\(records) \(were) KEPT in the ledger (imported by an earlier run); to drop them, run with --forget-missing"
        case .forgotten: what = "\(records) \(were) removed from the ledger (--forget-missing)"
        case .otherReader:
            what =
                "\(records) \(were) removed from the ledger: read by another iap-audit version, they cannot be kept "
                + "(give the file again to keep them)"
        }
        if let unreadable {
            return RunWarning(
                .inputUnreadable,
                "\(path): given, but not readable this run: \(unreadable); \(records) \(were) KEPT in the ledger as an "
                    + "earlier run read them, not dropped; put the file back, or run with --forget-missing without it to drop them",
                file: path)
        }
        return RunWarning(.inputVanished, "\(path): not given this run: " + what, file: path)
    }

}
