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
        for u in try ParallelPartitions.map(FactKey.partitions, partition) { unlinked.add(u) }
        return unlinked
    }

    private func partition(_ part: Int) throws -> Unlinked {
        let bytes = PartitionBytes()
        try source.forEachChunk(.requests, part: part) { bytes.append($1, fileId: $0) }
        var lines: [RequestLine] = []
        var responses: [LinkedResponse] = []
        var items: [AnswerItem] = []
        var ids: [FactId] = []
        bytes.forEachFact { r, chunkFile in
            switch FactKind(rawValue: r.u8()) {
            case .requestLine?: lines.append(RequestLine.read(&r, chunkFile: chunkFile, ranks: ranks, ids: &ids))
            case .linkedResponse?:
                let requestId = r.text()!
                let body = AnswerFacts.read(&r, chunkFile: chunkFile, items: &items)
                responses.append(LinkedResponse(requestId: requestId, body: body, order: ranks.order(body.fileId, body.line)))
            default: preconditionFailure("a request-stream fact of another kind")
            }
        }
        var groups: [ByteKey: RequestGroup] = [:]
        for (i, line) in lines.enumerated() { groups[ByteKey(bytes, line.requestId), default: RequestGroup()].lines.append(i) }
        var unlinked = Unlinked()
        for (i, response) in responses.enumerated() {
            let key = ByteKey(bytes, response.requestId)
            if groups[key]?.lines.isEmpty ?? true {
                unlinked.count += 1
                if unlinked.first == nil || response.order < unlinked.first!.order {
                    unlinked.first = (
                        response.order, ranks.location(response.body.fileId, response.body.line), bytes.string(response.requestId)!
                    )
                }
            }
            if !redeliveries.contains(response.body.key) { groups[key, default: RequestGroup()].responses.append(i) }
        }
        var out = Output(spill: spill)
        let context = RequestGroup.Context(
            bytes: bytes, lines: lines, responses: responses, items: items, ids: ids, ranks: ranks, bundleIds: bundleIds)
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

/// One server-log line as its fact carries it.
struct RequestLine {
    var requestId: FactText
    var fileId: UInt32
    var line: UInt32
    var order: UInt64
    var tsMs: Int64
    var isRevoke: Bool
    var restore: Bool
    var granted: Bool
    var verifyStatus: Int64?
    var userId: FactText?
    var environment: FactText?
    /// Ranges of the partition's id list.
    var ids: Range<Int>
    var credited: Range<Int>?

    static func read(_ r: inout FactReader, chunkFile: UInt32, ranks: FileRanks, ids: inout [FactId]) -> RequestLine {
        let file = r.u32()
        let fileId = file == 0 ? chunkFile : file
        let line = r.u32()
        let ts = r.i64()
        let revoke = r.u8() == 1
        let flags = r.u8()
        let status = r.optionalInt()
        let requestId = r.text()!
        let user = r.text()
        let environment = r.text()
        let start = ids.count
        for _ in 0..<r.varint() { ids.append(r.id()!) }
        let posted = start..<ids.count
        var credited: Range<Int>? = nil
        if r.u8() == 1 {
            let first = ids.count
            for _ in 0..<r.varint() { ids.append(r.id()!) }
            credited = first..<ids.count
        }
        return RequestLine(
            requestId: requestId, fileId: fileId, line: line, order: ranks.order(fileId, line), tsMs: ts, isRevoke: revoke,
            restore: flags & 1 != 0, granted: flags & 2 != 0, verifyStatus: status, userId: user, environment: environment,
            ids: posted, credited: credited)
    }
}

/// An Apple record that names a request.
struct LinkedResponse {
    var requestId: FactText
    var body: AnswerFacts
    var order: UInt64
    var items: Range<Int> { body.items }
}
