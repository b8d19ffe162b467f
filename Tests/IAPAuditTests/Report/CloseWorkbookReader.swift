import Foundation
import XCTest

/// Reads a close workbook back with openpyxl (an independent reader): every cell's formula or value, its
/// cached value, number format and boldness; each sheet's frozen panes, print setup and footer; the charts'
/// XML.
struct CloseWorkbookReader {
    static let script =
        PythonReader.xlsxPrelude + #"""
            path = sys.argv[1]
            formulas = openpyxl.load_workbook(path)
            values = openpyxl.load_workbook(path, data_only=True)

            out = {"sheets": formulas.sheetnames, "data": {}}
            for ws in formulas.worksheets:
                wv = values[ws.title]
                cells = {}
                for row in ws.iter_rows():
                    for c in row:
                        if c.value is None:
                            continue
                        cells[c.coordinate] = {
                            "value": plain(c.value),
                            "cached": plain(wv[c.coordinate].value),
                            "int": type(wv[c.coordinate].value) is int,
                            "format": c.number_format,
                            "bold": bool(c.font is not None and c.font.b),
                        }
                ps = ws.page_setup
                out["data"][ws.title] = {
                    "cells": cells,
                    "freeze": ws.freeze_panes,
                    "autofilter": ws.auto_filter.ref,
                    "orientation": ps.orientation,
                    "fitToPage": bool(ws.sheet_properties.pageSetUpPr and ws.sheet_properties.pageSetUpPr.fitToPage),
                    "fitToWidth": ps.fitToWidth,
                    "fitToHeight": ps.fitToHeight,
                    "printTitleRows": ws.print_title_rows,
                    "footer": [ws.oddFooter.left.text, ws.oddFooter.center.text, ws.oddFooter.right.text],
                    "charts": len(ws._charts),
                }

            z = zipfile.ZipFile(path)
            charts = []
            for name in sorted(z.namelist()):
                if name.startswith("xl/charts/chart") and name.endswith(".xml"):
                    x = z.read(name).decode("utf-8")
                    charts.append({
                        "name": name,
                        "bar": "<c:barChart>" in x,
                        "overlap": re.findall(r'<c:overlap val="(-?\d+)"', x),
                        "refs": re.findall(r"<c:f>(.*?)</c:f>", x),
                        "texts": re.findall(r"<a:t>(.*?)</a:t>", x),
                        "formats": re.findall(r'<c:numFmt formatCode="([^"]*)"', x),
                        "auto": re.findall(r'<c:auto val="(\d)"', x),
                    })
            out["charts"] = charts
            print(json.dumps(out))
            """#

    let sheets: [String]
    let data: [String: [String: Any]]
    let charts: [[String: Any]]

    init(path: String) throws {
        _ = try PythonReader.pythonPath()
        let json = try XCTUnwrap(try PythonReader.run(Self.script, args: [path]) as? [String: Any])
        sheets = try XCTUnwrap(json["sheets"] as? [String])
        data = try XCTUnwrap(json["data"] as? [String: [String: Any]])
        charts = try XCTUnwrap(json["charts"] as? [[String: Any]])
    }

    func cells(_ sheet: String) -> [String: [String: Any]] { data[sheet]?["cells"] as? [String: [String: Any]] ?? [:] }

    func cell(_ sheet: String, _ coordinate: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        try XCTUnwrap(cells(sheet)[coordinate], "no cell \(sheet)!\(coordinate)", file: file, line: line)
    }

    /// The row (1-based) of the first cell of column `column` holding `text` on `sheet`.
    func row(_ sheet: String, column: String = "A", holding text: String, after: Int = 0) -> Int? {
        cells(sheet).compactMap { coordinate, cell -> Int? in
            guard coordinate.hasPrefix(column), let row = Int(coordinate.dropFirst(column.count)), row > after,
                cell["value"] as? String == text
            else { return nil }
            return row
        }.min()
    }
}
