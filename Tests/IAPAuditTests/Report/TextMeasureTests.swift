import XCTest

@testable import IAPAuditReport

/// The workbook measures every text cell (column widths, row heights) from its bytes when it is ASCII; the
/// result must be what counting `Character`s gives, line breaks included.
final class TextMeasureTests: XCTestCase {
    /// Column width: the longest line in `Character`s, a line ending at any `Character.isNewline`.
    static func referenceLength(_ text: String) -> Int {
        var (longest, current) = (0, 0)
        for character in text {
            if character.isNewline { (longest, current) = (max(longest, current), 0) } else { current += 1 }
        }
        return max(longest, current)
    }

    /// Row height: lines split at "\n" `Character`s, each wrapped at `width`.
    static func referenceLines(_ text: String, width: Int) -> Int {
        text.split(separator: "\n", omittingEmptySubsequences: false).reduce(0) { $0 + max(1, ($1.count + width - 1) / width) }
    }

    static let texts = [
        "", "a", "dropped_order", "abc\ndefgh", "abc\r\ndefgh", "abc\rdefgh\n", "\n\n", "\r\n\r\n", "\r", "\r\r\n\n",
        "x\u{0B}yy\u{0C}zzz", "tab\there", String(repeating: "w", count: 95) + "\r\n" + String(repeating: "v", count: 200),
        "naïve\nline", "日本語\r\nabc", "e\u{301}\u{301}x", "a\u{85}bc", "a\u{2028}bcd", "👍🏽 ok\n",
    ]

    func testASCIIAndUnicodeTextsMeasureAsCharacters() {
        for text in Self.texts {
            XCTAssertEqual(XLSXWriter.displayLength(of: text), Self.referenceLength(text), "\(text.debugDescription)")
            for width in [1, 4, 80] {
                XCTAssertEqual(
                    XLSXWriter.wrappedLines(text, width: width), Self.referenceLines(text, width: width),
                    "\(text.debugDescription) @\(width)")
            }
        }
        // Values that tell the reference's rules apart (a test of the test): "\r\n" is one character and one break.
        XCTAssertEqual(XLSXWriter.displayLength(of: "ab\r\ncde"), 3)
        XCTAssertEqual(XLSXWriter.wrappedLines("ab\r\ncde", width: 4), 2)
        XCTAssertEqual(XLSXWriter.wrappedLines("ab\ncd\n", width: 4), 3)
    }

    func testTextsUnderTheCellLimitAreKept() {
        let long = String(repeating: "é", count: XLSXWriter.maxCellCharacters)  // 2 bytes each: over by bytes, not by characters
        XCTAssertEqual(XLSXWriter.fittingExcel(long), long)
        let over = long + "x"
        XCTAssertEqual(XLSXWriter.fittingExcel(over).unicodeScalars.count, XLSXWriter.maxCellCharacters)
    }
}
