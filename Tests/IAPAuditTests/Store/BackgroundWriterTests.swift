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

/// Batches are written in order on the writer's thread; the first write error stops later writes and
/// reaches the reader (the file's transaction is then rolled back).
final class BackgroundWriterTests: XCTestCase {
    /// A batch holding one client row at line `n`.
    private func batch(_ n: Int) -> RecordBatch {
        var batch = RecordBatch()
        batch.append(
            ClientReport(
                location: SourceLocation(file: "b", line: n), tsMs: 0, userId: nil, deviceId: nil, transactionId: "\(n)",
                originalTransactionId: nil, productId: nil, state: .purchased, errorCode: nil, quantity: nil))
        return batch
    }

    func testBatchesAreWrittenInOrder() throws {
        let box = Box()
        let writer = BackgroundWriter { box.append(Int($0.clientReports[0].line)) }
        for n in 1...50 { try writer.submit(batch(n)) }
        try writer.drain()
        XCTAssertEqual(box.values, Array(1...50))
    }

    func testTheFirstErrorStopsLaterWritesAndIsThrown() throws {
        struct Full: Error {}
        let box = Box()
        let writer = BackgroundWriter(depth: 1) { batch in
            let n = Int(batch.clientReports[0].line)
            if n == 3 { throw Full() }
            box.append(n)
        }
        var thrown = false
        for n in 1...10 {
            do { try writer.submit(batch(n)) } catch is Full { thrown = true; break }
        }
        XCTAssertThrowsError(try writer.drain()) { XCTAssertTrue($0 is Full) }
        XCTAssertEqual(box.values, [1, 2], "nothing written after the failed batch")
        XCTAssertTrue(thrown || box.values == [1, 2])
    }

    private final class Box: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: [Int] = []
        func append(_ n: Int) { lock.withLock { stored.append(n) } }
        var values: [Int] { lock.withLock { stored } }
    }
}
