import Foundation
import XCTest

@testable import IAPAuditCLI
@testable import IAPAuditModel
@testable import IAPAuditPipeline

/// `trace --user U [--product P] [--at TIME [--within D]] [--price AMOUNT]` and the hints of `trace ID` for a product
/// or user id, over the ledger `run` leaves on sample-data/ (issue 29: "980 gems, Oct 23 around 05:30").
final class TraceSearchTests: XCTestCase {
    static let out = TestPaths.scratch("tracesearch")
    nonisolated(unsafe) static var ran = false

    /// The sample's ledger (made once; shared with `TraceMangledIdTests`).
    static func ledger() throws -> String {
        if !ran {
            let sample = TestPaths.repoRoot + "/sample-data"
            let config = try ConfigLoader.load(path: sample + "/config.json")
            _ = try AuditPipeline.run(AuditOptions(paths: [sample], outputDirectory: out, config: config))
            ran = true
        }
        return Self.out
    }

    func trace(_ arguments: [String]) throws -> CLIRun { CLIRun(["trace"] + arguments + ["--out", try Self.ledger()]) }

    func json(_ run: CLIRun) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any], run.out)
    }

    /// The ticket: user u161 bought 980 gems on Oct 23 at 05:23:02; "around 05:30" finds it alone, first, 6m 58s away.
    func testUserProductAndTimeFindTheTicketsPurchase() throws {
        let run = try trace(["--user", "u161", "--product", "com.example.gems980", "--at", "2026-10-23 05:30"])
        XCTAssertEqual(run.status, 0, run.err)
        let lines = run.out.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines[0], "trace --user u161: searched user u161, product com.example.gems980, 2026-10-23T05:30:00.000Z ± 6h")
        XCTAssertEqual(lines[2], "1 candidate of 6 purchase(s) of the user, nearest to --at first:")
        XCTAssertEqual(lines[3], "  2000000400598495  com.example.gems980  2026-10-23T05:23:02.000Z  quantity 1  (6m 58s from --at)")
        XCTAssertEqual(lines[4], "    no action; Apple confirms the payment; credited 1×")
        XCTAssertEqual(lines[5], "    iap-audit trace 2000000400598495 --out \(Self.out)")
    }

    /// Without the product, a day either side: both of the user's purchases that day, nearest first, with distances.
    func testNearestToAtFirst() throws {
        let object = try json(try trace(["--user", "u161", "--at", "2026-10-23T05:30:00Z", "--within", "1d", "--format", "json"]))
        let candidates = try XCTUnwrap(object["candidates"] as? [[String: Any]])
        XCTAssertEqual(candidates.map { $0["transaction_id"] as? String }, ["2000000400598495", "2000000400598585"])
        XCTAssertEqual(candidates.map { $0["distance_ms"] as? Int }, [418_000, 44_670_000])
        XCTAssertEqual(candidates.map { $0["product_id"] as? String }, ["com.example.gems980", "com.example.gems300"])
        XCTAssertEqual(object["more"] as? Int, 0)
    }

    /// More than 20: 20 listed, newest first, and how many more; --price keeps the proven price first, the unknown said.
    func testMoreThanTwentyAndPrice() throws {
        let all = try trace(["--user", "u1"])
        XCTAssertEqual(all.status, 0, all.err)
        XCTAssertTrue(all.out.contains("115 candidates of 115 purchase(s) of the user, newest first:"), all.out)
        XCTAssertTrue(all.out.contains("and 95 more: narrow with --product, --at with a shorter --within, or --price"), all.out)
        let priced = try json(try trace(["--user", "u1", "--price", "14.99", "--format", "json"]))
        let candidates = try XCTUnwrap(priced["candidates"] as? [[String: Any]])
        XCTAssertEqual(candidates.count, 20)
        XCTAssertEqual(
            candidates.prefix(3).map { $0["transaction_id"] as? String }, ["2000000400597404", "2000000400597315", "2000000400599615"])
        XCTAssertEqual(candidates.prefix(3).map { $0["price_milliunits"] as? Int }, [14_990, 14_990, nil])
        XCTAssertEqual(priced["price_unknown"] as? Int, 87)
        XCTAssertEqual(priced["more"] as? Int, 69)
    }

    /// Nothing: what was searched, exit 2.
    func testNoneSaysWhatWasSearched() throws {
        let none = try trace(["--user", "u1", "--product", "com.example.none"])
        XCTAssertEqual(none.status, 2)
        XCTAssertTrue(none.out.contains("searched user u1, product com.example.none"), none.out)
        XCTAssertTrue(none.out.contains("no purchase matches: the user has 115 purchase(s); leave out --product or --price"), none.out)
        let nobody = try trace(["--user", "nobody"])
        XCTAssertEqual(nobody.status, 2)
        XCTAssertTrue(nobody.out.contains("no purchase: no client report, server request or Apple record answering one names this user"))
    }

    /// A product id: no record holds it as an id; the answer says it is a product, how many purchases, and how to search.
    func testProductIdHint() throws {
        let run = try trace(["com.example.gems980"])
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(
            run.out.contains(
                "com.example.gems980 is a product (227 purchases reported by the app): find one with iap-audit trace --user USER "
                    + "--product com.example.gems980 --at 'YYYY-MM-DD HH:MM' --out \(Self.out)"), run.out)
    }

    /// A user id: traced as before, with the hint on top.
    func testUserIdHint() throws {
        let run = try trace(["u161"])
        XCTAssertEqual(run.status, 0, run.err)
        let lines = run.out.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines[0], "trace u161: user id (client_report.user_id, server_request.user_id); 6 transactions")
        XCTAssertEqual(
            lines[2],
            "u161 is a user (6 transactions): to find one purchase, iap-audit trace --user u161 --product PRODUCT "
                + "--at 'YYYY-MM-DD HH:MM' --out \(Self.out)")
        XCTAssertEqual(run.out.components(separatedBy: "\n== transaction ").count - 1, 6)
    }

    /// An unknown id: the hint says how to search.
    func testUnknownIdHint() throws {
        let run = try trace(["nothing-known"])
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(run.out.contains("nothing-known is no id, product or user the ledger knows"), run.out)
    }

    /// The JSON of a search as Python reads it.
    func testJSONReadBackWithPython() throws {
        let run = try trace(["--user", "u161", "--product", "com.example.gems980", "--at", "2026-10-23 05:30", "--format", "json"])
        XCTAssertEqual(run.status, 0, run.err)
        let path = TestPaths.scratch("tracesearch-json") + ".json"
        try run.out.write(toFile: path, atomically: true, encoding: .utf8)
        let script = """
            import json, sys
            d = json.load(open(sys.argv[1]))
            c = d["candidates"][0]
            print(json.dumps([d["search"]["user_id"], d["search"]["product_id"], d["search"]["at_ms"], d["search"]["within_ms"],
                c["transaction_id"], c["product_id"], c["purchase_ms"], c["quantity"], c["distance_ms"],
                c["verdict"]["next_action"]["code"], c["verdict"]["apple"], len(d["candidates"]), d["more"]]))
            """
        let read = try XCTUnwrap(try PythonReader.run(script, args: [path]) as? [Any])
        XCTAssertEqual(read.count, 13)
        XCTAssertEqual(read[0] as? String, "u161")
        XCTAssertEqual(read[1] as? String, "com.example.gems980")
        XCTAssertEqual(read[2] as? Int, 1_792_733_400_000)
        XCTAssertEqual(read[3] as? Int, 21_600_000)
        XCTAssertEqual(read[4] as? String, "2000000400598495")
        XCTAssertEqual(read[5] as? String, "com.example.gems980")
        XCTAssertEqual(read[6] as? Int, 1_792_732_982_000)
        XCTAssertEqual(read[7] as? Int, 1)
        XCTAssertEqual(read[8] as? Int, 418_000)
        XCTAssertEqual(read[9] as? String, "no_action")
        XCTAssertEqual(read[10] as? String, "confirmed")
        XCTAssertEqual(read[11] as? Int, 1)
        XCTAssertEqual(read[12] as? Int, 0)
    }

    /// The workbook: one row per candidate.
    func testWorkbook() throws {
        let run = try trace(["--user", "u161", "--format", "xlsx"])
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertTrue(run.out.hasSuffix("Wrote \(Self.out)/trace-search-u161.xlsx"), run.out)
        XCTAssertTrue(FileManager.default.fileExists(atPath: Self.out + "/trace-search-u161.xlsx"))
    }

    /// Under --redact the user shows as its token, as trace shows an ID.
    func testRedactShowsTheUsersToken() throws {
        let key = RedactionCheck.keyFile("a-key-of-more-than-16-bytes-xx")
        let run = try trace(["--user", "u161", "--redact", "--redact-key", key])
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertFalse(run.out.contains("u161"), run.out)
        XCTAssertTrue(run.out.hasPrefix("trace --user u_"), run.out)
        XCTAssertTrue(run.out.contains("\n6 candidates of 6 purchase(s) of the user, newest first:\n"), run.out)
        XCTAssertTrue(run.out.contains("    iap-audit trace 2000000400598495 --out \(Self.out) --redact\n"), run.out)
    }

    /// Usage errors: a filter without --user, --within without --at, a time, duration or price that does not read.
    func testUsageErrors() throws {
        for arguments in [
            ["2000000400598495", "--product", "p"], ["--user", "u1", "--within", "2h"], ["--user", "u1", "--at", "Oct 23"],
            ["--user", "u1", "--at", "2026-10-23 05:30", "--within", "2 hours"], ["--user", "u1", "--price", "9,99"],
            ["2000000400598495", "--user", "u1"],
        ] {
            XCTAssertEqual(try trace(arguments).status, 64, "\(arguments)")
        }
    }
}
