import Foundation
import XCTest

@testable import IAPAuditModel
@testable import IAPAuditPipeline
@testable import IAPAuditStore

/// A path the ledger holds records from, given but not readable (a dangling symbolic link where the export was,
/// a link loop): its records are kept as an earlier run read them, said every such run, and `--fail-on-rejected`
/// alerts. Storing the path as an empty skipped file removed its records and paged hundreds of false findings
/// (found by an on-call user test: 427 `invalid_credit` on the sample when `signed.jsonl` became a dangling link).
final class UnreadableInputTests: XCTestCase {
    func testADanglingLinkWhereAFileWasKeepsItsRecords() throws {
        let (input, out) = try scratchSample()
        var options = AuditOptions(paths: [input], outputDirectory: out)
        options.config = try ConfigLoader.load(path: TestPaths.repoRoot + "/sample-data/config.json")
        let first = try AuditPipeline.run(options)
        let findings = first.snapshot.findings.counts
        let server = input + "/server.jsonl"
        let records = try XCTUnwrap(first.snapshot.files.first { $0.path == server }?.recordsImported)
        XCTAssertGreaterThan(records, 100)
        let moved = TestPaths.scratch() + "/server.jsonl"
        try FileManager.default.moveItem(atPath: server, toPath: moved)
        for target in ["/nonexistent/server.jsonl", server] {  // dangling, then a loop (a link to itself)
            try? FileManager.default.removeItem(atPath: server)
            try FileManager.default.createSymbolicLink(atPath: server, withDestinationPath: target)
            let night = try AuditPipeline.run(options)
            XCTAssertEqual(night.snapshot.recordCounts["server_request"], Int64(records), target)
            XCTAssertEqual(night.snapshot.findings.counts, findings, "no finding moves: \(target)")
            let warning = try XCTUnwrap(night.warnings.first { $0.code == .inputUnreadable }, target)
            XCTAssertEqual(warning.file, server)
            XCTAssertTrue(
                warning.message.hasPrefix("\(server): given, but not readable this run: ")
                    && warning.message.contains("; its \(CountText.grouped(records)) records were KEPT in the ledger"), warning.message)
            let verdict = try RunAlerts.verdict(night, rules: AlertRules(failOnRejected: true), nowMs: 0)
            XCTAssertEqual(verdict.exit, RunAlerts.alertExit)
            XCTAssertEqual(verdict.reasons, [warning.message])
        }
        // --forget-missing does not drop a path that is given (it is not missing, only unreadable).
        options.forgetMissing = true
        XCTAssertEqual(try AuditPipeline.run(options).snapshot.recordCounts["server_request"], Int64(records))
        // The file back: read as it was (unchanged), nothing said.
        try FileManager.default.removeItem(atPath: server)
        try FileManager.default.moveItem(atPath: moved, toPath: server)
        let back = try AuditPipeline.run(options)
        XCTAssertEqual(back.snapshot.findings.counts, findings)
        XCTAssertFalse(back.warnings.contains { $0.code == .inputUnreadable || $0.code == .inputVanished })
    }

    /// A new file named as an input whose content is none iap-audit recognizes (random bytes as a new day's log, a bzip2
    /// log) is a damaged delivery: `--fail-on-rejected` alerts (found by an on-call user test: it was skipped without an
    /// alert). A stray file of another name (notes.bin, a README.txt) does not alert.
    func testAnUnrecognizedFileNamedAsAnInputAlerts() throws {
        let (input, out) = try scratchSample()
        let options = AuditOptions(paths: [input], outputDirectory: out)
        _ = try AuditPipeline.run(options)
        let day = input + "/day05"
        try FileManager.default.createDirectory(atPath: day, withIntermediateDirectories: true)
        var bytes = [UInt8](repeating: 0, count: 7000)
        for i in bytes.indices { bytes[i] = UInt8(truncatingIfNeeded: i &* 7919 &+ i >> 3) }
        FileManager.default.createFile(atPath: day + "/server.jsonl", contents: Data(bytes))
        FileManager.default.createFile(atPath: day + "/notes.bin", contents: Data(bytes.reversed()))
        TestPaths.write("How these exports are made.\n", to: day + "/README.txt")
        // A valid gzip archive of text no reader knows, and a day's client reports whose fields were renamed (found by a
        // retest: both were skipped silently).
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/sh")
        gzip.arguments = ["-c", "echo 'nothing here' | gzip > '\(day)/client.jsonl.gz'"]
        try gzip.run()
        gzip.waitUntilExit()
        TestPaths.write(
            String(
                repeating: #"{"timestamp": "2026-10-05T10:00:00Z", "uid": "u1", "txid": "2000000400990001", "status": "purchased"}"# + "\n",
                count: 3),
            to: day + "/client-renamed.jsonl")
        let night = try AuditPipeline.run(options)
        XCTAssertTrue(
            night.snapshot.files.first { $0.path == day + "/server.jsonl" }?.note.hasPrefix("unrecognized content") ?? false)
        let verdict = try RunAlerts.verdict(night, rules: AlertRules(failOnRejected: true), nowMs: 0)
        XCTAssertEqual(verdict.exit, RunAlerts.alertExit)
        XCTAssertEqual(verdict.reasons.count, 1)
        let reason = verdict.reasons.first ?? ""
        XCTAssertTrue(
            reason.hasPrefix("3 file(s) this run brought, named as inputs, hold content iap-audit does not recognize (not read): ")
                && reason.hasSuffix(". A damaged or mis-compressed delivery (bzip2, zstd)? Deliver it again under the same name"), reason)
        for name in ["server.jsonl", "client.jsonl.gz", "client-renamed.jsonl"] { XCTAssertTrue(reason.contains("\(day)/\(name)"), name) }
        for name in ["notes.bin", "README.txt"] { XCTAssertFalse(reason.contains(name), name) }
        // Said the night it came, not again.
        XCTAssertEqual(try RunAlerts.verdict(try AuditPipeline.run(options), rules: AlertRules(failOnRejected: true), nowMs: 0).exit, 0)
    }
}
