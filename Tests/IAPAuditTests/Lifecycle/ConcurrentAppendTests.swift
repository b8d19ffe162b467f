import Foundation
import XCTest

@testable import IAPAuditModel
@testable import IAPAuditPipeline

/// A JSON Lines log appended to while runs read it (issue 27, attack a): a run stored a size covering fewer lines
/// than it read, and every later run failed on `UNIQUE constraint failed: server_request.record_id`.
final class ConcurrentAppendTests: XCTestCase {
    static let readLedger = """
        import json, sqlite3, sys
        db = sqlite3.connect(sys.argv[1])
        print(json.dumps({
            "findings": [list(r) for r in db.execute("SELECT finding_id, reason, user_ids FROM finding ORDER BY finding_id")],
            "counts": [db.execute("SELECT count(*) FROM " + t).fetchone()[0] for t in ("server_request", "rejection")],
            "file": [list(r) for r in db.execute(
                "SELECT records_in, records_imported, records_rejected, bytes FROM source_file WHERE path LIKE '%/server.jsonl'")]}))
        """

    /// 20 runs read `server.jsonl` while a thread appends its lines (each line in two writes: a run may see half a
    /// line): every run completes, and once writing stops one more run holds what one run over the finished file gives.
    func testRunsWhileTheLogIsAppendedToAllComplete() throws {
        let (input, out) = try scratchSample(["client.jsonl", "verify.jsonl"])
        var options = AuditOptions(paths: [input], outputDirectory: out)
        options.config = try ConfigLoader.load(path: TestPaths.repoRoot + "/sample-data/config.json")
        let log = input + "/server.jsonl"
        let lines = try String(contentsOfFile: TestPaths.repoRoot + "/sample-data/server.jsonl", encoding: .utf8)
            .split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 1904)
        _ = FileManager.default.createFile(atPath: log, contents: Data(lines.prefix(100).joined(separator: "\n").utf8 + [0x0A]))

        let stop = StopFlag()
        let done = DispatchSemaphore(value: 0)
        let writer = Thread {
            defer { done.signal() }
            let fd = open(log, O_WRONLY | O_APPEND)
            defer { close(fd) }
            for line in lines.dropFirst(100) {
                let bytes = Array((line + "\n").utf8)
                let half = bytes.count / 2
                _ = bytes[..<half].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                usleep(200)
                _ = bytes[half...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                if !stop.isSet { usleep(3_000) }
            }
        }
        writer.start()
        for run in 1...20 {
            do {
                _ = try AuditPipeline.run(options)
            } catch {
                XCTAssertTrue("\(error)".contains(log), "run \(run): \(error)")
            }
        }
        stop.set()
        done.wait()

        _ = try AuditPipeline.run(options)
        let final = try PythonReader.run(Self.readLedger, args: [out + "/audit.sqlite"]) as! [String: Any]
        var single = options
        single.outputDirectory = TestPaths.scratch()
        addTeardownBlock { try? FileManager.default.removeItem(atPath: single.outputDirectory) }
        _ = try AuditPipeline.run(single)
        let once = try PythonReader.run(Self.readLedger, args: [single.outputDirectory + "/audit.sqlite"]) as! [String: Any]
        XCTAssertEqual("\(final["counts"]!)", "[1904, 0]")
        XCTAssertEqual("\(once["counts"]!)", "[1904, 0]")
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: log)[.size] as? Int)
        XCTAssertEqual("\(final["file"]!)", "[[1904, 1904, 0, \(size)]]")
        XCTAssertEqual("\(final["findings"]!)", "\(once["findings"]!)")
        XCTAssertFalse((final["findings"] as! [Any]).isEmpty)
    }
}

/// Tells the writer thread to write the rest at once.
private final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
