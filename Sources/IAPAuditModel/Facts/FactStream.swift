/// The streams of reconciliation facts: compact records of just what the rules read, written beside
/// every imported file (table `fact_chunk`) and read back one partition at a time, so reconciliation
/// never holds the whole ledger in memory.
///
/// Every fact starts with its `FactKind` byte. Locations are (file id, line); file id 0 means the
/// file the chunk belongs to (facts are encoded before the store numbers the file).
package enum FactStream: Int, CaseIterable {
    /// One `FileFacts` summary per file (partition 0).
    case summary = 0
    /// Keyed by `request_id`: server-log lines (verify and revoke) and the Apple records that name a request.
    case requests = 1
    /// Keyed by transaction id: client reports, revokes, and listings of Apple records linked to no request.
    case transactions = 2
    /// Keyed by `notificationUUID`: which deliveries of a notification there are.
    case notifications = 3
    /// Keyed by `original_transaction_id`: listings with a `web_order_line_item_id` (re-issued ids).
    case billing = 4
}
