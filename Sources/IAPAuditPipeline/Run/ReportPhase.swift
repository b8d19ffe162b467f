import Foundation
import IAPAuditModel
import IAPAuditReconcile
import IAPAuditReport
import IAPAuditStore

/// The run's last phase: the checks after reconciliation, then the findings stored and `audit.xlsx` written at once (a
/// close's run: the findings for its caller only), and the ledger said complete.
enum ReportPhase {
    static func run(_ observed: ObservedRun) throws -> AuditResult {
        let (warnings, diagnosed) = try checks(observed)
        // The workbook is written from the findings as reconciled while the store takes them (once its
        // indexes are built): both read the sorted findings at once.
        var reported = observed.parameters
        reported["run_status"] = "complete"  // what the store says once the workbook exists
        let snapshot =
            observed.plan.options.storesResults
            ? try storeAndPublish(observed, reported: reported, warnings: warnings)
            : try closeSnapshot(observed, reported: reported, warnings: warnings)
        let plan = observed.plan
        plan.timer.write()
        return AuditResult(
            snapshot: snapshot, asOfMs: observed.reconciled.outcome.asOfMs, databasePath: plan.output.databasePath,
            workbookPath: plan.output.workbookPath, filesParsed: observed.reconciled.imported.parsed, warnings: warnings,
            redaction: plan.options.redaction, read: diagnosed)
    }

    /// The warnings after reconciliation, and what this run read of each file, with the files it brought without reading
    /// them (what the summary prints of the rejected lines).
    private static func checks(_ observed: ObservedRun) throws -> (warnings: [RunWarning], read: [String: LedgerImporter.FileRead]) {
        let (reconciled, plan) = (observed.reconciled, observed.plan)
        let (imported, outcome, store, signatures) = (reconciled.imported, reconciled.outcome, plan.store, plan.signatures)
        // The checks read the store: its connection is the index builder's until it is done (one connection, one
        // thread at a time: it is opened NOMUTEX). Checking while it built crashed a 1M run in SQLite (signal 11).
        try reconciled.indexing.wait()
        var warnings = imported.warnings
        warnings += try RunChecks.afterReconcile(
            outcome, plan.options, store, unanchored: (signatures.jwsAnchorPaths.isEmpty, signatures.receiptAnchorPaths.isEmpty))
        warnings += try RunChecks.userCoverage(store, newFiles: imported.lifecycle.newFiles, read: imported.read)
        if outcome.signedRecordCount > 0 { warnings += signatures.warnings(forSources: try store.appleSources()) }
        let diagnosed = try UnrecordedImports.withBroughtUnread(imported.read, brought: imported.lifecycle.brought, store: store)
        plan.timer.lap("report_checks")
        return (warnings, diagnosed)
    }

    /// A close's run: the findings for its caller, from the spill, the parameters as a run stores them.
    private static func closeSnapshot(_ observed: ObservedRun, reported: [String: String], warnings: [RunWarning]) throws
        -> AuditSnapshot
    {
        let (plan, outcome) = (observed.plan, observed.reconciled.outcome)
        var snapshot = try AuditStore.snapshot(
            path: plan.output.databasePath, findings: try outcome.findings.stream(), parameters: reported, warnings: warnings)
        if plan.options.redaction != nil { snapshot.files = snapshot.files.map(\.keysRedacted) }
        try? FileManager.default.removeItem(atPath: plan.output.spillPath)
        try plan.store.endConcurrentReads()
        return snapshot
    }

    /// A run that stores its results: `audit.xlsx` written while the store takes the findings, then put in place beside
    /// a ledger that says complete. Returns the ledger's snapshot after.
    private static func storeAndPublish(_ observed: ObservedRun, reported: [String: String], warnings: [RunWarning]) throws
        -> AuditSnapshot
    {
        let (plan, outcome, indexing) = (observed.plan, observed.reconciled.outcome, observed.reconciled.indexing)
        let (options, store, output, recorded) = (plan.options, plan.store, plan.output, observed.recorded)
        var reported = reported
        // The outputs' redaction (a redacted ledger holds tokens already).
        let shown = options.redaction.flatMap { $0.ledger ? nil : $0.redactor }
        if let shown { reported["config"] = ConfigLoader.canonicalJSON(shown.config(options.config)) }
        var report = try AuditStore.snapshot(
            path: output.databasePath, findings: try outcome.findings.stream(), parameters: reported, warnings: warnings)
        report.changes = recorded?.changes
        if shown != nil { report.files = report.files.map(\.keysRedacted) }
        let storing = Background { [warnings, parameters = observed.parameters, prices = report.prices] in
            try indexing.wait()
            try store.replaceFindings(
                outcome.findings.forEach, parameters: parameters, warnings: warnings, lifecycle: recorded?.record,
                runInputs: recorded?.runInputs, prices: prices)
        }
        do {
            try output.writeWorkbook(ReportBuilder.workbook(report, redactor: shown))
        } catch {
            try? storing.wait()
            throw error
        }
        plan.timer.lap("report_workbook")
        // The workbook goes in place only beside a database that holds its findings and says complete:
        // a failure until then (a full disk) leaves the last run's workbook as it was and a database that says incomplete.
        do {
            try storing.wait()
            try? FileManager.default.removeItem(atPath: output.spillPath)
            try store.endConcurrentReads()
            // Complete first: a run killed between the two leaves the last run's workbook, not this one beside `incomplete`
            // (found by a user test killing runs the moment audit.xlsx appeared: 4 of 4 left it beside an incomplete ledger).
            try store.setRunParameter("run_status", "complete")
            if let run = recorded?.changes.run { try store.setRunParameter(UndeliveredPages.parameter, String(run)) }
            try output.publishWorkbook()
        } catch {
            output.discardWorkbook()
            try? store.setRunParameter("run_status", "incomplete")
            throw error
        }
        plan.timer.lap("report")
        var snapshot = try store.snapshot()
        snapshot.changes = recorded?.changes
        if options.redaction != nil { snapshot.files = snapshot.files.map(\.keysRedacted) }
        return snapshot
    }
}
