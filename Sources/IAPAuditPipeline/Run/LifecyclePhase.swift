import Foundation
import IAPAuditModel
import IAPAuditReconcile
import IAPAuditStore

/// What the lifecycle left for the report: the run's parameters as stored, and its changes against the last run.
struct ObservedRun {
    let reconciled: ReconciledRun
    /// The run's parameters (table `run_parameter`), `run_status` still `incomplete`.
    let parameters: [String: String]
    /// The findings' changes, the lifecycle's record and the inputs recorded as the run's; nil for a close's run.
    let recorded: (changes: RunChanges, record: LifecycleRecord?, runInputs: [(path: String, sha256: String)]?)?

    var plan: RunPlan { reconciled.plan }
}

/// The run's fourth phase: its parameters, and each finding judged new, still open, resolved or reopened
/// (`RunLifecycle.changes`; a close's run, which stores no result, judges none).
enum LifecyclePhase {
    static func run(_ reconciled: ReconciledRun) throws -> ObservedRun {
        let (plan, outcome) = (reconciled.plan, reconciled.outcome)
        ImportProgress.phase("writing audit.xlsx and storing the findings")
        var parameters = runParameters(plan, outcome)
        var recorded: (changes: RunChanges, record: LifecycleRecord?, runInputs: [(path: String, sha256: String)]?)?
        do {
            let observed = plan.options.storesResults ? reconciled.imported.lifecycle : nil
            recorded = try observed?.changes(
                outcome.findings, databasePath: plan.output.databasePath, asOfMs: outcome.asOfMs,
                nowMs: Int64(Date().timeIntervalSince1970 * 1000))
            if let changes = recorded?.changes, recorded?.record != nil {
                recorded?.changes.undelivered = try UndeliveredPages.findings(
                    changes, deliveredRun: plan.deliveredRun, reader: try LifecycleReader(path: plan.output.databasePath))
            }
            // Against the actions the last run stored, before this run replaces them (a repeated run records nothing).
            if let changes = recorded?.changes, recorded?.record != nil, changes.previousRun != nil {
                recorded?.changes.payable = try PayableChanges.list(
                    outcome.findings, changes: changes, reader: try LifecycleReader(path: plan.output.databasePath),
                    shown: plan.options.redaction.flatMap { $0.ledger ? nil : $0.redactor })
            }
        } catch {
            try? reconciled.indexing.wait()
            throw error
        }
        if let recorded {
            (parameters["run"], parameters["run_fingerprint"]) = (String(recorded.changes.run), recorded.changes.fingerprint)
            // `--fail-on-stale-runs`: the feeds this run brought records to. A repeated run records nothing: both parameters
            // stay as the last recorded run left them (the ledger unchanged; `RunAlerts` judges it from `feed_runs`).
            if recorded.changes.repeated {
                parameters[FeedRuns.parameter] = plan.feedRunsBefore.state.text
                parameters[FeedRuns.stoppedParameter] = plan.feedRunsBefore.stopped
            } else {
                let feeds = FeedRuns.after(plan.feedRunsBefore.state, newest: FeedRuns.newest(outcome))
                parameters[FeedRuns.parameter] = feeds.state.text
                if !feeds.stopped.isEmpty { parameters[FeedRuns.stoppedParameter] = FeedRuns.stoppedText(feeds.stopped) }
            }
        }
        plan.timer.lap("report_lifecycle")
        return ObservedRun(reconciled: reconciled, parameters: parameters, recorded: recorded)
    }

    /// The parameters a run stores (table `run_parameter`), but for its place in the lifecycle (`run`, `run_fingerprint`).
    private static func runParameters(_ plan: RunPlan, _ outcome: Reconciler.Outcome) -> [String: String] {
        let (options, signatures) = (plan.options, plan.signatures)
        var parameters = [
            "as_of": outcome.asOfMs.map(Timestamp.iso) ?? "none (no timestamped record)",
            "grace_hours": String(Double(options.graceMs) / 3_600_000),
            "audit_window": outcome.window.description,
            "config": ConfigLoader.canonicalJSON(options.config), "config_source": options.configSource,
            "schema_version": String(Schema.version),
            "tool_version": ToolVersion.current, "signature_settings": signatures.fingerprint,
            "jws_trust_anchors": signatures.jwsAnchorPaths.joined(separator: ", "),
            "receipt_trust_anchors": signatures.receiptAnchorPaths.joined(separator: ", "),
            // Complete only once the workbook is written too (`ReportPhase`).
            "run_status": "incomplete",
        ]
        if let redaction = options.redaction { parameters["redaction"] = redaction.parameter }
        // Kept with the run's parameters (which replace the run_parameter table): the next run compares its limits.
        if !options.limits.parameter.isEmpty { parameters["input_limits"] = options.limits.parameter }
        if options.asOfMs == nil, let newest = outcome.newestRecord {
            parameters["as_of_source"] = newest.location.description
        }
        // Feeds the ledger held a timed record of, at this run or an earlier one: one that holds none now (its file
        // emptied, forgotten) is judged stale all the same (`--fail-on-stale`).
        let feedsNow: [(RecordFeed, Bool)] = [
            (.clientReports, outcome.clientSpan != nil), (.serverLog, outcome.serverSpan != nil),
            (.appleRecords, outcome.newestReceivedMs != nil),
        ]
        parameters["feeds_seen"] = RecordFeed.seenText(plan.feedsSeenBefore.union(feedsNow.filter(\.1).map(\.0)))
        // Carried until this run's verdict is delivered (`ReportPhase` sets it to this run).
        if let delivered = plan.deliveredRun { parameters[UndeliveredPages.parameter] = String(delivered) }
        return parameters
    }
}
