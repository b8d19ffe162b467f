import Foundation
import XCTest

@testable import IAPAuditModel
@testable import IAPAuditReport

/// How an amount becomes a cell (`XLSXMoney`): its decimals, its number format, its exact integer value.
final class MoneyCellTests: XCTestCase {
    func testDecimalsAreTheCurrencysOrFinerWhenTheAmountIs() {
        XCTAssertEqual(XLSXMoney.decimals(4490, currency: "USD"), 2)
        XCTAssertEqual(XLSXMoney.decimals(-12170, currency: "USD"), 2)
        XCTAssertEqual(XLSXMoney.decimals(4495, currency: "USD"), 3, "USD 4.495 is shown whole, not rounded to 4.50")
        XCTAssertEqual(XLSXMoney.decimals(800_000, currency: "JPY"), 0)
        XCTAssertEqual(XLSXMoney.decimals(89_500, currency: "JPY"), 1, "half of JPY 179")
        XCTAssertEqual(XLSXMoney.decimals(1250, currency: "KWD"), 3)
        XCTAssertEqual(XLSXMoney.decimals(0, currency: "KRW"), 0)
    }

    func testFormatsScaleByAThousand() {
        XCTAssertEqual(XLSXMoney.numberFormat(decimals: 0), "#,##0,_);[Red]-#,##0,_)")
        XCTAssertEqual(XLSXMoney.numberFormat(decimals: 2), "#,##0.00,_);[Red]-#,##0.00,_)")
        XCTAssertEqual(XLSXMoney.numberFormat(decimals: 3), "#,##0.000,_);[Red]-#,##0.000,_)")
        XCTAssertEqual(XLSXMoney.displayLength(1_234_567_890, decimals: 2), "1,234,567.89".count + 1)
        XCTAssertEqual(XLSXMoney.displayLength(-624, decimals: 3), "-0.624".count + 1)
        XCTAssertEqual(XLSXMoney.displayLength(800_000, decimals: 0), "800".count + 1)
    }

    /// The largest amounts a double holds exactly are written as they are; a larger one is refused, never
    /// rounded.
    func testAnAmountIsWrittenExactlyOrNotAtAll() throws {
        let largest = Int64(1) << 53
        XCTAssertEqual(XLSXMoney.cellValue(largest), 9_007_199_254_740_992)
        XCTAssertNil(XLSXMoney.cellValue(largest + 1))
        XCTAssertNil(XLSXMoney.cellValue(Int64.max))

        let folder = TestPaths.scratch("moneycells")
        func book(_ milliunits: Int64) -> ReportWorkbook {
            ReportWorkbook(sheets: [
                ReportSheet(
                    name: "S",
                    tables: [
                        ReportTable(
                            header: ["amount", "total"],
                            rows: [
                                [
                                    .money(milliunits, currency: "USD"),
                                    .formula("=\(.here(0))", cached: .money(milliunits, currency: "USD")),
                                ]
                            ])
                    ])
            ])
        }
        try XLSXWriter.write(book(largest - 1), to: folder + "/ok.xlsx")
        let read =
            try PythonReader.run(
                """
                import json, sys, zipfile, re, openpyxl
                ws = openpyxl.load_workbook(sys.argv[1], data_only=True)["S"]
                xml = zipfile.ZipFile(sys.argv[1]).read("xl/worksheets/sheet1.xml").decode()
                print(json.dumps([ws["A2"].value, ws["B2"].value, re.findall(r"<v>([^<]*)</v>", xml)]))
                """, args: [folder + "/ok.xlsx"]) as? [Any]
        XCTAssertEqual(read?[0] as? Int, 9_007_199_254_740_991)
        XCTAssertEqual(read?[1] as? Int, 9_007_199_254_740_991)
        XCTAssertEqual(read?[2] as? [String], ["9007199254740991", "9007199254740991"], "the digits themselves in the file")

        for value in [largest + 1, -largest - 1] {
            XCTAssertThrowsError(try XLSXWriter.write(book(value), to: folder + "/no.xlsx")) { error in
                XCTAssertTrue("\(error)".contains("too large to be written exactly"), "\(error)")
            }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder + "/no.xlsx"))
    }

    /// A formula naming a table or row that is not there is refused with the cell it is in, not written.
    func testAFormulaMustNameCellsThatExist() {
        let book = ReportWorkbook(sheets: [
            ReportSheet(
                name: "S",
                tables: [
                    ReportTable(header: ["a"], rows: [[.formula("=\(.cell(row: 3, column: 0))", cached: .integer(0))]])
                ])
        ])
        XCTAssertThrowsError(try XLSXWriter.write(book, to: TestPaths.scratch("badformula") + "/x.xlsx")) { error in
            let error = error as? XLSXError
            XCTAssertEqual(error?.cell, "A2")
            XCTAssertTrue(error?.message.contains("has no row 3") == true, error?.message ?? "")
        }
    }
}
