import XCTest

@testable import IAPAuditPipeline

/// `trace --format xlsx`'s workbook name (`TraceWorkbookName`): an id kept as it is when it can be a file
/// name; otherwise changed and followed by 8 hex digits of its SHA-256, so that two ids never share a name.
final class TraceNameTests: XCTestCase {
    func testIdsThatAreFileNamesStayAsTheyAre() {
        for id in ["MK5TTTVWJH", "_u251", "u_96c4317cb47412aa", "F7C25EB8-EE1C-47BD-ABEC-FDA67A3A7F2E", "r.1", "用户42", "Zoë"] {
            XCTAssertEqual(TraceWorkbookName.of(id), id)
        }
    }

    func testChangedIdsGetTheirHash() {
        XCTAssertEqual(TraceWorkbookName.of(" u251"), "_u251-8edeb452")
        XCTAssertEqual(TraceWorkbookName.of("_u251"), "_u251")
        XCTAssertEqual(TraceWorkbookName.of("u251 "), "u251_-7e973999")
        XCTAssertEqual(TraceWorkbookName.of(".hidden"), "_hidden-16924190")
        XCTAssertEqual(TraceWorkbookName.of("a/b"), "a_b-c14cddc0")
        // At most 100 bytes of the id: 34 three-byte letters are 102.
        let long = String(repeating: "用", count: 34)
        let name = TraceWorkbookName.of(long)
        XCTAssertEqual(name.utf8.count, 99 + 9)
        XCTAssertTrue(name.hasPrefix(String(repeating: "用", count: 33) + "-"), name)
    }
}
