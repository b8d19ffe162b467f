import IAPAuditModel

/// Apple's re-issued transaction ids: the same purchase listed under new `transaction_id`s with the
/// same `original_transaction_id` + `web_order_line_item_id` is one billing event.
///
/// Only trustworthy listings count (the importer leaves out FAMILY_SHARED items — a family member's
/// own transaction, never the purchaser's — and items whose signature failed), and not re-deliveries.
struct BillingEvents {
    /// Every id of an event with two or more ids, by each of its ids (sorted: shortest, then smallest).
    let siblings: [GlobalId: [GlobalId]]

    init(siblings: [GlobalId: [GlobalId]] = [:]) { self.siblings = siblings }

    init(_ source: FactSource, ranks: FileRanks, redeliveries: Set<UInt64>) throws {
        var siblings: [GlobalId: [GlobalId]] = [:]
        for part in 0..<FactKey.partitions {
            let bytes = PartitionBytes()
            try source.forEachChunk(.billing, part: part) { bytes.append($1, fileId: $0) }
            var events: [GlobalId: [ByteKey: Set<GlobalId>]] = [:]
            bytes.forEachFact { r, chunkFile in
                _ = r.u8()
                let fact = BillingFact.read(&r, chunkFile: chunkFile)
                guard !redeliveries.contains(recordKey(fact.fileId, fact.line)), let original = fact.originalId, let id = fact.id else {
                    return
                }
                events[GlobalId(original, in: bytes), default: [:]][ByteKey(bytes, fact.lineItem), default: []].insert(
                    GlobalId(id, in: bytes))
            }
            for (_, byLine) in events {
                for (_, ids) in byLine where ids.count > 1 {
                    let sorted = ids.sorted()
                    for id in sorted { siblings[id] = sorted }
                }
            }
        }
        self.siblings = siblings
    }

    /// T and the other ids of its billing event (just T when Apple never re-issued it).
    func ids(of id: GlobalId) -> [GlobalId] { siblings[id] ?? [id] }

    var isEmpty: Bool { siblings.isEmpty }
}
