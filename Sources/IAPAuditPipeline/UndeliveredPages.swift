import IAPAuditModel
import IAPAuditStore

/// Pages a run that did not complete never gave. A run stores its findings and their lifecycle in one transaction, then
/// writes its workbook, says `run_status = complete`, and only then is its verdict printed and its exit status given. A
/// run killed in between (a kill -9, a full disk while writing the workbook) stored its new findings as new: the next run
/// finds them open and would not page them (found by the night-by-night simulation: about one kill in five lost its
/// page for good). So each run records, beside `complete`, the last run whose verdict was delivered (run parameter
/// `delivered_run`, carried by every run's parameters), and a run after undelivered ones pages again what they found
/// new and is still open.
enum UndeliveredPages {
    static let parameter = "delivered_run"

    /// The last run whose verdict was delivered: the parameter; 0 for a ledger with no recorded run; nil when not known
    /// (a ledger of an earlier iap-audit: nothing is paged again).
    static func deliveredRun(_ store: AuditStore) throws -> Int? {
        if let text = try store.runParameter(parameter) { return Int(text) }
        return try store.lastRun() == nil ? 0 : nil
    }

    /// This run's open findings that the runs after `deliveredRun` (up to the last recorded one) found new or reopened.
    static func findings(_ changes: RunChanges, deliveredRun: Int?, reader: LifecycleReader) throws -> [FindingChange] {
        guard let delivered = deliveredRun, let last = changes.previousRun, delivered < last else { return [] }
        var found = Set<String>()
        for run in (delivered + 1)...last {
            for change in try reader.changes(ofRun: run) where change.event == .new || change.event == .reopened {
                found.insert(change.state.id)
            }
        }
        return changes.changes.filter { $0.event == .stillOpen && found.contains($0.state.id) }
    }
}
