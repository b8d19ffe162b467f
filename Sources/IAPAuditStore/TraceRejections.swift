import IAPAuditModel

/// The rejected input lines (table `rejection`) that hold an id no record holds: a line the run could not
/// read (a bad `ts`, `"granted": "yes"`) is why a customer's purchase is nowhere in the ledger. Rejections
/// are few: their raw text is scanned (`instr`), each hit kept when it holds the id as a whole id (not
/// inside a longer one), the first `TraceRejectedLine.limit` in file and line order.
enum TraceRejections {
    /// - Parameter ids: the id as asked, and what it is looked up as (`trace --redact`: a token's user id).
    static func find(_ ids: [String], _ q: TraceQueries) throws -> (lines: [TraceRejectedLine], more: Bool) {
        var found: [TraceRejectedLine] = []
        var seen = Set<String>()
        var more = false
        for id in ExactText.distinctSorted(ids) where !id.isEmpty {
            try q.each(
                """
                SELECT f.path, r.line, r.reason, r.raw_text FROM rejection r JOIN source_file f ON f.file_id = r.file_id
                WHERE instr(r.raw_text, ?1) > 0 ORDER BY r.file_id, r.line
                """, [id]
            ) { row in
                guard TraceQueries.names(row.text(3), id, nonASCIIInIds: true) else { return }
                let location = SourceLocation(file: row.text(0), line: Int(row.int64(1)))
                guard seen.insert(location.description).inserted else { return }
                guard found.count < TraceRejectedLine.limit else {
                    more = true
                    return
                }
                found.append(TraceRejectedLine(location: location, reason: row.text(2)))
            }
        }
        return (found.sorted { $0.location < $1.location }, more)
    }
}
