import Foundation
import IAPAuditModel

/// Stage 2 of reconciliation: per transaction partition (the importer's facts and the request stage's),
/// every rule. The ids of a billing event with several ids are set aside as they are read and
/// reconciled together at the end.
struct TransactionStage {
    let source: FactSource
    let spill: PartitionSpill
    let ranks: FileRanks
    let redeliveries: Set<UInt64>
    let billing: BillingEvents
    let config: AuditConfig
    let asOfMs: Int64
    let graceMs: Int64
    /// Where the findings go as each partition is done.
    let findings: FindingSpill

    func run() throws {
        // Each partition sets aside the facts of billing-event ids it meets (in its own list); they are
        // reconciled together at the end, in partition order.
        let diverted = try Parallel.map(FactKey.partitions) { part -> [(fileId: UInt32, fact: [UInt8])] in
            let bytes = PartitionBytes()
            try source.forEachChunk(.transactions, part: part) { bytes.append($1, fileId: $0) }
            try spill.read(part, into: bytes)
            var aside: [(fileId: UInt32, fact: [UInt8])] = []
            let divert: TransactionFacts.Divert? =
                billing.isEmpty
                ? nil
                : TransactionFacts.Divert(
                    test: { [billing] id, bytes in billing.siblings[GlobalId(id, in: bytes)] != nil },
                    take: { fact, file in aside.append((file, Array(fact))) })
            try findings.add(reconcile(TransactionFacts(bytes: bytes, ranks: ranks, redeliveries: redeliveries, divert: divert)))
            return aside
        }
        if !billing.isEmpty {
            let siblings = PartitionBytes()
            for (fileId, fact) in diverted.joined() { fact.withUnsafeBytes { siblings.append($0, fileId: fileId) } }
            try findings.add(reconcile(TransactionFacts(bytes: siblings, ranks: ranks, redeliveries: redeliveries), billingEvents: true))
        }
    }

    /// - Parameter billingEvents: the partition of the ids Apple re-issued (`IdReissuedRule` runs there).
    private func reconcile(_ facts: TransactionFacts, billingEvents: Bool = false) -> [Finding] {
        let context = ReconcileContext(facts: facts, config: config, asOfMs: asOfMs, graceMs: graceMs, ranks: ranks, billing: billing)
        var findings = Reconciler.rules.flatMap { $0(context) }
        if billingEvents { findings += IdReissuedRule.findings(context) }
        return findings
    }
}
