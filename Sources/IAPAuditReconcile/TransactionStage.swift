import Foundation
import IAPAuditModel

/// Stage 2 of reconciliation: per transaction partition (the importer's facts and the request stage's),
/// every rule. The ids of a purchase with several ids (rule 18) are set aside as they are read and
/// reconciled together at the end.
struct TransactionStage {
    let source: FactSource
    let spill: PartitionSpill
    /// The complete requests' carrier and link facts (`RequestCarry`), when kept apart from `spill`.
    let carried: CarryLog?
    let ranks: FileRanks
    let redeliveries: Set<UInt64>
    let purchases: Purchases
    let audit: AuditParameters
    /// What the partitions tell each other, and the findings that wait for it.
    let cross: CrossPartition
    /// Where the findings go as each partition is done.
    let findings: FindingSpill

    /// - Returns: the listings below the trust level the rules need, which changed no finding.
    func run() throws -> UnprovenListings {
        // Each partition sets aside the facts of the ids of purchases it meets (in its own list); they are
        // reconciled together at the end, in partition order.
        let parts = try Parallel.map(FactKey.partitions) { part -> (aside: [(fileId: UInt32, fact: [UInt8])], unproven: UnprovenListings) in
            let bytes = PartitionBytes()
            try source.forEachChunk(.transactions, part: part) { bytes.append($1, fileId: $0) }
            try spill.read(part, into: bytes)
            try carried?.read(part, into: bytes)
            var aside: [(fileId: UInt32, fact: [UInt8])] = []
            let divert: TransactionFacts.Divert? =
                purchases.isEmpty
                ? nil
                : TransactionFacts.Divert(
                    test: { [purchases] id, bytes in purchases.siblings[GlobalId(id, in: bytes)] != nil },
                    take: { fact, file in aside.append((file, Array(fact))) })
            let unproven = try reconcile(try TransactionFacts(bytes: bytes, ranks: ranks, redeliveries: redeliveries, divert: divert))
            return (aside, unproven)
        }
        var unproven = UnprovenListings()
        for part in parts { unproven.merge(part.unproven) }
        if !purchases.isEmpty {
            let siblings = PartitionBytes()
            for (fileId, fact) in parts.lazy.map(\.aside).joined() { fact.withUnsafeBytes { siblings.append($0, fileId: fileId) } }
            unproven.merge(
                try reconcile(try TransactionFacts(bytes: siblings, ranks: ranks, redeliveries: redeliveries), ofPurchases: true))
        }
        return unproven
    }

    /// - Parameter ofPurchases: the partition of the purchases of several ids (`IdReissuedRule` runs there).
    /// - Returns: its listings below the trust level the rules need.
    private func reconcile(_ facts: TransactionFacts, ofPurchases: Bool = false) throws -> UnprovenListings {
        let context = ReconcileContext(facts: facts, audit: audit, ranks: ranks, purchases: purchases, ofPurchases: ofPurchases)
        var found = Reconciler.rules.flatMap { $0(context) }
        if ofPurchases { found += IdReissuedRule.findings(context) }
        try findings.add(PendingEvidenceRule.settle(ManualActionRule.settle(found, audit.manual), audit.feedEnds))
        try cross.take(context)
        var unproven = UnprovenListings()
        unproven.add(context)
        return unproven
    }
}
