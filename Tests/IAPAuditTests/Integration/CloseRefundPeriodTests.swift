import Foundation
import XCTest

/// A refund is booked in the period it happens (FINANCE.md), in every table of the close: `close_sale` says what was
/// refunded of a purchase *in the period* (docs/schema.md), so closes of adjacent months never count one refund twice.
/// Found by a finance user test: the sample's September purchase 2000000400594859, refunded on 2026-10-12, showed
/// EUR 49.99 refunded in September's `close_sale` as well as in October's `close_refund`.
final class CloseRefundPeriodTests: XCTestCase {
    var sample: String { TestPaths.repoRoot + "/sample-data" }

    func testARefundIsInTheCloseOfItsOwnMonthOnly() throws {
        let out = TestPaths.scratch()
        XCTAssertEqual(CLIRun(["run", "--out", out, sample]).status, 0)
        for period in ["2026-09", "2026-10"] {
            let close = CLIRun(["close", "--period", period, "--prices", sample + "/prices.csv", "--out", out, sample])
            XCTAssertEqual(close.status, 0, close.err)
        }
        let rows = try XCTUnwrap(
            try PythonReader.run(
                """
                import json, sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                sales = db.execute("SELECT period, refunded_milliunits, currency FROM close_sale WHERE purchase_key = ?1",
                                   ("2000000400594859",)).fetchall()
                refunds = db.execute("SELECT period, amount_milliunits, currency FROM close_refund WHERE purchase_key = ?1",
                                     ("2000000400594859",)).fetchall()
                print(json.dumps({"sales": [list(r) for r in sales], "refunds": [list(r) for r in refunds]}))
                """, args: [out + "/audit.sqlite"]) as? [String: [[Any]]])
        XCTAssertEqual(rows["sales"]?.map { "\($0[0]) \($0[1]) \($0[2])" }, ["2026-09 0 EUR"])
        XCTAssertEqual(rows["refunds"]?.map { "\($0[0]) \($0[1]) \($0[2])" }, ["2026-10 49990 EUR"])
    }
}
