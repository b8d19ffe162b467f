import Foundation
import IAPAuditModel
import IAPAuditStore

/// `iap-audit ask-apple`'s ledger side: the open claims only Apple can decide.
public enum AskAppleClaims {
    /// The open `ask_apple` findings of the ledger at `ledgerPath` that name a transaction: (finding id, transaction id),
    /// by finding id. Read under the folder's shared lock, as `trace` reads (it waits for a run writing the ledger).
    /// - Throws: `AuditError.ledger` (missing, not iap-audit's, another version).
    public static func open(ledgerPath: String, onWait: (String) -> Void = { _ in }) throws -> [(findingId: String, transactionId: String)]
    {
        let folder = (ledgerPath as NSString).deletingLastPathComponent
        let lock =
            TracePipeline.mayBeLedger(ledgerPath) ? try FolderLock.shared(folder: folder.isEmpty ? "." : folder, onWait: onWait) : nil
        defer { if let lock { close(lock) } }
        return try AuditStore.openAskAppleClaims(ledgerPath: ledgerPath)
    }
}
