import XCTest

@testable import IAPAuditCLI
@testable import IAPAuditCrypto
@testable import IAPAuditIngest
@testable import IAPAuditModel
@testable import IAPAuditPipeline
@testable import IAPAuditReconcile
@testable import IAPAuditReport
@testable import IAPAuditSample
@testable import IAPAuditStore

final class OldStylePlistTests: XCTestCase {
    private func parse(_ text: String) throws -> [String: OldStylePlist.Value] { try OldStylePlist.parseDictionary(Array(text.utf8)) }

    func testStringsEscapesAndNesting() throws {
        let parsed = try parse(#"{ "a" = "x\"y\\z\n\t\U00e9\101"; b = unquoted-1.2; "c" = { "d" = ""; }; }"#)
        XCTAssertEqual(parsed["a"], .string("x\"y\\z\n\té" + "A"))
        XCTAssertEqual(parsed["b"], .string("unquoted-1.2"))
        XCTAssertEqual(parsed["c"], .dictionary(["d": .string("")]))
        XCTAssertEqual(try parse("\n{\n}\n"), [:])
    }

    func testSyntaxErrorsCarryLineAndColumn() {
        func assertError(_ text: String, _ message: String, line: UInt = #line) {
            XCTAssertThrowsError(try parse(text), line: line) { XCTAssertEqual("\($0)", message, line: line) }
        }
        assertError(#"{ "a" = "b" }"#, "old-style plist: expected ';' after the value of \"a\" at line 1, column 13")
        assertError(#"{ "a" "b"; }"#, "old-style plist: expected '=' after key \"a\" at line 1, column 7")
        assertError("{\n \"a\" = \"b;\n}", "old-style plist: unterminated string at line 2, column 8")
        assertError(#"{ "a" = "1"; "a" = "2"; }"#, "old-style plist: duplicate key \"a\" at line 1, column 14")
        assertError(#"{ "a" = ( "1" ); }"#, "old-style plist: arrays are not supported at line 1, column 9")
        assertError(#"{ "a" = <0fbd>; }"#, "old-style plist: data values are not supported at line 1, column 9")
        assertError(#"{ "a" = "\q"; }"#, "old-style plist: unknown escape '\\q' at line 1, column 10")
        assertError(#"{ "a" = "\U12"; }"#, "old-style plist: bad \\U escape (expected 4 hex digits) at line 1, column 12")
        assertError(#"{ } trailing"#, "old-style plist: unexpected text after the closing '}' at line 1, column 5")
        assertError(#"[ ]"#, "old-style plist: expected '{' to start the dictionary at line 1, column 1")
        assertError(#"{ "a" = "\377"; }"#, "old-style plist: string is not valid UTF-8 at line 1, column 9")
        assertError(
            String(repeating: #"{ "a" = "#, count: 17) + "x",
            "old-style plist: dictionaries nested deeper than 16 levels at line 1, column 129")
    }
}
