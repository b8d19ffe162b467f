import Foundation
import XCTest

/// Acknowledging a finding a second time says what it replaces; the history keeps both notes.
final class AcknowledgeAgainTests: XCTestCase {
    func testASecondAckNamesTheNoteItReplaces() throws {
        let out = TestPaths.scratch()
        addTeardownBlock { try? FileManager.default.removeItem(atPath: out) }
        XCTAssertEqual(CLIRun(["run", TestPaths.repoRoot + "/sample-data", "--out", out]).status, 0)
        let id = "dropped_order:2000000400594083"
        let first = CLIRun(["ack", id, "--note", "credited by hand, ticket 4711", "--out", out])
        XCTAssertEqual(first.status, 0, first.err)
        XCTAssertFalse(first.out.contains("acknowledged already"), first.out)
        let second = CLIRun(["ack", id, "--note", "again, ticket 4712", "--out", out, "--json"])
        XCTAssertEqual(second.status, 0, second.err)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(second.out.utf8)) as? [String: Any])
        XCTAssertEqual(json["note"] as? String, "again, ticket 4712")
        XCTAssertEqual(json["previous_note"] as? String, "credited by hand, ticket 4711")
        XCTAssertNotNil(json["previous_acknowledged_at"] as? String)
        let third = CLIRun(["ack", id, "--note", "third", "--out", out])
        let lines = third.out.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 2, third.out)
        XCTAssertTrue(lines[1].hasPrefix("it was acknowledged already on 20"), lines[1])
        XCTAssertTrue(
            lines[1].hasSuffix("with the note \"again, ticket 4712\": the new note replaces it (finding_history keeps both)"), lines[1])
        let history =
            try PythonReader.run(
                """
                import json, sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                print(json.dumps([r[0] for r in db.execute(
                    "SELECT detail FROM finding_history WHERE event = 'acknowledged' AND finding_id = ? ORDER BY rowid", (sys.argv[2],))]))
                """, args: [out + "/audit.sqlite", id]) as? [String]
        XCTAssertEqual(history, ["credited by hand, ticket 4711", "again, ticket 4712", "third"])
    }
}
