import IAPAuditModel
import IAPAuditStore

/// A damaged ledger, said one way wherever it was met (a `fact_chunk` row failing its checksum or undecodable,
/// `LedgerDamage`; facts that cannot be decoded, `FactDecodingError`): `<ledger>: error: damaged ledger: <what>: the
/// run stopped and used nothing of it; repair: <how>` (exit 1; docs/security.md, A damaged ledger).
///
/// The repair keeps the runs, the findings' history and the records of every other file: the damaged file is marked to
/// be read again (`AuditStore.markForReading`), so the next run with the same inputs reads it again.
enum DamagedLedger {
    /// `error` as the damaged-ledger `AuditError.ledger` when it is one (the file marked to be read again); else `error`.
    static func reported(_ error: any Error, databasePath: String, spillPath: String) -> any Error {
        let what: String
        let fileId: Int64
        switch error {
        case let damage as LedgerDamage:
            (what, fileId) = (damage.description, damage.fileId)
        case let damage as FactDecodingError:
            (what, fileId) = ("damaged ledger: " + damage.description, Int64(damage.fileId))
        case let failure as SQLiteError where failure.isCorrupt:
            // Damage SQLite itself meets (a page of the file): no row to name, no file to read again alone.
            return AuditError.ledger(databasePath, "damaged ledger: \(failure): the run stopped; " + moveAside(databasePath))
        default:
            return error
        }
        let stopped = what + ": the run stopped and used nothing of it; "
        guard fileId != 0 else {
            return AuditError.ledger(
                spillPath,
                stopped + "these facts were made by iap-audit itself (the spill files or the request carry beside the ledger, made "
                    + "again by the next run): run again with the same inputs")
        }
        let marked = try? AuditStore.markForReading(databasePath: databasePath, fileId: fileId)
        switch marked {
        case let (path, given)? where given:
            return AuditError.ledger(
                databasePath,
                stopped + "repair: run again with the same inputs: \(path) is marked to be read again (its records and facts are "
                    + "replaced; the runs, the findings' history and the other files' records are kept)")
        case let (path, _)?:
            return AuditError.ledger(
                databasePath,
                stopped + "repair: \(path) is no longer given and is marked to be read again: give it to the next run; a run "
                    + "without it drops its records from the ledger (lost: they cannot be read again)")
        default:
            return AuditError.ledger(databasePath, stopped + moveAside(databasePath))
        }
    }

    /// The repair when no file can be named: a new ledger from the inputs.
    private static func moveAside(_ databasePath: String) -> String {
        "repair: move \(databasePath) aside and run again with the same inputs (a new ledger: the records of files no longer "
            + "given and the findings' history are lost)"
    }
}
