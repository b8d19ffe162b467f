import Foundation
import XCTest

@testable import IAPAuditModel

/// Ids compare as exact bytes (semantics.md rule 1): text Swift calls equal (canonically equivalent) is two ids when
/// its bytes differ; equal bytes hash alike however the string is stored.
final class ExactTextTests: XCTestCase {
    func testEqualityAndHashAreByBytes() {
        let precomposed = "caf\u{E9}", decomposed = "cafe\u{301}"
        XCTAssertEqual(precomposed, decomposed, "Swift's String == (the reason ExactText exists)")
        XCTAssertNotEqual(ExactText(precomposed), ExactText(decomposed))
        XCTAssertEqual(Set([ExactText(precomposed), ExactText(decomposed)]).count, 2)
        let built = String(decoding: Array("2000000400594083".utf8), as: UTF8.self)
        XCTAssertEqual(ExactText("2000000400594083"), ExactText(built))
        XCTAssertEqual(ExactText("2000000400594083").hashValue, ExactText(built).hashValue)
        let bridged = NSString(string: "u\u{E9}271") as String  // Foundation's storage, not a native string
        XCTAssertEqual(ExactText(bridged), ExactText("u\u{E9}271"))
        XCTAssertEqual(ExactText(bridged).hashValue, ExactText("u\u{E9}271").hashValue)
        XCTAssertNotEqual(ExactText("ab"), ExactText("abc"))
        XCTAssertNotEqual(ExactText("abd"), ExactText("abc"))
        XCTAssertEqual(ExactText(""), ExactText(String()))
        XCTAssertEqual(ExactText.distinctSorted(["b", "a", "b", "cafe\u{301}", "caf\u{E9}"]), ["a", "b", "cafe\u{301}", "caf\u{E9}"])
    }
}
