import Foundation
import IAPAuditModel

/// Reads a search's candidates through trace's indexes: the user's client reports (`client_report_user`), server
/// requests (`server_request_user`) and the Apple records answering them (`apple_record_request`), then each
/// candidate's listings (`apple_transaction_id`). Never a scan.
package enum TraceSearch {
    /// Candidates listed, at most.
    package static let limit = 20

    /// - Parameter lookupUser: the text looked up as the user id (its token on a redacted ledger), else `request.userId`.
    /// - Throws: as `TraceReader.read`.
    package static func read(_ request: TraceSearchRequest, ledgerPath: String, lookupUser: String? = nil) throws -> TraceSearchResult {
        let db = try TraceReader.open(ledgerPath)
        var traced = TraceResult(id: request.userId, ledgerPath: ledgerPath)
        traced.runParameters = try TraceReader.runParameters(db)
        (traced.unjudgedFiles, traced.removedFiles) = (try TraceReader.unjudgedFiles(db), try TraceReader.removedFiles(db))
        let q = TraceQueries(db, bundleIds: TraceQueries.bundleIds(traced.runParameters["config"]))
        let user = lookupUser ?? request.userId
        var all = try purchases(of: user, q)
        var result = TraceSearchResult(request: request, traced: traced)
        result.purchasesOfUser = all.count
        if let product = request.productId { all.removeAll { !($0.productId ?? "").utf8.elementsEqual(product.utf8) } }
        if let at = request.atMs {
            all = all.compactMap { c in
                guard let ms = c.purchaseMs, abs(ms - at) <= request.withinMs else { return nil }
                var c = c
                c.distanceMs = abs(ms - at)
                return c
            }
        }
        if let price = request.priceMilliunits {
            all.removeAll { $0.priceMilliunits != nil && $0.priceMilliunits != price }
            result.priceUnknown = all.filter { $0.priceMilliunits == nil }.count
        }
        // With --price, the purchases whose price Apple's signed transaction proves first.
        all.sort { a, b in
            let (x, y) = (a.priceMilliunits != nil, b.priceMilliunits != nil)
            return request.priceMilliunits != nil && x != y ? x : nearestFirst(a, b)
        }
        result.candidates = Array(all.prefix(limit))
        result.more = max(0, all.count - limit)
        traced.transactions = try result.candidates.map { try TraceReader.trace($0.transactionId, q) }
        result.traced = traced
        return result
    }

    /// Nearest to `--at` first (`distanceMs`), else newest first; undated last; then by id.
    static func nearestFirst(_ a: TraceSearchCandidate, _ b: TraceSearchCandidate) -> Bool {
        if let x = a.distanceMs, let y = b.distanceMs, x != y { return x < y }
        switch (a.purchaseMs, b.purchaseMs) {
        case (let x?, let y?) where x != y: return a.distanceMs == nil ? x > y : x < y
        case (.some, nil): return true
        case (nil, .some): return false
        default: return a.transactionId.utf8.lexicographicallyPrecedes(b.transactionId.utf8)
        }
    }

    /// Every transaction a client report, a server request or an Apple record answering one of the user's requests ties
    /// to `user`, with its product, date, quantity and price.
    static func purchases(of user: String, _ q: TraceQueries) throws -> [TraceSearchCandidate] {
        var byId: [ExactText: TraceSearchCandidate] = [:]
        var order: [String] = []
        func add(_ id: String, product: String?, ms: Int64?, quantity: Int?) {
            let key = ExactText(id)
            if byId[key] == nil {
                byId[key] = TraceSearchCandidate(transactionId: id)
                order.append(id)
            }
            byId[key]!.productId = byId[key]!.productId ?? product
            if let ms, byId[key]!.purchaseMs.map({ ms < $0 }) ?? true { byId[key]!.purchaseMs = ms }
            byId[key]!.quantity = byId[key]!.quantity ?? quantity
        }
        try q.each(
            "SELECT transaction_id, product_id, ts_ms, quantity FROM client_report WHERE user_id = ?1 AND transaction_id IS NOT NULL",
            [user]
        ) { r in add(r.text(0), product: r.optionalText(1), ms: r.int64(2), quantity: r.optionalInt64(3).map { Int($0) }) }
        var requestIds: [String] = []
        try q.each("SELECT request_id, transaction_ids, credited_transaction_ids, ts_ms FROM server_request WHERE user_id = ?1", [user]) {
            r in
            requestIds.append(r.text(0))
            for id in IdList.decode(r.text(1)) + (r.optionalText(2).map(IdList.decode) ?? []) {
                add(id, product: nil, ms: byId[ExactText(id)] == nil ? r.int64(3) : nil, quantity: nil)
            }
        }
        for requestId in ExactText.distinctSorted(requestIds) {
            try q.each(
                "SELECT t.transaction_id FROM apple_record r JOIN apple_transaction t ON t.record_id = r.record_id WHERE r.request_id = ?1",
                [requestId]
            ) { r in add(r.text(0), product: nil, ms: nil, quantity: nil) }
        }
        return try order.map { id in try listed(byId[ExactText(id)]!, q) }
    }

    /// `c` with what Apple's listings of it say: product, quantity and earliest purchase date of the listings at the trust
    /// level the rules need (they replace the client's), the price of a verified signed one.
    static func listed(_ c: TraceSearchCandidate, _ q: TraceQueries) throws -> TraceSearchCandidate {
        var c = c
        var (product, quantity, purchase): (String?, Int?, Int64?) = (nil, nil, nil)
        try q.each(
            "SELECT t.product_id, t.quantity, t.purchase_date_ms, t.price_milliunits, t.currency, t.signature = 'verified' "
                + "FROM apple_transaction t JOIN apple_record r ON r.record_id = t.record_id WHERE t.transaction_id = ?1 AND "
                + ListingTrustSQL.counts(listing: "t", record: "r") + " ORDER BY t.record_id, t.position",
            [c.transactionId]
        ) { r in
            product = product ?? r.optionalText(0)
            quantity = quantity ?? r.optionalInt64(1).map { Int($0) }
            if let ms = r.optionalInt64(2), purchase.map({ ms < $0 }) ?? true { purchase = ms }
            if r.int64(5) != 0, c.priceMilliunits == nil, let price = r.optionalInt64(3) {
                (c.priceMilliunits, c.currency) = (price, r.optionalText(4))
            }
        }
        (c.productId, c.quantity, c.purchaseMs) = (product ?? c.productId, quantity ?? c.quantity, purchase ?? c.purchaseMs)
        return c
    }

    // MARK: What an id is when it is no transaction's

    /// The purchases (distinct transaction ids of client reports) of `productId`, through `client_report_product`; nil
    /// when no client report names the product.
    package static func productPurchases(_ productId: String, ledgerPath: String) throws -> Int? {
        let db = try TraceReader.open(ledgerPath)
        let count = try TraceQueries(db, bundleIds: []).texts(
            "SELECT count(DISTINCT transaction_id) FROM client_report WHERE product_id = ?1", [productId]
        ).first.flatMap { Int($0) }
        guard let count, count > 0 else {
            let named = try TraceQueries(db, bundleIds: []).exists("SELECT 1 FROM client_report WHERE product_id = ?1", [productId])
            return named ? 0 : nil
        }
        return count
    }

    /// The user's purchases and their newest one (for a hint), nil when no record names the user.
    package static func userPurchases(_ userId: String, ledgerPath: String) throws -> (count: Int, newest: TraceSearchCandidate?) {
        let db = try TraceReader.open(ledgerPath)
        let all = try purchases(of: userId, TraceQueries(db, bundleIds: []))
        return (all.count, all.sorted(by: nearestFirst).first)
    }
}
