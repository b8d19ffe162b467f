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
        XCTAssertEqual(try o.text("a"), "9007199254740993")
        XCTAssertEqual(try o.text("b"), "18446744073709551615")
        XCTAssertEqual(try o.text("c"), "0123", "no leading-zero folding")
    }

    func testBooleansFromStrings() throws {
        let o = try RecordFixture.object(#"{"t": "true", "f": "false", "one": "1", "zero": "0", "b": true, "m": "maybe"}"#)
        XCTAssertEqual(try o.bool("t"), true)
        XCTAssertEqual(try o.bool("f"), false)
        XCTAssertEqual(try o.bool("one"), true)
        XCTAssertEqual(try o.bool("zero"), false)
        XCTAssertEqual(try o.bool("b"), true)
        XCTAssertThrowsError(try o.bool("m"))
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
        let o = try RecordFixture.object(#"{"t": "1697679936049.7297", "status": "1697679936049.7297", "x": "12abc"}"#)
        XCTAssertEqual(try o.integer("t", allowFraction: true), 1_697_679_936_049)
        XCTAssertThrowsError(try o.integer("status"), "a status is whole")
        XCTAssertThrowsError(try o.integer("x"))
    }

    func testIdsAreTextOrWholeNumbers() throws {
        let o = try JSONField.parseObject(Data(#"{"a": 1e5, "b": 1.5, "c": "555\u0000a", "d": -5, "e": ""}"#.utf8))
        // The number as written (Foundation rendered 1e5 as 100000.0).
        XCTAssertThrowsError(try o.id("a")) {
            XCTAssertEqual(
                "\($0)",
                "field 'a': 1e5 looks like an id a program wrote as a floating-point number (in scientific notation, which loses digits); "
                    + "write ids as text")
        }
        XCTAssertThrowsError(try o.id("b"))
        XCTAssertThrowsError(try o.id("c")) { XCTAssertEqual("\($0)", "field 'c': contains a control character") }
        XCTAssertEqual(try o.id("d"), "-5")
        XCTAssertNil(try o.id("e"))
        XCTAssertThrowsError(try RecordFixture.object(["user_id": String(repeating: "x", count: 5000)]).id("user_id"))
    }

    func testDuplicateKeysAreRefused() {
        XCTAssertThrowsError(try JSONField.parseObject(Data(#"{"granted": false, "granted": true}"#.utf8))) { error in
            XCTAssertEqual("\(error)", #"invalid JSON: duplicate key "granted" at line 1, column 20"#)
        }
        XCTAssertNoThrow(try JSONField.parseObject(Data(#"{"a": {"k": 1}, "b": {"k": 2}}"#.utf8)))
    }

    /// The tape keeps a number's text (Foundation rendered numbers: 38 significant digits, `-0` as `0`,
    /// `10990.50` as `10990.5`).
    func testNumbersAreReadAsWritten() throws {
        let o = try RecordFixture.object(#"{"id": 12345678901234567890123456789012345678901234567890, "z": -0, "price": 10990.50}"#)
        XCTAssertEqual(try o.id("id"), "12345678901234567890123456789012345678901234567890")
        XCTAssertEqual(try o.id("z"), "-0")
        XCTAssertThrowsError(try o.integer("price")) { XCTAssertEqual("\($0)", #"field 'price': expected an integer, found "10990.50""#) }
    }

    func testIdInAJWSPayloadKeepsEveryDigit() throws {
        let id = "12345678901234567890123456789012345678901234567890"
        let payload =
            #"{"transactionId": \#(id), "originalTransactionId": 18446744073709551616, "productId": "p", "signedDate": 1700000000000}"#
        let text = [JWSFixture.json(JWSFixture.header), Data(payload.utf8), JWSFixture.signature].map(JWSFixture.base64URL)
            .joined(separator: ".")
        let r = try SignedRecordReader.read(
            jws: text, at: SourceLocation(file: "jws.txt", line: 1), requestId: nil, receivedAtMs: nil, checker: StubSignatureChecker())
        XCTAssertEqual(r.items.map(\.transactionId), [id])
        XCTAssertEqual(r.items.first?.originalTransactionId, "18446744073709551616")
    }
}
