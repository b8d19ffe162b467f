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

/// The import's progress line: what it shows on a terminal, and that it shows nothing otherwise.
final class ImportProgressTests: XCTestCase {
    func testTerminalLineShowsFileMegabytesRateRecordsAndETA() {
        var now = Date(timeIntervalSince1970: 1_000)
        var written: [String] = []
        let progress = ImportProgress(
            totalBytes: 400_000_000, fileCount: 3, terminal: true, clock: { now }, write: { written.append($0) })
        now += 1
        progress.update(file: 1, path: "in/client.jsonl", offset: 50_000_000, records: 123_456)
        now += 0.1  // within a quarter second: not redrawn
        progress.update(file: 1, path: "in/client.jsonl", offset: 60_000_000, records: 150_000)
        progress.finish(fileBytes: 100_000_000)
        now += 1
        progress.update(file: 2, path: "in/verify.jsonl", offset: 100_000_000, records: 7)
        progress.end()
        XCTAssertEqual(
            written,
            [
                "\r\u{1B}[Kiap-audit: file 1/3 client.jsonl  50/400 MB  50 MB/s  123456 records  ETA 7s",
                // 200 MB in 2.1 s; 200 MB to go.
                "\r\u{1B}[Kiap-audit: file 2/3 verify.jsonl  200/400 MB  95 MB/s  7 records  ETA 2s",
                "\r\u{1B}[K",
            ])
    }

    func testNothingIsWrittenWhenStderrIsNotATerminal() {
        var written: [String] = []
        let progress = ImportProgress(totalBytes: 10, fileCount: 1, terminal: false, write: { written.append($0) })
        progress.update(file: 1, path: "a", offset: 5, records: 1)
        progress.end()
        XCTAssertEqual(written, [])
    }
}
