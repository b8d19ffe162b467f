import Foundation
import IAPAuditModel
import IAPAuditStore

/// `iap-audit resolve`: records what a person did about a purchase (table `manual_action`, never changed): evidence
/// the next run reads (docs/semantics.md rule 25) and every trace shows. `ack` only says a finding is known; this says
/// what was done.
public enum ManualResolution {
    /// What was recorded, and what the ledger said of the transaction then.
    public struct Outcome: Sendable {
        public var action: ManualAction
        public var databasePath: String
        /// The open or acknowledged findings on the transaction (`kind:transaction_id` ids), which the next run judges again.
        public var openFindings: [String]
        /// Earlier actions about the same transaction, oldest first.
        public var earlier: [ManualAction]
        /// What the last run's findings on it called for (`finding_action` codes: `ask_apple`, `credit`…).
        public var calledFor: Set<String> = []
    }

    /// Records `action` in the ledger of `outputDirectory` (or `ledger`), holding the folder's lock.
    /// Throws `AuditError.ledger` for no ledger, a transaction id no record or finding of the ledger names (a typo or a
    /// spreadsheet-mangled id must not land on a purchase), or a `userId` the ledger ties the transaction to no record of
    /// while it names others; `FolderBusy` while a run writes the folder (exit 75).
    public static func record(_ action: ManualAction, outputDirectory: String, ledger: String? = nil) throws -> Outcome {
        let databasePath = ledger ?? OutputFolder.normalized(outputDirectory) + "/audit.sqlite"
        guard FileManager.default.fileExists(atPath: databasePath) else {
            throw AuditError.ledger(databasePath, "no ledger here: run `iap-audit run … --out \(outputDirectory)` first")
        }
        let output = try OutputFolder(path: outputDirectory, ledger: ledger)
        let store = try output.openStore()
        let known = try store.transactionUsers(action.transactionId)
        guard let users = known else {
            throw AuditError.ledger(
                databasePath,
                "no record or finding of this ledger names transaction \(action.transactionId): nothing recorded (check the id with "
                    + "`iap-audit trace \(action.transactionId)`; an id pasted through a spreadsheet loses its last digits)")
        }
        if let user = action.userId, !users.isEmpty, !users.contains(user) {
            throw AuditError.ledger(
                databasePath,
                "the ledger ties transaction \(action.transactionId) to \(users.sorted().joined(separator: ", ")), not to \(user): nothing "
                    + "recorded (check the ticket's account and the id)")
        }
        let earlier = try store.manualActions(about: action.transactionId)
        var action = action
        if action.userId == nil && users.count == 1 { action.userId = users.first }
        let recorded = try store.record(action)
        return Outcome(
            action: recorded, databasePath: databasePath, openFindings: try store.unresolvedFindingIds(of: action.transactionId),
            earlier: earlier, calledFor: try store.actionCodes(of: action.transactionId))
    }
}
