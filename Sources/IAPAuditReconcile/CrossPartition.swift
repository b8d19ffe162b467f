import Foundation
import IAPAuditModel
import Synchronization

/// Findings one transaction partition cannot settle alone, and the facts the other partitions give them
/// (spilled by the key they are looked up by; read only when some finding waits for them):
///
/// - rule 9: a purchase only Apple lists, of a subscription, that no request links to a user is
///   attributed to the users granted a period of that subscription (`OwnerFact`, by original id);
/// - rule 23: a refund still granted, of a non-consumable, auto-renewable or non-renewing product,
///   whose holder holds a later credited, unrefunded purchase of the product is info
///   `refund_superseded/later_purchase` for that holder (`HoldingFact`, by user and product).
final class CrossPartition: Sendable {
    /// A finding set aside until the other partitions' facts settle it.
    enum Waiting: Sendable {
        /// Users to attribute the finding to: those granted a period of the subscription `original`.
        case owners(Finding, original: GlobalId)
        /// A refund still granted to `holders` (nil: a grant without a user): each holder holding a later
        /// purchase of `productId` than `purchaseMs` (not one of `ids`, T's own purchase) is superseded.
        case laterPurchase(Finding, holders: [String?], productId: String, purchaseMs: Int64, ids: [GlobalId])
    }

    private let owners: PartitionSpill
    private let holdings: PartitionSpill
    private let waiting = Mutex<[Waiting]>([])

    init(directory: String?, budget: Int) {
        owners = PartitionSpill(directory: directory.map { $0 + "/owners" }, budget: budget / 2)
        holdings = PartitionSpill(directory: directory.map { $0 + "/holdings" }, budget: budget / 2)
    }

    func removeAll() {
        owners.removeAll()
        holdings.removeAll()
    }

    /// Takes a reconciled partition's waiting findings, and the facts it gives the others.
    func take(_ c: ReconcileContext) throws {
        if !c.waiting.isEmpty { waiting.withLock { $0 += c.waiting } }
        var ownerFacts: [Int: [UInt8]] = [:]
        var holdingFacts: [Int: [UInt8]] = [:]
        // Only products whose type may be known (the config's, or a JWS `type`) or subscription periods give
        // facts: the cheap checks first.
        let configured = !c.audit.config.products.isEmpty
        for t in c.transactions {
            guard configured || c.isSubscriptionLike(t) || c.facts.listings(t).contains(where: { $0.fact.type != nil }),
                c.facts.carriers(t).contains(where: { $0.fact.isGrant && $0.fact.userId != nil })
            else { continue }
            let grants = c.grants(t)
            let users = ExactText.distinctSorted(grants.compactMap { c.text($0.fact.userId) })
            let type = c.productType(t)
            if type == .autoRenewable || (type == nil && c.isSubscriptionLike(t)) {
                let original = c.originalTransactionId(t) ?? c.id(t)
                var key = original
                let part = key.withUTF8 { FactKey.partition(id: $0) }
                for var user in users {
                    var w = FactWriter()
                    key.withUTF8 { o in user.withUTF8 { u in OwnerFact.write(&w, originalId: .bytes(o), userId: u) } }
                    ownerFacts[part, default: []] += w.bytes
                }
            }
            // A holding: credited (proof on a production answer), unrefunded, of a product rule 23 covers.
            guard let type, type != .consumable, var product = c.productId(t),
                grants.contains(where: { $0.isProven && !$0.fact.isSandboxAnswer }),
                !c.facts.listings(t).contains(where: { $0.fact.cancellationDateMs != nil && c.isTrusted($0) })
            else { continue }
            let purchaseMs = c.applePurchaseDateMs(t) ?? grants.map(\.fact.tsMs).min()!
            var id = c.id(t)
            for var user in users {
                var w = FactWriter()
                user.withUTF8 { u in
                    product.withUTF8 { p in
                        id.withUTF8 { i in HoldingFact.write(&w, userId: u, productId: p, id: .bytes(i), purchaseMs: purchaseMs) }
                    }
                }
                holdingFacts[Self.holdingPartition(user, product), default: []] += w.bytes
            }
        }
        for (part, bytes) in ownerFacts { try owners.append(part, bytes) }
        for (part, bytes) in holdingFacts { try holdings.append(part, bytes) }
    }

    /// The partition of a (user, product) holding.
    static func holdingPartition(_ user: String, _ product: String) -> Int {
        var key = Array(user.utf8) + [0] + Array(product.utf8)
        return key.withUnsafeMutableBufferPointer { FactKey.partition(text: UnsafeBufferPointer($0)) }
    }

    /// Calls `body` with a reader after the kind byte of each fact of the given partitions of `spill`.
    private static func forEachFact(
        in spill: PartitionSpill, parts: some Sequence<Int>, _ body: (inout FactReader, PartitionBytes) -> Void
    ) throws {
        for part in parts {
            let bytes = PartitionBytes()
            try spill.read(part, into: bytes)
            try bytes.forEachFact { r, _ in
                _ = r.u8()
                body(&r, bytes)
            }
        }
    }

    private struct Holder: Hashable {
        let user: ExactText
        let product: ExactText
    }

    /// Settles the waiting findings and adds them to `findings`, less those a person closed (rule 25), those at the edge of
    /// their feed made pending (`feedEnds`, rule 26).
    func settle(
        into findings: FindingSpill, manual: ManualActions = .none,
        feedEnds: PendingEvidenceRule.FeedEnds = .init(serverLogMs: nil, appleAnswersMs: nil, graceMs: 0)
    ) throws {
        let waiting = self.waiting.withLock { $0 }
        guard !waiting.isEmpty else { return }
        // What is asked, by partition.
        var wantedOwners: [Int: Set<GlobalId>] = [:]
        var wantedHoldings: [Int: Set<Holder>] = [:]
        for w in waiting {
            switch w {
            case .owners(_, let original): wantedOwners[original.partition, default: []].insert(original)
            case .laterPurchase(_, let holders, let product, _, _):
                for case let user? in holders {
                    wantedHoldings[Self.holdingPartition(user, product), default: []].insert(
                        Holder(user: ExactText(user), product: ExactText(product)))
                }
            }
        }
        var ownersOf: [GlobalId: [String]] = [:]
        try Self.forEachFact(in: owners, parts: wantedOwners.keys) { r, bytes in
            let fact = OwnerFact.read(&r)
            let original = GlobalId(fact.originalId, in: bytes)
            if wantedOwners[original.partition]!.contains(original) { ownersOf[original, default: []].append(bytes.string(fact.userId)!) }
        }
        var held: [Holder: [(id: GlobalId, purchaseMs: Int64)]] = [:]
        try Self.forEachFact(in: holdings, parts: wantedHoldings.keys) { r, bytes in
            let fact = HoldingFact.read(&r)
            let (user, product) = (bytes.string(fact.userId)!, bytes.string(fact.productId)!)
            let holder = Holder(user: ExactText(user), product: ExactText(product))
            if wantedHoldings[Self.holdingPartition(user, product)]!.contains(holder) {
                held[holder, default: []].append((GlobalId(fact.id, in: bytes), fact.purchaseMs))
            }
        }
        var settled: [Finding] = []
        for w in waiting {
            switch w {
            case .owners(var finding, let original):
                let users = ExactText.distinctSorted(ownersOf[original] ?? [])
                if !users.isEmpty {
                    finding.userIds = users
                    finding.facts.set(.attributedTo, texts: users)
                    finding.facts.set(.attributedSubscription, original.text)
                    finding.detail = FindingSentence.text(finding)
                }
                settled.append(finding)
            case .laterPurchase(var finding, let holders, let product, let purchaseMs, let ids):
                var still: [String?] = []
                var superseded: [(user: String, id: GlobalId, purchaseMs: Int64)] = []
                for holder in holders {
                    let later = holder.flatMap { user in
                        held[Holder(user: ExactText(user), product: ExactText(product))]?
                            .filter { $0.purchaseMs > purchaseMs && !ids.contains($0.id) }
                            .min { ($0.purchaseMs, $0.id) < ($1.purchaseMs, $1.id) }
                    }
                    if let later, let holder { superseded.append((holder, later.id, later.purchaseMs)) } else { still.append(holder) }
                }
                finding.facts.set(
                    .laterPurchases,
                    objects: superseded.sorted { $0.user.utf8.lexicographicallyPrecedes($1.user.utf8) }.map {
                        [$0.user, $0.id.text, product, $0.purchaseMs]
                    })
                if still.isEmpty {
                    (finding.kind, finding.reason) = (.refundSuperseded, FindingReason.refundSupersededLaterPurchase.name)
                    finding.facts[.holders] = nil
                } else {
                    finding.userIds = ExactText.distinctSorted(still.compactMap { $0 })
                    finding.facts.set(.holders, texts: RefundStillGrantedRule.sorted(still))
                }
                if superseded.isEmpty { finding.facts[.laterPurchases] = nil }
                finding.detail = FindingSentence.text(finding)
                settled.append(finding)
            }
        }
        try findings.add(PendingEvidenceRule.settle(ManualActionRule.settle(settled, manual), feedEnds))
    }
}
