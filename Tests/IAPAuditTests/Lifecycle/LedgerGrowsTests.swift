import Foundation
import XCTest

@testable import IAPAuditCLI
@testable import IAPAuditModel
@testable import IAPAuditPipeline
@testable import IAPAuditStore

/// The ledger only grows: a file no longer given keeps its records (`--forget-missing` drops them), a file's
/// content is imported once (a copy under another path, a gzipped copy), and an unchanged file is known by
/// its stat without being hashed.
final class LedgerGrowsTests: XCTestCase {
    static let readLedger = """
        import json, sqlite3, sys
        db = sqlite3.connect(sys.argv[1])
        print(json.dumps({
            "findings": [list(r) for r in db.execute(
                "SELECT finding_id, reason, user_ids, evidence, detail FROM finding ORDER BY finding_id")],
            "counts": [db.execute("SELECT count(*) FROM " + t).fetchone()[0]
                       for t in ("client_report", "server_request", "apple_record", "apple_transaction", "rejection")],
            "files": [list(r) for r in db.execute(
                "SELECT path, status, given, records_imported, mtime_ns, inode FROM source_file ORDER BY path")]}))
        """

    func ledger(_ out: String) throws -> [String: Any] {
        try PythonReader.run(Self.readLedger, args: [out + "/audit.sqlite"]) as! [String: Any]
    }

    func sample(_ names: [String] = ["client.jsonl", "server.jsonl", "verify.jsonl"]) throws -> (input: String, options: AuditOptions) {
        let (input, out) = try scratchSample(names)
        var options = AuditOptions(paths: [input], outputDirectory: out)
        options.config = try ConfigLoader.load(path: TestPaths.repoRoot + "/sample-data/config.json")
        return (input, options)
    }

    /// A file removed after it was imported keeps its records and the findings are as they were; the run is a
    /// re-run (its identity holds the kept file); `--forget-missing` drops it.
    func testAMissingFileKeepsItsRecordsUntilForgotten() throws {
        var (input, options) = try sample()
        _ = try AuditPipeline.run(options)
        let before = try ledger(options.outputDirectory)
        try FileManager.default.removeItem(atPath: input + "/server.jsonl")
        let kept = try AuditPipeline.run(options)
        XCTAssertEqual(kept.warnings.filter { $0.code == .inputVanished }.map(\.file), [input + "/server.jsonl"])
        XCTAssertEqual(kept.snapshot.changes?.repeated, true, "the same records and parameters: nothing to record")
        let after = try ledger(options.outputDirectory)
        XCTAssertEqual("\(after["findings"]!)", "\(before["findings"]!)")
        XCTAssertEqual("\(after["counts"]!)", "\(before["counts"]!)")
        let server = try XCTUnwrap((after["files"] as! [[Any]]).first { ($0[0] as! String).hasSuffix("/server.jsonl") })
        XCTAssertEqual(server[2] as? Int, 0, "kept, not given")

        options.forgetMissing = true
        let forgotten = try AuditPipeline.run(options)
        XCTAssertEqual(forgotten.snapshot.recordCounts["server_request"], 0)
        XCTAssertFalse(forgotten.snapshot.files.contains { $0.path.hasSuffix("/server.jsonl") })
        XCTAssertEqual(forgotten.snapshot.changes?.repeated, false)
    }

    /// A gzipped copy of an imported file adds nothing, in the same run or a later one, and when the plain file
    /// is then rotated away its records stay (once).
    func testAGzippedCopyAddsNothing() throws {
        let (input, options) = try sample()
        _ = try AuditPipeline.run(options)
        let before = try ledger(options.outputDirectory)
        let archive = TestPaths.scratch()
        addTeardownBlock { try? FileManager.default.removeItem(atPath: archive) }
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/sh")
        gzip.arguments = ["-c", "gzip -c '\(input)/verify.jsonl' > '\(archive)/verify.jsonl.1.gz'"]
        try gzip.run()
        gzip.waitUntilExit()
        var both = options
        both.paths = [input, archive]
        let copied = try AuditPipeline.run(both)
        let copy = try XCTUnwrap(copied.snapshot.files.first { $0.path.hasSuffix(".gz") })
        XCTAssertEqual(copy.status, "skipped")
        XCTAssertEqual(copy.note, "same content as \(input)/verify.jsonl (not counted twice)")
        XCTAssertEqual("\(try ledger(options.outputDirectory)["counts"]!)", "\(before["counts"]!)")
        XCTAssertEqual("\(try ledger(options.outputDirectory)["findings"]!)", "\(before["findings"]!)")
        // logrotate: the plain file goes, its gzipped copy stays: still a copy of the (kept) records.
        try FileManager.default.removeItem(atPath: input + "/verify.jsonl")
        let rotated = try AuditPipeline.run(both)
        XCTAssertEqual(rotated.snapshot.files.first { $0.path.hasSuffix(".gz") }?.status, "skipped")
        // Said as what it is (an on-call user test read "not given … run with --forget-missing" as data lost).
        XCTAssertEqual(
            rotated.warnings.filter { $0.code == .inputVanished }.map(\.message),
            [
                "\(input)/verify.jsonl: not given this run, but its content is, as \(archive)/verify.jsonl.1.gz (skipped as its copy): its "
                    + "1,451 records were KEPT in the ledger under this name, nothing lost or counted twice (--forget-missing would drop "
                    + "them and read \(archive)/verify.jsonl.1.gz instead)"
            ])
        XCTAssertEqual("\(try ledger(options.outputDirectory)["counts"]!)", "\(before["counts"]!)")
        XCTAssertEqual("\(try ledger(options.outputDirectory)["findings"]!)", "\(before["findings"]!)")
    }

    /// An unchanged file is known by its size, modification time and inode (stored with it), not by its hash:
    /// a file rewritten in place with the same size and its modification time put back is not read again —
    /// the stat check's limit, stated in docs/operations.md. A file modified in the last 2 seconds is hashed.
    func testAnUnchangedFileIsKnownByItsStat() throws {
        let (input, options) = try sample(["client.jsonl"])
        let path = input + "/client.jsonl"
        let old = Date(timeIntervalSince1970: 1_790_000_000)
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: path)
        _ = try AuditPipeline.run(options)
        let files = try ledger(options.outputDirectory)["files"] as! [[Any]]
        var info = stat()
        XCTAssertEqual(stat(path, &info), 0)
        XCTAssertEqual(files[0][4] as? Int, Int(info.st_mtim.tv_sec) * 1_000_000_000 + Int(info.st_mtim.tv_nsec))
        XCTAssertEqual(files[0][5] as? Int, Int(info.st_ino))
        // The same bytes count, other content (a user id changed), the old modification time put back.
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: path))
        try handle.write(contentsOf: Data(text.replacingOccurrences(of: "\"u", with: "\"v").utf8))
        try handle.close()
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: path)
        XCTAssertEqual(try AuditPipeline.run(options).filesParsed, 0, "the stat matches: not hashed, not read")
        // A new modification time: hashed, and read again (the content changed).
        try FileManager.default.setAttributes([.modificationDate: old.addingTimeInterval(1)], ofItemAtPath: path)
        XCTAssertEqual(try AuditPipeline.run(options).filesParsed, 1)
        // Modified just now: its stat is not trusted (stored as unknown), so the next run hashes it.
        TestPaths.write("x\n", to: input + "/fresh.txt")
        XCTAssertFalse(try LedgerImporter.stamp(of: input + "/fresh.txt").isKnown)
    }

    /// A file stored just after it was written has its stat stored as unknown; the first run that finds it old
    /// enough hashes it once more and stores its stat (found at 1M: an export finishing seconds before the cron line
    /// was hashed every night, forever).
    func testAFreshFilesStatIsStoredOnceItIsOldEnough() throws {
        let (input, options) = try sample(["client.jsonl"])
        let path = input + "/client.jsonl"
        TestPaths.write(try String(contentsOfFile: path, encoding: .utf8), to: path)  // written just now
        _ = try AuditPipeline.run(options)
        let fresh = try XCTUnwrap(try ledger(options.outputDirectory)["files"] as? [[Any]])
        XCTAssertEqual([fresh[0][4] as? Int, fresh[0][5] as? Int], [0, 0], "not trusted yet")
        XCTAssertEqual(try AuditPipeline.run(options).filesParsed, 0, "a re-run right away: the same, nothing written")
        // Later (its modification time an hour back, as if the night had passed): hashed, the same content, its stat stored.
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-3600)], ofItemAtPath: path)
        XCTAssertEqual(try AuditPipeline.run(options).filesParsed, 0)
        let files = try XCTUnwrap(try ledger(options.outputDirectory)["files"] as? [[Any]])
        var info = stat()
        XCTAssertEqual(stat(path, &info), 0)
        XCTAssertEqual(files[0][4] as? Int, Int(info.st_mtim.tv_sec) * 1_000_000_000 + Int(info.st_mtim.tv_nsec))
        XCTAssertEqual(files[0][5] as? Int, Int(info.st_ino))
    }

    /// Other trust anchors (a config without them) have every file read again — their signed records' verdicts are
    /// the ledger's — and the run says why (found by an on-call user test: a 40 s night, nothing saying why); a run
    /// with the same settings again reads nothing and says nothing.
    func testOtherTrustAnchorsReadEveryFileAgainAndSaySo() throws {
        var (_, options) = try sample()
        _ = try AuditPipeline.run(options)
        options.config = AuditConfig()
        let changed = try AuditPipeline.run(options)
        XCTAssertEqual(changed.filesParsed, 3)
        XCTAssertEqual(
            changed.warnings.filter { $0.code == .signatureSettingsChanged }.map(\.message),
            [
                "every input file is read again: the trust anchors or --signatures-at differ from the last run's (signed records are "
                    + "verified as they are read, and the ledger holds their verdicts); runs with these settings read only what changed"
            ])
        let again = try AuditPipeline.run(options)
        XCTAssertEqual(again.filesParsed, 0)
        XCTAssertEqual(again.warnings.filter { $0.code == .signatureSettingsChanged }.count, 0)
    }

    /// `--ledger FILE` puts the ledger elsewhere; the workbook still goes to `--out`, and the ledger is never an input.
    func testTheLedgerCanLiveApartFromTheWorkbook() throws {
        var (input, options) = try sample(["client.jsonl"])
        options.ledgerPath = input + "/state.sqlite"  // inside the input folder: not read as an input
        let result = try AuditPipeline.run(options)
        XCTAssertEqual(result.databasePath, input + "/state.sqlite")
        XCTAssertTrue(FileManager.default.fileExists(atPath: options.outputDirectory + "/audit.xlsx"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: options.outputDirectory + "/audit.sqlite"))
        XCTAssertEqual(result.snapshot.files.map(\.path), [input + "/client.jsonl"])
        XCTAssertEqual(try AuditPipeline.run(options).snapshot.changes?.repeated, true)
        // ack finds it there too.
        var ids = FindingIds()
        let id = try XCTUnwrap(try result.snapshot.findings.all().first.map { ids.id(for: $0) })
        let ack = CLIRun(["ack", id, "--note", "known", "--out", options.outputDirectory, "--ledger", input + "/state.sqlite"])
        XCTAssertEqual(ack.status, 0, ack.err)
    }

    /// A log that only grew is read from where it ended (its old part checked against the stored hash): its new
    /// records continue its line numbers, and the ledger holds what a from-scratch run over the whole file holds.
    /// A log whose old part changed is read whole.
    func testAGrowingLogIsReadFromItsOldEnd() throws {
        let (input, options) = try sample(["client.jsonl", "verify.jsonl"])
        let lines = try String(contentsOfFile: TestPaths.repoRoot + "/sample-data/server.jsonl", encoding: .utf8).split(separator: "\n")
        let half = lines.count / 2
        TestPaths.write(lines[..<half].joined(separator: "\n") + "\n", to: input + "/server.jsonl")
        _ = try AuditPipeline.run(options)
        let fileId = {
            "\(try self.query(options.outputDirectory, "SELECT file_id AS id FROM source_file WHERE path LIKE '%/server.jsonl'"))"
        }
        let before = try fileId()
        // The rest of the month, and a line that is no record: rejected at its line in the whole file.
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: input + "/server.jsonl"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data((lines[half...].joined(separator: "\n") + "\nnot a record\n").utf8))
        try handle.close()
        let grown = try AuditPipeline.run(options)
        XCTAssertEqual(grown.filesParsed, 1)
        XCTAssertEqual(try fileId(), before, "read from its end into the same file: not read whole again")
        XCTAssertEqual(
            try grown.snapshot.rejections.prefix(1).map(\.location.description), ["\(input)/server.jsonl:\(lines.count + 1)"])
        let scratch = TestPaths.scratch()
        addTeardownBlock { try? FileManager.default.removeItem(atPath: scratch) }
        var whole = options
        whole.outputDirectory = scratch
        _ = try AuditPipeline.run(whole)
        let tables = ["client_report", "server_request", "apple_record", "apple_transaction", "rejection", "finding"]
        for table in tables {
            let sql = "SELECT * FROM \(table) ORDER BY 1, 2"
            XCTAssertEqual("\(try query(options.outputDirectory, sql))", "\(try query(scratch, sql))", table)
        }
        let file = "SELECT path, sha256, bytes, kind, format, status, note, records_in, records_imported, records_rejected FROM source_file"
        XCTAssertEqual("\(try query(options.outputDirectory, file))", "\(try query(scratch, file))")

        // An old line changed (same length): read whole, into a new file row.
        var text = try String(contentsOfFile: input + "/server.jsonl", encoding: .utf8)
        text = text.replacingOccurrences(
            of: "\"granted\":true", with: "\"granted\":1234", options: [], range: text.range(of: "\"granted\":true"))
        TestPaths.write(text + "{}\n", to: input + "/server.jsonl")
        _ = try AuditPipeline.run(options)
        XCTAssertNotEqual(try fileId(), before)
    }

    /// A CSV log that only grew is read from where it ended too, under its header: the ledger holds what a
    /// from-scratch run holds. One whose old part ended inside a quoted field (its closing quote in the lines that
    /// followed: the record was rejected as unterminated) is read whole, so that the field is read as one.
    func testAGrowingCSVLogIsReadFromItsOldEndUnderItsHeader() throws {
        let (input, options) = try sample(["server.jsonl", "verify.jsonl"])
        let lines = try String(contentsOfFile: TestPaths.repoRoot + "/sample-data/client.csv", encoding: .utf8).split(separator: "\n")
        let half = lines.count / 2
        let path = input + "/client.csv"
        let fileId = {
            "\(try self.query(options.outputDirectory, "SELECT file_id AS id FROM source_file WHERE path LIKE '%/client.csv'"))"
        }
        func append(_ text: String) throws {
            let handle = try XCTUnwrap(FileHandle(forWritingAtPath: path))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(text.utf8))
            try handle.close()
        }
        func assertAsFromScratch(_ what: String) throws {
            let scratch = TestPaths.scratch()
            defer { try? FileManager.default.removeItem(atPath: scratch) }
            var whole = options
            whole.outputDirectory = scratch
            _ = try AuditPipeline.run(whole)
            for table in ["client_report", "rejection", "finding"] {
                let sql = "SELECT * FROM \(table) ORDER BY 1, 2"
                XCTAssertEqual("\(try query(options.outputDirectory, sql))", "\(try query(scratch, sql))", "\(what): \(table)")
            }
            let file =
                "SELECT path, sha256, bytes, kind, format, status, note, records_in, records_imported, records_rejected FROM source_file "
                + "ORDER BY path"
            XCTAssertEqual("\(try query(options.outputDirectory, file))", "\(try query(scratch, file))", what)
        }
        TestPaths.write(lines[..<half].joined(separator: "\r\n") + "\r\n\n", to: path)
        _ = try AuditPipeline.run(options)
        let before = try fileId()
        try append(lines[half...].joined(separator: "\r\n") + "\r\nnot,a,record\r\n")
        let grown = try AuditPipeline.run(options)
        XCTAssertEqual(grown.filesParsed, 1)
        XCTAssertEqual(try fileId(), before, "read from its end into the same file")
        XCTAssertEqual(try grown.snapshot.rejections.prefix(10).map(\.location.description), ["\(path):\(lines.count + 2)"])
        try assertAsFromScratch("grown")

        // Ending inside a quoted field: rejected as unterminated; grown, the field closes: read whole.
        try append("1790826426000,u8,\"a device\n")
        _ = try AuditPipeline.run(options)
        XCTAssertEqual(
            try query(options.outputDirectory, "SELECT reason FROM rejection ORDER BY line DESC LIMIT 1").first?.first as? String,
            "unterminated quoted field")
        try append("id\",2000000400999999,2000000400999999,com.example.gems980,purchased,,\n")
        let closed = try AuditPipeline.run(options)
        XCTAssertEqual(closed.filesParsed, 1)
        XCTAssertEqual(
            try query(options.outputDirectory, "SELECT reason FROM rejection ORDER BY line DESC LIMIT 1").first?.first as? String,
            "field 'device_id': contains a control character", "read whole: the quoted field read as one, with its line break")
        try assertAsFromScratch("closed")
    }

    /// The rows of `sql` on the ledger in `out`, read with Python's sqlite3 (record ids as file-relative keys).
    func query(_ out: String, _ sql: String) throws -> [[Any]] {
        try PythonReader.run(
            """
            import json, sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            print(json.dumps([[v & 0xFFFFFFFF if c[0] == "record_id" else (None if c[0] == "file_id" else v)
                               for v, c in zip(r, cur.description)] for cur in [db.execute(sys.argv[2])] for r in cur]))
            """, args: [out + "/audit.sqlite", sql]) as! [[Any]]
    }
}
