/// A finding's stable id: `kind:transaction_id` (`dropped_order:2000000400594083`), its kind and its
/// purchase's key (the finding's `transaction_id`, rule 18), the same from run to run while the finding
/// lasts. The ledger keeps each id's lifecycle (table `finding_state`) and `iap-audit ack` names one.
///
/// A run has at most one finding of a kind per purchase, except where two rules of one kind judge the
/// same purchase (a purchase both revoked while paid and under-credited: two `dropped_order` rows): the
/// first in table order (kind, reason, transaction id, users) is `kind:T`, a later one `kind:T:reason`,
/// and one more of that reason too `kind:T:reason#2`, `#3`… Ids are handed out in table order, so every
/// reader of the same findings in the same order (the store, the workbook, the lifecycle) gets the same.
public struct FindingIds: Sendable {
    private var used: Set<ExactText> = []

    public init() {}

    /// `kind:transaction_id`: the id of the finding of a kind about a purchase.
    public static func base(_ kind: FindingKind, _ transactionId: String) -> String { kind.rawValue + ":" + transactionId }

    /// The id of `finding`, the next one in table order.
    public mutating func id(for finding: Finding) -> String {
        id(kind: finding.kind, transactionId: finding.transactionId, reason: finding.reason)
    }

    /// The id of the finding of `kind` about `transactionId` for `reason`, the next one in table order.
    public mutating func id(kind: FindingKind, transactionId: String, reason: String) -> String {
        let base = Self.base(kind, transactionId)
        if used.insert(ExactText(base)).inserted { return base }
        let withReason = base + ":" + reason
        var candidate = withReason
        var n = 1
        while !used.insert(ExactText(candidate)).inserted {
            n += 1
            candidate = withReason + "#\(n)"
        }
        return candidate
    }
}
