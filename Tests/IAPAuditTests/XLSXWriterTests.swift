import Foundation
import XCTest

@testable import IAPAuditCLI
@testable import IAPAuditCrypto
@testable import IAPAuditIngest
@testable import IAPAuditModel
@testable import IAPAuditPipeline
@testable import IAPAuditReconcile
@testable import IAPAuditReport
@testable import IAPAuditSample
@testable import IAPAuditStore

final class XLSXWriterTests: XCTestCase {
    /// 2026-10-01T00:00:00Z in milliseconds since 1970.
    static let october1 = Int64(1_790_812_800_000)
    /// 2026-10-02T00:00:00Z.
    static let october2 = Int64(1_790_899_200_000)
    /// 2026-10-02T13:05:09Z.
    static let october2Afternoon = Int64(1_790_946_309_000)

    static let longText = String(repeating: "x", count: 100)

    /// Reads an .xlsx back with openpyxl (an independent reader) and prints JSON.
    static let readerScript =
        PythonReader.xlsxPrelude + #"""
            path = sys.argv[1]
            wb = openpyxl.load_workbook(path)

            out = {"sheets": wb.sheetnames, "data": {}}
            for ws in wb.worksheets:
                cells = {}
                for row in ws.iter_rows():
                    for c in row:
                        if c.value is None:
                            continue
                        cells[c.coordinate] = {
                            "value": plain(c.value),
                            "type": c.data_type,
                            "format": c.number_format,
                            "bold": bool(c.font is not None and c.font.b),
                            "fill": c.fill.fill_type if c.fill is not None else None,
                            "bottom": c.border.bottom.style if c.border is not None else None,
                        }
                charts = []
                for ch in ws._charts:
                    anchor = ch.anchor._from
                    charts.append({"col": anchor.col, "row": anchor.row})
                out["data"][ws.title] = {
                    "cells": cells,
                    "freeze": ws.freeze_panes,
                    "autofilter": ws.auto_filter.ref,
                    "widths": {k: d.width for k, d in ws.column_dimensions.items() if d.customWidth},
                    "charts": len(ws._charts),
                    "chartAnchors": charts,
                }

            # Raw XML checks, independent of openpyxl's interpretation.
            z = zipfile.ZipFile(path)
            formulas = 0
            for name in z.namelist():
                if name.startswith("xl/worksheets/") and name.endswith(".xml"):
                    formulas += len(re.findall(r"<f[ >]", z.read(name).decode("utf-8")))
            out["formulaElements"] = formulas
            chartXML = []
            for name in sorted(z.namelist()):
                if name.startswith("xl/charts/chart") and name.endswith(".xml"):
                    x = z.read(name).decode("utf-8")
                    chartXML.append({
                        "type": "bar" if "<c:barChart>" in x else "other",
                        "barDir": re.findall(r'<c:barDir val="(\w+)"', x),
                        "refs": re.findall(r"<c:f>(.*?)</c:f>", x),
                        "texts": re.findall(r"<a:t>(.*?)</a:t>", x),
                        "values": re.findall(r"<c:v>(.*?)</c:v>", x),
                    })
            out["chartXML"] = chartXML
            print(json.dumps(out))
            """#

    var scratch: URL!

    override func setUpWithError() throws {
        scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("xlsx-writer-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        if let scratch { try? FileManager.default.removeItem(at: scratch) }
    }

    static func sampleWorkbook() -> ReportWorkbook {
        let transactions = ReportSheet(
            name: "Transactions",
            tables: [
                ReportTable(
                    header: ["Note", "Minus", "At", "Count", "Amount", "When", "Day", "Blank"],
                    rows: [
                        [
                            .text("=1+2"), .text("-5"), .text("@x"), .integer(42), .number(12.5),
                            .dateTime(october1), .date(october2), .empty,
                        ],
                        [
                            .text("+SUM(A1:A2)"), .text(""), .empty, .integer(-1_234_567_890), .number(0.25),
                            .dateTime(october2Afternoon), .empty, .text(longText),
                        ],
                    ],
                    isPrimary: true)
            ])
        let summary = ReportSheet(
            name: "Summary",
            tables: [
                ReportTable(
                    title: "Totals by month", header: ["Month", "Revenue"],
                    rows: [
                        [.text("2026-08"), .number(10)],
                        [.text("2026-09"), .number(20.5)],
                        [.text("2026-10"), .number(30)],
                    ]),
                ReportTable(title: "Notes", header: ["Key", "Value"], rows: [[.text("a"), .integer(1)]]),
                ReportTable(title: "Nothing yet", header: ["Month", "Refunds"], rows: []),
            ],
            charts: [
                ReportChart(
                    title: "Revenue by month", tableIndex: 0, categoryColumn: 0, valueColumn: 1,
                    seriesName: "Revenue"),
                // Its table has no data rows: skipped.
                ReportChart(
                    title: "Refunds by month", tableIndex: 2, categoryColumn: 0, valueColumn: 1,
                    seriesName: "Refunds"),
            ])
        return ReportWorkbook(sheets: [transactions, summary])
    }

    /// Runs the openpyxl reader, failing the test clearly if no Python is available.
    func readBack(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any]? {
        do {
            _ = try PythonReader.pythonPath()
        } catch {
            XCTFail("Cannot read back the .xlsx with openpyxl: \(error)", file: file, line: line)
            return nil
        }
        let json = try PythonReader.run(Self.readerScript, args: [path])
        return try XCTUnwrap(json as? [String: Any], "reader output is not a JSON object", file: file, line: line)
    }

    /// The width libxlsxwriter stores for a requested character width: it adds the cell
    /// padding (5 px of a 7 px digit) and truncates to 1/256 of a character.
    static func storedWidth(_ width: Double) -> Double {
        floor((floor(width * 7 + 0.5) + 5) / 7 * 256) / 256
    }

    func testWritesWorkbookReadableByOpenpyxl() throws {
        let path = scratch.appendingPathComponent("report.xlsx").path
        try XLSXWriter.write(Self.sampleWorkbook(), to: path)
        // Overwriting an existing file works.
        try XLSXWriter.write(Self.sampleWorkbook(), to: path)

        guard let out = try readBack(path) else { return }
        XCTAssertEqual(out["sheets"] as? [String], ["Transactions", "Summary"])
        XCTAssertEqual(out["formulaElements"] as? Int, 0, "no cell may be written as a formula")

        let data = try XCTUnwrap(out["data"] as? [String: Any])
        let tx = try XCTUnwrap(data["Transactions"] as? [String: Any])
        let cells = try XCTUnwrap(tx["cells"] as? [String: [String: Any]])

        func cell(_ ref: String) throws -> [String: Any] {
            try XCTUnwrap(cells[ref], "no cell \(ref) on Transactions")
        }

        // Header row: bold, bottom border, solid fill.
        XCTAssertEqual(try cell("A1")["value"] as? String, "Note")
        XCTAssertEqual(try cell("A1")["bold"] as? Bool, true)
        XCTAssertEqual(try cell("A1")["bottom"] as? String, "thin")
        XCTAssertEqual(try cell("A1")["fill"] as? String, "solid")
        XCTAssertEqual(try cell("H1")["value"] as? String, "Blank")

        // Text cells stay text, whatever they start with.
        XCTAssertEqual(try cell("A2")["value"] as? String, "=1+2")
        XCTAssertEqual(try cell("A2")["type"] as? String, "s")
        XCTAssertEqual(try cell("A2")["bold"] as? Bool, false)
        XCTAssertEqual(try cell("B2")["value"] as? String, "-5")
        XCTAssertEqual(try cell("B2")["type"] as? String, "s")
        XCTAssertEqual(try cell("C2")["value"] as? String, "@x")
        XCTAssertEqual(try cell("C2")["type"] as? String, "s")
        XCTAssertEqual(try cell("A3")["value"] as? String, "+SUM(A1:A2)")
        XCTAssertEqual(try cell("A3")["type"] as? String, "s")

        // Numbers.
        XCTAssertEqual(try cell("D2")["value"] as? Int, 42)
        XCTAssertEqual(try cell("D2")["type"] as? String, "n")
        XCTAssertEqual(try cell("D3")["value"] as? Int, -1_234_567_890)
        XCTAssertEqual(try cell("E2")["value"] as? Double, 12.5)
        XCTAssertEqual(try cell("E2")["type"] as? String, "n")
        XCTAssertEqual(try cell("E3")["value"] as? Double, 0.25)

        // Dates are real date cells.
        XCTAssertEqual((try cell("F2")["value"] as? [String: Any])?["datetime"] as? String, "2026-10-01T00:00:00")
        XCTAssertEqual(try cell("F2")["type"] as? String, "d")
        XCTAssertEqual(try cell("F2")["format"] as? String, "yyyy-mm-dd hh:mm:ss")
        XCTAssertEqual((try cell("F3")["value"] as? [String: Any])?["datetime"] as? String, "2026-10-02T13:05:09")
        XCTAssertEqual(try cell("F3")["format"] as? String, "yyyy-mm-dd hh:mm:ss")
        XCTAssertEqual((try cell("G2")["value"] as? [String: Any])?["datetime"] as? String, "2026-10-02T00:00:00")
        XCTAssertEqual(try cell("G2")["type"] as? String, "d")
        XCTAssertEqual(try cell("G2")["format"] as? String, "yyyy-mm-dd")

        // Empty cells and empty text write nothing.
        XCTAssertNil(cells["H2"])
        XCTAssertNil(cells["B3"])
        XCTAssertNil(cells["C3"])
        XCTAssertNil(cells["G3"])
        XCTAssertEqual(cells.count, 8 + 7 + 5)

        // Primary table: frozen header, autofilter over header + data rows.
        XCTAssertEqual(tx["freeze"] as? String, "A2")
        XCTAssertEqual(tx["autofilter"] as? String, "A1:H3")
        XCTAssertEqual(tx["charts"] as? Int, 0)

        // Column widths: max displayed length + 2, clamped to [8, 80].
        let widths = try XCTUnwrap(tx["widths"] as? [String: Double])
        let expected: [String: Double] = [
            "A": 13,  // "+SUM(A1:A2)" = 11
            "B": 8,  // "Minus" = 5
            "C": 8,
            "D": 13,  // "-1234567890" = 11
            "E": 8,
            "F": 21,  // date-time = 19
            "G": 12,  // date = 10
            "H": 80,  // 100 chars, clamped
        ]
        XCTAssertEqual(Set(widths.keys), Set(expected.keys))
        for (column, width) in expected {
            XCTAssertEqual(widths[column] ?? -1, Self.storedWidth(width), accuracy: 0.001, "width of column \(column)")
        }

        // Summary: titled tables, no freeze/autofilter, one chart (the empty table's is skipped).
        let summary = try XCTUnwrap(data["Summary"] as? [String: Any])
        let sCells = try XCTUnwrap(summary["cells"] as? [String: [String: Any]])
        XCTAssertEqual(sCells["A1"]?["value"] as? String, "Totals by month")
        XCTAssertEqual(sCells["A1"]?["bold"] as? Bool, true)
        XCTAssertEqual(sCells["A2"]?["value"] as? String, "Month")
        XCTAssertEqual(sCells["A2"]?["bold"] as? Bool, true)
        XCTAssertEqual(sCells["A2"]?["bottom"] as? String, "thin")
        XCTAssertEqual(sCells["A3"]?["value"] as? String, "2026-08")
        XCTAssertEqual(sCells["B5"]?["value"] as? Int, 30)
        XCTAssertNil(sCells["A6"], "blank row between tables")
        XCTAssertEqual(sCells["A7"]?["value"] as? String, "Notes")
        XCTAssertEqual(sCells["A8"]?["value"] as? String, "Key")
        XCTAssertEqual(sCells["B9"]?["value"] as? Int, 1)
        XCTAssertEqual(sCells["A11"]?["value"] as? String, "Nothing yet")
        XCTAssertEqual(sCells["B12"]?["value"] as? String, "Refunds")
        XCTAssertNil(summary["freeze"] as? String)
        XCTAssertNil(summary["autofilter"] as? String)
        XCTAssertEqual(summary["charts"] as? Int, 1)
        let anchors = try XCTUnwrap(summary["chartAnchors"] as? [[String: Int]])
        XCTAssertEqual(anchors.first?["col"], 3, "chart right of the tables, after one blank column")
        XCTAssertEqual(anchors.first?["row"], 0)
        let sWidths = try XCTUnwrap(summary["widths"] as? [String: Double])
        // Title rows do not count ("Totals by month" = 15 would give 17): "2026-08" = 7.
        XCTAssertEqual(sWidths["A"] ?? -1, Self.storedWidth(9), accuracy: 0.001)
        XCTAssertEqual(sWidths["B"] ?? -1, Self.storedWidth(9), accuracy: 0.001)  // "Revenue" = 7

        let chartXML = try XCTUnwrap(out["chartXML"] as? [[String: Any]])
        XCTAssertEqual(chartXML.count, 1)
        let chart = try XCTUnwrap(chartXML.first)
        XCTAssertEqual(chart["type"] as? String, "bar")
        XCTAssertEqual(chart["barDir"] as? [String], ["col"])
        XCTAssertEqual(chart["refs"] as? [String], ["Summary!$A$3:$A$5", "Summary!$B$3:$B$5"])
        XCTAssertEqual(chart["texts"] as? [String], ["Revenue by month"])
        XCTAssertTrue((chart["values"] as? [String] ?? []).contains("Revenue"), "series name")
    }

    func testPrimaryTableWithoutRowsStillGetsAutofilterOverHeader() throws {
        let path = scratch.appendingPathComponent("empty.xlsx").path
        let workbook = ReportWorkbook(sheets: [
            ReportSheet(name: "Findings", tables: [ReportTable(header: ["A", "B", "C"], rows: [], isPrimary: true)])
        ])
        try XLSXWriter.write(workbook, to: path)
        guard let out = try readBack(path) else { return }
        let sheet = try XCTUnwrap((out["data"] as? [String: Any])?["Findings"] as? [String: Any])
        XCTAssertEqual(sheet["freeze"] as? String, "A2")
        XCTAssertEqual(sheet["autofilter"] as? String, "A1:C1")
    }

    func testChartRangeQuotesSheetName() throws {
        let path = scratch.appendingPathComponent("quoted.xlsx").path
        let workbook = ReportWorkbook(sheets: [
            ReportSheet(
                name: "Bob's Data",
                tables: [ReportTable(header: ["K", "V"], rows: [[.text("a"), .integer(1)], [.text("b"), .integer(2)]])],
                charts: [ReportChart(title: "=not a formula", tableIndex: 0, categoryColumn: 0, valueColumn: 1, seriesName: "V")])
        ])
        try XLSXWriter.write(workbook, to: path)
        guard let out = try readBack(path) else { return }
        XCTAssertEqual(((out["data"] as? [String: Any])?["Bob's Data"] as? [String: Any])?["charts"] as? Int, 1)
        let chart = try XCTUnwrap((out["chartXML"] as? [[String: Any]])?.first)
        XCTAssertEqual(chart["refs"] as? [String], ["'Bob''s Data'!$A$2:$A$3", "'Bob''s Data'!$B$2:$B$3"])
        XCTAssertEqual(chart["texts"] as? [String], [" =not a formula"])
    }

    func testUnwritablePathThrows() {
        let path = scratch.appendingPathComponent("no/such/dir/report.xlsx").path
        XCTAssertThrowsError(try XLSXWriter.write(Self.sampleWorkbook(), to: path)) { error in
            guard let error = error as? XLSXError else { return XCTFail("not an XLSXError: \(error)") }
            XCTAssertEqual(error.operation, "workbook_close")
            XCTAssertTrue(error.message.contains("No such file or directory"), error.message)
            XCTAssertTrue(error.description.contains(path), error.description)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
    }

    func testBadSheetNamesThrow() {
        let path = scratch.appendingPathComponent("bad.xlsx").path
        let duplicate = ReportWorkbook(sheets: [
            ReportSheet(name: "Same", tables: []), ReportSheet(name: "Same", tables: []),
        ])
        XCTAssertThrowsError(try XLSXWriter.write(duplicate, to: path)) { error in
            XCTAssertEqual((error as? XLSXError)?.sheet, "Same")
        }
        let invalid = ReportWorkbook(sheets: [ReportSheet(name: "a/b", tables: [])])
        XCTAssertThrowsError(try XLSXWriter.write(invalid, to: path)) { error in
            XCTAssertEqual((error as? XLSXError)?.sheet, "a/b")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "nothing written on failure")
    }

    /// Excel holds at most 32,767 characters a cell: longer text is cut with a note, never a failure.
    func testTooLongStringIsCutWithANote() throws {
        let path = scratch.appendingPathComponent("long.xlsx").path
        let workbook = ReportWorkbook(sheets: [
            ReportSheet(
                name: "S",
                tables: [ReportTable(header: ["A", "B"], rows: [[.empty, .text(String(repeating: "y", count: 40_000))]])])
        ])
        try XLSXWriter.write(workbook, to: path)
        let read =
            try PythonReader.run(
                """
                import json, sys, openpyxl
                v = openpyxl.load_workbook(sys.argv[1])["S"]["B2"].value
                print(json.dumps([len(v), v[-70:]]))
                """, args: [path]) as? [Any]
        XCTAssertEqual(read?.first as? Int, 32_767)
        XCTAssertEqual(read?.last as? String, "yyy … [cut: 40000 characters in all; the full text is in audit.sqlite]")
    }

    func testHelpers() {
        XCTAssertEqual(XLSXWriter.columnName(0), "A")
        XCTAssertEqual(XLSXWriter.columnName(25), "Z")
        XCTAssertEqual(XLSXWriter.columnName(26), "AA")
        XCTAssertEqual(XLSXWriter.columnName(16_383), "XFD")
        XCTAssertEqual(XLSXWriter.excelSerial(milliseconds: Self.october1), 46296)
        XCTAssertEqual(XLSXWriter.excelSerial(milliseconds: 0), 25569)
    }
}
