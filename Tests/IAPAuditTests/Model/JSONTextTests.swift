import Foundation
import XCTest

@testable import IAPAuditModel

/// The summaries' JSON is written directly (`JSONText`) and is, byte for byte, what Foundation's
/// JSONSerialization writes with sorted keys and unescaped slashes: on escapes, control characters, text beyond
/// ASCII, keys Foundation orders its own way (digits as numbers, case ignored), nesting, and the run summary of
/// the sample itself.
final class JSONTextTests: XCTestCase {
    private func foundation(_ object: [String: Any]) throws -> String {
        String(
            decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self)
    }

    func testTheSameBytesAsFoundation() throws {
        let object: [String: Any] = [
            "path": "exports/day 2/server.jsonl", "quote\"back\\slash": "a\"b\\c",
            "controls": "\u{0}\u{1}\u{8}\u{9}\u{a}\u{c}\u{d}\u{1f} x",
            "text": "é — 漢字 🙂", "empty": "", "n": 0, "negative": Int64(-9_007_199_254_740_993), "small": Int32(-7),
            "flags": [true, false], "none": NSNull(), "nested": ["b": [["z": 1, "a": [String]()]], "a": [String: Any]()],
            "key10": 1, "key9": 2, "Key8": 3, "key08": 4, "apple_confirmed": 5, "B": 6, "a": 7, "_x": 8,
            "ids": ["2000000400594083", "u/1"],
        ]
        XCTAssertEqual(JSONText.encode(object), try foundation(object))
    }

    func testAValueOfAnotherTypeGoesThroughFoundation() throws {
        let object: [String: Any] = ["ratio": 0.25, "n": 1]
        XCTAssertEqual(JSONText.encode(object), try foundation(object))
        XCTAssertEqual(JSONText.encode(object), #"{"n":1,"ratio":0.25}"#)
    }
}
