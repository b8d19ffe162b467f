import Foundation
import IAPAuditModel

/// Stage 1 of reconciliation, one `request_id` partition at a time: each verification request with
/// Apple's answers to it (SEMANTICS rules 2–7), turned into one carrier fact per transaction it
/// carried or granted, and each Apple record's listings handed on with the user of its request.
/// Both go to the transaction stage through `spill`.
package struct RequestStage {
    let source: FactSource
    let ranks: FileRanks
    let redeliveries: Set<UInt64>
    let bundleIds: Set<String>
    let spill: PartitionSpill

    /// Apple records naming a request_id the server log does not have.
    package struct Unlinked {
        package var count = 0
        package var first: (order: UInt64, location: SourceLocation, requestId: String)? = nil

        mutating func add(_ other: Unlinked) {
            count += other.count
            if let f = other.first, first == nil || f.order < first!.order { first = f }
        }
    }

    /// Runs every partition (on every core); returns the Apple records naming an unknown request.
    func run() throws -> Unlinked {
        var unlinked = Unlinked()
        for u in try Parallel.map(FactKey.partitions, partition) { unlinked.add(u) }
        return unlinked
    }

    private func partition(_ part: Int) throws -> Unlinked {
        let bytes = PartitionBytes()
        try source.forEachChunk(.requests, part: part) { bytes.append($1, fileId: $0) }
        var lines: [RequestLine] = []
        var responses: [LinkedResponse] = []
        var items: [LinkedResponseFact.Item] = []
        var ids: [FactId] = []
        var quantities: [RequestLineFact.Quantity] = []
        bytes.forEachFact { r, chunkFile in
            switch FactKind(rawValue: r.u8()) {
            case .requestLine?:
                let fact = RequestLineFact.read(&r, chunkFile: chunkFile, ids: &ids, creditedQuantities: &quantities)
                lines.append(RequestLine(fact: fact, order: ranks.order(fact.fileId, fact.line)))
            case .linkedResponse?:
                let fact = LinkedResponseFact.read(&r, chunkFile: chunkFile, items: &items)
                responses.append(LinkedResponse(fact: fact, order: ranks.order(fact.fileId, fact.line)))
            default: preconditionFailure("a request-stream fact of another kind")
            }
        }
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
        var out = Output(spill: spill)
        let context = RequestGroup.Context(
            bytes: bytes, lines: lines, responses: responses, items: items, ids: ids, quantities: quantities, ranks: ranks,
            bundleIds: bundleIds)
        for (_, group) in groups { try group.emit(context, &out) }
        try out.flush()
        return unlinked
    }

    /// Facts for the transaction stage, by partition, handed to the spill in large pieces.
    struct Output {
        let spill: PartitionSpill
        var buffers = [FactWriter](repeating: FactWriter(), count: FactKey.partitions)

        /// Appends one fact to partition `part`'s buffer (written in place).
        mutating func write(to part: Int, _ body: (inout FactWriter) -> Void) throws {
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
        }
    }
}

/// One server-log line as its fact carries it, in ledger order.
struct RequestLine {
    var fact: RequestLineFact
    var order: UInt64
}

/// An Apple record that names a request, in ledger order.
struct LinkedResponse {
    var fact: LinkedResponseFact
    var order: UInt64
}
