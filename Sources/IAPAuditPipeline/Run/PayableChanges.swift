import IAPAuditModel
import IAPAuditReconcile
import IAPAuditStore

/// The findings that became payable this run (`RunChanges.payable`): the action the last run stored in `finding_action`
/// (read before this run replaces it) was `ask_apple`, and this run's, priced and joined with the lifecycle as the ledger
/// will hold it, is `credit`.
enum PayableChanges {
    /// - Parameters:
    ///   - findings: this run's findings, in table order (their ids as the lifecycle gives them).
    ///   - shown: the outputs' redactor (user ids as tokens), when the outputs are redacted and the ledger is not.
    static func list(
        _ findings: FindingSpill, changes: RunChanges, reader: LifecycleReader, shown: IdRedactor?
    ) throws -> [RunChanges.Payable] {
        let asked = try reader.findingIds(withAction: .askApple)
        guard !asked.isEmpty else { return [] }
        var candidates: [(String, Finding)] = []
        var ids = FindingIds()
        try findings.forEach { f in
            let id = ids.id(for: f)
            if asked.contains(id) { candidates.append((id, f)) }
        }
        let prices = try reader.verifiedPrices(of: candidates.map(\.1.transactionId))
        let listings = changes.listingById
        return candidates.compactMap { id, f in
            let priced = FindingAction.of(shown?.finding(f) ?? f, price: prices[f.transactionId])
            let action = listings[id]?.joined(priced) ?? priced
            return action.code == .credit ? RunChanges.Payable(findingId: id, action: action) : nil
        }
    }
}
