import Foundation
import XCTest

@testable import IAPAuditModel
@testable import IAPAuditPipeline

/// A ledger's files given under another path (a run from another folder, a symlinked mount): the same files —
/// size, modification time and inode as stored — are renamed in the ledger, not hashed again, skipped as copies
/// and kept as "not given"; the findings and records stay as they were, their evidence under the new path.
final class LedgerRenameTests: XCTestCase {
    func ledger(_ out: String) throws -> [String: Any] {
        try PythonReader.run(LedgerGrowsTests.readLedger, args: [out + "/audit.sqlite"]) as! [String: Any]
    }

    func testTheSameFilesUnderAnotherPathAreRenamedNotCopied() throws {
        let (input, out) = try scratchSample()
        let options = AuditOptions(paths: [input], outputDirectory: out)
        // Stored an hour old: their stat is trusted (a file modified in the last 2 s would be hashed).
        for name in ["client.jsonl", "server.jsonl", "verify.jsonl"] {
            try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-3600)], ofItemAtPath: input + "/" + name)
        }
        let first = try AuditPipeline.run(options)
        let before = try ledger(out)

        // The same folder reached through a symlink: every path differs, every file is the same.
        let link = input + "-link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: input)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: link) }
        var moved = options
        moved.paths = [link]
        let second = try AuditPipeline.run(moved)
        XCTAssertEqual(
            second.warnings.filter { $0.code == RunWarning.Code.inputRenamed }.map(\.message),
            ["client.jsonl", "server.jsonl", "verify.jsonl"].map {
                "\(link)/\($0): the file the ledger held as \(input)/\($0) (the same size, modification time and inode): renamed, not "
                    + "read again; its evidence shows this path from now on (give the same paths every night)"
            })
        XCTAssertEqual(second.warnings.filter { $0.code == RunWarning.Code.inputVanished }.count, 0, "nothing is 'not given'")
        XCTAssertEqual(second.filesParsed, 0, "nothing read again")
        let after = try ledger(out)
        XCTAssertEqual(after["counts"] as? [Int], before["counts"] as? [Int], "no record twice")
        let files = try XCTUnwrap(after["files"] as? [[Any]])
        XCTAssertEqual(files.map { $0[0] as? String }, ["client.jsonl", "server.jsonl", "verify.jsonl"].map { link + "/" + $0 })
        XCTAssertEqual(files.map { $0[2] as? Int }, [1, 1, 1], "all given")
        // The same findings, their evidence under the new path.
        let findings = { (l: [String: Any]) in (l["findings"] as! [[Any]]).map { "\($0[0]) \($0[1]) \($0[3])" } }
        XCTAssertEqual(findings(after), findings(before).map { $0.replacingOccurrences(of: input + "/", with: link + "/") })
        XCTAssertEqual(second.snapshot.findings.total, first.snapshot.findings.total)
        XCTAssertEqual(second.snapshot.changes?.count(LifecycleEvent.new), 0)
        XCTAssertEqual(second.snapshot.changes?.count(LifecycleEvent.resolved), 0)

        // Back under the first paths: renamed back.
        let third = try AuditPipeline.run(options)
        XCTAssertEqual(third.warnings.filter { $0.code == RunWarning.Code.inputRenamed }.count, 3)
        XCTAssertEqual(try ledger(out)["counts"] as? [Int], before["counts"] as? [Int])
    }
}
