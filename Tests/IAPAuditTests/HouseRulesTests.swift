import Foundation
import XCTest

/// House rules for the hand-written code under Sources: no function (`func`, `init`, `deinit`) longer than
/// `HouseRules.maxLines` lines, counted from the line of its keyword to the line of its closing brace. Generated code
/// (a `Generated` folder, a `…Generated.swift` file) is not counted.
final class HouseRulesTests: XCTestCase {
    /// Functions over the limit in files being rewritten by another change (not to be edited meanwhile): by
    /// "path under Sources:function name", the length they have now. One may shrink (or go) freely, never grow.
    static let allowed: [String: Int] = [:]

    func testNoHandWrittenFunctionIsOverTheLimit() throws {
        let sources = TestPaths.repoRoot + "/Sources"
        var over: [String] = []
        for path in try HouseRules.handWrittenFiles(under: sources) {
            let text = try String(contentsOfFile: sources + "/" + path, encoding: .utf8)
            for function in HouseRules.functions(in: text) where function.lines > HouseRules.maxLines {
                let key = "\(path):\(function.name)"
                if let allowed = Self.allowed[key], function.lines <= allowed { continue }
                over.append("\(path):\(function.line) \(function.name): \(function.lines) lines")
            }
        }
        XCTAssertEqual(
            over, [],
            "functions over \(HouseRules.maxLines) lines (split them into named helpers):\n" + over.joined(separator: "\n"))
    }

    /// Nothing reads a finding's sentence back (`detail` is made from its facts, for people): no code searches, splits
    /// or slices it, in Swift or in SQL. Programs read `Finding.facts` and `FindingAction`.
    func testNothingParsesAFindingsSentence() throws {
        let sources = TestPaths.repoRoot + "/Sources"
        let pattern = try NSRegularExpression(
            pattern:
                #"\bdetail\s*(\.(range|components|split|contains|hasPrefix|hasSuffix|firstIndex|lastIndex|prefix|suffix|dropFirst)\b|\[)|instr\(\s*detail|detail\s+(LIKE|GLOB)"#
        )
        var found: [String] = []
        for path in try HouseRules.handWrittenFiles(under: sources) {
            let text = try String(contentsOfFile: sources + "/" + path, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let line = String(line)
                if pattern.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil {
                    found.append("\(path):\(number + 1): \(line)")
                }
            }
        }
        XCTAssertEqual(found, [], "a finding's sentence read back as data: read its facts instead")
        // The pattern finds what it is for.
        for parsing in ["f.detail.range(of: \"oldest \")", "WHERE instr(detail, ?2) > 0", "f.detail.components(separatedBy: \" (\")"] {
            XCTAssertNotNil(pattern.firstMatch(in: parsing, range: NSRange(parsing.startIndex..., in: parsing)), parsing)
        }
    }

    /// The scan reads the tree: it finds the files, and functions in them (a limit of 40 lines finds some).
    func testTheScanFindsTheTreesFunctions() throws {
        let sources = TestPaths.repoRoot + "/Sources"
        let files = try HouseRules.handWrittenFiles(under: sources)
        XCTAssertTrue(files.contains("IAPAuditPipeline/AuditPipeline.swift"))
        XCTAssertFalse(files.contains { $0.contains("Generated") })
        let text = try String(contentsOfFile: sources + "/IAPAuditPipeline/AuditPipeline.swift", encoding: .utf8)
        let names = Set(HouseRules.functions(in: text).map(\.name))
        XCTAssertTrue(names.isSuperset(of: ["run", "runHoldingFolder", "isEmptyFolder", "init"]), "\(names.sorted())")
        var (functions, longest) = (0, 0)
        for path in files {
            let found = HouseRules.functions(in: try String(contentsOfFile: sources + "/" + path, encoding: .utf8))
            (functions, longest) = (functions + found.count, max(longest, found.map(\.lines).max() ?? 0))
        }
        XCTAssertGreaterThan(functions, 1_000)
        XCTAssertGreaterThan(longest, 40)
    }

    func testFunctionLengthsAreCountedFromKeywordToClosingBrace() {
        let body = (1...79).map { "    let v\($0) = \($0)" }.joined(separator: "\n")
        let source = """
            struct S {
                func short() { }
                init(x: Int) {
                    let s = "}}}"
                }
                func eighty() {
            \(body)
                }
                func eightyOne(
                    a: Int
                ) -> Int {
            \(body)
                }
            }
            """
        let found = HouseRules.functions(in: source)
        XCTAssertEqual(found.map(\.name), ["short", "init", "eighty", "eightyOne"])
        XCTAssertEqual(found.map(\.lines), [1, 3, 81, 83])
        XCTAssertEqual(found.map(\.line), [2, 3, 6, 87])
    }

    /// Braces inside comments and string literals (one line, multi-line, raw, interpolated) are no code.
    func testBracesInStringsAndCommentsAreSkipped() {
        let source = #"""
            protocol P {
                func required() -> Int
                init(p: Int)
            }
            func f() {
                // a comment with a brace {
                /* a block comment { /* nested { */ } */
                let a = "a string { with \(call { $0 }) an interpolation"
                let b = #"a raw string { "quoted" }"#
                let c = """
                    a multi-line string {
                    with "quotes" and \(x.map { "}" })
                    """
                let d = "escaped \" quote {"
            }
            func g() { Self.init(p: 1) }
            """#
        let found = HouseRules.functions(in: source)
        XCTAssertEqual(found.map(\.name), ["f", "g"])
        XCTAssertEqual(found.map(\.lines), [11, 1])
    }

    func testAFunctionOverTheLimitFails() {
        let body = (1...80).map { "    call(\($0))" }.joined(separator: "\n")
        let found = HouseRules.functions(in: "func tooLong() {\n\(body)\n}\n")
        XCTAssertEqual(found.map(\.lines), [82])
        XCTAssertTrue(found.contains { $0.lines > HouseRules.maxLines })
    }
}

/// The function scan behind `HouseRulesTests`: brace matching over the source with comments and string literals blanked.
enum HouseRules {
    static let maxLines = 80

    struct Function: Equatable {
        var name: String
        /// 1-based line of its `func` / `init` / `deinit` keyword.
        var line: Int
        /// Lines from the keyword's to the closing brace's, both counted.
        var lines: Int
    }

    /// The Swift files under `root`, relative to it, sorted, but generated ones (in a `Generated` folder, or named
    /// `…Generated.swift`).
    static func handWrittenFiles(under root: String) throws -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        var files: [String] = []
        while let path = walker.nextObject() as? String {
            let parts = path.split(separator: "/")
            guard path.hasSuffix(".swift"), !parts.dropLast().contains("Generated"), !parts.last!.hasSuffix("Generated.swift")
            else { continue }
            files.append(path)
        }
        return files.sorted()
    }

    /// The functions with a body in `source`, in order of their keywords (nested ones too).
    static func functions(in source: String) -> [Function] {
        let code = blanked(Array(source.utf8))
        let newlines = code.indices.filter { code[$0] == UInt8(ascii: "\n") }
        /// 1-based line of the byte at `offset`: one more than the newlines before it.
        func line(of offset: Int) -> Int {
            var (low, high) = (0, newlines.count)
            while low < high {
                let mid = (low + high) / 2
                if newlines[mid] < offset { low = mid + 1 } else { high = mid }
            }
            return low + 1
        }
        var found: [Function] = []
        var i = 0
        while i < code.count {
            guard let (name, after) = declaration(code, at: i) else {
                i += 1
                continue
            }
            if let open = bodyStart(code, from: after), let close = matchingBrace(code, open) {
                let first = line(of: i)
                found.append(Function(name: name, line: first, lines: line(of: close) - first + 1))
            }
            i = after
        }
        return found
    }

    private static func isWordByte(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F
    }

    /// A `func name`, `init` or `deinit` keyword starting at `i`: its name, and where its signature goes on.
    private static func declaration(_ code: [UInt8], at i: Int) -> (String, Int)? {
        if i > 0, isWordByte(code[i - 1]) || code[i - 1] == UInt8(ascii: ".") { return nil }
        func word(at j: Int) -> String? {
            var k = j
            while k < code.count, isWordByte(code[k]) { k += 1 }
            return k > j ? String(decoding: code[j..<k], as: UTF8.self) : nil
        }
        guard let keyword = word(at: i) else { return nil }
        switch keyword {
        case "init", "deinit":
            return (keyword, i + keyword.utf8.count)
        case "func":
            var j = i + 4
            while j < code.count, code[j] == UInt8(ascii: " ") { j += 1 }
            var k = j  // a name, or an operator
            while k < code.count, ![UInt8(ascii: "("), UInt8(ascii: "<"), UInt8(ascii: " ")].contains(code[k]) { k += 1 }
            return k > j ? (String(decoding: code[j..<k], as: UTF8.self), k) : nil
        default:
            return nil
        }
    }

    /// The `{` opening the body of the signature going on at `from`; nil when it has none (a protocol's requirement):
    /// a line at bracket depth 0 that starts a declaration, or a `}` or `;`, comes first.
    private static func bodyStart(_ code: [UInt8], from: Int) -> Int? {
        var depth = 0
        var i = from
        while i < code.count {
            switch code[i] {
            case UInt8(ascii: "("), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: ")"), UInt8(ascii: "]"): depth -= 1
            case UInt8(ascii: "{") where depth == 0: return i
            case UInt8(ascii: "}") where depth == 0, UInt8(ascii: ";") where depth == 0: return nil
            case UInt8(ascii: "\n") where depth == 0:
                var j = i + 1
                while j < code.count, code[j] == UInt8(ascii: " ") || code[j] == UInt8(ascii: "\t") { j += 1 }
                let rest = String(decoding: code[j..<min(code.count, j + 16)], as: UTF8.self)
                let continuing = ["->", "throws", "rethrows", "async", "where", "{", ")"]
                if !rest.isEmpty, !continuing.contains(where: { rest.hasPrefix($0) }), !endsContinued(code, before: i) {
                    return nil
                }
            default: break
            }
            i += 1
        }
        return nil
    }

    /// The line ending at `end` leaves the signature open (its last code byte is `,`, `(`, `:`, `&` or `>` of `->`).
    private static func endsContinued(_ code: [UInt8], before end: Int) -> Bool {
        var j = end - 1
        while j >= 0, code[j] == UInt8(ascii: " ") || code[j] == UInt8(ascii: "\t") { j -= 1 }
        guard j >= 0 else { return false }
        return [UInt8(ascii: ","), UInt8(ascii: "("), UInt8(ascii: ":"), UInt8(ascii: "&"), UInt8(ascii: ">")].contains(code[j])
    }

    private static func matchingBrace(_ code: [UInt8], _ open: Int) -> Int? {
        var depth = 0
        for i in open..<code.count {
            if code[i] == UInt8(ascii: "{") { depth += 1 }
            if code[i] == UInt8(ascii: "}") {
                depth -= 1
                if depth == 0 { return i }
            }
        }
        return nil
    }

    /// `source` with every comment and string literal (its interpolations too) blanked to spaces, newlines kept.
    static func blanked(_ source: [UInt8]) -> [UInt8] {
        var code = source
        var i = 0
        while i < code.count {
            let end: Int
            if starts(code, i, "//") {
                end = code[i...].firstIndex(of: UInt8(ascii: "\n")) ?? code.count
            } else if starts(code, i, "/*") {
                end = blockCommentEnd(code, i)
            } else if let literalEnd = stringEnd(code, i) {
                end = literalEnd
            } else {
                i += 1
                continue
            }
            for k in i..<end where code[k] != UInt8(ascii: "\n") { code[k] = UInt8(ascii: " ") }
            i = end
        }
        return code
    }

    private static func starts(_ code: [UInt8], _ i: Int, _ text: String) -> Bool {
        let t = Array(text.utf8)
        return i + t.count <= code.count && Array(code[i..<(i + t.count)]) == t
    }

    /// Past the end of the block comment opening at `i` (block comments nest).
    private static func blockCommentEnd(_ code: [UInt8], _ i: Int) -> Int {
        var depth = 0
        var k = i
        while k < code.count {
            if starts(code, k, "/*") {
                depth += 1
                k += 2
            } else if starts(code, k, "*/") {
                depth -= 1
                k += 2
                if depth == 0 { return k }
            } else {
                k += 1
            }
        }
        return code.count
    }

    /// Past the end of the string literal opening at `i` (`"…"`, `"""…"""`, raw `#"…"#`), or nil when none opens there.
    private static func stringEnd(_ code: [UInt8], _ i: Int) -> Int? {
        var hashes = 0
        while i + hashes < code.count, code[i + hashes] == UInt8(ascii: "#") { hashes += 1 }
        let q = i + hashes
        guard q < code.count, code[q] == UInt8(ascii: "\"") else { return nil }
        if hashes > 0, i > 0, isWordByte(code[i - 1]) { return nil }
        let multiLine = starts(code, q, "\"\"\"")
        let close = Array((multiLine ? "\"\"\"" : "\"").utf8) + Array(repeating: UInt8(ascii: "#"), count: hashes)
        let escape = [UInt8(ascii: "\\")] + Array(repeating: UInt8(ascii: "#"), count: hashes)
        var k = q + (multiLine ? 3 : 1)
        while k < code.count {
            if k + escape.count <= code.count, Array(code[k..<(k + escape.count)]) == escape {
                k += escape.count
                if k < code.count, code[k] == UInt8(ascii: "(") {
                    k = interpolationEnd(code, k)
                } else {
                    k += 1
                }
                continue
            }
            if k + close.count <= code.count, Array(code[k..<(k + close.count)]) == close { return k + close.count }
            if !multiLine, code[k] == UInt8(ascii: "\n") { return k }
            k += 1
        }
        return code.count
    }

    /// Past the `)` closing the interpolation whose `(` is at `open` (strings inside it skipped whole).
    private static func interpolationEnd(_ code: [UInt8], _ open: Int) -> Int {
        var depth = 0
        var k = open
        while k < code.count {
            if let end = stringEnd(code, k) {
                k = end
                continue
            }
            if code[k] == UInt8(ascii: "(") { depth += 1 }
            if code[k] == UInt8(ascii: ")") {
                depth -= 1
                if depth == 0 { return k + 1 }
            }
            k += 1
        }
        return code.count
    }
}
