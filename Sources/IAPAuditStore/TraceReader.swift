import Foundation
import IAPAuditModel

/// Reads what `iap-audit trace ID` shows from a ledger (README "Investigating one transaction") on a
/// read-only connection, through one index per kind of id (docs/schema.md, Indexes): which kinds of id
/// ID is, the transactions it leads to and, for each, every record about it and its findings.
///
/// A transaction's server requests are those that posted it or its original id (first among their
/// `transaction_ids`: the `server_request_ids` index; or any, among the requests of its users and
/// devices and the requests Apple's answers listing it answered), and those whose answer lists it.
package enum TraceReader {
    /// - Parameter lookup: the text looked up as a kind of id instead of `id` (`trace --redact`: a user id's
    ///   token on a redacted ledger, the user id a token stands for on a ledger of originals).
    /// - Throws: `AuditError.ledger` when the file is missing, not iap-audit's, or of another version.
    package static func read(id: String, ledgerPath: String, lookup: [TraceIdKind: String] = [:]) throws -> TraceResult {
        let db = try open(ledgerPath)
        var result = TraceResult(id: id, ledgerPath: ledgerPath)
        result.runParameters = try runParameters(db)
        result.unjudgedFiles = try unjudgedFiles(db)
        result.removedFiles = try removedFiles(db)
        if let first = result.removedFiles.first {
            result.notes.append(
                "\(result.removedFiles.count) file(s) the ledger's last run held lost their records since (emptied or forgotten, by "
                    + "a close or a run that did not complete; first: \(first)): the findings may rest on records no longer there, so "
                    + "no transaction is judged until the next run")
        }
        if let first = result.unjudgedFiles.first {
            result.notes.append(
                "\(result.unjudgedFiles.count) evidence file(s) were imported after the ledger's last run (by a close, or a run "
                    + "that did not complete; first: \(first)): their records are shown, but no finding judges them until the "
                    + "next run")
        }
        let queries = TraceQueries(db, bundleIds: bundleIds(result.runParameters["config"]))
        let (matches, transactionIds) = try resolve(id, lookup, queries)
        result.matches = matches
        do {
            result.transactions = try transactionIds.map { try trace($0, queries) }
        } catch let damage as LedgerDamage where damage.key != nil {
            // A finding or its action a run would not write (docs/security.md, A damaged ledger): the next run writes both again.
            throw AuditError.ledger(
                ledgerPath,
                "\(damage): the trace stopped and showed nothing of it; repair: run again with the same inputs (a run writes "
                    + "the findings and their actions again; the runs, the records and the findings' history are kept)")
        }
        // Lines the run rejected naming a traced transaction (found by a support user test: a server line rejected for its
        // `"granted": "yes"` left a "never sent" dropped order whose fix, the line, the trace did not show). Read for a few
        // transactions only: each is a scan of the rejections' text.
        if result.transactions.count <= TraceRejectedLine.transactionsSearched {
            for i in result.transactions.indices {
                result.transactions[i].rejectedLines = try TraceRejections.find([result.transactions[i].transactionId], queries).lines
            }
        }
        // An original id whose own purchase no record holds (only its renewals name it) is no transaction to judge: a
        // block with no record said "no action", and counted so.
        let isEmpty = { (t: TransactionTrace) in t.events.isEmpty && t.findings.isEmpty && t.resolvedFindings.isEmpty }
        let empty = result.transactions.filter(isEmpty)
        if !empty.isEmpty && empty.count < result.transactions.count {
            result.transactions.removeAll(where: isEmpty)
            result.notes.append(
                "no record is of transaction \(empty.map(\.transactionId).joined(separator: ", ")) itself (only others of its "
                    + "purchase name it, as their original id): not listed")
        }
        if matches.contains(where: { $0.kind == .userId || $0.kind == .deviceId }) {
            result.unattached = try queries.clientReports(
                where: "(c.user_id = ?1 OR c.device_id = ?2) AND c.transaction_id IS NULL",
                [lookup[.userId] ?? id, lookup[.deviceId] ?? id])
        }
        if matches.contains(where: { $0.kind == .orderId }) { result.unattached += try queries.orderAnswers(id) }
        // Oldest first, as a transaction's timeline (the query reads them in file and line order).
        result.unattached.sort(by: TraceEvent.timelineOrder)
        if matches.isEmpty {
            result.nearMatches = try TraceNearMatches.find(id, queries)
            (result.rejectedLines, result.moreRejectedLines) = try TraceRejections.find([id] + lookup.values, queries)
        }
        return result
    }

    /// `trace`'s indexes (`Schema.traceIndexNames`) the ledger lacks: a run that changed it dropped them.
    /// - Throws: as `read` does.
    package static func missingIndexes(ledgerPath: String) throws -> [String] {
        let q = try open(ledgerPath).prepare("SELECT name FROM sqlite_schema WHERE type = 'index'")
        var present = Set<String>()
        while try q.step() { present.insert(q.text(0)) }
        return Schema.traceIndexNames.filter { !present.contains($0) }
    }

    /// Builds `trace`'s indexes on a read-write connection, in one transaction; the caller holds the ledger folder's
    /// lock (no run is writing it). Two traces at once: the second waits for the first's build (up to 2 minutes:
    /// nine indexes take ~7 s at 1M transactions) and builds nothing.
    /// - Returns: whether this call built them (false: another trace had meanwhile).
    /// How long each of trace's connections waits for another's lock: as long as another trace's index build may hold
    /// it (its commit locks readers out; ~7 s at 1M transactions). With SQLite's 5 s, the reads of a trace started
    /// while another committed its indexes failed with "database is locked" (twice in about 5,000 runs). No run writes
    /// meanwhile: the folder's lock (`FolderLock`) keeps runs and traces apart.
    static let busyTimeoutMs: Int32 = 120_000

    @discardableResult package static func buildIndexes(ledgerPath: String) throws -> Bool {
        let db = try SQLiteDatabase(path: ledgerPath, busyTimeoutMs: busyTimeoutMs)
        try db.execute("PRAGMA cache_size = -16384;")
        return try db.transaction {
            let present = try db.prepare(
                "SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name IN ("
                    + Schema.traceIndexNames.map { "'\($0)'" }.joined(separator: ", ") + ")")
            guard try present.step(), present.int64(0) < Schema.traceIndexNames.count else { return false }
            try db.execute(Schema.traceIndexes)
            return true
        }
    }

    /// The evidence files (not App Store Connect's reports) with records that the last recorded run did not hold as they
    /// are (`source_file` against `run_input`), by path. None for a ledger of findings made before runs were recorded.
    static func unjudgedFiles(_ db: SQLiteDatabase) throws -> [String] {
        if try db.scalar("SELECT count(*) FROM audit_run") == 0, try db.scalar("SELECT count(*) FROM finding") > 0 { return [] }
        let reports = SourceKind.allCases.filter(\.isAppStoreConnectReport).map { "'\($0.rawValue)'" }.joined(separator: ", ")
        return try paths(
            db,
            "SELECT s.path FROM source_file s WHERE s.status = 'imported' AND s.records_imported > 0 AND s.kind NOT IN (\(reports)) "
                + "AND NOT EXISTS (SELECT 1 FROM run_input r WHERE r.path = s.path AND r.sha256 = s.sha256) ORDER BY s.path")
    }

    /// The files of the last recorded run (`run_input`) whose content the ledger holds nowhere now and whose path holds no
    /// record any more (emptied, or forgotten), by path.
    static func removedFiles(_ db: SQLiteDatabase) throws -> [String] {
        let empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"  // SHA-256 of no bytes
        return try paths(
            db,
            "SELECT r.path FROM run_input r WHERE r.sha256 != '\(empty)' "
                + "AND NOT EXISTS (SELECT 1 FROM source_file s WHERE s.sha256 = r.sha256) "
                + "AND NOT EXISTS (SELECT 1 FROM source_file s WHERE s.path = r.path AND s.records_imported > 0) ORDER BY r.path")
    }

    /// The first column of every row of `sql`, as text.
    private static func paths(_ db: SQLiteDatabase, _ sql: String) throws -> [String] {
        let q = try db.prepare(sql)
        var paths: [String] = []
        while try q.step() { paths.append(q.text(0)) }
        return paths
    }

    /// The ledger's last run's parameters (`run_parameter`).
    static func runParameters(_ db: SQLiteDatabase) throws -> [String: String] {
        var result: [String: String] = [:]
        let parameters = try db.prepare("SELECT name, value FROM run_parameter")
        while try parameters.step() { result[parameters.text(0)] = parameters.text(1) }
        return result
    }

    static func open(_ path: String) throws -> SQLiteDatabase {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw unreadable(path, "no such file (make it with `iap-audit run PATH … --out DIR`, then trace with --out DIR)")
        }
        guard !isFolder.boolValue else {
            throw unreadable(path, "a folder, not a ledger file (give --out DIR for DIR/audit.sqlite, or --ledger DIR/audit.sqlite)")
        }
        let db: SQLiteDatabase
        do {
            db = try readOnly(path)
            let version = try db.scalar("PRAGMA user_version")
            guard version > 0 else { throw unreadable(path, "not an iap-audit ledger") }
            let rerun = "run `iap-audit run PATH … --out DIR` into its folder again with this version, then trace"
            guard version <= Schema.version else {
                throw unreadable(
                    path,
                    "made by a newer iap-audit (schema \(version); this one reads schema \(Schema.version)): trace it with that version")
            }
            guard version == Schema.version else {
                throw unreadable(
                    path, "made by an older iap-audit (schema \(version); this one reads schema \(Schema.version)): \(rerun)")
            }
            guard try Schema.storedFingerprint(db) == Schema.tablesFingerprint else {
                throw unreadable(path, "made by another build of iap-audit (its tables differ from this one's): \(rerun)")
            }
        } catch let error as AuditError {
            throw error
        } catch {
            throw unreadable(path, "\(error)")
        }
        return db
    }

    /// A read-only connection that has read the schema. A run or close killed mid-write leaves a hot journal, which only
    /// a connection that may write rolls back (SQLite: "attempt to write a readonly database"): the trace holds the
    /// folder's lock, so no run is writing, and it rolls it back as the next run would, then reads (found by a user test:
    /// 2–6 of 40 kills left every trace failing until the next run). A ledger it may not write stays unreadable.
    private static func readOnly(_ path: String) throws -> SQLiteDatabase {
        do {
            let db = try SQLiteDatabase(path: path, readOnly: true, busyTimeoutMs: busyTimeoutMs)
            _ = try db.scalar("SELECT count(*) FROM sqlite_schema")
            return db
        } catch let error as SQLiteError where error.isReadOnly && FileManager.default.fileExists(atPath: path + "-journal") {
            do {
                _ = try SQLiteDatabase(path: path, busyTimeoutMs: busyTimeoutMs).scalar("SELECT count(*) FROM sqlite_schema")
            } catch {
                throw AuditError.ledger(
                    path,
                    "cannot read the ledger: a run was stopped while writing it (\(path)-journal), and only a user who may write "
                        + "the ledger can roll that back: run iap-audit run again on the same inputs, then trace")
            }
            return try SQLiteDatabase(path: path, readOnly: true, busyTimeoutMs: busyTimeoutMs)
        }
    }

    /// `AuditError.ledger`: `<path>: error: cannot read the ledger: <why>`.
    private static func unreadable(_ path: String, _ why: String) -> AuditError { .ledger(path, "cannot read the ledger: " + why) }

    /// The config's bundle ids (the run parameter `config`, canonical JSON).
    private static func bundleIds(_ config: String?) -> Set<String> {
        guard let data = config?.data(using: .utf8), let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return [] }
        return Set(object["bundle_ids"] as? [String] ?? [])
    }

    // MARK: One transaction

    static func trace(_ transactionId: String, _ q: TraceQueries) throws -> TransactionTrace {
        var trace = TransactionTrace(transactionId: transactionId)
        let clients = try q.clientReports(where: "c.transaction_id = ?1", [transactionId])
        let listings = try q.listings(of: transactionId)
        var original: String? = nil
        var product: String? = nil
        // A listing below the trust level the rules need names no original id or product, and those of the highest level
        // present name them (docs/security.md, "Trust levels").
        let top = listings.compactMap(\.1.level).filter(\.counts).max()
        for event in listings.map(\.1).filter({ $0.unproven == nil && $0.level == top }) + clients {
            switch event.detail {
            case .apple(let a):
                original = original ?? a.listing?.originalTransactionId
                product = product ?? a.listing?.productId
            case .client(let c): product = product ?? c.productId
            case .request: break
            }
        }
        let own = try q.findings(of: transactionId, original: nil)
        original = original ?? own.lazy.compactMap(\.0.originalTransactionId).first
        let findings = try q.findings(of: transactionId, original: original)
        (trace.findings, trace.findingStates, trace.findingActions) = (findings.map(\.0), findings.map(\.1), findings.map(\.2))
        trace.resolvedFindings = try q.resolvedFindings(of: transactionId)
        trace.manualActions = try q.manualActions(about: transactionId)
        trace.originalTransactionId = original
        trace.productId = product ?? trace.findings.lazy.compactMap(\.productId).first
        let posted = [transactionId] + (original.map { $0.utf8.elementsEqual(transactionId.utf8) ? [] : [$0] } ?? [])
        // Ids compare as exact bytes (`ExactText`): two users differing only by normalization are two users.
        let answered = Set(
            listings.compactMap { event -> ExactText? in
                guard case .apple(let a) = event.1.detail, event.1.unproven == nil else { return nil }
                return a.requestId.map(ExactText.init)
            })
        var candidates: [TraceEvent] = []
        var users = Set(trace.findings.flatMap(\.userIds).map(ExactText.init))
        var devices = Set<ExactText>()
        for event in clients {
            if case .client(let c) = event.detail {
                if let u = c.userId { users.insert(ExactText(u)) }
                if let d = c.deviceId { devices.insert(ExactText(d)) }
            }
        }
        for id in posted { candidates += try q.requestsPostingFirst(id).map(\.1) }
        for requestId in answered.map(\.text).sorted() {
            for (_, event) in try q.requests(where: "s.request_id = ?1", [requestId]) {
                candidates.append(event)
                if case .request(let r) = event.detail, let u = r.userId { users.insert(ExactText(u)) }
            }
        }
        for (column, values) in [("user_id", users), ("device_id", devices)] {
            for value in values.map(\.text).sorted() {
                let index = try q.requests(of: column, value)
                for id in posted { candidates += index[ExactText(id)] ?? [] }
            }
        }
        var kept: [String: TraceEvent] = [:]
        for var event in candidates {
            guard case .request(var r) = event.detail, kept[event.location.description] == nil else { continue }
            guard try relate(&r, posted: posted, answered: answered, q) else { continue }
            if r.creditsTransaction, let n = try q.creditedQuantity(r, at: event.location, of: transactionId) {
                (r.creditedQuantity, r.quantitySource) = (n, "credited_quantity")
            }
            event.detail = .request(r)
            kept[event.location.description] = event
        }
        var apple = Dictionary(listings.map { ($0.0, true) }, uniquingKeysWith: { a, _ in a })
        var events = clients + Array(kept.values) + listings.map(\.1)
        for requestId in ExactText.distinctSorted(kept.values.compactMap(requestId)) {
            for (key, answer) in try q.answers(to: requestId) where apple[key] == nil {
                apple[key] = true
                events.append(answer)
            }
        }
        trace.events = events.sorted(by: TraceEvent.timelineOrder)
        return trace
    }

    private static func requestId(_ event: TraceEvent) -> String? {
        guard case .request(let r) = event.detail else { return nil }
        return r.requestId
    }

    /// Why a request is on the timeline (`TraceRequest.Relation`), what its ids stand for (semantics.md rule
    /// 6) and whether it credited the transaction (`posted`: the transaction id, then its original id);
    /// false when it is not about the transaction.
    private static func relate(_ r: inout TraceRequest, posted: [String], answered: Set<ExactText>, _ q: TraceQueries) throws -> Bool {
        let t = ExactText(posted[0])
        let named = posted.filter { id in r.namedIds.contains { $0.utf8.elementsEqual(id.utf8) } }
        let stands = try named.map { try q.standsFor($0, postedBy: r.requestId) }
        if let i = stands.firstIndex(where: { ExactText($0) == t }) {
            r.relation = ExactText(named[i]) == t ? .posted : .postedOriginal
        } else if let i = named.firstIndex(where: { ExactText($0) == t }) {
            // Its own id standing for another (a renewal's first id posted for it); an original id posted for
            // another renewal is that renewal's business.
            (r.relation, r.standsFor) = (.postedForAnother, stands[i])
        } else if answered.contains(ExactText(r.requestId)) {
            r.relation = .answerLists
        } else {
            return false
        }
        if r.granted && r.event == "verify" {
            let credited = try (r.creditedIds ?? r.postedIds).map { try q.standsFor($0, postedBy: r.requestId) }
            r.creditsTransaction = credited.contains { ExactText($0) == t }
        }
        return true
    }
}
