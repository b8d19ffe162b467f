import LedgerDeclarations

/// Writes Model's reconciliation facts from the declarations: `FactKind`, and per kind its struct (as the
/// rules read it), its reader and its writer, plus `FactLayout`, the fingerprint of every layout.
struct FactEmitter {
    let facts: [FactDeclaration]
    let streams: [(name: String, doc: String)]

    func emit() -> String {
        var s = SwiftSource(header: generatedHeader(imports: []))
        s.doc([
            "The streams of reconciliation facts: compact records of just what the rules read, written beside",
            "every imported file (table `fact_chunk`, column `stream`) and read back one partition at a time, so",
            "reconciliation never holds the whole ledger in memory. Every fact starts with its `FactKind` byte;",
            "locations are (file id, line), file id 0 meaning the file the chunk belongs to.",
        ])
        s.block("package enum FactStream: Int, CaseIterable") { s in
            for (number, stream) in streams.enumerated() {
                s.doc([stream.doc])
                s.line("case \(stream.name) = \(number)")
            }
        }
        s.line()
        s.doc(["The kinds of facts: the byte that starts each (the layout is the fields of its type, in order)."])
        s.block("package enum FactKind: UInt8, CaseIterable") { s in
            for f in facts {
                s.doc(f.doc + ["`\(f.type)`."])
                s.line("case \(f.kind) = \(f.code)")
            }
        }
        s.line()
        s.doc([
            "Every fact layout in one text, and its FNV-1a hash: a test pins the hash to `Schema.readerVersion`, so a",
            "layout change without a version bump (which makes the next run read every file again) fails.",
        ])
        s.block("package enum FactLayout") { s in
            s.line("package static let fingerprint: UInt64 = 0x\(String(Self.fnv(layout), radix: 16, uppercase: true))")
        }
        for f in facts {
            s.line()
            factType(f, &s)
        }
        return s.text
    }

    /// The layouts as text (what the fingerprint hashes).
    var layout: String {
        facts.map { f in "\(f.kind)=\(f.code):" + f.fields.map { "\($0.name) \(Self.describe($0.type))" }.joined(separator: ",") }
            .joined(separator: ";")
    }

    static func describe(_ t: FactFieldType) -> String {
        switch t {
        case .flags(let names): return "flags(\(names.joined(separator: " ")))"
        case .caseIndex(let type): return "case(\(type))"
        case .list(.value(let v), let optional): return "list\(optional ? "?" : "")(\(describe(v)))"
        case .list(.record(let type, let fields), let optional):
            return "list\(optional ? "?" : "")(\(type){\(fields.map { "\($0.name) \(describe($0.type))" }.joined(separator: ","))})"
        default: return "\(t)"
        }
    }

    static func fnv(_ text: String) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in text.utf8 { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        return h
    }

    // MARK: One fact

    /// (property, type) of a field in the struct as read.
    static func properties(_ f: FactField, in fact: String) -> [(name: String, type: String)] {
        switch f.type {
        case .u8: return [(f.name, "UInt8")]
        case .u32, .file: return [(f.name, "UInt32")]
        case .i64, .zigzag: return [(f.name, "Int64")]
        case .optionalInt: return [(f.name, "Int64?")]
        case .optionalBool: return [(f.name, "Bool?")]
        case .text: return [(f.name, "FactText?")]
        case .requiredText: return [(f.name, "FactText")]
        case .id: return [(f.name, "FactId?")]
        case .requiredId: return [(f.name, "FactId")]
        case .environment: return [(f.name, "EnvironmentCode"), (f.name + "Raw", "FactText?")]
        case .signature: return [(f.name, "SignatureCode"), (f.name + "Reason", "FactText?")]
        case .flags(let names): return names.map { ($0, "Bool") }
        case .caseIndex(let type): return [(f.name, type)]
        case .list(_, let optional): return [(f.name, optional ? "Range<Int>?" : "Range<Int>")]
        case .histogram: return [(f.name, "[Int64: Int64]")]
        case .instant: return [(f.name, "(ms: Int64, line: UInt32)?")]
        }
    }

    /// The writer's parameters of a field: (label, type). Numbers, flags and cases are written as they are read.
    static func writerParameters(_ f: FactField) -> [(label: String, type: String)] {
        switch f.type {
        case .text, .signature: return [(f.name, "UnsafeBufferPointer<UInt8>?")]
        case .requiredText: return [(f.name, "UnsafeBufferPointer<UInt8>")]
        case .id, .requiredId: return [(f.name, "FactIdInput")]
        case .environment: return [(f.name, "(EnvironmentCode, UnsafeBufferPointer<UInt8>?)")]
        case .list(.value, let optional): return [(f.name, optional ? "[FactIdInput]?" : "[FactIdInput]")]
        case .list(.record, let optional): return [(f.name + "Count", optional ? "Int?" : "Int"), (f.name, "(inout FactWriter) -> Void")]
        default: return properties(f, in: "").map { (label: $0.name, type: $0.type) }
        }
    }

    /// The arrays a reader appends list elements to: (parameter, element type).
    static func listArrays(_ fields: [FactField], in type: String) -> [(name: String, element: String)] {
        var result: [(String, String)] = []
        for f in fields {
            switch f.type {
            case .list(.value, _): if !result.contains(where: { $0.0 == "ids" }) { result.append(("ids", "FactId")) }
            case .list(.record(let element, _), _): result.append((f.name, "\(type).\(element)"))
            default: break
            }
        }
        return result
    }

    private func factType(_ f: FactDeclaration, _ s: inout SwiftSource) {
        precondition(streams.contains { $0.name == f.stream }, "\(f.type): no stream \(f.stream)")
        s.doc(f.doc + ["", "Stream `\(f.stream)`; kind byte \(f.code)."])
        structBody(name: f.type, fields: f.fields, kind: f.kind, outer: f.type, &s)
    }

    private func structBody(name: String, fields: [FactField], kind: String?, outer: String, _ s: inout SwiftSource) {
        s.block("package struct \(name)") { s in
            var props: [(name: String, type: String)] = []
            for field in fields {
                let p = Self.properties(field, in: name)
                if !field.doc.isEmpty { s.doc([field.doc.prefix(1).uppercased() + field.doc.dropFirst() + "."]) }
                for q in p { s.line("package var \(q.name): \(q.type)") }
                props += p
            }
            for field in fields {
                guard case .list(.record(let element, let elementFields), _) = field.type else { continue }
                s.line()
                s.doc(["One element of `\(field.name)`."])
                structBody(name: element, fields: elementFields, kind: nil, outer: outer + "." + element, &s)
            }
            s.line()
            s.call("package init", props.map { "\($0.name): \($0.type)" }, " {")
            s.indented { s in for p in props { s.line("self.\(p.name) = \(p.name)") } }
            s.line("}")
            s.line()
            reader(name: name, fields: fields, kind: kind, outer: outer, props: props.map(\.name), &s)
            s.line()
            writer(fields: fields, kind: kind, &s)
        }
    }

    private func reader(name: String, fields: [FactField], kind: String?, outer: String, props: [String], _ s: inout SwiftSource) {
        let hasFile = fields.contains { if case .file = $0.type { return true } else { return false } }
        var params = ["_ r: inout FactReader"]
        if hasFile { params.append("chunkFile: UInt32") }
        for a in Self.listArrays(fields, in: outer) { params.append("\(a.name): inout [\(a.element)]") }
        s.doc([
            "Reads the fact" + (kind == nil ? " element." : " after its kind byte.")
                + (hasFile ? " `chunkFile`: the file of the chunk read." : "")
        ])
        s.line("@inline(__always)")
        s.call("package static func read", params, " -> \(name) {")
        s.indented { s in
            for f in fields {
                switch f.type {
                case .u8: s.line("let \(f.name) = r.u8()")
                case .u32: s.line("let \(f.name) = r.u32()")
                case .file:
                    s.line("let \(f.name)Stored = r.u32()")
                    s.line("let \(f.name) = \(f.name)Stored == 0 ? chunkFile : \(f.name)Stored")
                case .i64: s.line("let \(f.name) = r.i64()")
                case .zigzag: s.line("let \(f.name) = r.zigzag()")
                case .optionalInt: s.line("let \(f.name) = r.optionalInt()")
                case .optionalBool: s.line("let \(f.name) = r.optionalBool()")
                case .text: s.line("let \(f.name) = r.text()")
                case .requiredText: s.line("let \(f.name) = r.requiredText()")
                case .id: s.line("let \(f.name) = r.id()")
                case .requiredId: s.line("let \(f.name) = r.requiredId()")
                case .environment: s.line("let (\(f.name), \(f.name)Raw) = r.environment()")
                case .signature: s.line("let (\(f.name), \(f.name)Reason) = r.signature()")
                case .flags(let names):
                    s.line("let \(f.name)Bits = r.u8()")
                    for (i, n) in names.enumerated() { s.line("let \(n) = \(f.name)Bits & \(1 << i) != 0") }
                case .caseIndex(let type): s.line("let \(f.name) = r.element(of: \(type).allCases)")
                case .list(let element, let optional):
                    // Elements go to the caller's array (`ids`, or one named after the field); the fact keeps their range.
                    let (array, append): (String, String) =
                        switch element {
                        case .value: ("ids", "ids.append(r.requiredId())")
                        case .record(let type, _): (f.name, "\(f.name).append(\(type).read(&r))")
                        }
                    if optional {
                        s.line("var \(f.name)Range: Range<Int>? = nil")
                        s.block("if r.u8() == 1") { s in
                            s.line("let start = \(array).count")
                            s.line("for _ in 0..<r.count() { \(append) }")
                            s.line("\(f.name)Range = start..<\(array).count")
                        }
                    } else {
                        s.line("let \(f.name)Start = \(array).count")
                        s.line("for _ in 0..<r.count() { \(append) }")
                        s.line("let \(f.name)Range = \(f.name)Start..<\(array).count")
                    }
                case .histogram: s.line("let \(f.name) = r.histogram()")
                case .instant: s.line("let \(f.name) = r.instant()")
                }
            }
            let args = props.map { p -> String in
                let isList = fields.contains {
                    if case .list = $0.type { return $0.name == p } else { return false }
                }
                return "\(p): \(isList ? p + "Range" : p)"
            }
            s.call("return \(name)", args)
        }
        s.line("}")
    }

    private func writer(fields: [FactField], kind: String?, _ s: inout SwiftSource) {
        var params = ["_ w: inout FactWriter"]
        for f in fields { params += Self.writerParameters(f).map { "\($0.label): \($0.type)" } }
        s.doc(["Writes the fact" + (kind == nil ? " element." : ", its kind byte first.")])
        s.call("package static func write", params, " {")
        s.indented { s in
            if let kind { s.line("w.u8(FactKind.\(kind).rawValue)") }
            for f in fields {
                switch f.type {
                case .u8: s.line("w.u8(\(f.name))")
                case .u32, .file: s.line("w.u32(\(f.name))")
                case .i64: s.line("w.i64(\(f.name))")
                case .zigzag: s.line("w.zigzag(\(f.name))")
                case .optionalInt, .optionalBool: s.line("w.optional(\(f.name))")
                case .text, .requiredText: s.line("w.text(\(f.name))")
                case .id, .requiredId: s.line("w.id(\(f.name))")
                case .environment: s.line("w.environment(\(f.name))")
                case .signature: s.line("w.signature(\(f.name))")
                case .flags(let names):
                    if names.count == 1 {
                        s.line("w.u8(\(names[0]) ? 1 : 0)")
                    } else {
                        s.line("var \(f.name)Bits: UInt8 = 0")
                        for (i, n) in names.enumerated() { s.line("if \(n) { \(f.name)Bits |= \(1 << i) }") }
                        s.line("w.u8(\(f.name)Bits)")
                    }
                case .caseIndex(let type): s.line("w.u8(UInt8(\(type).allCases.firstIndex(of: \(f.name))!))")
                case .list(let element, let optional):
                    // A list: its count, then its elements; an optional one behind a presence byte.
                    let (bound, body): (String, [String]) =
                        switch element {
                        case .value: (f.name, ["w.varint(\(f.name).count)", "for id in \(f.name) { w.id(id) }"])
                        case .record: (f.name + "Count", ["w.varint(\(f.name)Count)", "\(f.name)(&w)"])
                        }
                    if optional {
                        s.line("if let \(bound) {")
                        s.indented { s in for line in ["w.u8(1)"] + body { s.line(line) } }
                        s.line("} else {")
                        s.indented { s in s.line("w.u8(0)") }
                        s.line("}")
                    } else {
                        for line in body { s.line(line) }
                    }
                case .histogram: s.line("w.histogram(\(f.name))")
                case .instant: s.line("w.instant(\(f.name))")
                }
            }
        }
        s.line("}")
    }
}
