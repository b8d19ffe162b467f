import IAPAuditModel

/// A ledger found to disagree with itself about one file: said with the file and its repair, never as SQLite's error.
extension LedgerImporter {
    /// The error for the ledger's records of `path` found inconsistent (`detail`: how; a line stored twice, a stored size
    /// ending before lines it holds). Nothing of the run was stored (its transaction rolled back). The repair,
    /// `--reread PATH`, reads the file again from its first line: its records are replaced by what the file holds, so
    /// nothing is lost.
    static func inconsistent(_ path: String, _ detail: String) -> AuditError {
        .ledger(
            path,
            "the ledger's records of this file are inconsistent: \(detail); this run stored nothing. Repair: run again with "
                + "--reread \(path) (the ledger reads the file again from its first line and replaces its records: nothing is lost)")
    }
}
