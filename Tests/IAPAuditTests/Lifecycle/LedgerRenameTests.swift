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
        let (link, second) = try runThroughLink(
            options, before: before, why: "the same size, modification time and inode): renamed, not read again")
        let after = try ledger(out)
        XCTAssertEqual(try XCTUnwrap(after["files"] as? [[Any]]).map { $0[2] as? Int }, [1, 1, 1], "all given")
        // The same findings, their evidence under the new path.
        let findings = { (l: [String: Any]) in (l["findings"] as! [[Any]]).map { "\($0[0]) \($0[1]) \($0[3])" } }
        XCTAssertEqual(findings(after), findings(before).map { $0.replacingOccurrences(of: input + "/", with: link + "/") })
        XCTAssertEqual(second.snapshot.findings.total, first.snapshot.findings.total)

        // Back under the first paths: renamed back.
        let third = try AuditPipeline.run(options)
        XCTAssertEqual(third.warnings.filter { $0.code == RunWarning.Code.inputRenamed }.count, 3)
        XCTAssertEqual(try ledger(out)["counts"] as? [Int], before["counts"] as? [Int])
    }

    /// Found at 1M: a ledger of absolute paths given the same files by relative paths after they were touched (their
    /// stat no longer the stored one) kept the old paths as "not given" and skipped the files as copies. Two paths of
    /// one device and inode are one file: renamed, and (its time changed) checked by its hash.
    func testTheSameFileTouchedUnderAnotherSpellingIsRenamed() throws {
        let (input, out) = try scratchSample()
        let options = AuditOptions(paths: [input], outputDirectory: out)
        _ = try AuditPipeline.run(options)
        let before = try ledger(out)
        for name in ["client.jsonl", "server.jsonl", "verify.jsonl"] {
            try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-60)], ofItemAtPath: input + "/" + name)
        }
        _ = try runThroughLink(
            options, before: before, why: "the same file: its old path names it still): renamed, and checked by its hash")

        // A copy (another inode) under another path is still a copy: skipped, the stored path kept as not given.
        let copy = input + "-copy"
        try FileManager.default.copyItem(atPath: input, toPath: copy)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: copy) }
        var copied = options
        copied.paths = [copy]
        let third = try AuditPipeline.run(copied)
        XCTAssertEqual(third.warnings.filter { $0.code == RunWarning.Code.inputRenamed }.count, 0)
        XCTAssertEqual(third.warnings.filter { $0.code == RunWarning.Code.inputVanished }.count, 3)
        XCTAssertEqual(try ledger(out)["counts"] as? [Int], before["counts"] as? [Int])
    }

    /// Runs `options` again through a symlink to its input folder and checks that each file was renamed (the warning
    /// giving `why`), nothing read again or counted twice, and no finding new or resolved. Returns the link and the run.
    func runThroughLink(_ options: AuditOptions, before: [String: Any], why: String) throws -> (String, AuditResult) {
        let input = options.paths[0]
        let link = input + "-link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: input)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: link) }
        var moved = options
        moved.paths = [link]
        let run = try AuditPipeline.run(moved)
        XCTAssertEqual(
            run.warnings.filter { $0.code == RunWarning.Code.inputRenamed }.map(\.message),
            ["client.jsonl", "server.jsonl", "verify.jsonl"].map {
                "\(link)/\($0): the file the ledger held as \(input)/\($0) (\(why); its evidence shows this path from now on "
                    + "(give the same paths every night)"
            })
        XCTAssertEqual(run.warnings.filter { $0.code == RunWarning.Code.inputVanished }.count, 0, "nothing is 'not given'")
        XCTAssertEqual(run.filesParsed, 0, "nothing read again")
        let after = try ledger(options.outputDirectory)
        XCTAssertEqual(after["counts"] as? [Int], before["counts"] as? [Int], "no record twice")
        let files = try XCTUnwrap(after["files"] as? [[Any]])
        XCTAssertEqual(files.map { $0[0] as? String }, ["client.jsonl", "server.jsonl", "verify.jsonl"].map { link + "/" + $0 })
        XCTAssertEqual(run.snapshot.changes?.count(LifecycleEvent.new), 0)
        XCTAssertEqual(run.snapshot.changes?.count(LifecycleEvent.resolved), 0)
        return (link, run)
    }
}
