import Foundation
import XCTest

@testable import IAPAuditCLI
@testable import IAPAuditModel

/// A spreadsheet-mangled id is never traced (issue 29): on sample-data/, user u63's purchase 2000000400598509 pasted
/// through Excel is 2000000400598500, user u183's purchase.
final class TraceMangledIdTests: XCTestCase {
    func trace(_ arguments: [String]) throws -> CLIRun {
        CLIRun(["trace"] + arguments + ["--out", try TraceSearchTests.ledger()])
    }

    func candidates(_ run: CLIRun) throws -> [[String: Any]] {
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any], run.out)
        XCTAssertEqual(object["traced"] as? Bool, false)
        return try XCTUnwrap(object["candidates"] as? [[String: Any]])
    }

    /// A candidate only Apple lists names the user its finding names (found by a support user test: 2000000400594191,
    /// which trace says to credit to u278, was listed as "user unknown").
    func testACandidateOnlyAppleListsNamesItsFindingsUser() throws {
        let list = try candidates(try trace(["2.00000040059419E+15", "--format", "json"]))
        let apple = try XCTUnwrap(list.first { $0["transaction_id"] as? String == "2000000400594191" })
        XCTAssertEqual(apple["user_ids"] as? [String], ["u278"])
    }

    /// Each form: exit 4, both ids of the 15 kept digits listed with their user, nothing traced, the exact one marked.
    func testEachFormListsBothIdsAndTracesNone() throws {
        for (id, exact) in [
            ("2000000400598500", [true, false]), ("2000000400598509.0", [false, true]), ("2.00000040059850E+15", [false, false]),
        ] {
            let text = try trace([id])
            XCTAssertEqual(text.status, 4, id)
            XCTAssertFalse(text.out.contains("== transaction"), id)
            XCTAssertTrue(text.out.hasPrefix("trace \(id): not traced: the id looks spreadsheet-mangled: "), text.out)
            let run = try trace([id, "--format", "json"])
            XCTAssertEqual(run.status, 4, id)
            let list = try candidates(run)
            XCTAssertEqual(list.map { $0["transaction_id"] as? String }, ["2000000400598500", "2000000400598509"], id)
            XCTAssertEqual(list.map { $0["user_ids"] as? [String] }, [["u183"], ["u63"]], id)
            XCTAssertEqual(list.map { $0["exact"] as? Bool }, exact, id)
        }
        let text = try trace(["2000000400598500"]).out
        XCTAssertTrue(
            text.contains(
                "  2000000400598500  user u183, com.example.gems980, 2026-10-23T07:28:27.000Z, exact match, but the id looks mangled"),
            text)
    }

    /// With --user, that user's id first.
    func testUserFirst() throws {
        let list = try candidates(try trace(["2000000400598500", "--user", "u63", "--format", "json"]))
        XCTAssertEqual(list.map { $0["transaction_id"] as? String }, ["2000000400598509", "2000000400598500"])
        XCTAssertEqual(list.map { $0["of_user"] as? Bool }, [true, false])
    }

    /// `2E+15`: every 16-digit id from 1.5E+15 to below 2.5E+15: 20 listed, the rest counted, the user's way to narrow said.
    func testFewDigitsShownListsTheFirstAndSaysMore() throws {
        let run = try trace(["2E+15"])
        XCTAssertEqual(run.status, 4)
        XCTAssertTrue(
            run.out.contains("and 1974 more: give the customer's user id (trace 2E+15 --user USER) to list theirs first"), run.out)
        let object = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(try trace(["2E+15", "--format", "json"]).out.utf8)) as? [String: Any])
        XCTAssertEqual((object["candidates"] as? [Any])?.count, 20)
        XCTAssertEqual(object["more"] as? Int, 1974)
    }

    /// Under --redact, the candidates' users are tokens, and so is --user.
    func testRedactShowsTokens() throws {
        let key = RedactionCheck.keyFile("a-key-of-more-than-16-bytes-xx")
        let run = try trace(["2000000400598500", "--user", "u63", "--redact", "--redact-key", key])
        XCTAssertEqual(run.status, 4, run.err)
        for user in ["u63", "u183"] { XCTAssertFalse(run.out.contains("user \(user)"), run.out) }
        XCTAssertEqual(run.out.components(separatedBy: "\n").filter { $0.hasPrefix("  2000000400598") && $0.contains("user u_") }.count, 2)
        XCTAssertTrue(run.out.components(separatedBy: "\n")[3].hasPrefix("  2000000400598509  user u_"), run.out)
    }

    /// A near match is never shown alone while others are as near: all 13 ids one digit longer are listed (5 were).
    func testEqualNearMatchesAreAllListed() throws {
        let run = try trace(["200000040059848", "--format", "json"])
        XCTAssertEqual(run.status, 2)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any])
        let near = try XCTUnwrap(object["near_matches"] as? [[String: Any]])
        XCTAssertEqual(near.count, 13)
        XCTAssertEqual(Set(near.map { $0["why"] as? String }), ["one character left out near its end"])
        XCTAssertEqual(near.first?["id"] as? String, "2000000400594848")
    }

    /// `--exact` traces the id as given.
    func testExactTraces() throws {
        let run = try trace(["--exact", "2000000400598500"])
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertTrue(run.out.contains("\n== transaction 2000000400598500 ("), run.out)
    }

    /// The forms and their ranges; ids of no such form are left alone.
    func testRecognise() {
        let cases: [(String, Int, String, String)] = [
            ("2000000400072790", 16, "2000000400072790", "2000000400072800"),
            ("2000000400072794.0", 16, "2000000400072790", "2000000400072800"),
            ("2.00000040007279E+15", 16, "2000000400072790", "2000000400072800"),
            ("2E+15", 16, "1500000000000000", "2500000000000000"),
            // 14 digits shown: rounded, so the ids within half a unit of the last either side.
            ("2.0000004005985E+15", 16, "2000000400598450", "2000000400598550"),
            ("2.5e15", 16, "2450000000000000", "2550000000000000"),
            ("1234.0", 4, "1234", "1234\u{0}"),
        ]
        for (id, length, low, high) in cases {
            let m = TraceMangledId.recognise(id)
            XCTAssertEqual(m?.length, length, id)
            XCTAssertEqual(m?.low, low, id)
            XCTAssertEqual(m?.high, high, id)
        }
        for id in ["2000000400072794", "200000040007279", "u1", "1.5", "2000000400072790x", "0000000000000000", "MQ7K2XW9PL", "2E+1"] {
            XCTAssertNil(TraceMangledId.recognise(id), id)
        }
    }
}
