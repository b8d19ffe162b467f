import LedgerDeclarations

/// Writes `FindingKind`, `FindingReason`, `FindingField` and `FindingActionCode` from the finding
/// declarations (`Sources/LedgerDeclarations/Findings.swift`): each an enum whose properties read one table,
/// so a declaration's line is its only source.
struct FindingEmitter {
    let kinds: [FindingKindDeclaration]
    let fields: [FindingFieldDeclaration]
    let actions: [(code: String, doc: String)]

    func emit() -> String {
        var s = SwiftSource(header: generatedHeader(imports: []))
        emitKinds(&s)
        s.line()
        emitReasons(&s)
        s.line()
        emitFields(&s)
        s.line()
        emitActions(&s)
        return s.text
    }

    private func emitKinds(_ s: inout SwiftSource) {
        s.doc(["The kinds of table `finding`, problems first (docs/semantics.md).", "", "Generated from `findingKindDeclarations`."])
        s.block("public enum FindingKind: String, Sendable, CaseIterable") { s in
            for k in kinds {
                s.doc([k.doc])
                s.line("case \(k.name.snakeToCamel) = \(quoted(k.name))")
            }
            s.line()
            s.doc(["`error`, `warning` or `info` (docs/semantics.md rule 16)."])
            s.line("public var severity: Severity { Self.table[index].severity }")
            s.doc(["Money lost or given away, which a close values."])
            s.line("public var isLoss: Bool { Self.table[index].isLoss }")
            s.doc(["What it means, in one line."])
            s.line("public var doc: String { Self.table[index].doc }")
            s.doc(["Its reasons, in declaration order."])
            s.line("public var reasons: [FindingReason] { FindingReason.allCases.filter { $0.kind == self } }")
            s.line("private var index: Int { Self.allCases.firstIndex(of: self)! }")
            s.line("private static let table: [(severity: Severity, isLoss: Bool, doc: String)] = [")
            s.indented { s in
                for k in kinds { s.line("(.\(k.severity), \(k.isLoss), \(quoted(k.doc))),") }
            }
            s.line("]")
        }
    }

    private func emitReasons(_ s: inout SwiftSource) {
        s.doc([
            "A kind and one of its reasons (`dropped_order/never_sent`): the rule that makes it, the facts it carries, and",
            "the action it calls for. Generated from `findingKindDeclarations`.",
        ])
        s.block("public enum FindingReason: String, Sendable, CaseIterable") { s in
            for k in kinds {
                for r in k.reasons {
                    s.doc(["\(r.doc) (rule \(r.rule))"])
                    s.line("case \((k.name + "_" + r.name).snakeToCamel) = \(quoted(k.name + "/" + r.name))")
                }
            }
            s.line()
            s.line("public var kind: FindingKind { Self.table[index].kind }")
            s.doc(["The reason as the ledger names it (`never_sent`)."])
            s.line("public var name: String { String(rawValue[rawValue.index(after: rawValue.firstIndex(of: \"/\")!)...]) }")
            s.doc(["The docs/semantics.md rule that makes it."])
            s.line("public var rule: Int { Self.table[index].rule }")
            s.line("public var doc: String { Self.table[index].doc }")
            s.doc(["The facts a finding of this reason carries."])
            s.line("public var fields: [FindingField] { Self.table[index].fields }")
            s.doc(["The action when Apple's confirmation does not decide it."])
            s.line("public var action: FindingActionCode { Self.table[index].action }")
            s.line("private var index: Int { Self.allCases.firstIndex(of: self)! }")
            s.doc(["The reason of `kind` named `name`; nil when none is declared."])
            s.block("public init?(kind: FindingKind, name: String)") { s in
                s.line("self.init(rawValue: kind.rawValue + \"/\" + name)")
            }
            s.line(
                "private static let table: [(kind: FindingKind, rule: Int, doc: String, fields: [FindingField], action: FindingActionCode)] = ["
            )
            s.indented { s in
                for k in kinds {
                    for r in k.reasons {
                        let fields = "[" + r.fields.map { "." + $0.snakeToCamel }.joined(separator: ", ") + "]"
                        tuple(&s, [".\(k.name.snakeToCamel)", "\(r.rule)", quoted(r.doc), fields, ".\(Self.actionCase(r.action))"])
                    }
                }
            }
            s.line("]")
        }
    }

    private func emitFields(_ s: inout SwiftSource) {
        s.doc([
            "A fact a finding carries (`FindingFacts`), by its snake_case name in the ledger and the JSON. Times are ms since 1970",
            "UTC. Generated from `findingFieldDeclarations`.",
        ])
        s.block("public enum FindingField: String, Sendable, CaseIterable") { s in
            for f in fields {
                s.doc([f.doc])
                s.line("case \(f.name.snakeToCamel) = \(quoted(f.name))")
            }
            s.line()
            s.line("public var shape: FindingFieldShape { Self.table[index].shape }")
            s.doc(["`objects`: each object's keys, in order."])
            s.line("public var keys: [String] { Self.table[index].keys }")
            s.line("public var doc: String { Self.table[index].doc }")
            s.line("private var index: Int { Self.allCases.firstIndex(of: self)! }")
            s.line("private static let table: [(shape: FindingFieldShape, keys: [String], doc: String)] = [")
            s.indented { s in
                for f in fields {
                    let keys = "[" + f.keys.map(quoted).joined(separator: ", ") + "]"
                    tuple(&s, [".\(f.shape.rawValue)", keys, quoted(f.doc)])
                }
            }
            s.line("]")
        }
    }

    private func emitActions(_ s: inout SwiftSource) {
        s.doc(["What a person does about a finding (`FindingAction.code`). Generated from `findingActionCodes`."])
        s.block("public enum FindingActionCode: String, Sendable, CaseIterable") { s in
            for a in actions {
                s.doc([a.doc])
                s.line("case \(Self.actionCase(a.code)) = \(quoted(a.code))")
            }
        }
    }

    /// A table row `(a, b, c),`: on one line when it is shorter than swift-format's limit of 140 characters (a line of 140
    /// is too long for it), else one element a line.
    private func tuple(_ s: inout SwiftSource, _ elements: [String]) {
        let oneLine = "        (" + elements.joined(separator: ", ") + "),"
        if oneLine.count < 140 {
            s.line(String(oneLine.dropFirst(8)))
        } else {
            s.line("(")
            s.indented { s in for (i, e) in elements.enumerated() { s.line(e + (i + 1 < elements.count ? "," : "")) } }
            s.line("),")
        }
    }

    /// The Swift case of an action code: `none` is `noAction` (`.none` would read as an optional's nil).
    static func actionCase(_ code: String) -> String { code == "none" ? "noAction" : code.snakeToCamel }

    private func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}

extension String {
    /// `dropped_order` → `droppedOrder`; `none` → `none`.
    var snakeToCamel: String {
        let parts = split(separator: "_")
        return parts.enumerated().map { $0.offset == 0 ? String($0.element) : $0.element.prefix(1).uppercased() + $0.element.dropFirst() }
            .joined()
    }
}
