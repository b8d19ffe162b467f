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

/// CSV is read in batches: records assembled across batch boundaries exactly as over the whole file,
/// and a long file's memory bounded by the batch.
final class CSVStreamingTests: XCTestCase {
    /// Fed in chunks of any size, the assembler gives the records it gives for the whole file at once:
    /// quoted line breaks, stray quotes that never close, quotes closing 19 or 20 lines on.
    func testRecordsAreTheSameWhateverTheBatches() {
        var seed: UInt64 = 42  // a fixed sequence: the same inputs every run
        func next(_ n: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(n))
        }
        let kinds = ["a,b,c", "\"open,b", "close\",c", "x,\"q\"\"q\",z", "\"", "plain"]
        for round in 0..<40 {
            let lines = (1...(50 + next(300))).map { (number: $0, text: kinds[next(kinds.count)]) }
            var once = CSVRecordAssembler()
            let whole = once.feed(lines[...], final: true)
            var assembler = CSVRecordAssembler()
            var streamed: [(number: Int, text: String)] = []
            var at = 0
            while at < lines.count {
                let size = 1 + next(25)
                streamed += assembler.feed(lines[at..<min(lines.count, at + size)], final: false)
                at += size
            }
            streamed += assembler.feed([], final: true)
            XCTAssertEqual(streamed.map(\.number), whole.map(\.number), "round \(round)")
            XCTAssertEqual(streamed.map(\.text), whole.map(\.text), "round \(round)")
        }
    }

    /// A quote closing on a later line joins the lines; one that never closes within 20 lines costs its
    /// own line only.
    func testQuotedLineBreaksJoinAndAStrayQuoteCostsOneLine() {
        let texts = ["a,1", "b,\"x", "y\"", "c,\"open"] + (1...20).map { "d\($0),2" }
        var assembler = CSVRecordAssembler()
        let records = assembler.feed(texts.enumerated().map { (number: $0.offset + 1, text: $0.element) }[...], final: true)
        XCTAssertEqual(records.map(\.number), [1, 2, 4] + Array(5...24))
        XCTAssertEqual(records[1].text, "b,\"x\ny\"")
        XCTAssertEqual(records[2].text, "c,\"open")
    }

    /// A quoted field holding line breaks across the import's batch boundary (8,192 lines) is one record
    /// at its first line; every record is counted once.
    func testQuotedLineBreakAcrossABatchBoundaryIsOneRecord() {
        let header = "ts,user_id,transaction_id,state,note\n"
        var text = header
        for i in 1...8190 { text += "1790812800000,u1,\(i),purchased,\n" }
        text += "1790812800000,u1,8191,purchased,\"a note\nover three\nlines\"\n"
        for i in 8192...8200 { text += "1790812800000,u1,\(i),purchased,\n" }
        let file = FileImporter.read(InputFile(path: "big.csv", data: Data(text.utf8)))
        XCTAssertEqual(file.recordsIn, 8200)
        XCTAssertEqual(file.rejections.count, 0)
        XCTAssertEqual(file.clientReports.count, 8200)
        XCTAssertEqual(file.clientReports.first { $0.transactionId == "8191" }?.location.line, 8192)
        XCTAssertEqual(file.clientReports.first { $0.transactionId == "8192" }?.location.line, 8195)
        XCTAssertEqual(file.clientReports.last?.location.line, 8203)
    }
}
