import IAPAuditModel

/// What `iap-audit ack` did (`AuditStore.acknowledge`).
package enum Acknowledgement: Sendable {
    /// Marked known after run `run` (the last recorded), now `acknowledged`; `before`: the state it had
    /// (an earlier acknowledgement's note and time, when acknowledged again).
    case acknowledged(FindingState, run: Int, before: FindingState)
    /// No finding of that id; the nearest ids the ledger knows, each with its status; whether it holds any finding.
    case unknown(nearest: [(id: String, status: String)], holdsFindings: Bool)
    /// The finding is resolved: there is nothing to acknowledge until it reopens.
    case resolved(FindingState)
}

extension AuditStore {
    /// Marks finding `id` known (status `acknowledged`, `note`, at `atMs`, machine clock) and appends an
    /// `acknowledged` row to `finding_history` under the last recorded run, in one transaction. An open or
    /// acknowledged finding can be acknowledged (again: the note is replaced); a resolved or unknown one not.
    /// `by`: who (`ack --by`, else the login name); the finding's action (`finding_action`) says so too.
    package func acknowledge(_ id: String, note: String, by: String? = nil, atMs: Int64) throws -> Acknowledgement {
        try database.transaction {
            let q = try database.prepare("SELECT \(LifecycleReader.stateColumns) FROM finding_state WHERE finding_id = ?1")
            q.bind([id])
            guard try q.step() else {
                let holds = try database.scalar("SELECT count(*) FROM (SELECT 1 FROM finding_state LIMIT 1)") > 0
                return .unknown(nearest: try nearestFindingIds(to: id), holdsFindings: holds)
            }
            var state = LifecycleReader.state(q)
            guard !state.status.isClosed else { return .resolved(state) }
            let run = try lastRun()?.run ?? state.lastSeenRun
            let before = state
            (state.status, state.acknowledgedAtMs, state.note, state.acknowledgedBy) = (.acknowledged, atMs, note, by)
            try database.prepare(Self.stateInsert).run(Self.values(state))
            try joinActionsWithLifecycle(id)
            try database.prepare(Self.historyInsert).run(
                Self.values(run: run, FindingChange(event: .acknowledged, state: state, detail: note), atMs: atMs))
            return .acknowledged(state, run: run, before: before)
        }
    }

    /// The ids the ledger knows nearest to `text` (at most `limit`, each with its status): those of the same
    /// transaction id, those containing `text`, and its neighbours in byte order within an edit distance of a third
    /// of its length (at least 2: a neighbour of a nonsense id is no suggestion), nearest by edit distance.
    package func nearestFindingIds(to text: String, limit: Int = 5) throws -> [(id: String, status: String)] {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        let transaction = parts.count > 1 ? String(parts[1]) : text
        var candidates: [String: (status: String, related: Bool)] = [:]
        for (sql, value, related) in [
            ("SELECT finding_id, status FROM finding_state WHERE transaction_id = ?1 LIMIT 50", transaction, true),
            ("SELECT finding_id, status FROM finding_state WHERE instr(finding_id, ?1) > 0 LIMIT 50", text, true),
            ("SELECT finding_id, status FROM finding_state WHERE finding_id >= ?1 ORDER BY finding_id LIMIT 10", text, false),
            ("SELECT finding_id, status FROM finding_state WHERE finding_id < ?1 ORDER BY finding_id DESC LIMIT 10", text, false),
        ] {
            let q = try database.prepare(sql)
            q.bind([value])
            while try q.step() { candidates[q.text(0)] = (q.text(1), related || candidates[q.text(0)]?.related == true) }
        }
        let near = max(2, text.utf8.count / 3)
        let ranked = candidates.map {
            (
                id: $0.key, status: $0.value.status, related: $0.value.related,
                distance: Self.editDistance(Array(text.utf8), Array($0.key.utf8))
            )
        }
        .filter { $0.related || $0.distance <= near }
        let nearest = ranked.sorted {
            $0.distance != $1.distance ? $0.distance < $1.distance : $0.id.utf8.lexicographicallyPrecedes($1.id.utf8)
        }
        return nearest.prefix(limit).map { ($0.id, $0.status) }
    }

    /// Levenshtein distance between two byte strings.
    static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        guard !a.isEmpty else { return b.count }
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, y) in b.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
