import IAPAuditModel

extension TraceQueries {
    /// Units the request logged at `location` credited of `transactionId` (its `credited_quantity`, semantics.md rule 20):
    /// the quantity logged for the transaction's id, else for an id the request posted that stands for it (rule 6, its
    /// original id); nil when the line logs none for it.
    func creditedQuantity(_ r: TraceRequest, at location: SourceLocation, of transactionId: String) throws -> Int? {
        var logged: [String: Int] = [:]
        try each(
            """
            SELECT s.credited_quantity FROM server_request s JOIN source_file f ON f.file_id = s.file_id
            WHERE s.request_id = ?1 AND f.path = ?2 AND s.line = ?3
            """, [r.requestId, location.file, Int64(location.line)]
        ) { q in
            if let text = q.optionalText(0) { logged = QuantityList.decode(text) }
        }
        let t = ExactText(transactionId)
        for (id, quantity) in QuantityList.sorted(logged) where ExactText(id) == t { return quantity }
        for (id, quantity) in QuantityList.sorted(logged) where try ExactText(standsFor(id, postedBy: r.requestId)) == t {
            return quantity
        }
        return nil
    }
}
