/// What a run changed in the ledger's findings (the Changes sheet, the summaries, `run --fail-on`).
public struct RunChanges: Sendable, Equatable {
    /// The run's number in this ledger (table `audit_run`).
    public var run: Int
    /// The run compared against; nil on the ledger's first run (every finding is new).
    public var previousRun: Int?
    /// The run had the same inputs and parameters as the last recorded one (`run`): nothing was recorded,
    /// and these are that run's changes, with the findings' states as they are now.
    public var repeated: Bool
    /// The run's identity: SHA-256 of its inputs and parameters (docs/operations.md).
    public var fingerprint: String
    /// When the run was recorded (machine clock), ms since 1970 UTC.
    public var recordedAtMs: Int64
    /// In `LifecycleEvent` order, then by id.
    public var changes: [FindingChange]
    /// The files whose content the last recorded run did not have (new, changed or grown; skipped ones too: a
    /// copy delivered again), by path: what this run brought (`--fail-on-rejected` looks at their rejected lines;
    /// the text summary lists them). Empty for a repeated run.
    public var newFiles: [String] = []
    /// The findings that became payable: the action the last recorded run stored was `ask_apple`, this run's is `credit`
    /// (an Apple record came that confirms what only the client claimed), in table order. Empty for a ledger's first run
    /// and a repeated one.
    public var payable: [Payable] = []
    /// The findings first found (or reopened) by recorded runs that never delivered their verdict (killed after storing
    /// their findings, before completing) and still open, as this run found them: their page was never given, so this
    /// run gives it (`run --fail-on new`). Empty for a repeated run.
    public var undelivered: [FindingChange] = []

    /// A finding that became payable, and its action now (priced; its user as the outputs show it).
    public struct Payable: Sendable, Equatable {
        public var findingId: String
        public var action: FindingAction

        public init(findingId: String, action: FindingAction) { (self.findingId, self.action) = (findingId, action) }
    }

    public init(run: Int, previousRun: Int?, repeated: Bool, fingerprint: String, recordedAtMs: Int64, changes: [FindingChange]) {
        (self.run, self.previousRun, self.repeated, self.fingerprint) = (run, previousRun, repeated, fingerprint)
        (self.recordedAtMs, self.changes) = (recordedAtMs, changes)
    }

    // The changes are read by index, a field at a time: a loop over the elements copies each change whole (its
    // state's texts retained and released), and a night has as many changes as the ledger has findings.

    /// The ids of one event, in order.
    public func ids(_ event: LifecycleEvent) -> [String] {
        changes.indices.filter { changes[$0].event == event }.map { changes[$0].state.id }
    }

    public func count(_ event: LifecycleEvent) -> Int {
        var n = 0
        for i in changes.indices where changes[i].event == event { n += 1 }
        return n
    }

    /// The findings of this run (new, reopened, still open) that are acknowledged.
    public var acknowledged: [String] {
        changes.indices.filter { !changes[$0].event.isGone && changes[$0].state.status == .acknowledged }.map { changes[$0].state.id }
    }

    /// What a finding sheet shows of a finding's lifecycle: status (`open` or `acknowledged`), the run that first found
    /// it, the acknowledgement's note.
    public struct Listing: Sendable, Equatable {
        public var status: FindingStatus
        public var firstSeenRun: Int
        public var note: String?
        /// Who acknowledged it, and when (ms since 1970 UTC).
        public var acknowledgedBy: String? = nil
        public var acknowledgedAtMs: Int64? = nil

        public init(status: FindingStatus, firstSeenRun: Int, note: String? = nil) {
            (self.status, self.firstSeenRun, self.note) = (status, firstSeenRun, note)
        }

        /// What to do about its finding: `action` joined with this lifecycle (`FindingAction.joined`).
        public func joined(_ action: FindingAction) -> FindingAction {
            action.joined(status: status, note: note, by: acknowledgedBy, atMs: acknowledgedAtMs)
        }
    }

    /// The listing of each finding of this run, by id.
    public var listingById: [String: Listing] {
        // Built in place, of a few fields each: a night that lost a log has as many changes as the ledger has findings.
        var listings: [String: Listing] = [:]
        listings.reserveCapacity(changes.count)
        for i in changes.indices where !changes[i].event.isGone && listings[changes[i].state.id] == nil {
            let state = changes[i].state
            var listing = Listing(status: state.status, firstSeenRun: state.firstSeenRun, note: state.note)
            (listing.acknowledgedBy, listing.acknowledgedAtMs) = (state.acknowledgedBy, state.acknowledgedAtMs)
            listings[state.id] = listing
        }
        return listings
    }
}
