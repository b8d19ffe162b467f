import LedgerDeclarations

/// Writes Store's record tables from the declarations: the DDL, the statements that delete a file's
/// rows, and the INSERT of each table with every value bound by its column.
struct TableEmitter {
    let records: [RecordDeclaration]

    func emit() -> String {
        var s = SwiftSource(header: generatedHeader(imports: ["IAPAuditModel"]))
        s.doc(["The record tables: `create` makes them, `deleteFileRows` deletes the rows read from file `?1`."])
        s.block("enum RecordTables") { s in
            s.line("static let create = \"\"\"")
            s.indented { s in
                for d in records { ddl(d, &s) }
            }
            s.line("    \"\"\"")
            s.line()
            s.doc(["Each file's rows are one key range: `file_id << 32 | line`."])
            s.line("static let deleteFileRows = [")
            s.indented { s in
                for d in records {
                    let key: String
                    switch d.key {
                    case .fileLine(let column): key = column
                    case .part(let parent): key = parent
                    }
                    s.line("\"DELETE FROM \(d.table) WHERE \(key) BETWEEN ?1 << 32 AND (?1 << 32) | 4294967295\",")
                }
            }
            s.line("]")
        }
        s.line()
        inserts(&s)
        for d in records {
            s.line()
            columns(d, &s)
        }
        return s.text
    }

    // MARK: DDL

    private func sqlType(_ t: FieldType, inGroup: Bool) -> String {
        let notNull = inGroup ? "" : " NOT NULL"
        switch t {
        case .text(let required), .idList(let required): return "TEXT" + (required ? notNull : "")
        case .quantities: return "TEXT"
        case .enumeration(_, let required): return "TEXT" + (required ? notNull : "")
        case .integer(_, let required), .bool(let required): return "INTEGER" + (required ? notNull : "")
        case .signature: return "TEXT NOT NULL DEFAULT 'not_checked'"
        case .jsonList: return "TEXT NOT NULL DEFAULT '[]'"
        case .joinedList, .rawText: return "TEXT NOT NULL"
        case .group, .parts: fatalError("no column")
        }
    }

    private func ddl(_ d: RecordDeclaration, _ s: inout SwiftSource) {
        s.line("CREATE TABLE IF NOT EXISTS \(d.table) (")
        var lines: [String] = []
        switch d.key {
        case .fileLine(let column):
            lines += ["\(column) INTEGER PRIMARY KEY", "file_id INTEGER NOT NULL", "line INTEGER NOT NULL"]
        case .part(let parent):
            lines += ["\(parent) INTEGER NOT NULL", "position INTEGER NOT NULL"]
        }
        for c in d.columns { lines.append("\(c.column) \(sqlType(c.field.type, inGroup: !c.path.isEmpty))") }
        if case .part(let parent) = d.key { lines.append("PRIMARY KEY (\(parent), position)") }
        s.indented { s in
            for (i, l) in lines.enumerated() { s.line(l + (i + 1 < lines.count ? "," : "")) }
        }
        if case .part = d.key { s.line(") STRICT, WITHOUT ROWID;") } else { s.line(") STRICT;") }
    }

    // MARK: INSERT

    /// (parameter case, column, row property, how it binds) of a table, in order.
    private func parameters(_ d: RecordDeclaration) -> [(name: String, column: String, bind: String)] {
        var result: [(String, String, String)] = []
        switch d.key {
        case .fileLine(let column):
            result += [("key", column, "key"), ("fileId", "file_id", "fileId"), ("line", "line", "line")]
        case .part(let parent):
            result += [("key", parent, "key"), ("position", "position", "position")]
        }
        for c in d.columns {
            let group = c.path.first.flatMap { f -> GroupDeclaration? in if case .group(let g) = f.type { return g } else { return nil } }
            let property = group.map { RecordEmitter.rowName(c.field, in: $0) } ?? c.field.property
            let bind: String
            switch c.field.type {
            case .text, .signature, .joinedList, .jsonList: bind = "text:\(property)"
            // A record's own text is stored with the app's shared secret redacted (SecretRedaction).
            case .rawText: bind = "redacted:\(property)"
            case .idList, .quantities: bind = "text:\(property)JSON"
            case .enumeration(_, let required): bind = (required ? "enum:" : "enum?:") + property
            case .integer, .bool: bind = "value:\(property)"
            case .group, .parts: continue
            }
            result.append((property, c.column, bind))
        }
        return result
    }

    private func columns(_ d: RecordDeclaration, _ s: inout SwiftSource) {
        let p = parameters(d)
        s.doc(["The parameters of `\(d.table)`'s INSERT, by column."])
        s.block("private enum \(d.type)Column: Int32") { s in
            for (i, parameter) in p.enumerated() { s.line("case \(parameter.name)" + (i == 0 ? " = 1" : "")) }
            s.line()
            s.line("static let insert = \"\"\"")
            s.indented { s in
                s.wrapped("INSERT INTO \(d.table) (", p.map(\.column), ")")
                s.wrapped("VALUES (", (1...p.count).map { "?\($0)" }, ")")
            }
            s.line("    \"\"\"")
        }
    }

    private func inserts(_ s: inout SwiftSource) {
        s.doc([
            "The INSERT of every record table, prepared once per file; `insert` binds each row's values by column",
            "(texts in place from the batch's arena: valid until the statement is reset).",
        ])
        s.block("final class RecordInserts") { s in
            for d in records { s.line("private let \(d.type.lowercasedFirst): SQLiteStatement") }
            s.line()
            s.doc(["Throws `SQLiteError` when a statement cannot be prepared."])
            s.block("init(database: SQLiteDatabase) throws") { s in
                for d in records { s.line("\(d.type.lowercasedFirst) = try database.prepare(\(d.type)Column.insert)") }
            }
            s.line()
            s.doc(["Inserts every row of `batch`, keyed `fileId << 32 | line`. Throws `SQLiteError` when a row cannot be stored."])
            s.block("func insert(_ batch: RecordBatch, fileId: Int64) throws") { s in
                s.line("try batch.arena.bytes.withUnsafeBufferPointer { arena in")
                s.indented { s in
                    s.line("let base = arena.baseAddress ?? UnsafePointer(bitPattern: 1)!")
                    for d in records {
                        guard case .fileLine = d.key else { continue }
                        s.block("for r in batch.\(d.batchProperty)") { s in
                            s.line("let key = fileId << 32 | Int64(r.line)")
                            bindRow(d, statement: d.type.lowercasedFirst, &s)
                            for f in d.fields {
                                guard case .parts(let type) = f.type else { continue }
                                let part = records.first { $0.type == type }!
                                s.block("for (position, index) in r.\(f.property).enumerated()") { s in
                                    s.line("let r = batch.\(part.batchProperty)[Int(index)]")
                                    bindRow(part, statement: part.type.lowercasedFirst, &s)
                                }
                            }
                        }
                    }
                }
                s.line("}")
            }
        }
    }

    private func bindRow(_ d: RecordDeclaration, statement st: String, _ s: inout SwiftSource) {
        let column = "\(d.type)Column"
        s.line("\(st).resetForRow()")
        for p in parameters(d) {
            let parts = p.bind.split(separator: ":", maxSplits: 1).map(String.init)
            switch parts[0] {
            case "key": s.line("\(st).bind(\(column).key, key)")
            case "fileId": s.line("\(st).bind(\(column).fileId, fileId)")
            case "line": s.line("\(st).bind(\(column).line, Int64(r.line))")
            case "position": s.line("\(st).bind(\(column).position, Int64(position))")
            case "text": s.call("\(st).bind", ["\(column).\(p.name)", "text: r.\(parts[1])", "in: base"])
            case "redacted": s.line("\(st).bind(\(column).\(p.name), redactingSecretsIn: r.\(parts[1]), in: base)")
            case "enum": s.line("\(st).bind(\(column).\(p.name), constant: r.\(parts[1]).rawValue)")
            case "enum?": s.line("if let v = r.\(parts[1]) { \(st).bind(\(column).\(p.name), constant: v.rawValue) }")
            default: s.call("\(st).bind", ["\(column).\(p.name)", "r.\(parts[1])"])
            }
        }
        s.line("try \(st).insertRow()")
    }
}
