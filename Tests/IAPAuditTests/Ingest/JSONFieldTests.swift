import Foundation
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
        XCTAssertEqual(try JSONField.integer("1697679936049.7297", field: "t", allowFraction: true), 1_697_679_936_049)
        XCTAssertThrowsError(try JSONField.integer("1697679936049.7297", field: "status"), "a status is whole")
        XCTAssertThrowsError(try JSONField.integer("12abc", field: "t"))
    }

    func testIdsAreTextOrWholeNumbers() throws {
        let o = try JSONField.parseObject(Data(#"{"a": 1e5, "b": 1.5, "c": "555\u0000a", "d": -5, "e": ""}"#.utf8))
        XCTAssertThrowsError(try JSONField.id(o["a"], field: "a")) {
            XCTAssertEqual("\($0)", "field 'a': expected text or a whole number, found 100000.0")
        }
        XCTAssertThrowsError(try JSONField.id(o["b"], field: "b"))
        XCTAssertThrowsError(try JSONField.id(o["c"], field: "c")) { XCTAssertEqual("\($0)", "field 'c': contains a control character") }
        XCTAssertEqual(try JSONField.id(o["d"], field: "d"), "-5")
        XCTAssertNil(try JSONField.id(o["e"], field: "e"))
        XCTAssertThrowsError(try JSONField.id(String(repeating: "x", count: 5000), field: "user_id"))
    }

    func testDuplicateKeysAreRefused() {
        XCTAssertThrowsError(try JSONField.parseObject(Data(#"{"granted": false, "granted": true}"#.utf8))) { error in
            XCTAssertEqual("\(error)", #"invalid JSON: duplicate key "granted" at line 1, column 20"#)
        }
        XCTAssertNoThrow(try JSONField.parseObject(Data(#"{"a": {"k": 1}, "b": {"k": 2}}"#.utf8)))
    }
}
