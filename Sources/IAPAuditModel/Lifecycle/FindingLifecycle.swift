/// How a run moves the ledger's findings along their lifecycle (docs/findings.md, Lifecycle): the findings
/// of this run against the states the last recorded run left.
///
/// | before this run                 | in this run | event        | status after            |
/// |---------------------------------|-------------|--------------|-------------------------|
/// | never seen                      | yes         | `new`        | open                    |
/// | open or acknowledged            | yes         | `still_open` | unchanged (a history row only when its reason changed) |
/// | resolved or expired             | yes         | `reopened`   | open (the ack is spent) |
/// | open or acknowledged            | no          | `resolved`   | resolved                |
/// | open or acknowledged, a pending kind whose grace ran out | no, its problem is | `expired` | expired |
/// | resolved or expired             | no          | nothing      | unchanged               |
public enum FindingLifecycle {
    /// One finding of this run: its id and what the state keeps of it.
    public struct Current: Sendable, Equatable {
        public var id: String
        public var kind: FindingKind
        public var transactionId: String
        public var reason: String

        public init(id: String, kind: FindingKind, transactionId: String, reason: String) {
            (self.id, self.kind, self.transactionId, self.reason) = (id, kind, transactionId, reason)
        }
    }

    /// What resolved a finding: the new records of its transaction that this run imported (`file:line`),
    /// and when (the earliest of their times; without one, the run's as-of).
    public struct Resolution: Sendable, Equatable {
        public var atMs: Int64?
        public var evidence: [String]

        public init(atMs: Int64?, evidence: [String]) { (self.atMs, self.evidence) = (atMs, evidence) }
    }

    /// The changes of run `run`, ordered by event (`LifecycleEvent` order) then id (bytes).
    /// - Parameters:
    ///   - current: this run's findings (ids unique).
    ///   - previous: the findings open or acknowledged after the last recorded run (ids unique: table `finding_state`'s key).
    ///   - earlier: the states of the findings of these ids resolved or expired before (asked once, for every id of
    ///     `current` not in `previous`; an id absent: never seen).
    ///   - resolve: what resolved the findings of `previous` this run does not have (by id; one absent:
    ///     no new record, resolved at `asOfMs` — or expired, for a pending kind whose transaction has a finding now).
    ///   - asOfMs: this run's as-of.
    ///   - inputsGone: the files the last recorded run had that the ledger no longer holds (dropped by
    ///     `--forget-missing`): named in what resolved a finding without a new record.
    public static func changes(
        run: Int, current: [Current], previous: [FindingState], earlier: ([String]) throws -> [String: FindingState],
        resolve: ([FindingState]) throws -> [String: Resolution], asOfMs: Int64?, inputsGone: [String] = []
    ) throws -> [FindingChange] {
        // Ids compare as exact bytes (rule 1), as everywhere in the ledger. Positions in `previous`, not copies of its
        // states: a night that lost a log has as many as the ledger has findings (docs/performance.md).
        var open: [ExactText: Int] = [:]
        open.reserveCapacity(previous.count)
        for (index, state) in previous.enumerated() { open[ExactText(state.id)] = index }
        // Kept for what a resolved finding's detail names: a finding open before this run is none it became (found by an
        // on-call user test: "it is invalid_credit:… now" named one open since run 4).
        let openBefore = open
        var changes: [FindingChange] = []
        changes.reserveCapacity(current.count)
        var seen = [Bool](repeating: false, count: previous.count)
        let resolvedBefore = try earlier(current.lazy.filter { open[ExactText($0.id)] == nil }.map(\.id))
        for f in current {
            if let index = open[ExactText(f.id)] {
                seen[index] = true
                var state = previous[index]
                let reasonWas = state.reason == f.reason ? nil : state.reason
                (state.lastSeenRun, state.reason) = (run, f.reason)
                var detail = f.reason + (reasonWas.map { " (was \($0))" } ?? "")
                if state.status == .acknowledged { detail += " (acknowledged: \(state.note ?? ""))" }
                changes.append(FindingChange(event: .stillOpen, state: state, detail: detail, reasonWas: reasonWas))
            } else if var state = resolvedBefore[f.id] {
                let resolvedIn = state.resolvedRun.map { " (\(state.status.rawValue) in run \($0))" } ?? ""
                (state.status, state.lastSeenRun, state.reason) = (.open, run, f.reason)
                (state.acknowledgedAtMs, state.note, state.acknowledgedBy) = (nil, nil, nil)
                changes.append(FindingChange(event: .reopened, state: state, detail: f.reason + resolvedIn))
            } else {
                let state = FindingState(
                    id: f.id, kind: f.kind.rawValue, transactionId: f.transactionId, reason: f.reason, status: .open, firstSeenRun: run,
                    lastSeenRun: run)
                changes.append(FindingChange(event: .new, state: state, detail: f.reason))
            }
        }
        open = [:]
        let goneStates = previous.indices.filter { !seen[$0] }.map { previous[$0] }
        let resolutions = goneStates.isEmpty ? [:] : try resolve(goneStates)
        // This run's findings on a transaction whose finding went away: what it became (a pending verification
        // past the grace is a verification backlog or a dropped order now, under another id).
        let goneTransactions = Set(goneStates.map { ExactText($0.transactionId) })
        var now: [ExactText: [Current]] = [:]
        for f in current where goneTransactions.contains(ExactText(f.transactionId)) {
            now[ExactText(f.transactionId), default: []].append(f)
        }
        let gone =
            inputsGone.isEmpty
            ? ""
            : " (no longer in the ledger: \(inputsGone.prefix(3).joined(separator: ", "))"
                + (inputsGone.count > 3 ? " and \(inputsGone.count - 3) more" : "") + ")"
        for var state in goneStates {
            let resolution = resolutions[state.id] ?? Resolution(atMs: asOfMs, evidence: [])
            let found = now[ExactText(state.transactionId)] ?? []
            // A pending finding whose grace ran out, with no new record of its transaction: its problem is found now.
            let expired = resolution.evidence.isEmpty && Self.waits(state.kind) && !found.isEmpty
            state.status = expired ? .expired : .resolved
            (state.resolvedRun, state.resolvedAtMs, state.resolvedEvidence) = (run, resolution.atMs ?? asOfMs, resolution.evidence)
            let successors = found.map { f in
                "\(f.id) (\(f.reason)\(openBefore[ExactText(f.id)].map { ", open since run \(previous[$0].firstSeenRun)" } ?? ""))"
            }.joined(separator: ", ")
            if expired {
                let detail = "expired: no new record of \(state.transactionId) and its grace ran out; it is \(successors) now"
                changes.append(FindingChange(event: .expired, state: state, detail: detail))
                continue
            }
            let detail = resolvedDetail(resolution, successors: successors, transactionId: state.transactionId, gone: gone)
            changes.append(FindingChange(event: .resolved, state: state, detail: detail))
        }
        // In place: a sorted copy beside them doubled the peak on a night that changed every finding.
        changes.sort { $0.event != $1.event ? $0.event < $1.event : $0.state.id.utf8.lexicographicallyPrecedes($1.state.id.utf8) }
        return changes
    }

    /// A kind that waits for time to pass (`pending_verification`, rule 14; `pending_evidence`, rule 26): gone without a
    /// new record, while its transaction has a finding, it expired.
    private static func waits(_ kind: String) -> Bool {
        kind == FindingKind.pendingVerification.rawValue || kind == FindingKind.pendingEvidence.rawValue
    }

    /// What resolved a finding, in words: a person's action, new records, or what changed in the inputs (`gone`: the files
    /// no longer in the ledger, said) or parameters; `successors`: this run's findings on the transaction.
    private static func resolvedDetail(_ resolution: Resolution, successors: String, transactionId: String, gone: String) -> String {
        switch (resolution.evidence.isEmpty, successors.isEmpty) {
        case (true, true):
            return "no new record of \(transactionId): resolved by what changed in the inputs\(gone) or parameters"
        case (true, false):
            return "no new record of \(transactionId); it is \(successors) now: the as-of passed a grace, or the inputs\(gone) "
                + "or parameters changed"
        case (false, _) where resolution.evidence.allSatisfy({ $0.hasPrefix("manual action #") }):
            // A person's action (`iap-audit resolve`, rule 25).
            return "resolved by \(resolution.evidence.joined(separator: ", "))" + (successors.isEmpty ? "" : "; it is \(successors) now")
        case (false, _):
            return "resolved by \(resolution.evidence.count) new record(s): \(resolution.evidence.joined(separator: ", "))"
                + (successors.isEmpty ? "" : "; it is \(successors) now")
        }
    }

}
