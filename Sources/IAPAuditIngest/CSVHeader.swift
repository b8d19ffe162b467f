import IAPAuditModel

/// The header row of a CSV client-report or server-log file (docs/inputs.md §1–2): which kind of
/// records follow, or why none of them can be read.
///
/// A header is refused whole — one rejection at its line, no record read — when it would make the
/// records read wrongly without a word: a column a reader uses given twice (`granted,…,granted`:
/// which one counts? The last one silently did), or an unknown column that looks like a misspelling
/// of one (`trasaction_ids`, `transaction_id s`, `granted?`: the column would be ignored and its
/// values lost). Unknown columns unlike any known one are ignored.
enum CSVHeader {
    /// Records of `shape` follow; `names` are the header's names, trimmed and lowercased, in order.
    case records(shape: RecordShape, names: [String])
    /// A header of `shape` that cannot be read: `reason` says which column and what to do.
    case refused(shape: RecordShape, reason: String)

    /// The columns each reader uses (`ClientReportParser`, `ServerRequestParser`).
    static let clientColumns: Set<String> = [
        "ts", "user_id", "device_id", "transaction_id", "original_transaction_id", "product_id", "state", "error_code", "quantity",
    ]
    static let serverColumns: Set<String> = [
        "ts", "request_id", "event", "user_id", "device_id", "transaction_ids", "credited_transaction_ids", "restore",
        "receipt_sha256", "verify_status", "environment", "granted", "latency_ms",
    ]

    /// The header `line` names, or nil when it is no header of a CSV this version reads: it must name
    /// (exactly, or by a near miss) `request_id` and `transaction_ids` (a server log) or `state` and
    /// `transaction_id` (client reports), one of the two exactly.
    static func of(_ line: String) -> CSVHeader? {
        guard line.contains(","), let fields = try? CSVRecords.fields(line) else { return nil }
        let names = fields.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        let shape: RecordShape
        let known: Set<String>
        if identifies(names, "request_id", "transaction_ids", serverColumns) {
            (shape, known) = (.serverRequest, serverColumns)
        } else if identifies(names, "state", "transaction_id", clientColumns) {
            (shape, known) = (.clientReport, clientColumns)
        } else {
            return nil
        }
        for (i, name) in names.enumerated() where known.contains(name) {
            if let j = names[(i + 1)...].firstIndex(of: name) {
                return .refused(
                    shape: shape,
                    reason: "CSV header: column '\(name)' is given twice (columns \(i + 1) and \(j + 1)): which one counts? "
                        + "Keep one and run again (no record of this file was read)")
            }
        }
        for (i, name) in names.enumerated() where !known.contains(name) {
            if let meant = resembled(name, known, header: names) {
                return .refused(
                    shape: shape,
                    reason: "CSV header: column \(i + 1) '\(name)' is not a column iap-audit reads but resembles '\(meant)': "
                        + "name it '\(meant)' if it is that one, or remove it (no record of this file was read)")
            }
        }
        return .records(shape: shape, names: names)
    }

    /// Whether `names` hold both columns, one exactly and the other exactly or by a near miss.
    private static func identifies(_ names: [String], _ a: String, _ b: String, _ known: Set<String>) -> Bool {
        let has = { (column: String) in names.contains(column) }
        let near = { (column: String) in names.contains { !known.contains($0) && resembled($0, [column], header: names) != nil } }
        return (has(a) && (has(b) || near(b))) || (has(b) && near(a))
    }

    /// The known column `name` (not itself known) looks like a misspelling of: within `maxDistance`
    /// edits, or holding it (a column of 5 or more letters) while the header lacks it (`granted?` for
    /// `granted`; `granted_at` beside `granted` is another column).
    static func resembled(_ name: String, _ known: Set<String>, header: [String]) -> String? {
        let candidates = known.sorted()
        let close = candidates.map { (column: $0, edits: distance(name, $0)) }.filter { $0.edits <= maxDistance($0.column) }
        if let nearest = close.min(by: { $0.edits < $1.edits }) { return nearest.column }
        return candidates.filter { $0.count >= 5 && name.contains($0) && !header.contains($0) }.max { $0.count < $1.count }
    }

    /// Edits allowed for a near miss of `column`: none for `ts`, one for up to 5 letters, else two.
    private static func maxDistance(_ column: String) -> Int {
        column.count <= 2 ? 0 : column.count <= 5 ? 1 : 2
    }

    /// The Levenshtein distance of `a` and `b` (insertions, deletions, substitutions of characters).
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
