import Foundation
import IAPAuditModel
import IAPAuditPipeline

/// What a run changed in the findings' lifecycle, in the run's summaries: text for people, a JSON object.
enum ChangesSummary {
    /// Ids listed per event in the text (the Changes sheet, `--json` and table `finding_history` have them all).
    static let listed = 20

    static func text(_ c: RunChanges) -> [String] {
        // New and reopened split into problems and info: the alert counts problem findings only (info never alerts).
        // Expired findings (a grace ran out) are counted when there are any.
        let events = [LifecycleEvent.new, .stillOpen, .resolved, .reopened] + (c.count(.expired) > 0 ? [.expired] : [])
        let counts = events.map { event -> String in
            // Counted, not copied: a night that lost a log has as many changes as the ledger has findings.
            var (count, problems) = (0, 0)
            for i in c.changes.indices where c.changes[i].event == event {
                count += 1
                if c.changes[i].state.isProblem { problems += 1 }
            }
            let split =
                (event == .new || event == .reopened) && problems < count
                ? " (\(problems) problems, \(count - problems) info)" : ""
            return "\(count) \(words(event))" + split
        }
        let acknowledged = c.acknowledged.count
        let against = c.previousRun.map { "against run \($0)" } ?? "the ledger's first run (every finding is new)"
        var lines = [
            c.repeated
                ? "Changes: run \(c.run) again (the same inputs and parameters: nothing recorded), \(against):"
                : "Changes: run \(c.run), \(against):",
            "  " + counts.joined(separator: ", ") + (acknowledged > 0 ? "; \(acknowledged) of this run's findings acknowledged" : ""),
        ]
        for event in [LifecycleEvent.new, .reopened, .resolved, .expired, .stillOpen] {
            // Problem findings first: an info finding takes none of the listed lines a problem needs.
            let problems = Array(
                c.changes.indices.lazy.filter { c.changes[$0].event == event && c.changes[$0].state.isProblem }.prefix(listed))
            let info = c.changes.indices.lazy.filter { c.changes[$0].event == event && !c.changes[$0].state.isProblem }
            for i in problems + info.prefix(listed - problems.count) {
                lines.append(
                    "  \(words(event).padding(toLength: 10, withPad: " ", startingAt: 0)) \(RunSummary.printable(line(c.changes[i])))")
            }
            if c.count(event) > listed {
                // The Changes sheet lists every change; the findings still open as before are on the finding sheets.
                let whereListed = event == .stillOpen ? "the finding sheets, status open or acknowledged" : "Changes sheet"
                lines.append(
                    "  \(words(event).padding(toLength: 10, withPad: " ", startingAt: 0)) … and \(c.count(event) - listed) more (\(whereListed))"
                )
            }
        }
        lines += payable(c)
        // What needs someone now: the problem findings open and not acknowledged (info findings never alert).
        var (current, problems, waiting) = (0, 0, 0)
        for i in c.changes.indices where !c.changes[i].event.isGone {
            current += 1
            if c.changes[i].state.isProblem {
                problems += 1
                if c.changes[i].state.status == .open { waiting += 1 }
            }
        }
        lines.append(
            "  open now: \(waiting) problem finding(s) not acknowledged, \(problems - waiting) acknowledged, "
                + "\(current - problems) info")
        return lines
    }

    /// The findings that became payable (`RunChanges.payable`: `ask_apple` at the last run, `credit` now), one line each,
    /// the first `listed`, then how many more: `became payable: 1 (ask_apple → credit)`, then `  payable    <finding_id>
    /// <transaction_id> to u1: com.example.gems ×1, USD 4.99: <because>`.
    static func payable(_ c: RunChanges) -> [String] {
        guard !c.payable.isEmpty else { return [] }
        var lines = ["  became payable: \(c.payable.count) (ask_apple → credit: an Apple record now confirms the payment)"]
        for p in c.payable.prefix(listed) {
            let a = p.action
            let what = [
                a.productId.map { $0 + (a.quantity.map { " ×\($0)" } ?? "") },
                a.amountMilliunits.flatMap { m in a.currency.map { Money(milliunits: m, currency: $0).description } },
            ]
            let parts = what.compactMap { $0 }.joined(separator: ", ")
            lines.append(
                "  payable    " + RunSummary.printable("\(p.findingId) \(a.transactionId) to \(a.userId ?? "no named user")")
                    + (parts.isEmpty ? "" : ": " + RunSummary.printable(parts)) + ": " + RunSummary.printable(a.because))
        }
        if c.payable.count > listed { lines.append("  payable    … and \(c.payable.count - listed) more (Changes sheet)") }
        return lines
    }

    /// One change: its id and what the event says (the reason, or what resolved it).
    static func line(_ change: FindingChange) -> String {
        let s = change.state
        switch change.event {
        case .resolved, .expired:
            let at = s.resolvedAtMs.map { " at \(Timestamp.iso($0))" } ?? ""
            // The history's detail: by which records, and what the transaction's finding is now (a pending
            // verification past the grace is a verification backlog: resolved under its old id, not settled).
            return s.id + at + ": " + change.detail
        case .stillOpen where change.reasonWas?.isEmpty == false:
            return s.id + "  " + s.reason + " (was \(change.reasonWas!))" + (s.status == .acknowledged ? " (acknowledged)" : "")
        default:
            return s.id + "  " + s.reason + (s.status == .acknowledged ? " (acknowledged)" : "")
        }
    }

    static func words(_ event: LifecycleEvent) -> String {
        switch event {
        case .new: return "new"
        case .reopened: return "reopened"
        case .resolved: return "resolved"
        case .expired: return "expired"
        case .stillOpen: return "still open"
        case .acknowledged: return "acknowledged"
        }
    }

    static func json(_ c: RunChanges) -> [String: Any] {
        var object: [String: Any] = [
            "run": c.run, "previous_run": c.previousRun.map { $0 as Any } ?? NSNull(), "repeated": c.repeated,
            "fingerprint": c.fingerprint, "recorded_at": Timestamp.iso(c.recordedAtMs), "acknowledged": c.acknowledged,
            "counts": Dictionary(
                uniqueKeysWithValues: LifecycleEvent.allCases.filter { $0 != .acknowledged }.map { ($0.rawValue, c.count($0)) }
            )
            .merging(["acknowledged": c.acknowledged.count]) { a, _ in a },
        ]
        for event in [LifecycleEvent.new, .reopened, .stillOpen, .expired] { object[event.rawValue] = c.ids(event) }
        // Each finding that became payable: its action (`FindingAction.jsonObject`) with its `finding_id`.
        object["payable"] = c.payable.map { p in p.action.jsonObject.merging(["finding_id": p.findingId]) { a, _ in a } }
        object["resolved"] = c.changes.indices.filter { c.changes[$0].event == .resolved }.map {
            let s = c.changes[$0].state
            return [
                "finding_id": s.id, "resolved_at": s.resolvedAtMs.map { Timestamp.iso($0) as Any } ?? NSNull(),
                "evidence": s.resolvedEvidence,
            ] as [String: Any]
        }
        return object
    }
}
