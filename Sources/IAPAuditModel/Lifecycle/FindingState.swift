/// Where a finding stands in the ledger (`finding_state.status`).
public enum FindingStatus: String, Sendable, CaseIterable {
    /// Among the last recorded run's findings and not acknowledged: it alerts (`run --fail-on`).
    case open
    /// Not among the last recorded run's findings (the credit arrived, the refund was taken back…).
    case resolved
    /// Among the last recorded run's findings, marked known with `iap-audit ack`: reported, never alerting.
    case acknowledged
    /// Not among the last recorded run's findings because time passed: its grace ran out (a `pending_verification` is a
    /// `verification_backlog` now, a `pending_evidence` its problem), with no new record of its transaction.
    case expired

    /// Gone from the findings: resolved or expired (`iap-audit ack` has nothing to mark; found again, it reopens).
    public var isClosed: Bool { self == .resolved || self == .expired }
}

/// What happened to a finding (`finding_history.event`): a run's events, or an acknowledgement.
public enum LifecycleEvent: String, Sendable, CaseIterable, Comparable {
    /// First seen by this run.
    case new
    /// Resolved before, found again by this run: open again (an acknowledgement does not carry over).
    case reopened
    /// Found by the last recorded run, not by this one.
    case resolved
    /// Found by the last recorded run, not by this one because its grace ran out, with no new record of its transaction.
    case expired
    /// Found by the last recorded run and by this one (open or acknowledged).
    case stillOpen = "still_open"
    /// Marked known by `iap-audit ack` (not a run's event).
    case acknowledged

    /// The finding went away (resolved or expired).
    public var isGone: Bool { self == .resolved || self == .expired }

    /// The order the Changes sheet and the summaries list them in.
    public static func < (a: LifecycleEvent, b: LifecycleEvent) -> Bool { allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)! }
}

/// One finding's lifecycle across runs, as table `finding_state` keeps it. Runs are numbered 1, 2, 3… in
/// the order the ledger recorded them (table `audit_run`).
public struct FindingState: Sendable, Equatable {
    /// The stable id (`FindingIds`): `dropped_order:2000000400594083`.
    public var id: String
    /// `FindingKind` raw value.
    public var kind: String
    /// The purchase's key: the finding's `transaction_id`.
    public var transactionId: String
    /// The finding's reason when last seen.
    public var reason: String
    public var status: FindingStatus
    public var firstSeenRun: Int
    public var lastSeenRun: Int
    /// The run that last resolved or expired it (kept when it reopens: the history has every one).
    public var resolvedRun: Int?
    /// When it was resolved, ms since 1970 UTC: the time of the earliest resolving record, else the
    /// resolving run's as-of (`FindingLifecycle.Resolution`).
    public var resolvedAtMs: Int64?
    /// `file:line` of the records that resolved it: the new records of its transaction imported by the run
    /// that resolved it.
    public var resolvedEvidence: [String]
    /// When `iap-audit ack` marked it known (machine clock, ms since 1970 UTC), and the note given.
    public var acknowledgedAtMs: Int64?
    public var note: String?
    /// Who acknowledged it (`iap-audit ack --by`, else the login name); nil when not said.
    public var acknowledgedBy: String?

    public init(
        id: String, kind: String, transactionId: String, reason: String, status: FindingStatus, firstSeenRun: Int, lastSeenRun: Int,
        resolvedRun: Int? = nil, resolvedAtMs: Int64? = nil, resolvedEvidence: [String] = [], acknowledgedAtMs: Int64? = nil,
        note: String? = nil, acknowledgedBy: String? = nil
    ) {
        (self.id, self.kind, self.transactionId, self.reason, self.status) = (id, kind, transactionId, reason, status)
        (self.firstSeenRun, self.lastSeenRun, self.resolvedRun, self.resolvedAtMs) = (firstSeenRun, lastSeenRun, resolvedRun, resolvedAtMs)
        (self.resolvedEvidence, self.acknowledgedAtMs, self.note, self.acknowledgedBy) = (
            resolvedEvidence, acknowledgedAtMs, note, acknowledgedBy
        )
    }

    /// A problem kind (not info): the only findings that alert.
    public var isProblem: Bool { FindingKind(rawValue: kind).map { !$0.isInfo } ?? false }
}

/// What one run (or one `ack`) did to one finding: a row of `finding_history`, and of the Changes sheet.
public struct FindingChange: Sendable, Equatable {
    public var event: LifecycleEvent
    /// The finding's state after the event.
    public var state: FindingState
    /// `finding_history.detail`: the reason (new, still open, reopened), what resolved it, the ack's note.
    public var detail: String
    /// `still_open` only: the reason the last recorded run gave, when this run gives another (nil: the same
    /// reason). A still-open finding is written to `finding_history` only then: an unchanged one changes
    /// nothing but its `last_seen_run`.
    public var reasonWas: String?

    public init(event: LifecycleEvent, state: FindingState, detail: String, reasonWas: String? = nil) {
        (self.event, self.state, self.detail, self.reasonWas) = (event, state, detail, reasonWas)
    }

    /// A change `finding_history` keeps a row of (every event but a still-open finding whose reason is unchanged).
    public var isRecorded: Bool { event != .stillOpen || reasonWas != nil }
}
