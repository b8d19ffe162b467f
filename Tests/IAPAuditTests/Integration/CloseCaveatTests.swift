import Foundation
import XCTest

/// What a close says of itself (docs/close.md; found by a finance user test): a period closed again with other totals is
/// restated aloud (`close_restated`), on stderr, in `--json` and on the Cover; a Financial region the payments summary
/// names but no report gives, and no Financial report at all beside the Sales reports, are `report_coverage`.
final class CloseCaveatTests: XCTestCase {
    var sample: String { TestPaths.repoRoot + "/sample-data" }

    /// The Cover's cells of the close workbook in `out`, as text.
    func cover(_ out: String) throws -> [String] {
        try PythonReader.run(
            PythonReader.xlsxPrelude + """
                wb = openpyxl.load_workbook(sys.argv[1] + "/close-2026-10.xlsx")
                print(json.dumps([str(c) for r in wb["Cover"].iter_rows(values_only=True) for c in r if c is not None]))
                """, args: [out]) as! [String]
    }

    func warnings(_ run: CLIRun) throws -> [String: [String]] {
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any])
        var byCode: [String: [String]] = [:]
        for w in try XCTUnwrap(json["warnings"] as? [[String: Any]]) {
            byCode[w["code"] as! String, default: []].append(w["message"] as! String)
        }
        return byCode
    }

    func testAPeriodClosedAgainWithOtherTotalsIsRestatedAloud() throws {
        let out = TestPaths.scratch()
        let close = ["close", "--period", "2026-10", "--prices", sample + "/prices.csv", sample, "--out", out, "--json"]
        let first = CLIRun(close)
        XCTAssertEqual(first.status, 0, first.err)
        XCTAssertNil(try warnings(first)["close_restated"], "a first close restates nothing")
        let again = CLIRun(close)
        XCTAssertNil(try warnings(again)["close_restated"], "the same close again: the same totals")
        // Two days later the pending purchases of October 30 and 31 are judged: dropped orders the first close did not have.
        let later = CLIRun(close + ["--as-of", "2026-11-02T00:00:00Z"])
        XCTAssertEqual(later.status, 0, later.err)
        let message =
            "2026-10 was closed before in this ledger with other totals: EUR loss dropped_order claimed 29.97 → 71.94; "
            + "EUR loss_findings 18 → 21; JPY loss dropped_order claimed 8450 → 16450; JPY loss_findings 12 → 13; "
            + "USD loss dropped_order claimed 37.86 → 49.82; USD loss_findings 53 → 57; this close "
            + "replaces them (table close_total): a figure reported from the earlier close has moved"
        XCTAssertEqual(try warnings(later)["close_restated"], [message])
        XCTAssertTrue(later.err.contains("iap-audit: warning: " + message), later.err)
        XCTAssertTrue(try cover(out).contains { $0.contains(message) }, "on the Cover too")
        XCTAssertNil(try warnings(later)["period_open"], "judged to its end now")
        // In the ledger too (table run_warning), once: a close replaces the close warnings of the one before.
        let stored = {
            try PythonReader.run(
                "import json, sqlite3, sys; print(json.dumps([list(r) for r in sqlite3.connect(sys.argv[1]).execute("
                    + "\"SELECT code, message FROM run_warning WHERE code IN ('close_restated', 'period_open') ORDER BY rowid\")]))",
                args: [out + "/audit.sqlite"]) as! [[String]]
        }
        XCTAssertEqual(try stored(), [["close_restated", message]])
        XCTAssertEqual(CLIRun(close + ["--as-of", "2026-11-02T00:00:00Z"]).status, 0)
        XCTAssertEqual(try stored(), [], "the same close again restates nothing: the last close's warnings are gone")
        XCTAssertEqual(CLIRun(close).status, 0)
        XCTAssertEqual(try stored().map { $0[0] }, ["period_open", "close_restated"], "provisional again, and restated back")
        // What has no price moves too: closed without the price list, the purchases it priced were of no price (—).
        let unpriced = CLIRun(close.filter { $0 != "--prices" && $0 != sample + "/prices.csv" })
        let restated = try XCTUnwrap(try warnings(unpriced)["close_restated"]?.first)
        XCTAssertTrue(restated.contains("— purchases 23 → "), restated)
    }

    /// A restatement names measures that moved: a total of 0 that is gone (no purchase left without a price) moved
    /// nothing (helper-38: five "— … 0.00 → none" took the six places, and USD's gross moving was among "10 more").
    func testARestatementNamesOnlyWhatMoved() throws {
        let (input, out) = (TestPaths.scratch("input"), TestPaths.scratch())
        addTeardownBlock { for p in [input, out] { try? FileManager.default.removeItem(atPath: p) } }
        try FileManager.default.copyItem(atPath: sample, toPath: input)
        let close = ["close", "--period", "2026-10", "--prices", input + "/prices.csv", input, "--out", out, "--json"]
        XCTAssertEqual(CLIRun(close).status, 0)
        let prices = try String(contentsOfFile: input + "/prices.csv", encoding: .utf8)
        try (prices + "com.example.legacy.coins,USD,4.99,2026-01-01\n").write(
            toFile: input + "/prices.csv", atomically: true, encoding: .utf8)
        let again = CLIRun(close)
        XCTAssertEqual(again.status, 0, again.err)
        XCTAssertEqual(
            try warnings(again)["close_restated"],
            [
                "2026-10 was closed before in this ledger with other totals: — loss_findings 1 → 0; — purchase_units 23 → 0; "
                    + "— purchases 23 → 0; USD gross 8421.52 → 8536.29; USD loss duplicate_credit 48.89 → 53.88; "
                    + "USD loss_findings 53 → 54 and 3 more; this close replaces them (table close_total): a figure reported from "
                    + "the earlier close has moved"
            ])
    }

    /// A close that stops before its workbook is in place (here it cannot be written; killed, a full disk) leaves the
    /// close tables as the last close left them, so made again it still says what it restates (helper-36: the tables
    /// went first, the old workbook stayed beside the new totals, and the close made again restated nothing).
    func testACloseStoppedBeforeItsWorkbookRestatesWhenMadeAgain() throws {
        let out = TestPaths.scratch()
        addTeardownBlock { try? FileManager.default.removeItem(atPath: out) }
        let close = ["close", "--period", "2026-10", "--prices", sample + "/prices.csv", sample, "--out", out, "--json"]
        XCTAssertEqual(CLIRun(close).status, 0)
        let totals = {
            try PythonReader.run(
                "import json, sqlite3, sys; print(json.dumps([list(map(str, r)) for r in sqlite3.connect(sys.argv[1]).execute("
                    + "\"SELECT * FROM close_total ORDER BY 1, 2, 3\")]))", args: [out + "/audit.sqlite"]) as! [[String]]
        }
        let reported = try totals()
        // The workbook's place is taken: the close cannot write it.
        try FileManager.default.createDirectory(atPath: out + "/close-2026-10.xlsx.partial", withIntermediateDirectories: false)
        let stopped = CLIRun(close + ["--as-of", "2026-11-02T00:00:00Z"])
        XCTAssertEqual(stopped.status, 1, stopped.err)
        XCTAssertEqual(try totals(), reported, "the tables changed though the workbook was not written")
        try? FileManager.default.removeItem(atPath: out + "/close-2026-10.xlsx.partial")
        let again = CLIRun(close + ["--as-of", "2026-11-02T00:00:00Z"])
        XCTAssertEqual(again.status, 0, again.err)
        XCTAssertTrue(
            try warnings(again)["close_restated"]?.first?.hasPrefix("2026-10 was closed before in this ledger") == true, again.out)
        XCTAssertNotEqual(try totals(), reported)
    }

    /// What has no price stays in sight: a loss of no known price is counted on the Losses sheet and in the summary, and
    /// Apple's units of a product the ledger holds unpriced point at those purchases (both found by a finance user test).
    func testWhatHasNoPriceIsCountedAndPointedAt() throws {
        let out = TestPaths.scratch()
        let run = CLIRun(["close", "--period", "2026-10", "--prices", sample + "/prices.csv", sample, "--out", out])
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertTrue(run.out.contains("\n  1 loss finding(s) of no known price: on the Losses sheet, in no total\n"), run.out)
        let cells =
            try PythonReader.run(
                PythonReader.xlsxPrelude + """
                    wb = openpyxl.load_workbook(sys.argv[1] + "/close-2026-10.xlsx")
                    out = {}
                    for ws in wb.worksheets:
                        out[ws.title] = [[str(c) for c in r if c is not None] for r in ws.iter_rows(values_only=True)]
                    print(json.dumps(out))
                    """, args: [out]) as! [String: [[String]]]
        XCTAssertTrue(
            try XCTUnwrap(cells["Losses"]).contains([
                "Not valued", "—", "1 finding(s) of no known price: listed, in no total (a --prices line for the product values them)",
            ]))
        // The Payments sheet totals what Apple paid into the bank currency: the sum of its rows' proceeds paid.
        let paid =
            try PythonReader.run(
                PythonReader.xlsxPrelude + """
                    rows = list(openpyxl.load_workbook(sys.argv[1] + "/close-2026-10.xlsx", data_only=True)["Payments"].iter_rows(values_only=True))
                    body = [r for r in rows if r[9] == "USD" and r[0] != "Total"]
                    total = [r for r in rows if r[0] == "Total"]
                    print(json.dumps({"rows": len(body), "sum": sum(r[11] for r in body), "total": [list(r[9:13]) for r in total]}))
                    """, args: [out]) as! [String: Any]
        XCTAssertEqual(paid["rows"] as? Int, 4)
        XCTAssertEqual(paid["sum"] as? Int, 13_416_630)
        XCTAssertEqual((paid["total"] as? [[Any]])?.map { $0[0] as? String }, ["USD"])
        XCTAssertEqual((paid["total"] as? [[Any]])?.first?[2] as? Int, 13_416_630, "\(paid)")
        let pointed = try XCTUnwrap(cells["Bridge vs Sales"]).filter {
            $0.first == "com.example.legacy.coins" && $0.count > 2 && $0[1] == "USD"
        }
        XCTAssertEqual(
            pointed.last?.last,
            "Apple counts 23 unit(s) the buckets do not explain; the ledger's 23 unpriced unit(s) of this product (currency —, "
                + "listed here) may be them: price the product (--prices) to bridge them", "\(pointed)")
    }

    /// A price list given as a folder, or missing, is said in words (it was "NSCocoaErrorDomain error 256").
    func testAPriceListThatIsAFolderOrMissingIsSaidInWords() {
        for (prices, why) in [
            (sample, "a folder, not a price list file (give --prices FILE.csv)"), (sample + "/none.csv", "no such file"),
            ("/dev/null", "not a regular file (a device or a pipe?), not a price list file (give --prices FILE.csv)"),
        ] {
            let run = CLIRun(["close", "--period", "2026-10", "--prices", prices, sample, "--out", TestPaths.scratch()])
            XCTAssertEqual(run.status, 1, run.err)
            XCTAssertTrue(run.err.hasSuffix("\niap-audit: \(prices): error: cannot read input: \(why)"), run.err)
        }
    }

    /// A price list none of whose lines can be read is no price list: the close stops before the ledger is touched and
    /// the period's close stays as it was (found by a finance user test: such a close replaced October's totals with
    /// those of 1,482 unpriced purchases, warning only `close_restated`).
    func testAPriceListOfNoReadableLineStopsTheClose() throws {
        let out = TestPaths.scratch()
        let bad = TestPaths.scratch("prices") + "/prices.csv"
        try "product_id,storefront_or_currency,price,valid_from\ncom.example.gems60,EUR,one euro,2026-01-01\nx,,,\n".write(
            toFile: bad, atomically: true, encoding: .utf8)
        XCTAssertEqual(CLIRun(["close", "--period", "2026-10", "--prices", sample + "/prices.csv", sample, "--out", out]).status, 0)
        let before = FileManager.default.contents(atPath: out + "/close-2026-10.xlsx")
        let run = CLIRun(["close", "--period", "2026-10", "--prices", bad, sample, "--out", out])
        XCTAssertEqual(run.status, 1, run.err)
        XCTAssertTrue(
            run.err.contains("\(bad): error: cannot read input: none of its 2 price lines could be read (first: \(bad):2: "), run.err)
        XCTAssertTrue(
            run.err.hasSuffix("not a price list (product_id,storefront_or_currency,price,valid_from)? Nothing was closed"), run.err)
        XCTAssertEqual(FileManager.default.contents(atPath: out + "/close-2026-10.xlsx"), before)
        // Its header alone (found by the retest).
        try "product_id,storefront_or_currency,price,valid_from\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let header = CLIRun(["close", "--period", "2026-10", "--prices", bad, sample, "--out", out])
        XCTAssertEqual(header.status, 1, header.err)
        XCTAssertTrue(
            header.err.hasSuffix(
                "\(bad): error: cannot read input: it holds no price line, only its header: not a price list "
                    + "(product_id,storefront_or_currency,price,valid_from)? Nothing was closed"), header.err)
        XCTAssertEqual(FileManager.default.contents(atPath: out + "/close-2026-10.xlsx"), before)
    }

    /// Two regions in one currency (Americas and Rest of World, both USD: usual in a real account) are two reports, not a
    /// duplicate, and their Earned is checked against the Financial proceeds in USD together (found by a finance retest:
    /// each region warned of the other's proceeds, and the two reports were called a duplicate).
    func testTwoRegionsInOneCurrencyAreNeitherADuplicateNorShort() throws {
        let input = TestPaths.scratch() + "/in"
        try FileManager.default.copyItem(atPath: sample, toPath: input)
        let split =
            try PythonReader.run(
                """
                import json, sys
                folder = sys.argv[1] + "/app-store-connect/"
                lines = open(folder + "85012345_1026_US.txt").read().split("\\n")
                header, rows = lines[0], [l for l in lines[1:] if l and not l.startswith("Total_")]
                country = header.split("\\t").index("Country Of Sale")
                def write(name, part, code):
                    out = []
                    for r in part:
                        f = r.split("\\t"); f[country] = code; out.append("\\t".join(f))
                    amount = sum(round(float(r.split("\\t")[7]) * 100) for r in part)
                    units = sum(int(r.split("\\t")[5]) for r in part if r.split("\\t")[9] == "S")
                    trailer = ["Total_Rows\\t%d" % len(part), "Total_Amount\\t%d.%02d" % divmod(amount, 100), "Total_Units\\t%d" % units]
                    open(folder + name, "w").write("\\n".join([header] + out + trailer) + "\\n")
                    return amount, units
                (a1, u1), (a2, u2) = write("85012345_1026_US.txt", rows[:7], "US"), write("85012345_1026_WW.txt", rows[7:], "CA")
                summary = open(folder + "financial_report.csv").read()
                def row(region, a, u):
                    t = "%d.%02d" % divmod(a, 100)
                    return '%s (USD),"%d","%s","%s","0","0","0","%s","1.00000","%s","USD",' % (region, u, t, t, t, t)
                old = [l for l in summary.split("\\n") if l.startswith("Americas (USD)")][0]
                open(folder + "financial_report.csv", "w").write(summary.replace(old, row("Americas", a1, u1) + "\\n" + row("Rest of World", a2, u2)))
                print(json.dumps([a1, a2]))
                """, args: [input]) as! [Int]
        XCTAssertEqual(split.reduce(0, +), 581_713, "the two files hold the US report's USD 5817.13")
        let run = CLIRun(["close", "--period", "2026-10", "--prices", input + "/prices.csv", input, "--json", "--out", TestPaths.scratch()])
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertNil(try warnings(run)["report_coverage"], run.err)
        XCTAssertNil(try warnings(run)["duplicate_report"], run.err)
        XCTAssertNil(try warnings(run)["report_lines_rejected"], run.err)
    }

    func testAFinancialRegionOrAllOfThemMissingIsReportCoverage() throws {
        let input = TestPaths.scratch() + "/in"
        try FileManager.default.copyItem(atPath: sample, toPath: input)
        try FileManager.default.removeItem(atPath: input + "/app-store-connect/85012345_1026_JP.txt")
        let close = ["close", "--period", "2026-10", "--prices", input + "/prices.csv", input, "--json"]
        let region = CLIRun(close + ["--out", TestPaths.scratch()])
        XCTAssertEqual(region.status, 0, region.err)
        XCTAssertEqual(
            try warnings(region)["report_coverage"],
            [
                "\(input)/app-store-connect/financial_report.csv: the payments summary's Japan earned JPY 342275 in October, "
                    + "2026; no Financial report line of fiscal October 2026 is in JPY: that region's Financial report is missing, and "
                    + "Apple's JPY proceeds with it (the bridge's remainder, not a difference)"
            ])
        // A region the payments summary does not list (its row cut): its Financial proceeds are said to be unpaid there.
        let summary = input + "/app-store-connect/financial_report.csv"
        let rows = try String(contentsOfFile: summary, encoding: .utf8).components(separatedBy: "\n")
        try rows.filter { !$0.hasPrefix("United Kingdom (GBP)") }.joined(separator: "\n").write(
            toFile: summary, atomically: true, encoding: .utf8)
        let cut = CLIRun(close + ["--out", TestPaths.scratch()])
        XCTAssertTrue(
            try XCTUnwrap(try warnings(cut)["report_coverage"]).contains(
                "\(summary): the Financial reports of fiscal October 2026 give GBP 2517.37, but the payments summary lists no region in "
                    + "GBP: what Apple paid for it is not on the Payments sheet (a summary of another account, or cut?)"), cut.err)
        for file in try FileManager.default.contentsOfDirectory(atPath: input + "/app-store-connect") where file.hasPrefix("85012345_1026_")
        {
            try FileManager.default.removeItem(atPath: input + "/app-store-connect/" + file)
        }
        let none = CLIRun(close + ["--out", TestPaths.scratch()])
        XCTAssertEqual(none.status, 0, none.err)
        let coverage = try XCTUnwrap(try warnings(none)["report_coverage"])
        XCTAssertTrue(
            coverage.contains(
                "Financial reports cover 0 of the 1 fiscal months of 2026-10: none for fiscal October 2026: Apple's proceeds for them are "
                    + "missing from the bridge, not zero"), "\(coverage)")
    }
}
