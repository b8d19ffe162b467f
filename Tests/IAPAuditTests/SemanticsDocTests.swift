import Foundation
import XCTest

@testable import IAPAuditModel

/// docs/semantics.md (the rules) and `Fixtures/cases/` (the scenarios) name each other: each rule heading
/// (`### N. Title`) ends with a `Cases:` line listing case folders in backticks, and each case's `expected.json`
/// names its rules in `rules` (`[8, 22]`). These tests fail when a rule has no case, a case names no rule or a rule
/// the doc lacks, the doc's `Cases:` lines and the cases' `rules` differ either way, or code under `Sources/` cites
/// (`semantics.md rule N`, `rules 2–7`, `rules 9, 22 and 24`) a rule the doc lacks.
final class SemanticsDocTests: XCTestCase {
    static var docPath: String { TestPaths.repoRoot + "/docs/semantics.md" }
    static var sourcesFolder: String { TestPaths.repoRoot + "/Sources" }

    /// The rules of the doc: number → the case folders its `Cases:` line lists (nil: no `Cases:` line), with what
    /// is malformed (a number out of order, two `Cases:` lines, a `Cases:` line with no case).
    struct Doc {
        var rules: [Int: [String]?] = [:]
        var problems: [String] = []
        var numbers: [Int] { rules.keys.sorted() }
    }

    /// Parses the rule headings (`### N. Title`) and each one's `Cases:` line (`Cases: \`a\`, \`b\``).
    static func parseDoc(_ text: String) -> Doc {
        var doc = Doc()
        var current: Int? = nil
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let at = "docs/semantics.md:\(index + 1)"
            if line.hasPrefix("### "), let number = Int(line.dropFirst(4).prefix { $0 != "." }), line.dropFirst(4).contains(".") {
                if doc.rules[number] != nil { doc.problems.append("\(at): rule \(number) twice") }
                if number != (doc.numbers.last ?? 0) + 1 {
                    doc.problems.append(
                        "\(at): rule \(number) follows rule \(doc.numbers.last ?? 0): rules are numbered 1, 2, 3… in order")
                }
                doc.rules[number] = .some(nil)
                current = number
            } else if line.hasPrefix("Cases:") {
                guard let rule = current else {
                    doc.problems.append("\(at): a Cases line before any rule heading")
                    continue
                }
                if doc.rules[rule]! != nil { doc.problems.append("\(at): rule \(rule) has a second Cases line") }
                doc.rules[rule] = .some(backticked(line))
            } else if line.hasPrefix("## ") || line.hasPrefix("# ") {
                current = nil
            }
        }
        return doc
    }

    /// The texts between backticks: `` `a`, `b` `` → `["a", "b"]`.
    static func backticked(_ text: some StringProtocol) -> [String] {
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    /// Every case folder's `rules` (nil when absent or not a list of whole numbers).
    static func caseRules() throws -> [String: [Int]?] {
        var out: [String: [Int]?] = [:]
        for name in try FixtureCaseTests.caseNames() {
            let path = FixtureCaseTests.casesFolder + "/" + name + "/expected.json"
            let object = try FixtureCaseTests.readExpected(path)
            // A list of whole numbers, else nil (a text or a fraction among them included).
            let list = object["rules"] as? [Any]
            let numbers = list?.compactMap { $0 as? Int }
            out[name] = .some(numbers?.count == list?.count ? numbers : nil)
        }
        return out
    }

    /// Rule numbers cited in Swift source (`semantics.md rule 17`, `semantics.md rules 2–7`, `rules 9, 22 and 24`), a
    /// citation that a doc comment wraps onto its next line included. Returns (file:line, number) pairs.
    static func citations(in text: String, file: String) -> [(at: String, rule: Int)] {
        // Joins a doc comment's lines (`…semantics.md rule\n    /// 18`), keeping each offset's line number.
        let joined = text.replacingOccurrences(of: #"[ \t]*\n[ \t]*//[/!]?[ \t]*"#, with: " \u{1}", options: .regularExpression)
        // A space, or where a comment line broke (`\u{1}`, which stands for a line break).
        let s = #"[ \x{01}]+"#
        let pattern = #"semantics\.md,?"# + s + "rules?" + s + #"(\d+(?:(?:[–-]|,?"# + s + "and" + s + "|," + s + #")\d+)*)"#
        let regex = try! NSRegularExpression(pattern: pattern)
        var out: [(String, Int)] = []
        let ns = joined as NSString
        for match in regex.matches(in: joined, range: NSRange(location: 0, length: ns.length)) {
            let line = ns.substring(to: match.range.location).filter { $0 == "\n" || $0 == "\u{1}" }.count + 1
            let list = ns.substring(with: match.range(at: 1)).replacingOccurrences(of: "\u{1}", with: "")
            for part in list.replacingOccurrences(of: " and ", with: ",").split(separator: ",") {
                let bounds = part.split { $0 == "–" || $0 == "-" }.compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
                guard let low = bounds.first, let high = bounds.last, low <= high else {
                    out.append(("\(file):\(line)", -1))
                    continue
                }
                for n in low...high { out.append(("\(file):\(line)", n)) }
            }
        }
        return out
    }

    /// Every citation under `Sources/`.
    static func sourceCitations() throws -> [(at: String, rule: Int)] {
        var out: [(String, Int)] = []
        let root = sourcesFolder
        guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        for case let path as String in walker where path.hasSuffix(".swift") {
            let text = try String(contentsOfFile: root + "/" + path, encoding: .utf8)
            out += citations(in: text, file: "Sources/" + path)
        }
        return out
    }

    /// What disagrees between the doc, the cases' `rules` and the code's citations; empty when all agree.
    static func problems(doc: Doc, cases: [String: [Int]?], citations: [(at: String, rule: Int)]) -> [String] {
        var problems = doc.problems
        if doc.rules.isEmpty { problems.append("docs/semantics.md has no rule heading (### N. Title)") }
        for (rule, listed) in doc.rules.sorted(by: { $0.key < $1.key }) {
            guard let listed else {
                problems.append("rule \(rule) has no Cases line")
                continue
            }
            if listed.isEmpty { problems.append("rule \(rule) has no case") }
            for name in listed {
                guard let named = cases[name] else {
                    problems.append("rule \(rule) lists case \(name), which is no folder of Fixtures/cases")
                    continue
                }
                if let named, !named.contains(rule) {
                    problems.append("rule \(rule) lists case \(name), whose expected.json rules \(named) do not name it")
                }
            }
            if Set(listed).count != listed.count { problems.append("rule \(rule) lists a case twice") }
            if listed != listed.sorted() { problems.append("rule \(rule) lists its cases out of order: sort them by name") }
        }
        for (name, named) in cases.sorted(by: { $0.key < $1.key }) {
            guard let named, !named.isEmpty else {
                problems.append("case \(name) names no rule: expected.json needs \"rules\": [N, …]")
                continue
            }
            for rule in named {
                guard let listed = doc.rules[rule] else {
                    problems.append("case \(name) names rule \(rule), which docs/semantics.md does not have")
                    continue
                }
                if let listed, !listed.contains(name) {
                    problems.append("case \(name) names rule \(rule), whose Cases line in docs/semantics.md does not list it")
                }
            }
        }
        for (at, rule) in citations where doc.rules[rule] == nil {
            let cited = rule == -1 ? "(a range that does not parse)" : String(rule)
            problems.append("\(at) cites semantics.md rule \(cited), which docs/semantics.md does not have")
        }
        return problems
    }

    func testDocCasesAndCitationsAgree() throws {
        let text = try String(contentsOfFile: Self.docPath, encoding: .utf8)
        let doc = Self.parseDoc(text)
        let cases = try Self.caseRules()
        let citations = try Self.sourceCitations()
        let problems = Self.problems(doc: doc, cases: cases, citations: citations)
        XCTAssertEqual(problems, [], "\n" + problems.joined(separator: "\n"))
        // The numbers code cites (today 1–26) are all there, each rule lists cases, and the citations were found.
        XCTAssertEqual(doc.numbers, Array(1...26))
        XCTAssertGreaterThan(citations.count, 50, "the citation scan found almost nothing: has the citation form changed?")
        XCTAssertEqual(Set(citations.map(\.rule)), Set(1...26))
        let perRule = doc.rules.values.map { $0?.count ?? 0 }
        print("semantics.md: \(doc.rules.count) rules, \(cases.count) cases, cases per rule \(perRule.min()!)–\(perRule.max()!)")
    }

    /// The table of finding kinds × reasons names every kind with the kind's severity (rule 16), and exactly the reasons
    /// declared for it (`FindingReason`, from `Sources/LedgerDeclarations/Findings.swift`).
    func testKindTableHasEveryKindWithItsSeverity() throws {
        let text = try String(contentsOfFile: Self.docPath, encoding: .utf8)
        var severities: [String: Set<String>] = [:]
        var reasons = 0
        var listed = Set<String>()
        for line in text.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 4 else { continue }
            let kind = cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            severities[kind, default: []].insert(cells[2])
            for reason in Self.backticked(cells[1]) {
                reasons += 1
                listed.insert(kind + "/" + reason)
                let declared = FindingReason(rawValue: kind + "/" + reason)
                XCTAssertNotNil(declared, "\(kind)/\(reason) in docs/semantics.md's table: not declared")
                // The rule that makes it first (`10, 18`: rule 18 refines it).
                XCTAssertEqual(
                    declared.map { String($0.rule) }, declared.map { _ in String(cells[3].prefix { $0 != "," }) },
                    "\(kind)/\(reason): the rule that makes it")
            }
        }
        XCTAssertEqual(
            Set(FindingReason.allCases.map(\.rawValue)).subtracting(listed), [], "declared reasons missing from docs/semantics.md's table")
        XCTAssertGreaterThan(reasons, 30)
        for kind in FindingKind.allCases {
            XCTAssertEqual(severities[kind.rawValue], [kind.severity.rawValue], "kind \(kind.rawValue) in docs/semantics.md's table")
        }
        XCTAssertEqual(Set(severities.keys), Set(FindingKind.allCases.map(\.rawValue)))
    }

    /// Each check fails on what it guards against.
    func testEachCheckFails() {
        let doc = Self.parseDoc(
            """
            ## Inputs
            ### 1. One
            Cases: `a`, `b`
            ### 2. Two
            Cases: `b`
            """)
        let good: [String: [Int]?] = ["a": [1], "b": [1, 2]]
        XCTAssertEqual(Self.problems(doc: doc, cases: good, citations: [("X.swift:1", 2)]), [])

        // A rule with no case.
        XCTAssertEqual(
            Self.problems(doc: Self.parseDoc("### 1. One\nCases: `a`\n### 2. Two\nCases:"), cases: ["a": [1]], citations: []),
            ["rule 2 has no case"])
        XCTAssertEqual(
            Self.problems(doc: Self.parseDoc("### 1. One\nCases: `a`\n### 2. Two\n"), cases: ["a": [1]], citations: []),
            ["rule 2 has no Cases line"])
        // A case naming no rule, or a rule the doc lacks.
        XCTAssertEqual(
            Self.problems(doc: doc, cases: ["a": [1], "b": [1, 2], "c": []], citations: []),
            ["case c names no rule: expected.json needs \"rules\": [N, …]"])
        XCTAssertEqual(
            Self.problems(doc: doc, cases: ["a": [1], "b": [1, 2], "c": nil], citations: []),
            ["case c names no rule: expected.json needs \"rules\": [N, …]"])
        XCTAssertEqual(
            Self.problems(doc: doc, cases: ["a": [1, 3], "b": [1, 2]], citations: []),
            ["case a names rule 3, which docs/semantics.md does not have"])
        // The doc lists a case that does not exist, or that does not name the rule; a case names a rule not listing it.
        XCTAssertEqual(
            Self.problems(doc: doc, cases: ["b": [1, 2]], citations: []),
            ["rule 1 lists case a, which is no folder of Fixtures/cases"])
        XCTAssertEqual(
            Self.problems(doc: doc, cases: ["a": [1], "b": [2]], citations: []),
            ["rule 1 lists case b, whose expected.json rules [2] do not name it"])
        XCTAssertEqual(
            Self.problems(doc: doc, cases: ["a": [1, 2], "b": [1, 2]], citations: []),
            ["case a names rule 2, whose Cases line in docs/semantics.md does not list it"])
        // A Cases line out of order.
        XCTAssertEqual(
            Self.problems(doc: Self.parseDoc("### 1. One\nCases: `b`, `a`"), cases: ["a": [1], "b": [1]], citations: []),
            ["rule 1 lists its cases out of order: sort them by name"])
        // Code citing a rule the doc lacks.
        XCTAssertEqual(
            Self.problems(doc: doc, cases: good, citations: [("X.swift:7", 25)]),
            ["X.swift:7 cites semantics.md rule 25, which docs/semantics.md does not have"])
        // Numbering: in order from 1, each once.
        XCTAssertEqual(
            Self.parseDoc("### 1. One\nCases: `a`\n### 3. Three\nCases: `a`").problems,
            ["docs/semantics.md:3: rule 3 follows rule 1: rules are numbered 1, 2, 3… in order"])
    }

    /// The citation forms the code uses, a wrapped doc comment included.
    func testCitationsParse() {
        let text = """
            /// semantics.md rule 17: a purchase
            /// (semantics.md rules 2–7), docs/semantics.md rules 9, 22 and 24; semantics.md rules 10 and 18
            /// one purchase (semantics.md rule
            /// 18) with its product; not a rule 99 citation
            """
        let found = Self.citations(in: text, file: "X.swift")
        XCTAssertEqual(found.map(\.rule), [17, 2, 3, 4, 5, 6, 7, 9, 22, 24, 10, 18, 18])
        XCTAssertEqual(found.map(\.at), ["X.swift:1"] + Array(repeating: "X.swift:2", count: 11) + ["X.swift:3"])
    }
}
