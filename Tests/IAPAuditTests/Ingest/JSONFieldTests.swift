import Foundation
import XCTest

@testable import IAPAudit

final class JSONFieldTests: XCTestCase {
    func testIdsAboveTwoToThe53KeepEveryDigit() throws {
        let o = try JSONField.parseObject(Data(#"{"a": 9007199254740993, "b": 18446744073709551615, "c": "0123"}"#.utf8))
        XCTAssertEqual(try JSONField.text(o["a"], field: "a"), "9007199254740993")
        XCTAssertEqual(try JSONField.text(o["b"], field: "b"), "18446744073709551615")
        XCTAssertEqual(try JSONField.text(o["c"], field: "c"), "0123", "no leading-zero folding")
    }

    func testBooleansFromStrings() throws {
        XCTAssertEqual(try JSONField.bool("true", field: "x"), true)
        XCTAssertEqual(try JSONField.bool("false", field: "x"), false)
        XCTAssertEqual(try JSONField.bool("1", field: "x"), true)
        XCTAssertEqual(try JSONField.bool("0", field: "x"), false)
        XCTAssertEqual(try JSONField.bool(NSNumber(value: true), field: "x"), true)
        XCTAssertThrowsError(try JSONField.bool("maybe", field: "x"))
    }

    func testStrictSyntax() {
        XCTAssertThrowsError(try JSONField.parseObject(Data(#"{"a": 1,}"#.utf8))) { error in
            XCTAssertEqual("\(error)", "invalid JSON: trailing comma at line 1, column 9")
        }
        XCTAssertThrowsError(try JSONField.parseObject(Data(#"[1, 2,]"#.utf8)))
        XCTAssertThrowsError(try JSONField.parseObject(Data(#"{"a": 01}"#.utf8)))
        XCTAssertThrowsError(try JSONField.parseObject(Data(#"{"a": "x"} trailing"#.utf8)))
        XCTAssertThrowsError(try JSONField.parseObject(Data(#"{'a': 1}"#.utf8)))
        XCTAssertThrowsError(try JSONField.parseObject(Data(#"[1]"#.utf8))) { error in
            XCTAssertEqual("\(error)", "invalid JSON: expected a JSON object, found an array")
        }
        XCTAssertNoThrow(try JSONField.parseObject(Data(#"{"a": [1.5e3, -0, "\u00e9\n"], "b": {"c": null}}"#.utf8)))
    }

    func testFractionalMillisecondsKeepTheWholePart() throws {
        XCTAssertEqual(try JSONField.integer("1697679936049.7297", field: "t"), 1_697_679_936_049)
        XCTAssertThrowsError(try JSONField.integer("12abc", field: "t"))
    }
}
