import LedgerDeclarations

/// Writes the tests' view of the ledger from the declarations: rows and stored rows back as values
/// (what a test asserts on, after the production path stored them), and a sample of every fact kind
/// (the golden bytes that pin the fact format to `Schema.readerVersion`).
struct TestSupportEmitter {
    let records: [RecordDeclaration]
    let facts: [FactDeclaration]

    private var tops: [RecordDeclaration] { records.filter { if case .fileLine = $0.key { return true } else { return false } } }

    func emit() -> String {
        var s = SwiftSource(header: generatedHeader(imports: ["Foundation"]))
        for m in ["IAPAuditModel", "IAPAuditStore"] { s.line("@testable import \(m)") }
        s.line()
        rowsToValues(&s)
        s.line()
        loader(&s)
        s.line()
        samples(&s)
        return s.text
    }

    // MARK: Rows → values

    private func rowsToValues(_ s: inout SwiftSource) {
        s.block("extension RecordBatch") { s in
            var first = true
            for d in records {
                if !first { s.line() }
                first = false
                let isTop = tops.contains { $0.table == d.table }
                s.doc(["A `\(d.row)` of this batch as a `\(d.type)`" + (isTop ? " of `file`." : ".")])
                s.block("func \(d.type.lowercasedFirst)(_ r: \(d.row)\(isTop ? ", file: String" : "")) -> \(d.type)") { s in
                    var args: [String] = []
                    if isTop { args.append("location: SourceLocation(file: file, line: Int(r.line))") }
                    for f in d.fields {
                        if case .group(let g) = f.type {
                            groupValue(f, g, &s)
                            args.append("\(f.property): \(f.property)")
                        } else if let a = value(f, row: "r") {
                            args.append("\(f.property): \(a)")
                        }
                    }
                    s.call("return \(d.type)", args)
                }
            }
            s.line()
            s.line("private func idList(_ range: Range<Int32>) -> [String] { range.map { text(ids[Int($0)]) ?? \"\" } }")
            s.line()
            s.line("private func quantityMap(_ range: Range<Int32>) -> [String: Int] {")
            s.line(
                "    Dictionary(uniqueKeysWithValues: range.map { (text(quantities[Int($0)].id) ?? \"\", Int(quantities[Int($0)].quantity)) })"
            )
            s.line("}")
        }
    }

    /// `var <group>: Type? = nil`, made when its `presentWhen` field is not null.
    private func groupValue(_ f: FieldDeclaration, _ g: GroupDeclaration, _ s: inout SwiftSource) {
        let present = g.fields.first { $0.property == g.presentWhen }!
        s.line("var \(f.property): \(g.type)? = nil")
        s.block("if let type = text(r.\(RecordEmitter.rowName(present, in: g)))") { s in
            let args = g.fields.compactMap { sub -> String? in
                if sub.property == g.presentWhen { return "\(sub.property): type" }
                return value(sub, row: "r", group: g).map { "\(sub.property): \($0)" }
            }
            s.call("\(f.property) = \(g.type)", args)
        }
    }

    private func value(_ f: FieldDeclaration, row r: String, group: GroupDeclaration? = nil) -> String? {
        guard f.stored else { return nil }
        let p = group.map { "\(r).\(RecordEmitter.rowName(f, in: $0))" } ?? "\(r).\(f.property)"
        switch f.type {
        case .text(let required): return required && group == nil ? "text(\(p)) ?? \"\"" : "text(\(p))"
        case .integer(let swift, let required):
            if swift == "Int64" { return p }
            return required ? "Int(\(p))" : "\(p).map { Int($0) }"
        case .bool, .enumeration: return p
        case .signature: return "text(\(p)).flatMap(SignatureStatus.init(text:)) ?? .notChecked"
        case .idList(let required): return required ? "idList(\(p))" : "\(p).map(idList)"
        case .quantities: return "\(p).map(quantityMap)"
        case .joinedList(let separator): return "(text(\(p)) ?? \"\").split(separator: \"\(separator)\").map(String.init)"
        case .jsonList: return "text(\(p)).map(IdList.decode) ?? []"
        case .rawText: return "text(\(p)) ?? \"\""
        case .group: return nil
        case .parts(let type):
            let part = records.first { $0.type == type }!
            return "\(p).map { \(type.lowercasedFirst)(\(part.batchProperty)[Int($0)]) }"
        }
    }

    // MARK: Stored rows → values

    private func loader(_ s: inout SwiftSource) {
        s.doc(["Every record of a ledger as values, each kind in (path, line) order."])
        s.block("struct LoadedLedger") { s in
            for d in tops { s.line("var \(d.batchProperty): [\(d.type)] = []") }
        }
        s.line()
        s.block("extension AuditStore") { s in
            s.doc(["Reads every stored record back as values (the tests' independent view of what a run stored)."])
            s.block("func loadLedger() throws -> LoadedLedger") { s in
                s.line("var ledger = LoadedLedger()")
                for d in records where !tops.contains(where: { $0.table == d.table }) {
                    guard case .part(let parent) = d.key else { continue }
                    let columns = d.columns.map(\.column)
                    s.line("var \(d.batchProperty): [Int64: [\(d.type)]] = [:]")
                    s.line("let \(d.type.lowercasedFirst)Query = try database.prepare(")
                    s.indented { s in
                        s.line("\"\"\"")
                        s.wrapped("SELECT ", [parent] + columns, "")
                        s.line("FROM \(d.table) ORDER BY \(parent), position")
                        s.line("\"\"\")")
                    }
                    s.block("while try \(d.type.lowercasedFirst)Query.step()") { s in
                        let q = "\(d.type.lowercasedFirst)Query"
                        var index = 1
                        let args = d.fields.compactMap { f in column(f, q, &index).map { "\(f.property): \($0)" } }
                        s.call("let value = \(d.type)", args)
                        s.line("\(d.batchProperty)[\(q).int64(0), default: []].append(value)")
                    }
                }
                for d in tops {
                    guard case .fileLine(let key) = d.key else { continue }
                    let q = "\(d.type.lowercasedFirst)Query"
                    let columns = ["t.\(key)", "f.path", "t.line"] + d.columns.map { "t.\($0.column)" }
                    s.line("let \(q) = try database.prepare(")
                    s.indented { s in
                        s.line("\"\"\"")
                        s.wrapped("SELECT ", columns, "")
                        s.line("FROM \(d.table) t JOIN source_file f USING (file_id) ORDER BY f.path, t.line")
                        s.line("\"\"\")")
                    }
                    s.block("while try \(q).step()") { s in
                        var index = 3
                        var args = ["location: SourceLocation(file: \(q).text(1), line: Int(\(q).int64(2)))"]
                        for f in d.fields {
                            if case .parts(let type) = f.type {
                                let part = records.first { $0.type == type }!
                                args.append("\(f.property): \(part.batchProperty)[\(q).int64(0)] ?? []")
                            } else if case .group(let g) = f.type {
                                let presentAt = index + g.fields.filter(\.stored).firstIndex { $0.property == g.presentWhen }!
                                let groupArgs = g.fields.compactMap { sub -> String? in
                                    if sub.property == g.presentWhen {
                                        index += 1
                                        return "\(sub.property): \(q).text(\(presentAt))"
                                    }
                                    return column(sub, q, &index, inGroup: true).map { "\(sub.property): \($0)" }
                                }
                                s.line("var \(f.property): \(g.type)? = nil")
                                s.block("if !\(q).isNull(\(presentAt))") { s in s.call("\(f.property) = \(g.type)", groupArgs) }
                                args.append("\(f.property): \(f.property)")
                            } else if let c = column(f, q, &index) {
                                args.append("\(f.property): \(c)")
                            }
                        }
                        s.call("let value = \(d.type)", args)
                        s.line("ledger.\(d.batchProperty).append(value)")
                    }
                }
                s.line("return ledger")
            }
        }
    }

    /// A field read from the stored columns at `index` (advanced past them).
    private func column(_ f: FieldDeclaration, _ q: String, _ index: inout Int, inGroup: Bool = false) -> String? {
        guard f.stored else { return nil }
        let i = index
        switch f.type {
        case .parts: return nil
        case .group: return nil
        default: index += 1
        }
        switch f.type {
        case .text(let required): return required && !inGroup ? "\(q).text(\(i))" : "\(q).optionalText(\(i))"
        case .integer(let swift, let required):
            let raw = required && !inGroup ? "\(q).int64(\(i))" : "\(q).optionalInt64(\(i))"
            if swift == "Int64" { return raw }
            return required && !inGroup ? "Int(\(raw))" : "\(raw).map { Int($0) }"
        case .bool(let required): return required && !inGroup ? "\(q).int64(\(i)) != 0" : "\(q).optionalInt64(\(i)).map { $0 != 0 }"
        case .enumeration(let type, let required):
            return required ? "\(type)(rawValue: \(q).text(\(i)))!" : "\(q).optionalText(\(i)).flatMap(\(type).init(rawValue:))"
        case .signature: return "SignatureStatus(text: \(q).text(\(i))) ?? .notChecked"
        case .idList(let required): return required ? "IdList.decode(\(q).text(\(i)))" : "\(q).optionalText(\(i)).map(IdList.decode)"
        case .quantities: return "\(q).optionalText(\(i)).map(QuantityList.decode)"
        case .joinedList(let separator): return "\(q).text(\(i)).split(separator: \"\(separator)\").map(String.init)"
        case .jsonList: return "IdList.decode(\(q).text(\(i)))"
        case .rawText: return "\(q).text(\(i))"
        case .group, .parts: return nil
        }
    }

    // MARK: Fact samples

    private func samples(_ s: inout SwiftSource) {
        s.doc([
            "One fact of every kind with fixed values, as bytes: the golden encoding of this `FactLayout`",
            "(FactFormatTests compares it with Fixtures/fact-layout/v<readerVersion>.hex).",
        ])
        s.block("enum FactSamples") { s in
            s.block("static func all() -> [(kind: String, bytes: [UInt8])]") { s in
                s.line("var result: [(kind: String, bytes: [UInt8])] = []")
                for f in facts {
                    for field in f.fields {
                        guard case .list(.record(let element, let elementFields), _) = field.type else { continue }
                        s.block("func \(f.kind)\(field.name.capitalizedFirst)(_ w: inout FactWriter)") { s in
                            s.block("for _ in 0..<2") { s in
                                s.call("\(f.type).\(element).write", ["&w"] + arguments(elementFields, outer: f.type + "." + element))
                            }
                        }
                    }
                    s.line("var \(f.kind) = FactWriter()")
                    s.call("\(f.type).write", ["&\(f.kind)"] + arguments(f.fields, outer: f.type, fact: f.kind))
                    s.line("result.append((\"\(f.kind)\", \(f.kind).bytes))")
                }
                s.line("return result")
            }
            s.line()
            s.doc(["A text that lives as long as the program (a literal's bytes)."])
            s.line("private static func text(_ s: StaticString) -> UnsafeBufferPointer<UInt8> {")
            s.line("    UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount)")
            s.line("}")
        }
    }

    private func arguments(_ fields: [FactField], outer: String, fact: String = "") -> [String] {
        var args: [String] = []
        for (k, f) in fields.enumerated() {
            let n = k + 1
            switch f.type {
            case .u8: args.append("\(f.name): \(n)")
            case .u32, .file: args.append("\(f.name): \(n * 1000 + 7)")
            case .i64: args.append("\(f.name): \(Int64(n) * 1_000_000_007)")
            case .zigzag: args.append("\(f.name): -\(n * 21000)")
            case .optionalInt: args.append("\(f.name): " + (n % 2 == 0 ? "nil" : "\(Int64(n) * 1_700_000_000_000)"))
            case .optionalBool: args.append("\(f.name): " + (n % 3 == 0 ? "nil" : n % 2 == 0 ? "true" : "false"))
            case .text, .requiredText: args.append("\(f.name): text(\"t\(n)-é\")")
            case .signature: args.append("\(f.name): text(\"invalid:reason\(n)\")")
            case .id, .requiredId:
                args.append("\(f.name): " + (n % 2 == 0 ? ".number(\(UInt64(n) * 2_000_000_000_000_001))" : ".bytes(text(\"id\(n)\"))"))
            case .environment: args.append("\(f.name): " + (n % 2 == 0 ? "(.production, nil)" : "(.other, text(\"Env\(n)\"))"))
            case .flags(let names): args += names.enumerated().map { "\($0.element): \($0.offset % 2 == 0)" }
            case .caseIndex(let type): args.append("\(f.name): \(type).allCases.last!")
            case .list(.value, _): args.append("\(f.name): [.number(\(n)), .bytes(text(\"x-\(n)\")), .bytes(text(\"0\(n)\"))]")
            case .list(.record, _):
                args.append("\(f.name)Count: 2")
                args.append("\(f.name): \(fact)\(f.name.capitalizedFirst)")
            case .histogram: args.append("\(f.name): [\(n): 2, -\(n): 3, 0: \(n)]")
            case .instant: args.append("\(f.name): " + (n % 2 == 0 ? "nil" : "(ms: \(Int64(n) * 1_790_000_000_000), line: \(n))"))
            }
        }
        return args
    }
}
