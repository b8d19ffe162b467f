import Foundation
import XCTest

@testable import IAPAudit

/// Batches are written in order on the writer's thread; the first write error stops later writes and
/// reaches the reader (the file's transaction is then rolled back).
final class BackgroundWriterTests: XCTestCase {
    private func batch(_ n: Int) -> ImportedFile {
        ImportedFile(path: "b\(n)", sha256: "", bytes: n, kind: .clientReport, format: .jsonLines, status: .imported, note: "")
    }

    func testBatchesAreWrittenInOrder() throws {
        let box = Box()
        let writer = BackgroundWriter { box.append($0.bytes) }
        for n in 1...50 { try writer.submit(batch(n)) }
        try writer.drain()
        XCTAssertEqual(box.values, Array(1...50))
    }

    func testTheFirstErrorStopsLaterWritesAndIsThrown() throws {
        struct Full: Error {}
        let box = Box()
        let writer = BackgroundWriter(depth: 1) { file in
            if file.bytes == 3 { throw Full() }
            box.append(file.bytes)
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
