import Foundation
import XCTest

@testable import IAPAuditModel
@testable import IAPAuditReport

/// The close workbook of `CloseReportFixture`, read back with openpyxl: sheets and their order, exact
/// amounts and their formats, totals as formulas with their values, the KPIs against the report's totals,
/// print setup, charts, and the same bytes twice.
final class CloseWorkbookTests: XCTestCase {
    nonisolated(unsafe) static var written: (path: String, read: CloseWorkbookReader)?

    /// The fixture's workbook, written once (and copied to `$IAP_AUDIT_CLOSE_OUT` when set, to look at it).
    func workbook() throws -> (path: String, read: CloseWorkbookReader) {
        if let written = Self.written { return written }
        let path = TestPaths.scratch("closeworkbook") + "/close-2026-10.xlsx"
        try XLSXWriter.write(try CloseReportFixture.workbook(), to: path)
        if let copy = ProcessInfo.processInfo.environment["IAP_AUDIT_CLOSE_OUT"], !copy.isEmpty {
            try? FileManager.default.removeItem(atPath: copy)
            try FileManager.default.copyItem(atPath: path, toPath: copy)
        }
        let written = (path, try CloseWorkbookReader(path: path))
        Self.written = written
        return written
    }

    func testSheetsInOrder() throws {
        let read = try workbook().read
        XCTAssertEqual(
            read.sheets,
            ["Cover", "KPIs", "Revenue", "Daily", "Bridge vs Sales", "Bridge vs Financial", "Payments", "Refunds", "Losses", "Unpriced"])
        XCTAssertEqual(read.sheets, CloseWorkbook.sheetNames)
    }
}

extension CloseWorkbookTests {
    static let twoDecimals = "#,##0.00,_);[Red]-#,##0.00,_)"
    static let threeDecimals = "#,##0.000,_);[Red]-#,##0.000,_)"
    static let noDecimals = "#,##0,_);[Red]-#,##0,_)"

    /// Amounts are the exact integer milliunits, shown by a format per currency (JPY none, KWD three) and
    /// per amount (finer than the currency: three).
    func testAmountsAreExactIntegersWithTheirCurrencyFormat() throws {
        let read = try workbook().read
        // Revenue: row 1 the caption, (a blank row), 3 the notes, 4 the header, 5-10 the data, 11-15 the totals.
        let expected: [(String, Int, String)] = [
            ("D5", 800_000, Self.noDecimals),  // JPY 800
            ("D6", 9980, Self.twoDecimals),  // USD 9.98
            ("I6", -624, Self.threeDecimals),  // USD -0.624: finer than a cent, shown whole
            ("I7", -10990, Self.twoDecimals),  // EUR -10.99
            ("D10", 1250, Self.threeDecimals),  // KWD 1.250
        ]
        for (coordinate, value, format) in expected {
            let cell = try read.cell("Revenue", coordinate)
            XCTAssertEqual(cell["value"] as? Int, value, coordinate)
            XCTAssertEqual(cell["int"] as? Bool, true, "\(coordinate) is an integer in the file")
            XCTAssertEqual(cell["format"] as? String, format, coordinate)
        }
        XCTAssertNil(read.cells("Revenue")["D9"], "the unpriced purchase has no amount, not 0.00")
        XCTAssertEqual(try read.cell("Revenue", "C9")["value"] as? Int, 1)
    }

    /// Every cell shown as an amount holds an integer (openpyxl reads `4490`, never `4.49` or `4490.0`).
    func testEveryAmountCellHoldsAnInteger() throws {
        let read = try workbook().read
        var amounts = 0
        for sheet in read.sheets {
            for (coordinate, cell) in read.cells(sheet) where (cell["format"] as? String)?.contains(",_)") == true {
                amounts += 1
                XCTAssertEqual(cell["int"] as? Bool, true, "\(sheet)!\(coordinate) holds \(cell["cached"] ?? "nothing")")
            }
        }
        XCTAssertGreaterThan(amounts, 200)
    }

    /// Row formulas and per-currency totals are formulas with their values; the values are what the
    /// formulas compute.
    func testTotalsAreFormulasWithTheirValuesPerCurrency() throws {
        let read = try workbook().read
        let net = try read.cell("Revenue", "J6")
        XCTAssertEqual(net["value"] as? String, "=$D$6+$I$6")
        XCTAssertEqual(net["cached"] as? Int, 9356)
        XCTAssertEqual(net["format"] as? String, Self.threeDecimals)
        // The footer: one row per currency (EUR, JPY, KWD, USD, then the unpriced —), never across currencies.
        XCTAssertEqual((11...15).map { try? read.cell("Revenue", "B\($0)")["value"] as? String }, ["EUR", "JPY", "KWD", "USD", "—"])
        let usd = try read.cell("Revenue", "D14")
        XCTAssertEqual(usd["value"] as? String, "=SUMIF($B$5:$B$10,$B$14,$D$5:$D$10)")
        XCTAssertEqual(usd["cached"] as? Int, 19970)
        XCTAssertEqual(usd["bold"] as? Bool, true)
        XCTAssertEqual(try read.cell("Revenue", "I14")["cached"] as? Int, -624)
        XCTAssertEqual(try read.cell("Revenue", "J14")["cached"] as? Int, 19346)
        XCTAssertEqual(try read.cell("Revenue", "C14")["cached"] as? Int, 4, "units")
        XCTAssertEqual(try read.cell("Revenue", "C15")["cached"] as? Int, 1, "the unpriced purchase, counted in units")
        XCTAssertNil(read.cells("Revenue")["D15"], "no amount for the unpriced")
        XCTAssertEqual(try read.cell("Revenue", "J11")["cached"] as? Int, -10990, "EUR: a refund of September, no sale")

        // The bridge: variance and remainder are formulas of their row.
        let variance = try read.cell("Bridge vs Sales", "F6")
        XCTAssertEqual(variance["value"] as? String, "=$E$6-$D$6")
        XCTAssertEqual(variance["cached"] as? Int, -9980)
        let remainder = try read.cell("Bridge vs Sales", "M6")
        XCTAssertEqual(remainder["value"] as? String, "=$F$6-SUM($G$6:$L$6)")
        XCTAssertEqual(remainder["cached"] as? Int, -4366)
        XCTAssertEqual(remainder["format"] as? String, Self.threeDecimals)
    }

    /// The KPIs are formulas over the detail sheets whose values are the report's totals, and each bridge
    /// walks from the ledger to Apple's number.
    func testKPIsAreTheReportTotals() throws {
        let read = try workbook().read
        let report = try CloseReportFixture.report()
        func amount(_ label: String, in currency: String) -> [String: Any]? {
            guard let start = read.row("KPIs", holding: currency), let row = read.row("KPIs", holding: label, after: start) else {
                return nil
            }
            return read.cells("KPIs")["C\(row)"]
        }
        for totals in report.totals {
            let c = totals.currency
            XCTAssertEqual(amount("gross revenue: paid purchases of the period", in: c)?["cached"] as? Int, Int(totals.gross), c)
            XCTAssertEqual(amount("refunds booked in the period", in: c)?["cached"] as? Int, Int(totals.refunds), c)
            XCTAssertEqual(amount("net", in: c)?["cached"] as? Int, Int(totals.net), c)
            if totals.appleFinancialProceeds != 0 {
                XCTAssertEqual(
                    amount("Financial: proceeds (Extended Partner Share)", in: c)?["cached"] as? Int, Int(totals.appleFinancialProceeds), c)
                XCTAssertEqual(amount("= Apple Financial: proceeds", in: c)?["cached"] as? Int, Int(totals.appleFinancialProceeds), c)
            }
            if totals.appleSales != 0 {
                XCTAssertEqual(amount("Summary Sales: customer price", in: c)?["cached"] as? Int, Int(totals.appleSales), c)
                XCTAssertEqual(amount("= Apple Summary Sales: customer price", in: c)?["cached"] as? Int, Int(totals.appleSales), c)
                XCTAssertEqual(amount("Summary Sales: developer proceeds", in: c)?["cached"] as? Int, Int(totals.appleSalesProceeds), c)
            }
            for (label, value) in totals.losses {
                XCTAssertEqual(amount(label, in: c)?["cached"] as? Int, Int(value), "\(c) \(label)")
            }
            if !totals.losses.isEmpty {
                XCTAssertEqual(amount("total losses", in: c)?["cached"] as? Int, Int(totals.losses.values.reduce(0, +)), c)
            }
        }
        XCTAssertEqual(
            amount("gross revenue: paid purchases of the period", in: "USD")?["value"] as? String,
            "=SUMIF('Revenue'!$B$5:$B$10,\"USD\",'Revenue'!$D$5:$D$10)")
        XCTAssertEqual(
            amount("dropped_order confirmed", in: "USD")?["value"] as? String,
            "=SUMIFS('Losses'!$G$4:$G$9,'Losses'!$F$4:$F$9,\"USD\",'Losses'!$A$4:$A$9,\"dropped_order confirmed\")")
        let walk = try XCTUnwrap(amount("= Apple Summary Sales: customer price", in: "USD")?["value"] as? String)
        XCTAssertTrue(walk.hasPrefix("=SUM($C$"), walk)
        XCTAssertEqual(amount("+ remainder: unexplained", in: "USD")?["cached"] as? Int, -4366)
    }
}

extension CloseWorkbookTests {
    /// Every sheet prints landscape, one page wide, with the close in the footer; a sheet with one main
    /// table freezes its header and prints it (and its notes) on every page.
    func testPrintSetup() throws {
        let read = try workbook().read
        let repeated: [String: (freeze: String, rows: String)] = [
            "Revenue": ("A5", "$3:$4"), "Bridge vs Sales": ("A5", "$3:$4"), "Bridge vs Financial": ("A5", "$3:$4"),
            "Payments": ("A4", "$3:$3"), "Refunds": ("A4", "$3:$3"), "Losses": ("A4", "$3:$3"), "Unpriced": ("A4", "$3:$3"),
        ]
        for sheet in read.sheets {
            let data = try XCTUnwrap(read.data[sheet])
            XCTAssertEqual(data["orientation"] as? String, "landscape", sheet)
            XCTAssertEqual(data["fitToPage"] as? Bool, true, sheet)
            XCTAssertEqual(data["fitToWidth"] as? Int ?? 1, 1, sheet)
            XCTAssertEqual(data["fitToHeight"] as? Int, 0, "\(sheet): as many pages down as it takes")
            XCTAssertEqual(
                (data["footer"] as? [Any])?.map { $0 as? String },
                ["iap-audit close 2026-10 (apple-fiscal, America/Los_Angeles)", nil, "&A, page &P of &N"],
                sheet)
            XCTAssertEqual(data["freeze"] as? String, repeated[sheet]?.freeze, sheet)
            XCTAssertEqual(data["printTitleRows"] as? String, repeated[sheet]?.rows, sheet)
        }
        XCTAssertEqual(read.data["Revenue"]?["autofilter"] as? String, "A4:J10", "over the header and data rows, not the totals")
    }

    /// One chart per currency of daily revenue and refunds: two series of one table, bars over each other,
    /// dates as categories (a date axis) and the currency's format on the value axis.
    func testDailyChartsPerCurrency() throws {
        let read = try workbook().read
        XCTAssertEqual(read.data["Daily"]?["charts"] as? Int, 4)
        XCTAssertEqual(read.charts.count, 4)
        let usd = try XCTUnwrap(read.charts.first { ($0["texts"] as? [String])?.first == "USD: revenue and refunds per day" })
        XCTAssertEqual(usd["bar"] as? Bool, true)
        XCTAssertEqual(usd["overlap"] as? [String], ["100"])
        XCTAssertEqual(usd["auto"] as? [String], ["1"], "the category axis picks a date axis for date categories")
        // USD is the fourth table (after EUR, JPY, KWD; each a title, a header, 35 days, a total and a blank row): rows
        // 122-156.
        XCTAssertEqual(
            usd["refs"] as? [String], ["Daily!$A$122:$A$156", "Daily!$B$122:$B$156", "Daily!$A$122:$A$156", "Daily!$C$122:$C$156"])
        XCTAssertEqual(usd["formats"] as? [String], ["d mmm", Self.twoDecimals])
        let day = try read.cell("Daily", "A127")
        XCTAssertEqual((day["value"] as? [String: Any])?["datetime"] as? String, "2026-10-02T00:00:00")
        XCTAssertEqual(try read.cell("Daily", "B127")["value"] as? Int, 4990)
        XCTAssertEqual(try read.cell("Daily", "B157")["value"] as? String, "=SUM($B$122:$B$156)")
        XCTAssertEqual(try read.cell("Daily", "B157")["cached"] as? Int, 19970, "the USD total, as the KPIs' gross")
        XCTAssertEqual(try read.cell("Daily", "C157")["cached"] as? Int, -624)
    }

    /// The Cover names the period and its dates, every warning, the inputs with their SHA-256 and counts.
    func testCover() throws {
        let read = try workbook().read
        let cover = read.cells("Cover")
        let texts = Set(cover.values.compactMap { $0["value"] as? String })
        for text in [
            "2026-10", "apple-fiscal", "America/Los_Angeles", "fiscal October 2026", "2027-01", String(repeating: "ab", count: 32),
            "no_server_log", "unpriced_purchases", "prices.csv:4",
        ] {
            XCTAssertTrue(texts.contains(text), "the Cover shows \(text)")
        }
        for warning in CloseReportFixture.warnings { XCTAssertTrue(texts.contains(warning.message), warning.message) }
        let first = try XCTUnwrap(read.row("Cover", holding: "first day"))
        XCTAssertEqual((try read.cell("Cover", "B\(first)")["value"] as? [String: Any])?["datetime"] as? String, "2026-09-27T00:00:00")
        let total = try XCTUnwrap(read.row("Cover", holding: "Total"))
        XCTAssertEqual(try read.cell("Cover", "C\(total)")["cached"] as? Int, 52, "records in, summed by a formula")
        XCTAssertEqual(try read.cell("Cover", "C\(total)")["value"] as? String, "=SUM($C$\(total - 2):$C$\(total - 1))")
    }

    /// The same close gives the same bytes.
    func testSameReportSameBytes() throws {
        let folder = TestPaths.scratch("closebytes")
        try XLSXWriter.write(try CloseReportFixture.workbook(), to: folder + "/a.xlsx")
        try XLSXWriter.write(try CloseReportFixture.workbook(), to: folder + "/b.xlsx")
        let a = try Data(contentsOf: URL(fileURLWithPath: folder + "/a.xlsx"))
        XCTAssertEqual(a, try Data(contentsOf: URL(fileURLWithPath: folder + "/b.xlsx")))
        XCTAssertGreaterThan(a.count, 10_000)
    }
}
