import Foundation
import XCTest

@testable import IAPAuditModel
@testable import IAPAuditReconcile

/// What a run writes out and reads back itself (`DIR/.reconcile-spill`) is checked as it is read: damage stops the run
/// (`FactDecodingError`, said as a damaged ledger), never reconciles from other bytes.
final class DamagedSpillTests: XCTestCase {
    /// A partition spill file with a flipped byte, or cut short, is refused when read.
    func testADamagedPartitionSpillFileIsRefused() throws {
        for damage in ["flip", "cut"] {
            let directory = TestPaths.scratch("partition-spill-\(damage)")
            let spill = PartitionSpill(directory: directory, budget: 0)
            try spill.append(3, [UInt8](repeating: 7, count: 100))
            try spill.append(3, [UInt8](repeating: 9, count: 50))
            let intact = PartitionBytes()
            try spill.read(3, into: intact)
            XCTAssertEqual(intact.count, 150)
            var bytes = try Data(contentsOf: URL(fileURLWithPath: directory + "/part-3"))
            if damage == "flip" { bytes[120] ^= 0x04 } else { bytes = bytes.prefix(149) }
            try bytes.write(to: URL(fileURLWithPath: directory + "/part-3"))
            XCTAssertThrowsError(try spill.read(3, into: PartitionBytes()), damage) {
                XCTAssertEqual("\($0)", "damaged facts: the spill file \(directory)/part-3 of this run cannot be decoded")
            }
        }
    }

    /// A finding spilled to the (unlinked) findings file and changed there is refused when read back.
    func testADamagedFindingSpillIsRefused() throws {
        let directory = TestPaths.scratch("finding-spill")
        let spill = try FindingSpill(directory: directory)
        let finding = Finding(
            kind: .droppedOrder, reason: "not_verified", transactionId: "1000000000000001", userIds: ["u1"],
            firstSeenMs: 1_790_812_800_000, evidence: [SourceLocation(file: "server.jsonl", line: 7)], detail: "a detail")
        try spill.add([finding])
        XCTAssertEqual(try spill.all(), [finding])
        // The file has no name once open: reach it through this process's descriptors.
        let fds = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")
        let fd = fds.first {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)) == directory + "/findings (deleted)"
        }
        let handle = open("/proc/self/fd/" + (try XCTUnwrap(fd)), O_RDWR)
        XCTAssertGreaterThanOrEqual(handle, 0)
        defer { close(handle) }
        var byte: UInt8 = 0
        XCTAssertEqual(pread(handle, &byte, 1, 20), 1)
        byte ^= 0x01
        XCTAssertEqual(pwrite(handle, &byte, 1, 20), 1)
        XCTAssertThrowsError(try spill.all()) {
            XCTAssertEqual(
                "\($0)", "damaged facts: the findings spilled by this run (DIR/.reconcile-spill/findings) cannot be decoded")
        }
        XCTAssertThrowsError(try spill.forEachIdentity { _, _, _ in })
    }
}
