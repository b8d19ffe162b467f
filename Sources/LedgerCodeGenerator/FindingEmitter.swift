import Foundation
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
        for (i, part) in [emitKinds, emitReasons, emitFields, emitActions].enumerated() {
            if i > 0 { s.line() }
            part(&s)
        }
        return s.text
    }

    /// A column of an enum's table: the property that reads it (`name: type`) and its doc (nil: none).
    private typealias Column = (name: String, type: String, doc: String?)

    private func emitKinds(_ s: inout SwiftSource) {
        s.doc([
            "The kinds of table `finding`, problems first (docs/semantics.md); each one's meaning is its `doc`.", "",
            "Generated from `findingKindDeclarations`.",
        ])
        let columns: [Column] = [
            ("severity", "Severity", "`error`, `warning` or `info` (docs/semantics.md rule 16)."),
            ("isLoss", "Bool", "Money lost or given away, which a close values."),
        ]
        tableEnum(&s, "FindingKind", kinds.map { ($0.name, $0.doc) }, columns, kinds.map { "(.\($0.severity), \($0.isLoss))" }) { s in
            s.doc(["Its reasons, in declaration order."])
            s.line("public var reasons: [FindingReason] { FindingReason.allCases.filter { $0.kind == self } }")
        }
    }

    private func emitReasons(_ s: inout SwiftSource) {
        s.doc([
            "A kind and one of its reasons (`dropped_order/never_sent`): the rule that makes it, the facts it carries, and",
            "the action it calls for; each one's meaning is its `doc`. Generated from `findingKindDeclarations`.",
        ])
        let reasons = kinds.flatMap { k in k.reasons.map { (kind: k.name, reason: $0) } }
        let rows = reasons.map { k, r in
            let fields = "[" + r.fields.map { "." + $0.snakeToCamel }.joined(separator: ", ") + "]"
            return "(.\(k.snakeToCamel), \(r.rule), \(fields), .\(Self.actionCase(r.action)))"
        }
        let columns: [Column] = [
            ("kind", "FindingKind", nil), ("rule", "Int", "The docs/semantics.md rule that makes it."),
            ("fields", "[FindingField]", "The facts a finding of this reason carries."),
            ("action", "FindingActionCode", "The action when Apple's confirmation does not decide it."),
        ]
        tableEnum(&s, "FindingReason", reasons.map { ($0.kind + "/" + $0.reason.name, $0.reason.doc) }, columns, rows) { s in
            s.doc(["The reason as the ledger names it (`never_sent`)."])
            s.line("public var name: String { String(rawValue[rawValue.index(after: rawValue.firstIndex(of: \"/\")!)...]) }")
            s.doc(["The reason of `kind` named `name`; nil when none is declared."])
            s.block("public init?(kind: FindingKind, name: String)") { s in
                s.line("self.init(rawValue: kind.rawValue + \"/\" + name)")
            }
        }
    }

    private func emitFields(_ s: inout SwiftSource) {
        s.doc([
            "A fact a finding carries (`FindingFacts`), by its snake_case name in the ledger and the JSON; each one's meaning is",
            "its `doc`. Times are ms since 1970 UTC. Generated from `findingFieldDeclarations`.",
        ])
        let rows = fields.map { "(.\($0.shape.rawValue), [\($0.keys.map(quoted).joined(separator: ", "))])" }
        let columns: [Column] = [("shape", "FindingFieldShape", nil), ("keys", "[String]", "`objects`: each object's keys, in order.")]
        tableEnum(&s, "FindingField", fields.map { ($0.name, $0.doc) }, columns, rows) { _ in }
    }

    private func emitActions(_ s: inout SwiftSource) {
        s.doc([
            "What a person does about a finding (`FindingAction.code`); each one's meaning is its `doc`.", "",
            "Generated from `findingActionCodes`.",
        ])
        tableEnum(&s, "FindingActionCode", actions.map { ($0.code, $0.doc) }, [], []) { _ in }
    }

    /// `public enum name: String, Sendable, CaseIterable` with a case a raw value (`dropped_order/never_sent` is
    /// `droppedOrderNeverSent`; `none` is `noAction`), cases sharing lines; a property a column, which reads the case's
    /// row of `table` (`rows`, in case order); `members`; and `doc`, the case's line of a text block.
    private func tableEnum(
        _ s: inout SwiftSource, _ name: String, _ cases: [(raw: String, doc: String)], _ columns: [Column], _ rows: [String],
        members: (inout SwiftSource) -> Void
    ) {
        s.block("public enum \(name): String, Sendable, CaseIterable") { s in
            s.wrapped("case ", cases.map { "\(Self.caseName($0.raw)) = \(quoted($0.raw))" }, "")
            s.line()
            for c in columns {
                if let doc = c.doc { s.doc([doc]) }
                s.line("public var \(c.name): \(c.type) { Self.table[index].\(c.name) }")
            }
            members(&s)
            s.doc(["What it means, in one line."])
            s.line("public var doc: String { Self.docs[index] }")
            s.line("private var index: Int { Self.allCases.firstIndex(of: self)! }")
            if !columns.isEmpty {
                s.line("private static let table: [(\(columns.map { "\($0.name): \($0.type)" }.joined(separator: ", ")))] = [")
                s.indented { s in Self.packed(&s, rows) }
                s.line("]")
            }
            s.doc(["Each case's `doc`, one a line, in case order."])
            s.line("private static let docs = \"\"\"")
            s.indented { s in
                for c in cases { s.line(c.doc.replacingOccurrences(of: "\\", with: "\\\\")) }
            }
            s.line("    \"\"\".split(separator: \"\\n\").map(String.init)")
        }
    }

    /// Table rows packed as `SwiftSource.packed` does; a row that would not fit in swift-format's 140 characters (a line of
    /// 140 is too long for it) goes one element a line.
    static func packed(_ s: inout SwiftSource, _ rows: [String]) {
        var short: [String] = []
        for row in rows {
            if s.indentWidth + row.count + 1 < 140 {
                short.append(row)
                continue
            }
            s.packed(short)
            short = []
            s.line("(")
            let elements = topLevelElements(String(row.dropFirst().dropLast()))
            s.indented { s in for (i, e) in elements.enumerated() { s.line(e + (i + 1 < elements.count ? "," : "")) } }
            s.line("),")
        }
        s.packed(short)
    }

    /// The elements of a tuple's text between its parentheses, split at the commas outside brackets and quotes.
    static func topLevelElements(_ text: String) -> [String] {
        var (elements, current, depth, quoted) = ([String](), "", 0, false)
        for c in text {
            if c == "\"" { quoted.toggle() }
            if !quoted && (c == "[" || c == "(") { depth += 1 }
            if !quoted && (c == "]" || c == ")") { depth -= 1 }
            if c == "," && depth == 0 && !quoted {
                elements.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
            } else {
                current.append(c)
            }
        }
        return elements + [current.trimmingCharacters(in: .whitespaces)]
    }

    /// The Swift case of a raw value: `dropped_order/never_sent` is `droppedOrderNeverSent`; `none` is `noAction`.
    static func caseName(_ raw: String) -> String { actionCase(raw.replacingOccurrences(of: "/", with: "_")) }

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
