import Foundation
import IAPAuditModel
import IAPAuditReconcile
import IAPAuditStore

/// What the import left for reconciliation: the files read, the warnings so far, the lifecycle's view of the inputs.
struct ImportedRun {
    let plan: RunPlan
    /// Files parsed in this run.
    let parsed: Int
    /// The import dropped the ledger's indexes (`AuditStore.endBulkImport` builds them again).
    let bulk: Bool
    /// What this run read of each file it read, by path (`UnrecordedImports.widened`).
    let read: [String: LedgerImporter.FileRead]
    /// The request carry's generations: the last run's and this one's (`RequestCarry`).
    let carryGeneration: RequestCarry.Generation
    /// The plan's warnings and the import's: vanished inputs, pending ones carried on.
    let warnings: [RunWarning]
    /// This run's identity against the last recorded run's (`RunIdentity`), read before reconciliation.
    let lifecycle: RunLifecycle
}

/// The run's second phase: the given files into the ledger (`LedgerImporter`: only what changed since the last run).
enum ImportPhase {
    static func run(_ plan: RunPlan) throws -> ImportedRun {
        let (options, store, timer) = (plan.options, plan.store, plan.timer)
        let (parsed, bulk, vanished, imported, followed) = try LedgerImporter(
            store: store, checker: plan.signatures.checker, rereadAll: plan.settingsChanged,
            reread: Set(options.reread.map { [$0] } ?? []), metrics: timer.metrics,
            scratchDirectory: plan.output.spillPath, limits: options.limits, rereadCut: plan.limitsChanged,
            forgetMissing: options.forgetMissing, redactor: options.redaction.flatMap { $0.ledger ? $0.redactor : nil },
            pending: plan.pending
        )
        .importEntries(plan.entries)
        let read = try UnrecordedImports.widened(imported, stored: followed, store: store)
        let carried = PendingWarnings.carried(plan.pending, read: Set(read.keys), given: Set(plan.entries.map(\.path)), said: vanished)
        if !plan.pending.isEmpty || vanished.contains(where: { PendingWarnings.codes.contains($0.code) }) {
            try store.setRunParameter(PendingWarnings.parameter, PendingWarnings.encode(vanished + carried))
        }
        timer.lap("import_files")
        try store.setRunParameter("signature_settings", plan.signatures.fingerprint)
        try store.setRunParameter("input_limits", options.limits.parameter)
        // The carry a run left is for the ledger as that run left it.
        let generation = try store.advanceCarryGeneration()
        let lifecycle = try RunLifecycle(store, options, signatures: plan.signatures.fingerprint, manual: plan.manual, read: read)
        timer.lap("import")
        return ImportedRun(
            plan: plan, parsed: parsed, bulk: bulk, read: read,
            carryGeneration: RequestCarry.Generation(previous: generation.previous, next: generation.next),
            warnings: plan.warnings + vanished + carried, lifecycle: lifecycle)
    }
}
