import Foundation
import XCTest

@testable import IAPAuditReport

/// The workbooks are deflated at zlib's fastest level (`XLSXDeflateLevel.swift`): read back with Python's
/// zipfile (an independent reader), every part is deflated, whole (its CRC checks), and marked as minizip
/// marks level 1 (general purpose bits 1 and 2 both set; level 6 sets neither).
final class XLSXDeflateLevelTests: XCTestCase {
    func testEveryPartIsDeflatedAtTheFastestLevelAndReadsBackWhole() throws {
        let folder = TestPaths.scratch()
        addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/levels.xlsx"
        let rows = (0..<2_000).map { i -> [ReportCell] in [.text("dropped_order"), .text("never_sent"), .integer(Int64(i))] }
        try XLSXWriter.write(
            ReportWorkbook(sheets: [
                ReportSheet(
                    name: "Findings", tables: [ReportTable(header: ["kind", "reason", "n"], rows: rows, isPrimary: true)])
            ]), to: path)
        let parts =
            try PythonReader.run(
                """
                import json, sys, zipfile
                z = zipfile.ZipFile(sys.argv[1])
                assert z.testzip() is None
                print(json.dumps([[i.filename, i.compress_type, i.flag_bits & 6] for i in z.infolist()]))
                """, args: [path]) as? [[Any]]
        let read = try XCTUnwrap(parts)
        XCTAssertTrue(read.contains { $0[0] as? String == "xl/worksheets/sheet1.xml" }, "\(read)")
        for part in read {
            XCTAssertEqual(part[1] as? Int, 8, "\(part[0]) deflated")
            XCTAssertEqual(part[2] as? Int, 6, "\(part[0]) at level 1")
        }
    }
}
