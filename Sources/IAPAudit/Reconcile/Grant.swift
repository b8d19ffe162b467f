/// One grant of a transaction by a request, with or without proof (SEMANTICS rules 5, 7, 13).
struct Grant {
    let requestIndex: Int
    let transactionId: String
    /// Nil when proven: the final response has status 0, lists the transaction and (when both are
    /// known) carries one of our bundle ids. Otherwise the `invalid_credit` reason.
    let unprovenReason: String?

    var isProven: Bool { unprovenReason == nil }

    /// Classifies the grant of `transactionId` by `view`. A final answer listing T under a signature
    /// that failed (T's own JWS or receipt) is no proof: `signature_invalid`. The bundle check reads the
    /// receipt's bundle id, else T's JWS `bundleId`.
    static func classify(_ view: RequestView, transactionId: String, bundleIds: Set<String>) -> String? {
        guard let final = view.final else { return "no_verify_response" }
        // T's own listing decides (a Server API page checks each nested JWS on its own); without
        // one, the answer's signature.
        let item = final.items.first { $0.transactionId == transactionId }
        if item.map(\.signature.failed) ?? final.signature.failed { return "signature_invalid" }
        if !bundleIds.isEmpty, let bundle = final.bundleId ?? item?.bundleId, !bundleIds.contains(bundle) { return "bundle_mismatch" }
        if final.status != 0 { return "nonzero_status" }
        if !view.finalItemIds.contains(transactionId) { return "not_in_receipt" }
        return nil
    }

    /// `invalid_credit` reasons, strongest first.
    static let reasonPrecedence = ["signature_invalid", "bundle_mismatch", "nonzero_status", "not_in_receipt", "no_verify_response"]
}
