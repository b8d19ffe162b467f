import IAPAuditModel

/// How many units each credit of a traced transaction gave: the server log's `credited_quantity` (read with the
/// request), else Apple's `quantity` (a listing the verdict reads, one that proves the payment first), else the quantity
/// the client reported for it; the timeline and the verdict say which.
enum TraceCreditQuantity {
    /// Fills `creditedQuantity` and `quantitySource` of each request that credited the transaction without a logged quantity.
    static func fill(_ trace: inout TransactionTrace) {
        guard let (quantity, source) = apple(trace).map({ ($0, "apple") }) ?? client(trace).map({ ($0, "client") }) else { return }
        for i in trace.events.indices {
            guard case .request(var r) = trace.events[i].detail, r.creditsTransaction, r.creditedQuantity == nil else { continue }
            (r.creditedQuantity, r.quantitySource) = (quantity, source)
            trace.events[i].detail = .request(r)
        }
    }

    /// Apple's quantity: of the first listing proving the payment that gives one, else of the first the verdict reads.
    private static func apple(_ trace: TransactionTrace) -> Int? {
        let listings = trace.events.compactMap { e -> TraceListing? in
            guard case .apple(let a) = e.detail, e.unproven == nil else { return nil }
            return a.listing
        }
        return (listings.first { $0.evidence.provesPayment() && $0.quantity != nil } ?? listings.first { $0.quantity != nil })?.quantity
    }

    /// The client's quantity: the first client report of this transaction's id that gives one.
    private static func client(_ trace: TransactionTrace) -> Int? {
        let id = ExactText(trace.transactionId)
        for e in trace.events {
            if case .client(let c) = e.detail, let q = c.quantity, c.transactionId.map(ExactText.init) == id { return q }
        }
        return nil
    }
}
