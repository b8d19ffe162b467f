import Foundation
import XCTest

/// Money never passes through floating point (issue 12), checked on the source text of the close's money
/// path: reading amounts (App Store Connect's reports, the price list), `Money`, computing the close
/// (`Finance/`, `Reconcile/Close/`), storing and summarising it, and the close workbook. None of these files
/// may name a floating-point type or write a literal with a decimal point (a `Double`), nor use the report
/// cell that holds a `Double` (`.number`). The one door to floating point is `XLSXMoney.cellValue`, where
/// libxlsxwriter's C `double` is reached through `Double(exactly:)`, which refuses an inexact value.
///
/// What it does not prove: code outside these files could still convert an amount (the types carry the
/// rest: amounts are `Int64` in `Money` and `Tally`), and text is matched, not meaning (comments and string
/// literals are skipped). `CloseWorkbookTests.testEveryAmountCellHoldsAnInteger` checks the output itself.
final class MoneyFloatingPointLintTests: XCTestCase {
    static let files = [
        "Sources/IAPAuditModel/Money.swift", "Sources/IAPAuditModel/Finance", "Sources/IAPAuditReconcile/Close",
        "Sources/IAPAuditIngest/AppleReports", "Sources/IAPAuditIngest/PriceList", "Sources/IAPAuditStore/CloseReader.swift",
        "Sources/IAPAuditStore/CloseTables.swift", "Sources/IAPAuditPipeline/ClosePipeline.swift", "Sources/IAPAuditCLI/CloseSummary.swift",
        "Sources/IAPAuditCLI/CloseCommand.swift", "Sources/IAPAuditReport/CloseWorkbook.swift",
        "Sources/IAPAuditReport/CloseCoverSheet.swift",
        "Sources/IAPAuditReport/CloseKPISheet.swift", "Sources/IAPAuditReport/CloseBridgeSheet.swift",
        "Sources/IAPAuditReport/CloseDetailSheets.swift", "Sources/IAPAuditReport/XLSXMoney.swift",
    ]

    /// Floating-point types and what makes one, as words.
    static let forbidden = try! NSRegularExpression(
        pattern:
            #"\b(Double|Float|Float16|Float32|Float64|Float80|CGFloat|Decimal|NSDecimalNumber|NSNumber|FloatingPoint|BinaryFloatingPoint|doubleValue|floatValue)\b|(?<![A-Za-z0-9_)\]])\.number\(|\b[0-9][0-9_]*\.[0-9]|\b[0-9]+[eE][+-]?[0-9]"#
    )

    /// The only lines of `XLSXMoney.swift` allowed to name `Double`: the exact conversion.
    static let door = ["static func cellValue(_ milliunits: Int64) -> Double? { Double(exactly: milliunits) }"]

    func testNoFloatingPointOnTheMoneyPath() throws {
        let root = PythonReader.repoRoot().path
        var checked = 0
        for entry in Self.files {
            let path = root + "/" + entry
            var isFolder: ObjCBool = false
            XCTAssertTrue(FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), "\(entry) is gone: update the list")
            let files =
                isFolder.boolValue
                ? try FileManager.default.contentsOfDirectory(atPath: path).filter { $0.hasSuffix(".swift") }.sorted().map {
                    path + "/" + $0
                }
                : [path]
            for file in files {
                checked += 1
                let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
                for (number, line) in lines.enumerated() {
                    if file.hasSuffix("XLSXMoney.swift") && Self.door.contains(line.trimmingCharacters(in: .whitespaces)) { continue }
                    let code = Self.code(String(line))
                    let range = NSRange(code.startIndex..., in: code)
                    if let match = Self.forbidden.firstMatch(in: code, range: range) {
                        XCTFail(
                            "\(file.dropFirst(root.count + 1)):\(number + 1): '\((code as NSString).substring(with: match.range))' on the money path: \(line)"
                        )
                    }
                }
            }
        }
        XCTAssertGreaterThanOrEqual(checked, 30)
    }

    /// The lint sees what it should: a line naming `Double` or a decimal literal is caught, the same words in
    /// a comment or a string are not.
    func testTheLintCatchesFloatingPoint() {
        let caught = ["let x: Double = 1", "let y = 4.49", "cells.append(.number(v))", "Float(3)", "let z = 1e3", "x.doubleValue"]
        for line in caught {
            let code = Self.code(line)
            XCTAssertNotNil(Self.forbidden.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)), line)
        }
        let clean = [
            "let x = 4490 // not a Double", #"let s = "USD 4.49 is 4490""#, "/// Decimal digits", "let t = Tally(units: 1)",
            "let y = Self.number(b, 0, 4)",
        ]
        for line in clean {
            let code = Self.code(line)
            XCTAssertNil(Self.forbidden.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)), line)
        }
    }

    /// A line's code: its string literals emptied, then its comment cut.
    static func code(_ line: String) -> String {
        var code = line.replacingOccurrences(of: #""(?:[^"\\]|\\.)*""#, with: "\"\"", options: .regularExpression)
        if let comment = code.range(of: "//") { code = String(code[..<comment.lowerBound]) }
        return code
    }
}
