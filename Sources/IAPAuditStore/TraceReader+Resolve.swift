import Foundation
import IAPAuditModel

extension TraceReader {
    // MARK: What the id is

    /// The kinds of id `id` is (with the columns that hold it) and the transactions it leads to, in byte order.
    static func resolve(_ id: String, _ lookup: [TraceIdKind: String], _ q: TraceQueries) throws -> ([TraceMatch], [String]) {
        var resolver = IdResolver(id: id, lookup: lookup, q: q)
        try resolver.transactionIds()
        try resolver.orderAndPeople()
        try resolver.requestsAndLineItems()
        return (resolver.matches, ExactText.distinctSorted(resolver.transactions))
    }
}

/// What one id is, kind by kind: the columns that hold it (`matches`) and the transactions it leads to.
private struct IdResolver {
    let id: String
    let lookup: [TraceIdKind: String]
    let q: TraceQueries
    var matches: [TraceMatch] = []
    var transactions: [String] = []

    init(id: String, lookup: [TraceIdKind: String], q: TraceQueries) { (self.id, self.lookup, self.q) = (id, lookup, q) }

    /// Each kind of id: the columns that may hold it, each with the query telling whether it does (`?1`; the first-id range
    /// `?1`, `?2`).
    static let checks: [TraceIdKind: [(String, String)]] = [
        .transactionId: [
            ("client_report.transaction_id", "SELECT 1 FROM client_report WHERE transaction_id = ?1"),
            ("apple_transaction.transaction_id", "SELECT 1 FROM apple_transaction WHERE transaction_id = ?1"),
            ("finding.transaction_id", "SELECT 1 FROM finding WHERE transaction_id = ?1"),
            ("server_request.transaction_ids", "SELECT 1 FROM server_request WHERE transaction_ids >= ?1 AND transaction_ids < ?2"),
        ],
        .originalTransactionId: [
            (
                "apple_transaction.original_transaction_id",
                "SELECT 1 FROM apple_transaction WHERE original_transaction_id = ?1 AND original_transaction_id <> transaction_id"
            ),
            (
                "client_report.original_transaction_id",
                "SELECT 1 FROM client_report WHERE original_transaction_id = ?1 AND original_transaction_id <> transaction_id"
            ),
        ],
        .orderId: [
            ("apple_record.order_id", "SELECT 1 FROM apple_record WHERE order_id = ?1")
        ],
        .requestId: [
            ("server_request.request_id", "SELECT 1 FROM server_request WHERE request_id = ?1"),
            ("apple_record.request_id", "SELECT 1 FROM apple_record WHERE request_id = ?1"),
        ],
        .webOrderLineItemId: [
            ("apple_transaction.web_order_line_item_id", "SELECT 1 FROM apple_transaction WHERE web_order_line_item_id = ?1")
        ],
        .userId: people("user_id"), .deviceId: people("device_id"),
    ]

    /// A user or device id's columns.
    static func people(_ column: String) -> [(String, String)] {
        [
            ("client_report.\(column)", "SELECT 1 FROM client_report WHERE \(column) = ?1"),
            ("server_request.\(column)", "SELECT 1 FROM server_request WHERE \(column) = ?1"),
        ]
    }

    /// Records `kind` when one of its columns (`checks`) holds the id, with the transactions `leadsTo` finds.
    mutating func found(_ kind: TraceIdKind, leadsTo: () throws -> [String]) throws {
        let (low, high) = TraceQueries.firstIdRange(id)
        let columns = try Self.checks[kind, default: []].filter {
            try q.exists($0.1, $0.1.contains("?2") ? [low, high] : [lookup[kind] ?? id])
        }.map(\.0)
        guard !columns.isEmpty else { return }
        matches.append(TraceMatch(kind: kind, columns: columns))
        transactions += try leadsTo()
    }

    /// A transaction id, or an original transaction id (its transactions, proven first).
    mutating func transactionIds() throws {
        let (id, q) = (self.id, self.q)
        try found(.transactionId) { [id] }
        try found(.originalTransactionId) {
            try q.provenFirst(
                "SELECT t.transaction_id FROM apple_transaction t JOIN apple_record r ON r.record_id = t.record_id "
                    + "WHERE t.original_transaction_id = ?1 AND t.original_transaction_id <> t.transaction_id", [id], listedId: id)
                + q.texts(
                    "SELECT transaction_id FROM client_report WHERE original_transaction_id = ?1 AND original_transaction_id <> transaction_id",
                    [id]) + [id]
        }
    }

    /// An Apple order id, a user id or a device id.
    mutating func orderAndPeople() throws {
        let (id, q, lookup) = (self.id, self.q, self.lookup)
        try found(.orderId) {
            try q.provenFirst(
                "SELECT t.transaction_id FROM apple_record r JOIN apple_transaction t ON t.record_id = r.record_id WHERE r.order_id = ?1",
                [id])
        }
        for (kind, column) in [(TraceIdKind.userId, "user_id"), (.deviceId, "device_id")] {
            let value = lookup[kind] ?? id
            try found(kind) {
                var ids = try q.texts("SELECT transaction_id FROM client_report WHERE \(column) = ?1", [value])
                ids += try q.transactions(ofRequestsWhere: column, is: value)
                if kind == .userId {
                    let quoted = String(IdList.encode([value]).dropFirst().dropLast())
                    ids += try q.texts(
                        """
                        SELECT transaction_id FROM finding
                        WHERE instr(user_ids, ?1) > 0 AND EXISTS (SELECT 1 FROM json_each(user_ids) u WHERE u.value = ?2)
                        """, [quoted, value])
                }
                return ids
            }
        }
    }

    /// A request id, or a web order line item id.
    mutating func requestsAndLineItems() throws {
        let (id, q) = (self.id, self.q)
        try found(.requestId) {
            // An answer whose request was not logged still names its transactions.
            try q.transactions(ofRequestsWhere: "request_id", is: id)
                + q.provenFirst(
                    "SELECT t.transaction_id FROM apple_record r JOIN apple_transaction t ON t.record_id = r.record_id WHERE r.request_id = ?1",
                    [id])
        }
        try found(.webOrderLineItemId) {
            try q.provenFirst(
                "SELECT t.transaction_id FROM apple_transaction t JOIN apple_record r ON r.record_id = t.record_id "
                    + "WHERE t.web_order_line_item_id = ?1", [id])
        }
    }
}
