import Foundation
import XCTest

@testable import IAPAuditIngest
@testable import IAPAuditModel
@testable import IAPAuditPipeline
@testable import IAPAuditReconcile
@testable import IAPAuditReport
@testable import IAPAuditStore

/// A close reads only the purchases its period can book (`CloseWindow`: a date in the period, its Pacific days or its
/// fiscal months, or a transaction a finding names) and the client purchases no record lists; what it reports is what
/// it reports reading every purchase. On the sample's ledger (receipts listing purchases back to April 2026), for
/// months, quarters, a year and fiscal periods before, over and after its October: the workbook of each close, every
/// sheet, is the same byte for byte.
final class CloseWindowTests: XCTestCase {
    var sampleData: String { TestPaths.repoRoot + "/sample-data" }

    func testAClosesFiguresAreThoseOfReadingEveryPurchase() throws {
        // The sample, and a renewal the client reported in October that no record lists yet, of a subscription
        // bought in April (its original): a claimed sale of its own id, whether or not April's record is read.
        let input = TestPaths.scratch() + "/sample-data"
        try FileManager.default.copyItem(atPath: sampleData, toPath: input)
        let client = try FileHandle(forWritingTo: URL(fileURLWithPath: input + "/client.jsonl"))
        try client.seekToEnd()
        try client.write(
            contentsOf: Data(
                (#"{"ts":"2026-10-15T12:00:00Z","user_id":"u9999","device_id":"D9999","transaction_id":"2999999999999901","#
                    + #""original_transaction_id":"2000000400594678","product_id":"com.example.removeads","state":"purchased","#
                    + #""quantity":1}"# + "\n").utf8))
        try client.close()
        let out = TestPaths.scratch()
        XCTAssertEqual(CLIRun(["run", "--out", out, input]).status, 0)
        let ledger = out + "/audit.sqlite"
        let config = try ConfigLoader.load(path: input + "/config.json")
        let prices = try PriceListReader.read(path: input + "/prices.csv").priceList
        let findings = try AuditStore(path: ledger).snapshot().findings.all()
        XCTAssertFalse(findings.isEmpty)

        let everything = try CloseReader.read(path: ledger, bundleIds: config.bundleIds)
        // A purchase of April, priced by the price list: a loss found in any period is valued by it.
        let april = try XCTUnwrap(
            everything.listings.first {
                ($0.purchaseDateMs ?? .max) < Timestamp.parseMs("2026-05-01T00:00:00Z")!
                    && !prices.scopes(of: $0.productId ?? "").isEmpty
            })
        let periods: [(String, PeriodCalendar)] = [
            ("2026-04", .gregorian), ("2026-08", .gregorian), ("2026-09", .gregorian), ("2026-10", .gregorian),
            ("2026-11", .gregorian), ("2026-Q3", .gregorian), ("2026-Q4", .gregorian), ("2026", .gregorian),
            ("2026-10", .appleFiscal), ("2026-11", .appleFiscal), ("FY2026", .appleFiscal),
        ]
        for (text, calendar) in periods {
            let period = try AccountingPeriod.parse(text, calendar: calendar)
            // The run's findings and a loss found in the period on April's purchase; and none (the dates alone decide).
            let found =
                findings + [
                    Finding(kind: .duplicateCredit, reason: "same_user", transactionId: april.transactionId, firstSeenMs: period.startMs)
                ]
            for findings in [found, []] {
                let label = "\(text) (\(calendar)), \(findings.count) findings"
                var read = try CloseReader.read(path: ledger, bundleIds: config.bundleIds) {
                    CloseWindow.relevance(period: period, financial: $0, findings: findings, products: config.products)
                }
                var all = everything
                (read.findings, all.findings) = (findings, findings)
                // The year 2026 books every purchase the sample has; October's close does not read April's.
                XCTAssertLessThanOrEqual(read.listings.count, all.listings.count, label)
                if text == "2026-10" && findings.isEmpty { XCTAssertLessThan(read.listings.count, all.listings.count, label) }
                XCTAssertLessThan(read.clientPurchases.count, all.clientPurchases.count, label)
                let reports = [read, all].map { CloseBuilder.build($0, period: period, products: config.products, prices: prices) }
                let workbooks = try reports.map { report -> Data in
                    let path = TestPaths.scratch("close-workbook") + "/close.xlsx"
                    try XLSXWriter.write(
                        CloseWorkbook.build(report, files: [], parameters: [:], warnings: report.warnings, priceRejections: []), to: path)
                    return try Data(contentsOf: URL(fileURLWithPath: path))
                }
                XCTAssertEqual(workbooks[0], workbooks[1], "\(label): the close of the purchases read differs from the close of all")
                // The purchases as the close tables store them (close_sale: their keys too).
                XCTAssertEqual(reports[0].sales.map { "\($0)" }, reports[1].sales.map { "\($0)" }, label)
            }
        }
    }
}
