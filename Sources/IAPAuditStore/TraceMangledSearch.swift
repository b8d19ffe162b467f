import Foundation
import IAPAuditModel

/// The ledger ids a mangled id may be, read through the transaction id indexes (`client_report_transaction`,
/// `apple_transaction_id`): a range of each, never a scan.
package enum TraceMangledSearch {
    /// Candidates listed, at most.
    package static let limit = 20

    /// Ids of a range counted, at most (a count past it is said as "more than").
    package static let countedAtMost = 10_000

    /// - Parameter userId: `--user`: that user's ids first.
    /// - Returns: the candidates (the user's first, then by id), and how many more the range holds (`countedAtMost` at
    ///   most: `moreCapped`).
    package static func candidates(
        of id: String, _ mangled: TraceMangledId, userId: String?, ledgerPath: String
    ) throws -> (candidates: [TraceMangledCandidate], more: Int, moreCapped: Bool) {
        let db = try TraceReader.open(ledgerPath)
        let q = TraceQueries(db, bundleIds: [])
        // Each index's range read once, in order, merged (a UNION would sort the whole range first): the first ids listed,
        // all of them counted.
        var all = Set<ExactText>()
        for table in ["client_report", "apple_transaction"] {
            try q.each(
                "SELECT DISTINCT transaction_id FROM \(table) WHERE transaction_id >= ?1 AND transaction_id < ?2 "
                    + "AND length(transaction_id) = ?3 ORDER BY transaction_id LIMIT \(countedAtMost + 1)",
                [mangled.low, mangled.high, Int64(mangled.length)]
            ) { r in
                let id = r.text(0)
                if id.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) { all.insert(ExactText(id)) }
            }
        }
        var found = Array(ExactText.distinctSorted(all.map(\.text)).prefix(limit + 1))
        if let userId {
            // The user's own ids in the range, wherever the range is cut.
            let own = try TraceSearch.purchases(of: userId, q).map(\.transactionId).filter {
                $0.count == mangled.length && $0 >= mangled.low && $0 < mangled.high
            }
            found = ExactText.distinctSorted(found + own)
        }
        // The id's own digits (a float's whole part) are its exact match.
        let given = id.trimmingCharacters(in: .whitespaces).split(separator: ".", maxSplits: 1).first.map(String.init) ?? id
        var list = try found.map { try candidate($0, given: given, userId: userId, q) }
        list.sort { a, b in a.ofUser != b.ofUser ? a.ofUser : a.transactionId.utf8.lexicographicallyPrecedes(b.transactionId.utf8) }
        list = Array(list.prefix(limit))
        let total = all.count
        return (list, max(0, min(total, countedAtMost) - list.count), total > countedAtMost)
    }

    private static func candidate(_ id: String, given: String, userId: String?, _ q: TraceQueries) throws -> TraceMangledCandidate {
        var c = TraceMangledCandidate(transactionId: id)
        c.exact = id.utf8.elementsEqual(given.utf8)
        var users = try q.texts("SELECT user_id FROM client_report WHERE transaction_id = ?1 AND user_id IS NOT NULL", [id])
        let (low, high) = TraceQueries.firstIdRange(id)
        users += try q.texts(
            "SELECT user_id FROM server_request WHERE transaction_ids >= ?1 AND transaction_ids < ?2 AND user_id IS NOT NULL", [low, high])
        // The users the last run's findings name (an id only Apple lists is tied to a user through a request its receipt
        // answered: found by a support user test, "user unknown" beside a purchase trace names u278).
        users += try q.texts("SELECT value FROM finding, json_each(finding.user_ids) WHERE transaction_id = ?1", [id])
        c.userIds = ExactText.distinctSorted(users)
        c.ofUser = userId.map { u in c.userIds.contains { $0.utf8.elementsEqual(u.utf8) } } ?? false
        let listed = try TraceSearch.listed(TraceSearchCandidate(transactionId: id), q)
        (c.productId, c.purchaseMs) = (listed.productId, listed.purchaseMs)
        if c.productId == nil || c.purchaseMs == nil {
            try q.each("SELECT product_id, ts_ms FROM client_report WHERE transaction_id = ?1 ORDER BY ts_ms LIMIT 1", [id]) { r in
                (c.productId, c.purchaseMs) = (c.productId ?? r.optionalText(0), c.purchaseMs ?? r.int64(1))
            }
        }
        return c
    }
}
