import Foundation

/// What `trace --user U [--product P] [--at TIME [--within DURATION]] [--price AMOUNT]` asks: a purchase the
/// customer describes ("980 gems, Oct 23 around 05:30"), not its id.
package struct TraceSearchRequest: Sendable {
    /// The user id (or its token, looked up as `TraceRedaction` does).
    package var userId: String
    package var productId: String?
    /// `--at`: UTC ms.
    package var atMs: Int64?
    /// `--within`: ms either side of `atMs` (default 6 hours).
    package var withinMs: Int64 = TraceSearchRequest.defaultWithinMs
    /// `--price`: milliunits of the transaction's currency (9.99 → 9990).
    package var priceMilliunits: Int64?

    package static let defaultWithinMs: Int64 = 6 * 3_600_000

    package init(userId: String) { self.userId = userId }
}

/// One purchase of the user that passes the filters, with what the ledger says of it.
package struct TraceSearchCandidate: Sendable {
    package var transactionId: String
    /// Apple's product id (a listing at the trust level the rules need), else the client report's.
    package var productId: String?
    /// The earliest purchase date Apple's counted listings give (UTC ms), else the client report's time.
    package var purchaseMs: Int64?
    package var quantity: Int?
    /// Apple's price, from a verified signed transaction: milliunits of `currency`. Nil: not known.
    package var priceMilliunits: Int64?
    package var currency: String?
    /// |purchaseMs − atMs|, when both are known.
    package var distanceMs: Int64?

    package init(transactionId: String) { self.transactionId = transactionId }
}

/// The candidates of a search, nearest first, each traced (`traced.transactions`, same order) for its verdict.
package struct TraceSearchResult: Sendable {
    package var request: TraceSearchRequest
    /// The user's purchases before the filters.
    package var purchasesOfUser = 0
    /// At most `TraceSearch.limit`.
    package var candidates: [TraceSearchCandidate] = []
    /// Candidates beyond `limit`.
    package var more = 0
    /// The candidates kept by `--price` though no verified signed transaction gives their price.
    package var priceUnknown = 0
    /// The candidates' traces (judged by the caller), with the ledger's run parameters and notes.
    package var traced: TraceResult

    package init(request: TraceSearchRequest, traced: TraceResult) { (self.request, self.traced) = (request, traced) }
}
