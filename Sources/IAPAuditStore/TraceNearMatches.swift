import Foundation
import IAPAuditModel

/// Ids near one that matched nothing: the same id in another case or with white space around it, or
/// one or two characters off (a typo, two digits swapped, one left out) in its last three characters:
/// the ids sharing its leading characters, read through the indexes (ranges of each indexed id column,
/// 200 ids each; never a scan).
enum TraceNearMatches {
    /// The id columns looked at: kind, table, column, and the condition its index needs.
    static let columns: [(kind: TraceIdKind, table: String, column: String, condition: String)] = [
        (.transactionId, "client_report", "transaction_id", ""),
        (.transactionId, "apple_transaction", "transaction_id", ""),
        (.originalTransactionId, "apple_transaction", "original_transaction_id", " AND original_transaction_id <> transaction_id"),
        (.orderId, "apple_record", "order_id", ""),
        (.userId, "client_report", "user_id", ""),
        (.userId, "server_request", "user_id", ""),
        (.deviceId, "client_report", "device_id", ""),
        (.deviceId, "server_request", "device_id", ""),
        (.requestId, "server_request", "request_id", ""),
        (.webOrderLineItemId, "apple_transaction", "web_order_line_item_id", ""),
    ]

    /// At least this many, nearest first, and every other as near as the last of them.
    static let limit = 5

    static func find(_ id: String, _ q: TraceQueries) throws -> [(id: String, kind: TraceIdKind, why: String)] {
        let trimmed = id.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return [] }
        let target = Array(trimmed.lowercased())
        let allowed = target.count <= 6 ? 1 : 2
        // Each spelling's first n−1, n−2 and n−3 characters: the nearest ids share one of them.
        let probes = ExactText.distinctSorted([trimmed, trimmed.uppercased(), trimmed.lowercased()]).flatMap { text in
            (1...3).map { String(text.prefix(max(1, text.count - $0))) }
        }
        var found: [(distance: Int, kind: TraceIdKind, id: String)] = []
        var seen = Set<String>()
        for c in columns {
            for prefix in ExactText.distinctSorted(probes) {
                let candidates = try q.texts(
                    // Ordered: through the index it costs nothing; without one (a ledger trace may not write) the
                    // same 200 are read, not the first 200 in table order (helper-35: the nearest id was missed).
                    "SELECT DISTINCT \(c.column) FROM \(c.table) WHERE \(c.column) >= ?1 AND \(c.column) < ?2\(c.condition) "
                        + "ORDER BY \(c.column) LIMIT 200",
                    [prefix, prefix + "\u{10FFFF}"])
                for candidate in candidates where !candidate.utf8.elementsEqual(id.utf8) {
                    let distance = editDistance(Array(candidate.lowercased()), target)
                    guard distance <= allowed, seen.insert("\(c.kind.rawValue)\u{0}\(candidate)").inserted else { continue }
                    found.append((distance, c.kind, candidate))
                }
            }
        }
        let order = { (kind: TraceIdKind) in TraceIdKind.allCases.firstIndex(of: kind)! }
        let sorted = found.sorted { a, b in
            if a.distance != b.distance { return a.distance < b.distance }
            if a.kind != b.kind { return order(a.kind) < order(b.kind) }
            return a.id.utf8.lexicographicallyPrecedes(b.id.utf8)
        }
        // Never one shown alone while another as near is left out (issue 29: a pasted id's neighbour looked like the
        // answer): all of the last rank kept go too.
        let kept = sorted.count > limit ? sorted.prefix { $0.distance <= sorted[limit - 1].distance } : sorted[...]
        return kept.map { ($0.id, $0.kind, why($0.id, near: id)) }
    }

    /// Why `candidate` is near `id`, in words: `white space trimmed`, `other case`, and the characters off
    /// (`one character left out`, `one character too many`, `one character different`, `two characters
    /// swapped`, `two characters off`), each near the end.
    static func why(_ candidate: String, near id: String) -> String {
        let trimmed = id.trimmingCharacters(in: .whitespacesAndNewlines)
        var reasons: [String] = []
        if trimmed != id { reasons.append("white space trimmed") }
        let (a, b) = (Array(trimmed.lowercased()), Array(candidate.lowercased()))
        let sameLetters = zip(trimmed, candidate).contains { x, y in x != y && x.lowercased() == y.lowercased() }
        if sameLetters || (a == b && trimmed != candidate) { reasons.append("other case") }
        switch (editDistance(a, b), b.count - a.count) {
        case (0, _): break
        case (1, 1): reasons.append("one character left out near its end")
        case (1, -1): reasons.append("one character too many near its end")
        case (1, _):
            let swapped = a.count == b.count && zip(a, b).filter { $0 != $1 }.count == 2
            reasons.append(swapped ? "two characters swapped near its end" : "one character different near its end")
        default: reasons.append("two characters off near its end")
        }
        return reasons.joined(separator: ", ")
    }

    /// Edits (insert, delete, replace, swap two neighbours) from `a` to `b`.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[a.count][b.count]
    }
}
