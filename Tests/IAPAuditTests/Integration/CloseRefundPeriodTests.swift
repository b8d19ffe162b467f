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

    /// Apple's figures of a period with none of its reports among the inputs are absent, not zero, in every output: the
    /// warning and the KPIs said so, while `--json` gave 0 and `close_total` stored 0 (found by the same test).
    func testApplesFiguresWithoutItsReportsAreAbsentNotZero() throws {
        let out = TestPaths.scratch()
        XCTAssertEqual(CLIRun(["run", "--out", out, sample]).status, 0)
        var totals: [String: [String: Any]] = [:]
        for period in ["2026-09", "2026-10"] {
            let close = CLIRun(["close", "--period", period, "--prices", sample + "/prices.csv", "--out", out, "--json", sample])
            XCTAssertEqual(close.status, 0, close.err)
            let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(close.out.utf8)) as? [String: Any])
            totals[period] = try XCTUnwrap((json["totals"] as? [String: Any])?["EUR"] as? [String: Any])
        }
        for key in [
            "apple_sales_units", "apple_sales_milliunits", "apple_sales_proceeds_milliunits", "apple_financial_proceeds_milliunits",
        ] {
            XCTAssertTrue(totals["2026-09"]?[key] is NSNull, "\(key): \(String(describing: totals["2026-09"]?[key]))")
            XCTAssertNotNil(totals["2026-10"]?[key] as? Int, key)
        }
        XCTAssertEqual(totals["2026-10"]?["apple_sales_milliunits"] as? Int, 4_060_390)
        let measures = try XCTUnwrap(
            try PythonReader.run(
                """
                import json, sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                print(json.dumps({p: [m for (m,) in db.execute(
                    "SELECT DISTINCT measure FROM close_total WHERE period = ?1 AND measure LIKE 'apple%' ORDER BY 1", (p,))]
                    for p in ["2026-09", "2026-10"]} | {"none": [m for (m,) in db.execute(
                    "SELECT measure FROM close_total WHERE currency = '—' AND measure LIKE 'apple%'")]}))
                """, args: [out + "/audit.sqlite"]) as? [String: [String]])
        XCTAssertEqual(measures["2026-09"], [])
        // The purchases of no price (—) have no Apple figure in any period (found by the retest: zeros for "—").
        XCTAssertEqual(measures["2026-10"], ["apple_financial_proceeds", "apple_sales", "apple_sales_proceeds", "apple_sales_units"])
        XCTAssertEqual(measures["none"], [])
    }

    /// A period of nothing says so on stdout, as the KPIs sheet does (it printed the header and blank lines).
    func testAPeriodOfNothingSaysSo() {
        let out = TestPaths.scratch()
        let close = CLIRun(["close", "--period", "2025-01", "--out", out, sample])
        XCTAssertEqual(close.status, 0, close.err)
        XCTAssertTrue(close.out.contains("\n\nNothing to report: no sale, refund or Apple report line in the period.\n"), close.out)
    }
}
