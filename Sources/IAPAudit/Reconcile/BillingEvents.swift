/// Apple's re-issued transaction ids: the same purchase listed under new `transaction_id`s with the
/// same `original_transaction_id` + `web_order_line_item_id` is one billing event.
///
/// Only trustworthy listings count: FAMILY_SHARED items (a family member's own transaction, never the
/// purchaser's) and items whose signature failed are left out.
struct BillingEvents {
    /// Every id of an event with two or more ids, by each of its ids (sorted, exact text).
    let siblings: [String: [String]]

    init(responses: [VerifyResponse]) {
        var ids: [String: Set<String>] = [:]
        for response in responses {
            for item in response.items where item.inAppOwnershipType != "FAMILY_SHARED" && !item.signature.failed {
                guard let original = item.originalTransactionId, let line = item.webOrderLineItemId, line != "0" else { continue }
                ids[original + "\u{1F}" + line, default: []].insert(item.transactionId)
            }
        }
        var siblings: [String: [String]] = [:]
        for (_, event) in ids where event.count > 1 {
            let sorted = event.sorted { ($0.count, $0) < ($1.count, $1) }
            for id in sorted { siblings[id] = sorted }
        }
        self.siblings = siblings
    }

    /// T and the other ids of its billing event (just T when Apple never re-issued it).
    func ids(of id: String) -> [String] { siblings[id] ?? [id] }
}

extension Array where Element == VerifyResponse {
    /// Drops re-deliveries of a notification (same `notificationUUID`; Apple retries until the server
    /// answers 200): the first delivery in (file, line) order is kept. Only deliveries whose signature
    /// did not fail claim a UUID, so a forged copy cannot hide the genuine one (it proves nothing itself).
    func droppingNotificationRedeliveries() -> [VerifyResponse] {
        var seen = Set<String>()
        return filter { response in
            guard let uuid = response.notification?.notificationUUID, !response.signature.failed else { return true }
            return seen.insert(uuid).inserted
        }
    }
}
