import LedgerDeclarations

/// Writes Model's record types from the declarations: each value type (what readers fill), its row in
/// a `RecordBatch`, the batch itself and the append of a value as rows.
struct RecordEmitter {
    let records: [RecordDeclaration]

    func emit() -> String {
        var s = SwiftSource(header: generatedHeader(imports: []))
        for d in records {
            valueType(d, &s)
            s.line()
            for case .group(let g) in d.fields.map(\.type) {
                groupType(g, &s)
                s.line()
            }
            rowType(d, &s)
            s.line()
        }
        batch(&s)
        return s.text
    }

    // MARK: Values

    private func valueType(_ d: RecordDeclaration, _ s: inout SwiftSource) {
        s.doc(d.doc)
        s.block("public struct \(d.type): \(d.conformances.joined(separator: ", "))") { s in
            var params: [String] = []
            var assigns: [String] = []
            if case .fileLine = d.key {
                s.doc(["Where the record is: its input file (as given) and 1-based line; `file:line` in every message."])
                s.line("public var location: SourceLocation")
                params.append("location: SourceLocation")
                assigns.append("self.location = location")
            }
            for f in d.fields { property(f, &s, &params, &assigns) }
            s.line()
            initializer(params, assigns, &s)
        }
    }

    private func property(_ f: FieldDeclaration, _ s: inout SwiftSource, _ params: inout [String], _ assigns: inout [String]) {
        let type = Self.valueType(f.type)
        s.doc(f.doc)
        let initial = f.defaultValue.map { " = \($0)" } ?? ""
        s.line("public var \(f.property): \(type)\(initial)")
        let defaultArgument = f.defaultValue ?? (f.type.isOptional ? "nil" : nil)
        params.append("\(f.property): \(type)" + (defaultArgument.map { " = \($0)" } ?? ""))
        assigns.append("self.\(f.property) = \(f.property)")
    }

    static func valueType(_ t: FieldType) -> String {
        switch t {
        case .text(let required): return required ? "String" : "String?"
        case .integer(let swift, let required): return required ? swift : swift + "?"
        case .bool(let required): return required ? "Bool" : "Bool?"
        case .enumeration(let type, let required): return required ? type : type + "?"
        case .signature: return "SignatureStatus"
        case .idList(let required): return required ? "[String]" : "[String]?"
        case .quantities: return "[String: Int]?"
        case .joinedList, .jsonList: return "[String]"
        case .rawText: return "String"
        case .group(let g): return g.type + "?"
        case .parts(let type): return "[\(type)]"
        }
    }

    private func groupType(_ g: GroupDeclaration, _ s: inout SwiftSource) {
        s.doc(g.doc)
        s.block("public struct \(g.type): Hashable, Sendable") { s in
            var params: [String] = []
            var assigns: [String] = []
            for f in g.fields { property(f, &s, &params, &assigns) }
            s.line()
            initializer(params, assigns, &s)
        }
    }

    private func initializer(_ params: [String], _ assigns: [String], _ s: inout SwiftSource, access: String = "public") {
        s.call("\(access) init", params, " {")
        s.indented { s in for a in assigns { s.line(a) } }
        s.line("}")
    }

    // MARK: Rows

    /// Row properties of a field: (name, type, default) — groups flattened, id lists twice.
    static func rowProperties(_ f: FieldDeclaration, group: GroupDeclaration? = nil) -> [(name: String, type: String, initial: String?)] {
        guard f.stored else { return [] }
        let name = group.map { rowName(f, in: $0) } ?? f.property
        switch f.type {
        case .text, .signature, .joinedList, .jsonList, .rawText: return [(name, "TextRef", ".null")]
        case .integer(_, let required): return [(name, required ? "Int64" : "Int64?", required ? nil : "nil")]
        case .bool(let required): return [(name, required ? "Bool" : "Bool?", required ? nil : "nil")]
        case .enumeration(let type, let required): return [(name, required ? type : type + "?", required ? nil : "nil")]
        case .idList(let required):
            return [(name, required ? "Range<Int32>" : "Range<Int32>?", required ? nil : "nil"), (name + "JSON", "TextRef", ".null")]
        case .quantities: return [(name, "Range<Int32>?", "nil"), (name + "JSON", "TextRef", ".null")]
        case .group(let g): return g.fields.flatMap { rowProperties($0, group: g) }
        case .parts: return [(name, "Range<Int32>", "0..<0")]
        }
    }

    /// A group field's row property: `notificationType` stays, `subtype` becomes `notificationSubtype`.
    static func rowName(_ f: FieldDeclaration, in g: GroupDeclaration) -> String {
        let prefix = String(g.columnPrefix.dropLast()).lowercasedFirst
        return f.property.hasPrefix(prefix) ? f.property : prefix + f.property.capitalizedFirst
    }

    private func rowType(_ d: RecordDeclaration, _ s: inout SwiftSource) {
        s.doc(["A `\(d.table)` row in a `RecordBatch` (see `\(d.type)`): texts are `TextRef`s of the batch's arena."])
        s.block("package struct \(d.row): Sendable") { s in
            var params: [String] = []
            var assigns: [String] = []
            var properties: [(name: String, type: String, initial: String?)] = []
            if case .fileLine = d.key { properties.append(("line", "UInt32", nil)) }
            for f in d.fields { properties += Self.rowProperties(f) }
            for p in properties {
                s.line("package var \(p.name): \(p.type)")
                params.append("\(p.name): \(p.type)" + (p.initial.map { " = \($0)" } ?? ""))
                assigns.append("self.\(p.name) = \(p.name)")
            }
            s.line()
            initializer(params, assigns, &s, access: "package")
            if d.merges {
                s.line()
                rowMerge(d, &s)
            }
        }
        if d.merges {
            s.line()
            valueMerge(d, &s)
        }
    }

    private func rowMerge(_ d: RecordDeclaration, _ s: inout SwiftSource) {
        s.doc(["Fills what this row lacks from another listing of the same transaction."])
        s.block("package mutating func merge(_ other: \(d.row))") { s in
            for f in d.fields.dropFirst() {
                for p in Self.rowProperties(f) {
                    if p.type == "TextRef" {
                        s.line("if \(p.name).isNull { \(p.name) = other.\(p.name) }")
                    } else if p.type.hasSuffix("?") {
                        s.line("\(p.name) = \(p.name) ?? other.\(p.name)")
                    }
                }
            }
        }
    }

    private func valueMerge(_ d: RecordDeclaration, _ s: inout SwiftSource) {
        s.block("extension \(d.type)") { s in
            s.doc([
                "Fills what this listing lacks from another listing of the same transaction: the worse",
                "signature of the two, every section.",
            ])
            s.block("public mutating func merge(_ other: \(d.type))") { s in
                for f in d.fields {
                    switch f.type {
                    case .signature: s.line("\(f.property) = \(f.property).combined(with: other.\(f.property))")
                    case .joinedList:
                        s.line("for item in other.\(f.property) where !\(f.property).contains(item) { \(f.property).append(item) }")
                    default:
                        if f.type.isOptional { s.line("\(f.property) = \(f.property) ?? other.\(f.property)") }
                    }
                }
            }
        }
    }

    // MARK: The batch

    private func batch(_ s: inout SwiftSource) {
        s.doc([
            "Records read from one stretch of an input file, as rows ready for the store: every text in one",
            "arena (`TextArena`), every row a flat value. The fast JSON Lines readers fill rows directly; the",
            "other readers append values (`append(_:)`). Rows keep their input order; `line` is 1-based.",
        ])
        s.block("package struct RecordBatch: Sendable") { s in
            s.line("package var arena = TextArena()")
            for d in records { s.line("package var \(d.batchProperty): [\(d.row)] = []") }
            s.doc(["The ids of id lists (`ServerRow.transactionIds`…): rows hold ranges of it."])
            s.line("package var ids: [TextRef] = []")
            s.doc(["The (id, quantity) pairs of quantity fields (`ServerRow.creditedQuantities`…), ids sorted: rows hold ranges of it."])
            s.line("package var quantities: [(id: TextRef, quantity: Int64)] = []")
            s.line("package var rejections: [Rejection] = []")
            s.doc(["The reconciliation facts of these rows, once encoded (`FactEncoder`); nil until then."])
            s.line("package var facts: FactSet? = nil")
            s.line()
            s.line("package init() {}")
            s.line()
            s.doc(["Records imported (rejections not counted)."])
            let tops = records.filter { if case .fileLine = $0.key { return true } else { return false } }
            s.sum("package var recordCount: Int", tops.map { "\($0.batchProperty).count" })
        }
        s.line()
        s.block("extension RecordBatch") { s in
            var first = true
            for d in records {
                if !first { s.line() }
                first = false
                append(d, &s)
            }
            s.line()
            s.line("private mutating func appendQuantities(_ values: [String: Int]) -> Range<Int32> {")
            s.indented { s in
                s.line("let start = Int32(quantities.count)")
                s.line("for (id, n) in QuantityList.sorted(values) { quantities.append((arena.append(id), Int64(n))) }")
                s.line("return start..<Int32(quantities.count)")
            }
            s.line("}")
            s.line()
            s.line("private mutating func appendIds(_ values: [String]) -> Range<Int32> {")
            s.indented { s in
                s.line("let start = Int32(ids.count)")
                s.line("for id in values { ids.append(arena.append(id)) }")
                s.line("return start..<Int32(ids.count)")
            }
            s.line("}")
        }
    }

    private func append(_ d: RecordDeclaration, _ s: inout SwiftSource) {
        let keepsRaw = d.fields.contains { if case .rawText = $0.type { return true } else { return false } }
        let isTop: Bool
        if case .fileLine = d.key { isTop = true } else { isTop = false }
        s.doc(
            isTop
                ? ["Appends a `\(d.type)` as rows" + (keepsRaw ? "; `keepRaw`: store its `rawJSON` (not for a JSON Lines line)." : ".")]
                : ["Appends a part of a record (its parent appends it)."])
        let signature = "\(isTop ? "package" : "private") mutating func append(_ r: \(d.type)\(keepsRaw ? ", keepRaw: Bool" : ""))"
        s.block(signature) { s in
            var args: [String] = []
            if isTop { args.append("line: UInt32(r.location.line)") }
            for f in d.fields {
                switch f.type {
                case .parts(let type):
                    let part = records.first { $0.type == type }!
                    s.line("let \(f.property)Start = Int32(\(part.batchProperty).count)")
                    s.line("for p in r.\(f.property) { append(p) }")
                    args.append("\(f.property): \(f.property)Start..<Int32(\(part.batchProperty).count)")
                case .quantities:
                    args.append("\(f.property): r.\(f.property).map { appendQuantities($0) }")
                    args.append("\(f.property)JSON: arena.append(r.\(f.property).map(QuantityList.encode))")
                case .idList(let required):
                    if required {
                        args.append("\(f.property): appendIds(r.\(f.property))")
                        args.append("\(f.property)JSON: arena.append(IdList.encode(r.\(f.property)))")
                    } else {
                        args.append("\(f.property): r.\(f.property).map { appendIds($0) }")
                        args.append("\(f.property)JSON: arena.append(r.\(f.property).map(IdList.encode))")
                    }
                case .group(let g):
                    for sub in g.fields where sub.stored {
                        args.append(
                            "\(Self.rowName(sub, in: g)): \(rowValue(sub, "r.\(f.property)?.\(sub.property)", optionalChain: true))")
                    }
                default:
                    guard f.stored else { continue }
                    args.append("\(f.property): \(rowValue(f, "r.\(f.property)", optionalChain: false))")
                }
            }
            s.call("let row = \(d.row)", args)
            s.line("\(d.batchProperty).append(row)")
        }
    }

    /// The row value of a field read at `path`.
    private func rowValue(_ f: FieldDeclaration, _ path: String, optionalChain: Bool) -> String {
        switch f.type {
        case .text: return "arena.append(\(path))"
        case .integer(let swift, let required):
            if swift == "Int64" { return path }
            return required && !optionalChain ? "Int64(\(path))" : "\(path).map(Int64.init)"
        case .bool, .enumeration: return path
        case .signature: return "arena.append(\(path).text)"
        case .joinedList(let separator): return "arena.append(\(path).joined(separator: \"\(separator)\"))"
        case .jsonList: return "arena.append(IdList.encode(\(path)))"
        case .rawText: return "arena.append(keepRaw ? \(path) : \"\")"
        case .idList, .quantities, .group, .parts: fatalError("handled by the caller")
        }
    }
}
