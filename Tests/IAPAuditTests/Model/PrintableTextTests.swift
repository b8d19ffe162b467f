import Foundation
import XCTest

@testable import IAPAuditModel

/// `String.controlCharactersEscaped`, `printableLines` and `JSONString`: every scalar a terminal would not show as
/// itself on its line (C0 and C1 controls, DEL, U+2028/U+2029, bidi overrides and isolates) escaped; the rest kept.
final class PrintableTextTests: XCTestCase {
    func testEveryUnprintableScalarIsEscapedAndNothingElse() {
        let cases: [(String, String)] = [
            ("a\nb\r\t\u{1B}[2J", #"a\nb\r\t\u{1B}[2J"#), ("x\u{7F}", #"x\u{7F}"#), ("88\u{85}next action: x", #"88\u{85}next action: x"#),
            ("\u{80}\u{9B}2J\u{9F}", #"\u{80}\u{9B}2J\u{9F}"#), ("a\u{2028}b\u{2029}", #"a\u{2028}b\u{2029}"#),
            ("\u{202A}\u{202B}\u{202C}\u{202D}\u{202E}", #"\u{202A}\u{202B}\u{202C}\u{202D}\u{202E}"#),
            ("\u{2066}\u{2067}\u{2068}\u{2069}", #"\u{2066}\u{2067}\u{2068}\u{2069}"#),
            // Kept: text beyond ASCII, the neighbours of the ranges.
            ("é — 漢字 🙂 \u{A0}\u{2027}\u{202F}\u{2065}\u{206A}", "é — 漢字 🙂 \u{A0}\u{2027}\u{202F}\u{2065}\u{206A}"),
        ]
        for (text, printed) in cases { XCTAssertEqual(text.controlCharactersEscaped, printed, printed) }
        XCTAssertEqual("one\u{85}\ntwo\u{2028}".printableLines, "one\\u{85}\ntwo\\u{2028}")
        for text in cases.map(\.0) {
            var bytes = Array(text.utf8)
            let holds = bytes.withUnsafeMutableBufferPointer { UnsafeBufferPointer($0).holdsUnprintable }
            XCTAssertEqual(holds, text.unicodeScalars.contains(where: \.isUnprintable), text.controlCharactersEscaped)
        }
    }

    /// JSON escapes them as `\uxxxx`, written directly or through Foundation (a value of another type).
    func testJSONEscapesThemToo() {
        let text = "a\u{85}b\u{2028}c\u{2029}d\u{202E}e\u{2066}f\u{7F}\u{9B}é"
        let escaped = #"a\u0085b\u2028c\u2029d\u202ee\u2066f\u007f\u009bé"#
        XCTAssertEqual(JSONText.encode(["t": text]), #"{"t":"\#(escaped)"}"#)
        XCTAssertEqual(JSONText.encode(["t": text, "r": 0.5]), #"{"r":0.5,"t":"\#(escaped)"}"#)
    }
}
