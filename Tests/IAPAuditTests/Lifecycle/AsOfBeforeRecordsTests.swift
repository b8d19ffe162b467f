import Foundation
import XCTest

@testable import IAPAuditModel
@testable import IAPAuditPipeline

/// `--as-of` before records the ledger holds judges them as of an instant before they were written: requests after
/// it pending with negative ages, findings resolved without a word (found by an on-call user test: `--as-of
/// 2026-10-05` on a month's ledger resolved 24 findings, exit 0). The run says so.
final class AsOfBeforeRecordsTests: XCTestCase {
    func testAnAsOfBeforeTheNewestRecordIsAWarning() throws {
        let (input, out) = try scratchSample()
        var options = AuditOptions(paths: [input], outputDirectory: out)
        let plain = try AuditPipeline.run(options)
        XCTAssertFalse(plain.warnings.contains { $0.code == .recordsAfterAsOf })
        let newest = try XCTUnwrap(plain.asOfMs)
        let source = try XCTUnwrap(plain.snapshot.parameters["as_of_source"])
        options.asOfMs = newest  // the newest record's own instant: nothing after it
        XCTAssertFalse(try AuditPipeline.run(options).warnings.contains { $0.code == .recordsAfterAsOf })
        options.asOfMs = Timestamp.parseMs("2026-10-05T00:00:00Z")
        let past = try AuditPipeline.run(options)
        let warning = try XCTUnwrap(past.warnings.first { $0.code == .recordsAfterAsOf })
        XCTAssertEqual(
            warning.message,
            "--as-of 2026-10-05T00:00:00.000Z is before records the ledger holds (the newest: \(source), \(Timestamp.iso(newest))): "
                + "they are judged as of an instant before they were written (a request after it is pending with a negative age, an "
                + "answer after it may clear a finding); to audit as of a past instant, run on the inputs of that time into another "
                + "ledger, or leave --as-of out")
        XCTAssertEqual(warning.file, String(source.prefix { $0 != ":" }))
    }
}
