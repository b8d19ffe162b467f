import IAPAuditModel

/// semantics.md rule 18, one purchase and its many ids: an auto-renewable period is its
/// `original_transaction_id` + `web_order_line_item_id`; a non-consumable or non-renewing purchase is its
/// `original_transaction_id` (a restore brings a new `transaction_id` with the same original id); a
/// consumable is its transaction id. When the product type is unknown, ids with a line item group by
/// original id + line item, the others stand alone. The ids of one purchase are reconciled together.
///
/// Read from the `purchases` stream (`PurchaseFact`): only trustworthy listings count (the importer leaves
/// out FAMILY_SHARED items — a family member's own transaction — and items below `TrustLevel.needed`: a failed
/// signature, a signed format given unsigned), and not re-deliveries. Product types: the config's `products`, else the JWS `type` Apple gives.
struct Purchases {
    /// What makes a purchase of several ids.
    enum Kind: Equatable {
        /// One subscription period re-issued under several ids (same original id and line item).
        case period
        /// A non-consumable (`restore` brings new ids).
        case nonConsumable
        /// A non-renewing subscription.
        case nonRenewing
    }

    /// Every id of a purchase with two or more ids, by each of its ids (sorted: shortest, then smallest).
    let siblings: [GlobalId: [GlobalId]]
    /// The kind of each such purchase, by its first id.
    let kinds: [GlobalId: Kind]

    init(siblings: [GlobalId: [GlobalId]] = [:], kinds: [GlobalId: Kind] = [:]) {
        (self.siblings, self.kinds) = (siblings, kinds)
    }

    init(_ source: FactSource, ranks: FileRanks, redeliveries: Set<UInt64>, products: [String: ProductType]) throws {
        var siblings: [GlobalId: [GlobalId]] = [:]
        var kinds: [GlobalId: Kind] = [:]
        for part in 0..<FactKey.partitions {
            let bytes = PartitionBytes()
            try source.forEachChunk(.purchases, part: part) { bytes.append($1, fileId: $0) }
            // Per original id: the ids of each period (by line item), and of a non-consumable or non-renewing product.
            var periods: [GlobalId: [ByteKey: Set<GlobalId>]] = [:]
            var owned: [GlobalId: (kind: Kind, ids: Set<GlobalId>)] = [:]
            try bytes.forEachFact { r, chunkFile in
                guard r.u8() == FactKind.purchase.rawValue else { return r.fail() }
                let fact = PurchaseFact.read(&r, chunkFile: chunkFile)
                guard !redeliveries.contains(recordKey(fact.fileId, fact.line)), let original = fact.originalId, let id = fact.id
                else { return }
                let originalId = GlobalId(original, in: bytes)
                let type =
                    fact.productId.flatMap { products[bytes.string($0)!] } ?? fact.type.flatMap { ProductType(jwsType: bytes.string($0)!) }
                switch type {
                case .nonConsumable?, .nonRenewing?:
                    // The original purchase is the first id of what its restores re-issue.
                    owned[originalId, default: (type == .nonConsumable ? .nonConsumable : .nonRenewing, [originalId])].ids.insert(
                        GlobalId(id, in: bytes))
                case .consumable?:
                    return
                case .autoRenewable?, nil:
                    guard let lineItem = fact.lineItem else { return }
                    periods[originalId, default: [:]][ByteKey(bytes, lineItem), default: []].insert(GlobalId(id, in: bytes))
                }
            }
            var groups: [(Kind, Set<GlobalId>)] = []
            for (_, byLine) in periods { for (_, ids) in byLine { groups.append((.period, ids)) } }
            for (_, purchase) in owned { groups.append((purchase.kind, purchase.ids)) }
            for (kind, ids) in groups where ids.count > 1 {
                let sorted = ids.sorted()
                // An id in two groups (a type the config and Apple disagree on): the groups are one purchase.
                let joined = Set(sorted.flatMap { siblings[$0] ?? [$0] }).sorted()
                for id in joined { siblings[id] = joined }
                kinds[joined[0]] = kind
            }
        }
        (self.siblings, self.kinds) = (siblings, kinds)
    }

    /// T and the other ids of its purchase (just T when it has no other).
    func ids(of id: GlobalId) -> [GlobalId] { siblings[id] ?? [id] }

    /// The kind of the purchase of several ids that `id` belongs to, or nil.
    func kind(of id: GlobalId) -> Kind? { siblings[id].flatMap { kinds[$0[0]] } }

    var isEmpty: Bool { siblings.isEmpty }
}

extension ProductType {
    /// The product type a JWS `type` names (`Auto-Renewable Subscription`, `Non-Consumable`,
    /// `Consumable`, `Non-Renewing Subscription`); nil for anything else.
    init?(jwsType: String) {
        switch jwsType {
        case "Auto-Renewable Subscription": self = .autoRenewable
        case "Non-Consumable": self = .nonConsumable
        case "Consumable": self = .consumable
        case "Non-Renewing Subscription": self = .nonRenewing
        default: return nil
        }
    }
}
