import Foundation
import IAPAuditModel
import IAPAuditReconcile
import IAPAuditStore

/// What reconciliation left: its outcome (the findings in their spill, the spans, the as-of), and the index build still
/// running on the ledger's connection.
struct ReconciledRun {
    let imported: ImportedRun
    let outcome: Reconciler.Outcome
    /// Builds the ledger's indexes after a bulk import, on the store's connection: wait for it before using the store.
    let indexing: Background

    var plan: RunPlan { imported.plan }
}

/// The run's third phase: `Reconciler.run` over the ledger's facts, while the store builds its indexes.
enum ReconcilePhase {
    static func run(_ imported: ImportedRun) throws -> ReconciledRun {
        let (plan, store, timer) = (imported.plan, imported.plan.store, imported.plan.timer)
        ImportProgress.phase("reconciling")
        // Reconciliation reads the facts on a second connection while this one builds the indexes.
        try store.beginConcurrentReads()
        let indexing = Background { if imported.bulk { try store.endBulkImport() } }
        let outcome: Reconciler.Outcome
        do {
            let options = plan.options
            outcome = try Reconciler.run(
                try store.factReader(), config: options.config, asOfMs: options.asOfMs, graceMs: options.graceMs,
                fromMs: options.fromMs, toMs: options.toMs, spillDirectory: plan.output.spillPath,
                carry: (plan.output.carryPath, imported.carryGeneration), manual: plan.manual, edges: true, lap: timer.lap)
        } catch {
            try? indexing.wait()  // the store is the index builder's until it is done
            throw error
        }
        timer.lap("reconcile")
        if let carry = outcome.carry {
            switch carry.mode {
            case .incremental: timer.note("reconcile_carry", "incremental: \(carry.computed) requests computed, the rest carried")
            case .full(let reason): timer.note("reconcile_carry", "full (\(reason)): \(carry.computed) requests computed")
            }
        }
        return ReconciledRun(imported: imported, outcome: outcome, indexing: indexing)
    }
}
