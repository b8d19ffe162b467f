import Foundation
import IAPAuditModel

/// Stage 1 of reconciliation, one `request_id` partition at a time: each verification request with
/// Apple's answers to it (semantics.md rules 2–7), turned into one carrier fact per transaction it
/// carried or granted, and each Apple record's listings handed on with the user of its request.
/// Both go to the transaction stage through `spill`.
package struct RequestStage {
    let source: FactSource
    let ranks: FileRanks
    let redeliveries: Set<UInt64>
    let bundleIds: Set<String>
    let spill: PartitionSpill
    /// The complete requests' results kept from run to run (nil: none kept, every output goes to `spill`).
    let carry: RequestCarry?

    /// Apple records naming a request_id the server log does not have.
    package struct Unlinked {
        package var count = 0
        package var first: (order: UInt64, location: SourceLocation, requestId: String)? = nil

        mutating func add(_ other: Unlinked) {
            count += other.count
            if let f = other.first, first == nil || f.order < first!.order { first = f }
        }
    }

    /// What the stage did: the Apple records naming an unknown request, and with a carry, how many requests it
    /// computed (the rest carried), or nil when a new fact named a complete request (every request must be
    /// computed again, with a carry made again).
    struct Done {
        var unlinked = Unlinked()
        var computed: Int? = 0
    }

    /// Runs every partition (on every core).
    func run() throws -> Done {
        var done = Done()
        for d in try Parallel.map(FactKey.partitions, partition) {
            done.unlinked.add(d.unlinked)
            done.computed = d.computed.flatMap { n in done.computed.map { $0 + n } }
        }
        return done
    }

    private func partition(_ part: Int) throws -> Done {
        let bytes = PartitionBytes()
        if let carry, case .incremental(let after) = carry.mode {
            carry.readOpen(part, into: bytes)
            try source.forEachChunk(.requests, part: part, after: after) { bytes.append($1, fileId: $0) }
        } else {
            try source.forEachChunk(.requests, part: part) { bytes.append($1, fileId: $0) }
        }
        var lines: [RequestLine] = []
        var responses: [LinkedResponse] = []
        var items: [LinkedResponseFact.Item] = []
        var ids: [FactId] = []
        var quantities: [RequestLineFact.Quantity] = []
        try bytes.forEachFact { r, chunkFile in
            let start = r.at
            switch FactKind(rawValue: r.u8()) {
            case .requestLine?:
                let fact = RequestLineFact.read(&r, chunkFile: chunkFile, ids: &ids, creditedQuantities: &quantities)
                lines.append(RequestLine(fact: fact, order: ranks.order(fact.fileId, fact.line), raw: start..<r.at, chunkFile: chunkFile))
            case .linkedResponse?:
                let fact = LinkedResponseFact.read(&r, chunkFile: chunkFile, items: &items)
                responses.append(
                    LinkedResponse(fact: fact, order: ranks.order(fact.fileId, fact.line), raw: start..<r.at, chunkFile: chunkFile))
            default: r.fail()  // no request-stream fact: damaged
            }
        }
        let (groups, unlinked) = group(lines, responses, bytes)
        var out = Output(spill: spill, carry: carry?.outputs)
        let context = RequestGroup.Context(
            bytes: bytes, lines: lines, responses: responses, items: items, ids: ids, quantities: quantities, ranks: ranks,
            bundleIds: bundleIds)
        guard let carry else {
            for (_, group) in groups { try group.emit(context, &out) }
            try out.flush()
            return Done(unlinked: unlinked)
        }
        // With a carry: a complete request's results are kept, an open one's facts (every line and answer naming it).
        let kept = carry.completeKeys(part)
        func hash(_ key: ByteKey) -> UInt64 { FactKey.hash(text: UnsafeBufferPointer(start: key.pointer, count: key.count)) }
        // Every fact read names a request: a re-delivered answer too, though it joins no group.
        if !kept.isEmpty,
            lines.contains(where: { kept.contains(hash(ByteKey(bytes, $0.fact.requestId))) })
                || responses.contains(where: { kept.contains(hash(ByteKey(bytes, $0.fact.requestId))) })
        {
            return Done(unlinked: unlinked, computed: nil)
        }
        var completed: [UInt64] = []
        var complete = Set<ByteKey>()
        for (key, group) in groups {
            out.toCarry = group.isComplete(context)
            if out.toCarry {
                completed.append(hash(key))
                complete.insert(key)
            }
            try group.emit(context, &out)
        }
        try out.flush()
        var open: [UInt8] = []
        func keep(_ raw: Range<Int>, _ file: UInt32) {
            RequestCarry.appendOpen(UnsafeRawBufferPointer(start: bytes.base + raw.lowerBound, count: raw.count), file: file, to: &open)
        }
        for line in lines where !complete.contains(ByteKey(bytes, line.fact.requestId)) { keep(line.raw, line.chunkFile) }
        for response in responses where !complete.contains(ByteKey(bytes, response.fact.requestId)) {
            keep(response.raw, response.chunkFile)
        }
        carry.keep(part, completed: completed, open: open)
        return Done(unlinked: unlinked, computed: groups.count)
    }

    /// The partition's requests: each request id's lines and the answers naming it (a re-delivered answer joins none), by
    /// index into `lines` and `responses`; and the answers naming a request no line makes (`Unlinked`: a count, the first).
    private func group(_ lines: [RequestLine], _ responses: [LinkedResponse], _ bytes: PartitionBytes) -> (
        [ByteKey: RequestGroup], Unlinked
    ) {
        var groups: [ByteKey: RequestGroup] = [:]
        for (i, line) in lines.enumerated() { groups[ByteKey(bytes, line.fact.requestId), default: RequestGroup()].lines.append(i) }
        var unlinked = Unlinked()
        for (i, response) in responses.enumerated() {
            let key = ByteKey(bytes, response.fact.requestId)
            if groups[key]?.lines.isEmpty ?? true {
                unlinked.count += 1
                if unlinked.first == nil || response.order < unlinked.first!.order {
                    unlinked.first = (
                        response.order, ranks.location(response.fact.fileId, response.fact.line), bytes.string(response.fact.requestId)!
                    )
                }
            }
            if !redeliveries.contains(response.fact.key) { groups[key, default: RequestGroup()].responses.append(i) }
        }
        return (groups, unlinked)
    }

    /// Facts for the transaction stage, by partition, handed to the spill (or the carry's outputs) in large pieces.
    struct Output {
        let spill: PartitionSpill
        let carry: CarryLog?
        /// Whether the facts written now go to `carry` (a complete request's) rather than `spill`.
        var toCarry = false
        var buffers = [FactWriter](repeating: FactWriter(), count: FactKey.partitions)
        var carried = [FactWriter](repeating: FactWriter(), count: FactKey.partitions)

        init(spill: PartitionSpill, carry: CarryLog?) { (self.spill, self.carry) = (spill, carry) }

        /// Appends one fact to partition `part`'s buffer (written in place).
        mutating func write(to part: Int, _ body: (inout FactWriter) -> Void) throws {
            if toCarry {
                body(&carried[part])
                if carried[part].bytes.count >= 1 << 18 {
                    try carry!.append(part, carried[part].bytes)
                    carried[part].bytes.removeAll(keepingCapacity: true)
                }
                return
            }
            body(&buffers[part])
            if buffers[part].bytes.count >= 1 << 18 {
                try spill.append(part, buffers[part].bytes)
                buffers[part].bytes.removeAll(keepingCapacity: true)
            }
        }

        mutating func flush() throws {
            for part in buffers.indices where !buffers[part].bytes.isEmpty {
                try spill.append(part, buffers[part].bytes)
                buffers[part] = FactWriter()
            }
            for part in carried.indices where !carried[part].bytes.isEmpty {
                try carry!.append(part, carried[part].bytes)
                carried[part] = FactWriter()
            }
        }
    }
}

/// One server-log line as its fact carries it, in ledger order.
struct RequestLine {
    var fact: RequestLineFact
    var order: UInt64
    /// The fact's bytes in its partition's buffer, and the file of its chunk (kept for an open request).
    var raw: Range<Int>
    var chunkFile: UInt32
}

/// An Apple record that names a request, in ledger order.
struct LinkedResponse {
    var fact: LinkedResponseFact
    var order: UInt64
    var raw: Range<Int>
    var chunkFile: UInt32
}
