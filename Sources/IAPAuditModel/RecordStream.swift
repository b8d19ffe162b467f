/// Records the reports read without holding them: how many there are, and the records themselves
/// produced one by one, in order, each time they are asked for (from the store, or from memory).
/// Each `forEach` reads on its own (a connection of its own), so a stream may be read from any thread.
public struct RecordStream<Element: Sendable>: Sendable {
    /// How many records `forEach` produces without a limit.
    public let count: Int
    private let produce: @Sendable (_ limit: Int, _ body: (Element) throws -> Void) throws -> Void

    /// - Parameter produce: calls `body` with at most `limit` records, in order.
    public init(count: Int, produce: @escaping @Sendable (_ limit: Int, _ body: (Element) throws -> Void) throws -> Void) {
        self.count = count
        self.produce = produce
    }

    public init(_ elements: [Element]) {
        self.init(count: elements.count) { limit, body in
            for element in elements.prefix(limit) { try body(element) }
        }
    }

    /// Calls `body` with the first `limit` records in order. Throws what reading them throws
    /// (`SQLiteError`) or what `body` throws.
    public func forEach(limit: Int = Int.max, _ body: (Element) throws -> Void) throws { try produce(limit, body) }

    /// The first `limit` records.
    public func prefix(_ limit: Int) throws -> [Element] {
        var result: [Element] = []
        try forEach(limit: limit) { result.append($0) }
        return result
    }

    /// Every record (for small streams and tests).
    public func all() throws -> [Element] { try prefix(Int.max) }
}

/// How many findings of one kind and reason there are.
public struct FindingCount: Sendable, Equatable {
    public var kind: FindingKind
    public var reason: String
    public var count: Int
    /// Of these, the dropped orders Apple confirms (rule 22), and those whose payment Apple shows refunded;
    /// the others are claimed by the client alone.
    public var confirmed: Int
    public var refunded: Int

    package init(kind: FindingKind, reason: String, count: Int, confirmed: Int = 0, refunded: Int = 0) {
        (self.kind, self.reason, self.count, self.confirmed, self.refunded) = (kind, reason, count, confirmed, refunded)
    }
}

/// The findings of a run, for the reports: counts by kind and reason and problem findings per day
/// (small, held), and the findings themselves streamed in table order (kind, reason, transaction id).
public struct FindingStream: Sendable {
    /// By kind (in `FindingKind` order), then reason.
    public let counts: [FindingCount]
    /// Problem findings by the UTC day of their first-seen time: (ms since 1970 at 00:00 UTC, findings).
    public let problemsPerDay: [(dayMs: Int64, findings: Int)]
    private let produce: @Sendable (_ kinds: Set<FindingKind>, _ limit: Int, _ body: (Finding) throws -> Void) throws -> Void

    /// - Parameter produce: calls `body` with at most `limit` findings of `kinds`, in table order.
    public init(
        counts: [FindingCount], problemsPerDay: [(dayMs: Int64, findings: Int)],
        produce: @escaping @Sendable (_ kinds: Set<FindingKind>, _ limit: Int, _ body: (Finding) throws -> Void) throws -> Void
    ) {
        (self.counts, self.problemsPerDay, self.produce) = (counts, problemsPerDay, produce)
    }

    /// Findings held in memory, in the order given.
    public init(_ findings: [Finding]) {
        var counts: [FindingKind: [String: (count: Int, confirmed: Int, refunded: Int)]] = [:]
        var perDay: [Int64: Int] = [:]
        for f in findings {
            counts[f.kind, default: [:]][f.reason, default: (0, 0, 0)].count += 1
            if f.appleConfirmation == .confirmed { counts[f.kind, default: [:]][f.reason, default: (0, 0, 0)].confirmed += 1 }
            if f.appleConfirmation == .refunded { counts[f.kind, default: [:]][f.reason, default: (0, 0, 0)].refunded += 1 }
            if !f.kind.isInfo, let ms = f.firstSeenMs { perDay[Self.day(ms), default: 0] += 1 }
        }
        self.init(
            counts: FindingKind.allCases.flatMap { kind in
                (counts[kind] ?? [:]).sorted { $0.key < $1.key }.map {
                    FindingCount(
                        kind: kind, reason: $0.key, count: $0.value.count, confirmed: $0.value.confirmed, refunded: $0.value.refunded)
                }
            },
            problemsPerDay: perDay.sorted { $0.key < $1.key }.map { (dayMs: $0.key, findings: $0.value) },
            produce: { kinds, limit, body in
                for f in findings.lazy.filter({ kinds.contains($0.kind) }).prefix(limit) { try body(f) }
            })
    }

    /// 00:00 UTC of the day of `ms`.
    public static func day(_ ms: Int64) -> Int64 { ms - ((ms % 86_400_000) + 86_400_000) % 86_400_000 }

    public var total: Int { counts.reduce(0) { $0 + $1.count } }
    public var problems: Int { counts.filter { !$0.kind.isInfo }.reduce(0) { $0 + $1.count } }

    /// Dropped orders Apple confirms (rule 22).
    public var confirmedDroppedOrders: Int { counts.filter { $0.kind == .droppedOrder }.reduce(0) { $0 + $1.confirmed } }

    /// Dropped orders whose payment Apple shows refunded (rule 22).
    public var refundedDroppedOrders: Int { counts.filter { $0.kind == .droppedOrder }.reduce(0) { $0 + $1.refunded } }

    /// Dropped orders only the client claims (rule 22).
    public var claimedDroppedOrders: Int { count([.droppedOrder]) - confirmedDroppedOrders - refundedDroppedOrders }

    public func count(_ kinds: Set<FindingKind>) -> Int { counts.filter { kinds.contains($0.kind) }.reduce(0) { $0 + $1.count } }

    /// Calls `body` with the first `limit` findings of `kinds`, in table order.
    public func forEach(_ kinds: Set<FindingKind> = Set(FindingKind.allCases), limit: Int = Int.max, _ body: (Finding) throws -> Void)
        throws
    {
        try produce(kinds, limit, body)
    }

    /// Every finding, in table order (for tests and small runs).
    public func all() throws -> [Finding] {
        var result: [Finding] = []
        try forEach { result.append($0) }
        return result
    }
}
