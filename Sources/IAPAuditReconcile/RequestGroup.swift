import IAPAuditModel

/// Every server-log line and Apple record of one `request_id`, as the request stage sees it.
struct RequestGroup {
    /// Indexes of `Context.lines` (verify and revoke lines).
    var lines: [Int] = []
    /// Indexes of `Context.responses` (re-deliveries left out).
    var responses: [Int] = []

    /// The partition's facts (one shared reference: groups only read it).
    final class Context {
        let bytes: PartitionBytes
        let lines: [RequestLine]
        let responses: [LinkedResponse]
        let items: [LinkedResponseFact.Item]
        let ids: [FactId]
        /// `credited_quantity` of the lines (ranges of it).
        let quantities: [RequestLineFact.Quantity]
        let ranks: FileRanks
        let bundleIds: Set<String>

        init(
            bytes: PartitionBytes, lines: [RequestLine], responses: [LinkedResponse], items: [LinkedResponseFact.Item], ids: [FactId],
            quantities: [RequestLineFact.Quantity], ranks: FileRanks, bundleIds: Set<String>
        ) {
            (self.bytes, self.lines, self.responses, self.items, self.ids, self.quantities, self.ranks, self.bundleIds) = (
                bytes, lines, responses, items, ids, quantities, ranks, bundleIds
            )
        }
    }

    /// A verification line and an answer: what the request stage makes of it changes only with another fact naming
    /// it (a request the log has no line for yet, or none has answered, is open: `RequestCarry`).
    func isComplete(_ c: Context) -> Bool { !responses.isEmpty && lines.contains { !c.lines[$0].fact.isRevoke } }

    /// Emits the request's carrier facts and its answers' listings.
    func emit(_ c: Context, _ out: inout RequestStage.Output) throws {
        // Revoke records never carry, grant or enter the backlog (rule 4); answers to a request the
        // log has no verification line for are linked to nobody.
        var verify = lines.filter { !c.lines[$0].fact.isRevoke }
        if verify.count > 1 { verify.sort { c.lines[$0].order < c.lines[$1].order } }
        // Oldest first by (received_at, ledger order): the last one is the final response (rule 2).
        var answers = responses.map { c.responses[$0] }
        if answers.count > 1 {
            answers.sort { ($0.fact.receivedAtMs ?? Int64.min, $0.order) < ($1.fact.receivedAtMs ?? Int64.min, $1.order) }
        }
        // Answers to a request the log has no verification line for are linked to nobody: their listings
        // (written by the importer) stand alone.
        guard !verify.isEmpty else { return }
        let request = MergedRequest(verify.map { c.lines[$0] }, ids: c.ids, quantities: c.quantities, bytes: c.bytes)
        let view = RequestAnswer(request: request, answers: answers, c)
        for answer in answers { try links(of: answer, user: request.userId, c, &out) }
        try view.emitCarriers(c, &out)
    }

    /// One link fact per purchase of `answer`: its listing names a verification request, of this user.
    private func links(of answer: LinkedResponse, user: FactText?, _ c: Context, _ out: inout RequestStage.Output) throws {
        for k in answer.fact.items {
            let item = c.items[k]
            try out.write(to: c.bytes.partition(item.id)) { w in
                LinkFact.write(
                    &w, id: c.bytes.input(item.id), fileId: answer.fact.fileId, line: answer.fact.line,
                    userId: user.map { c.bytes.bytes($0) })
            }
        }
    }
}

/// Rule 4: the lines of one request_id, merged — granted when any line says so; ids the union in
/// order; the earliest `ts`; the first known user, status and environment.
struct MergedRequest {
    var first: RequestLine
    var tsMs: Int64
    var userId: FactText?
    var posted: [FactId]
    var credited: [FactId]?
    var restore: Bool
    var verifyStatus: Int64?
    var environment: FactText?
    var granted: Bool
    /// `credited_quantity` by id as logged: the largest of the lines (rule 20).
    var creditedQuantities: [(id: FactId, quantity: Int64)]
    /// Every verification line, in ledger order.
    var lines: [RequestLine]

    init(_ lines: [RequestLine], ids: [FactId], quantities: [RequestLineFact.Quantity], bytes: PartitionBytes) {
        let first = lines[0]
        self.first = first
        self.lines = lines
        tsMs = first.fact.tsMs
        userId = first.fact.userId
        posted = Array(ids[first.fact.posted])
        credited = first.fact.credited.map { Array(ids[$0]) }
        restore = first.fact.restore
        verifyStatus = first.fact.verifyStatus
        environment = first.fact.environment
        granted = first.fact.granted
        creditedQuantities = []
        for line in lines {
            for q in quantities[line.fact.creditedQuantities ?? 0..<0] {
                if let k = creditedQuantities.firstIndex(where: { bytes.same($0.id, q.id) }) {
                    creditedQuantities[k].quantity = max(creditedQuantities[k].quantity, q.quantity)
                } else {
                    creditedQuantities.append((q.id, q.quantity))
                }
            }
        }
        func union(_ a: [FactId], _ b: [FactId]) -> [FactId] { a + b.filter { x in !a.contains { bytes.same($0, x) } } }
        for line in lines.dropFirst().map(\.fact) {
            tsMs = min(tsMs, line.tsMs)
            userId = userId ?? line.userId
            posted = union(posted, Array(ids[line.posted]))
            switch (credited, line.credited.map { Array(ids[$0]) }) {
            case let (a?, b?): credited = union(a, b)
            case let (a, b): credited = a ?? b
            }
            restore = restore || line.restore
            verifyStatus = verifyStatus ?? line.verifyStatus
            environment = environment ?? line.environment
            granted = granted || line.granted
        }
    }
}
