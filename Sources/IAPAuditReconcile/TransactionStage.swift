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
        let siblings = SiblingFacts()
        let divert: TransactionFacts.Divert? =
            billing.isEmpty
            ? nil
            : TransactionFacts.Divert(
                test: { [billing] id, bytes in billing.siblings[GlobalId(id, in: bytes)] != nil }, take: siblings.take)
        _ = try ParallelPartitions.map(FactKey.partitions) { part in
            let bytes = PartitionBytes()
            try source.forEachChunk(.transactions, part: part) { bytes.append($1, fileId: $0) }
            try spill.read(part, into: bytes)
            try findings.add(reconcile(TransactionFacts(bytes: bytes, ranks: ranks, redeliveries: redeliveries, divert: divert)))
        }
        if !billing.isEmpty {
            try findings.add(
                reconcile(TransactionFacts(bytes: siblings.bytes, ranks: ranks, redeliveries: redeliveries), billingEvents: true))
        }
    }

    /// The facts of billing-event ids, gathered from every partition.
    private final class SiblingFacts: @unchecked Sendable {
        private let lock = NSLock()
        let bytes = PartitionBytes()
        func take(_ fact: UnsafeRawBufferPointer, _ file: UInt32) { lock.withLock { bytes.append(fact, fileId: file) } }
    }

    /// - Parameter billingEvents: the partition of the ids Apple re-issued (`IdReissuedRule` runs there).
    private func reconcile(_ facts: TransactionFacts, billingEvents: Bool = false) -> [Finding] {
        let context = ReconcileContext(facts: facts, config: config, asOfMs: asOfMs, graceMs: graceMs, ranks: ranks, billing: billing)
        var findings = Reconciler.rules.flatMap { $0(context) }
        if billingEvents { findings += IdReissuedRule.findings(context) }
        return findings
    }
}
