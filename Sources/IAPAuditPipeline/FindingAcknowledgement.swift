import Foundation
import IAPAuditModel
import IAPAuditStore

/// `iap-audit ack`: marks a finding of the ledger known. It stays in the reports (with status
/// `acknowledged`) and out of `run --fail-on`'s alerts until it is resolved; if it comes back after that, it
/// is reopened and alerts again.
public enum FindingAcknowledgement {
    /// What was acknowledged.
    public struct Outcome: Sendable, Equatable {
        public var id: String
        public var note: String
        /// Machine clock, ms since 1970 UTC.
        public var acknowledgedAtMs: Int64
        /// The last recorded run (the history row's run).
        public var run: Int
        public var firstSeenRun: Int
        public var databasePath: String
        /// When it was acknowledged already: that note and its time (ms, machine clock), now replaced
        /// (`finding_history` keeps both).
        public var previousNote: String?
        public var previousAcknowledgedAtMs: Int64?
    }

    /// Acknowledges finding `id` of the ledger in `outputDirectory` (or `ledger`, `--ledger FILE`) with `note`,
    /// holding the folder's lock.
    /// Throws `AuditError.ledger` for no ledger, an unknown id (naming the nearest ones) or a resolved
    /// finding; `FolderBusy` while a run writes the folder (exit 75).
    /// `by`: who acknowledges it (stored with the note; the finding's action names them).
    public static func acknowledge(
        _ id: String, note: String, by: String? = nil, outputDirectory: String, ledger: String? = nil, nowMs: Int64
    ) throws -> Outcome {
        let databasePath = ledger ?? OutputFolder.normalized(outputDirectory) + "/audit.sqlite"
        guard FileManager.default.fileExists(atPath: databasePath) else {
            throw AuditError.ledger(databasePath, "no ledger here: run `iap-audit run … --out \(outputDirectory)` first")
        }
        let output = try OutputFolder(path: outputDirectory, ledger: ledger)
        let result: Acknowledgement
        do {
            result = try output.openStore().acknowledge(id, note: note, by: by, atMs: nowMs)
        } catch let damage as LedgerDamage where damage.key != nil {
            throw AuditError.ledger(
                databasePath,
                "\(damage): the ack stopped and changed nothing; repair: run again with the same inputs (a run writes the findings and "
                    + "their actions again; the runs, the records and the findings' history are kept), then ack")
        }
        switch result {
        case .acknowledged(let state, let run, let before):
            let again = before.status == .acknowledged
            return Outcome(
                id: state.id, note: note, acknowledgedAtMs: nowMs, run: run, firstSeenRun: state.firstSeenRun, databasePath: databasePath,
                previousNote: again ? before.note : nil, previousAcknowledgedAtMs: again ? before.acknowledgedAtMs : nil)
        case .resolved(let state):
            let at = state.resolvedAtMs.map { " at \(Timestamp.iso($0))" } ?? ""
            throw AuditError.ledger(
                databasePath,
                "finding \(id) is \(state.status.rawValue) (run \(state.resolvedRun ?? state.lastSeenRun)\(at)): nothing to acknowledge")
        case .unknown(let nearest, let holdsFindings):
            let list = nearest.map { "\($0.id) (\($0.status))" }.joined(separator: ", ")
            let near = nearest.isEmpty ? (holdsFindings ? "" : " (it holds no finding yet)") : "; nearest: \(list)"
            throw AuditError.ledger(databasePath, "no finding '\(id)' in this ledger" + near + "; ids are kind:transaction_id")
        }
    }
}
