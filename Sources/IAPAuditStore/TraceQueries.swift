import Foundation
import IAPAuditModel

/// The record reads of `trace`, each through an index (Schema.indexes), on one read-only connection;
/// statements are prepared once and the server requests of a user or device read once per trace.
final class TraceQueries {
    let db: SQLiteDatabase
    let bundleIds: Set<String>
    private var statements: [String: SQLiteStatement] = [:]
    private var requestsBy: [String: [ExactText: [TraceEvent]]] = [:]

    init(_ db: SQLiteDatabase, bundleIds: Set<String>) { (self.db, self.bundleIds) = (db, bundleIds) }

    /// The config's bundle ids (the run parameter `config`, canonical JSON), as `TraceReader` reads them.
    static func bundleIds(_ config: String?) -> Set<String> {
        guard let data = config?.data(using: .utf8), let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return [] }
        return Set(object["bundle_ids"] as? [String] ?? [])
    }

    /// Runs `sql` with `values`, calling `row` for each row.
    func each(_ sql: String, _ values: [any SQLBindable], _ row: (SQLiteStatement) throws -> Void) throws {
        let q = try statements[sql] ?? db.prepare(sql)
        statements[sql] = q
        q.bind(values)
        defer { q.reset() }
        while try q.step() { try row(q) }
    }

    /// The first column of every row, as text (NULLs left out).
    func texts(_ sql: String, _ values: [any SQLBindable]) throws -> [String] {
        var result: [String] = []
        try each(sql, values) { q in if let t = q.optionalText(0) { result.append(t) } }
        return result
    }

    /// The transactions `sql` (over `apple_transaction t` joined to its `apple_record r`, with a WHERE clause) lists by
    /// listings at the trust level the rules need; only when none does, those below it (docs/security.md, "Trust
    /// levels"): a forged listing picks no transaction for an id a proven one names, and alone it still leads to its
    /// transaction, whose verdict reads nothing of it.
    /// - Parameter listedId: an id that, itself listed as a transaction by a proven listing, also keeps the forged
    ///   ones out (an original id: a forged renewal or restore of a proven purchase is no transaction of it).
    func provenFirst(_ sql: String, _ values: [any SQLBindable], listedId: String? = nil) throws -> [String] {
        let counts = ListingTrustSQL.counts(listing: "t", record: "r")
        let proven = try texts(sql + " AND " + counts, values)
        guard proven.isEmpty else { return proven }
        if let listedId,
            try exists(
                "SELECT 1 FROM apple_transaction t JOIN apple_record r ON r.record_id = t.record_id WHERE t.transaction_id = ?1 AND "
                    + counts, [listedId])
        {
            return []
        }
        return try texts(sql, values)
    }

    func exists(_ sql: String, _ values: [any SQLBindable]) throws -> Bool { try !texts(sql + " LIMIT 1", values).isEmpty }

    // MARK: Client reports

    static let clientColumns = """
        c.ts_ms, f.path, c.line, c.user_id, c.device_id, c.transaction_id, c.product_id, c.state, c.error_code, c.quantity
        FROM client_report c JOIN source_file f ON f.file_id = c.file_id
        """

    func clientReports(where condition: String, _ values: [any SQLBindable]) throws -> [TraceEvent] {
        var events: [TraceEvent] = []
        try each("SELECT \(Self.clientColumns) WHERE \(condition) ORDER BY c.record_id", values) { q in
            var c = TraceClientReport(state: q.text(7))
            (c.userId, c.deviceId, c.transactionId, c.productId) = (
                q.optionalText(3), q.optionalText(4), q.optionalText(5), q.optionalText(6)
            )
            (c.errorCode, c.quantity) = (q.optionalInt64(8).map { Int($0) }, q.optionalInt64(9).map { Int($0) })
            events.append(
                TraceEvent(
                    timeMs: q.int64(0), source: "client_report", location: SourceLocation(file: q.text(1), line: Int(q.int64(2))),
                    detail: .client(c)))
        }
        return events
    }

    // MARK: Server requests

    static let requestColumns = """
        s.record_id, s.ts_ms, f.path, s.line, s.request_id, s.event, s.user_id, s.device_id, s.transaction_ids,
        s.credited_transaction_ids, s.restore, s.verify_status, s.environment, s.granted, s.latency_ms
        FROM server_request s JOIN source_file f ON f.file_id = s.file_id
        """

    /// Server requests matching `condition`, keyed by record id.
    func requests(where condition: String, _ values: [any SQLBindable]) throws -> [(Int64, TraceEvent)] {
        var result: [(Int64, TraceEvent)] = []
        try each("SELECT \(Self.requestColumns) WHERE \(condition)", values) { q in
            var r = TraceRequest(requestId: q.text(4), event: q.text(5))
            (r.userId, r.deviceId, r.postedIds) = (q.optionalText(6), q.optionalText(7), IdList.decode(q.text(8)))
            (r.creditedIds, r.restore, r.loggedStatus) = (
                q.optionalText(9).map(IdList.decode), q.int64(10) != 0, q.optionalInt64(11).map { Int($0) }
            )
            (r.environment, r.granted, r.latencyMs) = (q.optionalText(12), q.int64(13) != 0, q.optionalInt64(14))
            let location = SourceLocation(file: q.text(2), line: Int(q.int64(3)))
            result.append((q.int64(0), TraceEvent(timeMs: q.int64(1), source: "server_request", location: location, detail: .request(r))))
        }
        return result
    }

    /// Requests whose first posted id is `id` (the `server_request_ids` index: `["id",…`).
    func requestsPostingFirst(_ id: String) throws -> [(Int64, TraceEvent)] {
        let (low, high) = Self.firstIdRange(id)
        return try requests(where: "s.transaction_ids >= ?1 AND s.transaction_ids < ?2", [low, high])
    }

    /// The range of `transaction_ids` texts whose first id is `id`: from `["id"` to `["id#` (`#` follows `"`).
    static func firstIdRange(_ id: String) -> (String, String) {
        let prefix = String(IdList.encode([id]).dropLast())
        return (prefix, String(prefix.dropLast()) + "#")
    }

    /// A user's (`column` = `user_id`) or device's requests by each id they posted or credited, read once
    /// per trace.
    func requests(of column: String, _ value: String) throws -> [ExactText: [TraceEvent]] {
        let key = column + "\u{0}" + value
        if let known = requestsBy[key] { return known }
        var index: [ExactText: [TraceEvent]] = [:]
        for (_, event) in try requests(where: "s.\(column) = ?1", [value]) {
            guard case .request(let r) = event.detail else { continue }
            for id in Set((r.postedIds + (r.creditedIds ?? [])).map(ExactText.init)) { index[id, default: []].append(event) }
        }
        requestsBy[key] = index
        return index
    }

    /// The transactions the server requests whose `column` is `value` name: posted, credited, or listed by
    /// Apple's answers to them.
    func transactions(ofRequestsWhere column: String, is value: String) throws -> [String] {
        try texts(
            """
            SELECT j.value FROM server_request s, json_each(s.transaction_ids) j WHERE s.\(column) = ?1
            UNION SELECT j.value FROM server_request s, json_each(s.credited_transaction_ids) j WHERE s.\(column) = ?1
            UNION SELECT t.transaction_id FROM server_request s JOIN apple_record r ON r.request_id = s.request_id
                JOIN apple_transaction t ON t.record_id = r.record_id WHERE s.\(column) = ?1
            """, [value])
    }

    /// semantics.md rule 6: an id a request posted stands for itself when the request's final answer (the
    /// latest `received_at` whose own signature did not fail: rule 2) lists it, else for that answer's newest transaction (by purchase date) with
    /// it as original id, else for itself.
    func standsFor(_ id: String, postedBy requestId: String) throws -> String {
        let items = try finalAnswer(requestId)
        if items.contains(where: { $0.id.utf8.elementsEqual(id.utf8) }) { return id }
        let renewals = items.filter { $0.original?.utf8.elementsEqual(id.utf8) == true }
        return renewals.max { ($0.purchaseMs ?? .min) < ($1.purchaseMs ?? .min) }?.id ?? id
    }

    private var finalAnswers: [String: [(id: String, original: String?, purchaseMs: Int64?)]] = [:]

    /// The transactions the final answer to a request lists, in its order.
    private func finalAnswer(_ requestId: String) throws -> [(id: String, original: String?, purchaseMs: Int64?)] {
        if let known = finalAnswers[requestId] { return known }
        var items: [(id: String, original: String?, purchaseMs: Int64?)] = []
        try each(
            """
            SELECT t.transaction_id, t.original_transaction_id, t.purchase_date_ms
            FROM apple_transaction t JOIN apple_record r ON r.record_id = t.record_id
            WHERE r.record_id = (
                SELECT record_id FROM apple_record WHERE request_id = ?1 AND signature <> 'untrusted_root' AND signature NOT LIKE 'invalid%'
                ORDER BY received_at_ms DESC, record_id LIMIT 1)
            ORDER BY t.position
            """, [requestId]
        ) { q in items.append((q.text(0), q.optionalText(1), q.optionalInt64(2))) }
        finalAnswers[requestId] = items
        return items
    }

    // MARK: Apple records

    /// An Apple record's columns (0–15), then a listing's (16–37).
    static let recordColumns = """
        r.record_id, f.path, r.line, r.received_at_ms, r.signed_date_ms, r.request_date_ms, r.receipt_creation_date_ms, r.request_id,
        r.order_id, r.status, r.environment, r.receipt_type, r.source, r.signature, r.notification_type, r.notification_subtype
        """
    static let listingColumns = """
        t.transaction_id, t.original_transaction_id, t.web_order_line_item_id, t.product_id, t.quantity, t.purchase_date_ms,
        t.expires_date_ms, t.cancellation_date_ms, t.revocation_type, t.revocation_percentage, t.price_milliunits, t.currency,
        t.environment, t.sections, t.signature, t.notification_type, t.signed_date_ms, t.in_app_ownership_type, t.bundle_id,
        r.bundle_id, t.notification_subtype, r.receipt_environment
        """

    /// The record part of an Apple event (without its listing), and its time.
    private static func appleRecord(_ q: SQLiteStatement) -> (TraceAppleRecord, SourceLocation) {
        var a = TraceAppleRecord()
        (a.requestId, a.orderId, a.status, a.environment) = (q.optionalText(7), q.optionalText(8), Int(q.int64(9)), q.optionalText(10))
        (a.receiptType, a.signature, a.notificationType) = (q.optionalText(11), q.text(13), q.optionalText(14))
        (a.notificationSubtype, a.receiptCreatedMs) = (q.optionalText(15), q.optionalInt64(6))
        return (a, SourceLocation(file: q.text(1), line: Int(q.int64(2))))
    }

    /// Apple's answers for an order id that list no transaction (Look Up Order ID's `status` 1, kept as the
    /// record's note `status 1: invalid order id (Look Up Order ID)`).
    func orderAnswers(_ orderId: String) throws -> [TraceEvent] {
        var result: [TraceEvent] = []
        try each(
            """
            SELECT \(Self.recordColumns), r.notes FROM apple_record r JOIN source_file f ON f.file_id = r.file_id
            WHERE r.order_id = ?1 AND NOT EXISTS (SELECT 1 FROM apple_transaction t WHERE t.record_id = r.record_id)
            """, [orderId]
        ) { q in
            var (a, location) = Self.appleRecord(q)
            a.orderStatus = IdList.decode(q.text(16)).lazy.compactMap(Self.orderStatus).first
            let time = q.optionalInt64(3) ?? q.optionalInt64(4) ?? q.optionalInt64(5)
            result.append(TraceEvent(timeMs: time, source: q.text(12), location: location, detail: .apple(a)))
        }
        return try result.map(linked)
    }

    /// The status of a Look Up Order ID note (`status 1: invalid order id (Look Up Order ID)`).
    static func orderStatus(_ note: String) -> Int? {
        guard note.hasPrefix("status "), note.hasSuffix(": invalid order id (Look Up Order ID)") else { return nil }
        return Int(note.dropFirst(7).prefix { $0 != ":" })
    }

    /// Answers to a request, each with its record id (the caller drops those that list the transaction).
    func answers(to requestId: String) throws -> [(Int64, TraceEvent)] {
        var result: [(Int64, TraceEvent)] = []
        try each(
            "SELECT \(Self.recordColumns) FROM apple_record r JOIN source_file f ON f.file_id = r.file_id WHERE r.request_id = ?1",
            [requestId]
        ) { q in
            let (a, location) = Self.appleRecord(q)
            let time = q.optionalInt64(3) ?? q.optionalInt64(4) ?? q.optionalInt64(5) ?? q.optionalInt64(6)
            result.append((q.int64(0), TraceEvent(timeMs: time, source: q.text(12), location: location, detail: .apple(a))))
        }
        return try result.map { (recordId, event) in (recordId, try linked(event)) }
    }

    /// Every listing of `transactionId`, one event each (a notification history page may list it once per
    /// entry), with its record id and what it proves: the records listing it are read whole, so that their
    /// environment conflict (rule 24) is judged across all their listings.
    func listings(of transactionId: String) throws -> [(Int64, TraceEvent)] {
        var judge = ListingEvidenceJudge<(Int64, TraceEvent)?>(bundleIds: bundleIds)
        var result: [(Int64, TraceEvent)] = []
        func take(_ judged: [((Int64, TraceEvent)?, PaymentEvidence)]) {
            for case (let (recordId, original)?, let evidence) in judged {
                var event = original
                if case .apple(var a) = event.detail {
                    a.listing?.evidence = evidence
                    event.detail = .apple(a)
                }
                result.append((recordId, event))
            }
        }
        try each(
            """
            SELECT \(Self.recordColumns), \(Self.listingColumns)
            FROM apple_transaction t JOIN apple_record r ON r.record_id = t.record_id JOIN source_file f ON f.file_id = r.file_id
            WHERE t.record_id IN (SELECT record_id FROM apple_transaction WHERE transaction_id = ?1) ORDER BY t.record_id, t.position
            """, [transactionId]
        ) { q in
            let signals = ListingSignals(
                recordId: q.int64(0), status: q.int64(9), environment: q.optionalText(10), receiptType: q.optionalText(11),
                receiptEnvironment: q.optionalText(37), source: q.text(12), bundleId: q.optionalText(35) ?? q.optionalText(34),
                itemSignature: q.text(30),
                itemEnvironment: q.optionalText(28), ownership: q.optionalText(33), purchaseMs: q.optionalInt64(21),
                expiresMs: q.optionalInt64(22))
            guard q.text(16).utf8.elementsEqual(transactionId.utf8) else {
                take(judge.add(signals, nil))
                return
            }
            var (a, location) = Self.appleRecord(q)
            var l = TraceListing(evidence: ListingEvidenceJudge<Int>.unjudged)
            (l.originalTransactionId, l.webOrderLineItemId, l.productId) = (q.optionalText(17), q.optionalText(18), q.optionalText(19))
            (l.quantity, l.purchaseMs, l.expiresMs) = (q.optionalInt64(20).map { Int($0) }, q.optionalInt64(21), q.optionalInt64(22))
            (l.cancellationMs, l.revocationType) = (q.optionalInt64(23), q.optionalText(24))
            l.revocationPercentage = q.optionalInt64(25).map { Int($0) }
            l.price = q.optionalInt64(26).map { Money(milliunits: $0, currency: q.optionalText(27) ?? "") }
            (l.environment, l.sections, l.signature) = (q.optionalText(28), q.text(29), q.text(30))
            l.notificationType = q.optionalText(31) ?? a.notificationType
            l.issuedMs = q.optionalInt64(4) ?? q.optionalInt64(32) ?? q.optionalInt64(3)
            if q.optionalText(31) != nil { (a.notificationType, a.notificationSubtype) = (q.optionalText(31), q.optionalText(36)) }
            a.listing = l
            let time = q.optionalInt64(3) ?? q.optionalInt64(32) ?? q.optionalInt64(4) ?? q.optionalInt64(5) ?? q.optionalInt64(6)
            take(judge.add(signals, (q.int64(0), TraceEvent(timeMs: time, source: q.text(12), location: location, detail: .apple(a)))))
        }
        take(judge.finish())
        return try result.map { (recordId, event) in (recordId, try linked(event)) }
    }

    /// The event with its record's `linked` set: its `request_id` names a verification request of the server log.
    func linked(_ event: TraceEvent) throws -> TraceEvent {
        guard case .apple(var a) = event.detail else { return event }
        a.linked =
            try a.requestId.map { try exists("SELECT 1 FROM server_request WHERE request_id = ?1 AND event = 'verify'", [$0]) } ?? false
        var event = event
        event.detail = .apple(a)
        return event
    }

    // MARK: Findings

    /// The findings on `transactionId`, then those of its purchase (semantics.md rule 18) kept under another of
    /// its ids: same original id, naming it in their detail (a re-issued id credited twice is one finding,
    /// under the purchase's first id); each with its lifecycle state (`finding_state`, by its `finding_id`).
    func findings(of transactionId: String, original: String?) throws -> [(Finding, FindingState?, FindingAction?)] {
        var found: [(Finding, String)] = []
        try each(
            "SELECT \(AuditStore.findingColumns), finding_id FROM finding WHERE transaction_id = ?1 ORDER BY rowid", [transactionId]
        ) { q in
            if let f = try Self.checkedFinding(q) { found.append((f, q.text(AuditStore.findingColumnCount))) }
        }
        if let original {
            try each(
                """
                SELECT \(AuditStore.findingColumns), finding_id FROM finding
                WHERE original_transaction_id = ?1 AND transaction_id <> ?2 ORDER BY rowid
                """, [original, transactionId]
            ) { q in
                // A finding of another id of the purchase that names this one among its ids or credits.
                if let f = try Self.checkedFinding(q),
                    (f.facts.texts(.transactionIds) + f.facts.objects(.grants).compactMap { $0["transaction_id"]?.text }).contains(
                        transactionId)
                {
                    found.append((f, q.text(AuditStore.findingColumnCount)))
                }
            }
        }
        return try found.map { f, id in
            var state: FindingState? = nil
            try each("SELECT \(LifecycleReader.stateColumns) FROM finding_state WHERE finding_id = ?1", [id]) {
                state = LifecycleReader.state($0)
            }
            var actions: [FindingAction] = []
            try each("SELECT \(AuditStore.actionColumns.joined(separator: ", ")) FROM finding_action WHERE finding_id = ?1", [id]) {
                actions.append(try AuditStore.checkedAction($0))
            }
            // One row per finding (its primary key): a rebuilt table may hold more.
            guard actions.count <= 1 else { throw LedgerDamage(table: "finding_action", key: id, why: "is held \(actions.count) times") }
            return (f, state, actions.first)
        }
    }

    /// The finding of a row selecting `AuditStore.findingColumns` then `finding_id`, as `AuditStore.finding` reads it; throws
    /// `LedgerDamage` naming the row when its facts are not what a run writes (`FindingFacts(json:)`: not JSON, not an
    /// object, a declared fact of another shape), which `finding` would read as no facts.
    static func checkedFinding(_ q: SQLiteStatement) throws -> Finding? {
        guard q.holdsText(12), FindingFacts(json: q.text(12)) != nil else {
            throw LedgerDamage(
                table: "finding", key: q.text(AuditStore.findingColumnCount),
                why: "holds facts that are not a JSON object of the declared facts (Sources/LedgerDeclarations/Findings.swift)")
        }
        return AuditStore.finding(q)
    }

    /// The findings on `transactionId` a later run resolved (`finding_state`; the `finding_state_transaction` index).
    func resolvedFindings(of transactionId: String) throws -> [FindingState] {
        var result: [FindingState] = []
        try each(
            "SELECT \(LifecycleReader.stateColumns) FROM finding_state WHERE transaction_id = ?1 AND status IN ('resolved', 'expired') ORDER BY finding_id",
            [transactionId]
        ) { result.append(LifecycleReader.state($0)) }
        return result
    }

    /// What people did about `transactionId` (`iap-audit resolve`, table `manual_action`), oldest first.
    func manualActions(about transactionId: String) throws -> [ManualAction] {
        try AuditStore.manualActions(db, about: transactionId)
    }

    /// `text` holds `id` as a whole id (not inside a longer one: no ASCII letter, digit, `-` or `_` on either
    /// side; with `nonASCIIInIds`, no other character than ASCII punctuation and white space).
    static func names(_ text: String, _ id: String, nonASCIIInIds: Bool = false) -> Bool {
        let bytes = Array(text.utf8)
        let needle = Array(id.utf8)
        guard needle.count <= bytes.count else { return false }
        let isIdByte = { (b: UInt8) in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2D || b == 0x5F
                || (nonASCIIInIds && b >= 0x80)
        }
        for start in 0...(bytes.count - needle.count) where bytes[start..<(start + needle.count)].elementsEqual(needle) {
            let before = start == 0 || !isIdByte(bytes[start - 1])
            let after = start + needle.count == bytes.count || !isIdByte(bytes[start + needle.count])
            if before && after { return true }
        }
        return false
    }
}
