import Foundation
import XCTest

@testable import IAPAuditCLI
@testable import IAPAuditIngest
@testable import IAPAuditModel
@testable import IAPAuditPipeline

/// The limits on what is read of one file (`InputLimits`, docs/security.md "Limits"): past one, the lines before are
/// read, the rest of the file is one rejection naming the limit, and a decompression bomb stops in seconds.
final class ResourceLimitTests: XCTestCase {
    static let client =
        #"{"ts":"2026-10-01T00:01:09Z","user_id":"u1","device_id":"D1","transaction_id":"2000000400594870","#
        + #""original_transaction_id":"2000000400594870","product_id":"com.example.gems3280","state":"purchased","quantity":1}"#

    /// The client line `n` (its own transaction id).
    static func client(_ n: Int) -> String { client.replacingOccurrences(of: "2000000400594870", with: String(2_000_000_400_000_000 + n)) }

    func read(_ data: Data, limits: InputLimits = InputLimits(), path: String = "in.jsonl") throws -> (ImportedFile, [Rejection], Int) {
        var rejections: [Rejection] = []
        var clients = 0
        let sink = RecordSink {
            rejections += $0.rejections
            clients += $0.clientReports.count
        }
        var file = InputFile(path: path, data: data)
        file.limits = limits
        let summary = try FileImporter.stream(file, checker: NoSignatureChecking(), sink: sink, scratchDirectory: TestPaths.scratch())
        return (summary, rejections, clients)
    }

    /// `command` run by the shell, its standard output (gzip through the command line: zlib stays behind IAPAuditIngest).
    static func shell(_ command: String) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return data
    }

    /// `megabytes` MiB of `byte` (octal, for tr), gzipped at `level`: a thousandth of that at level 9, 1/229 at level 1.
    static func bomb(megabytes: Int, of byte: String = "000", level: Int = 9) throws -> Data {
        try shell("head -c \(megabytes << 20) /dev/zero | tr '\\000' '\\\(byte)' | gzip -n -\(level)")
    }

    func testAGzipBombStopsAtTheInflationRatioInSeconds() throws {
        let bomb = try Self.bomb(megabytes: 100)
        XCTAssertLessThan(bomb.count, 110_000)
        let started = Date()
        let (summary, rejections, _) = try read(bomb, path: "bomb.jsonl.gz")
        let reason = rejections.first?.reason ?? ""
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
        XCTAssertEqual(rejections.map(\.location.line), [1])
        XCTAssertTrue(
            reason.hasPrefix("gzip archive not read past a limit (")
                && reason.contains(
                    "over the inflation-ratio limit (200; raise it with --limit inflation-ratio=N): a decompression bomb?"),
            reason)
        XCTAssertTrue(reason.hasSuffix("nothing of it was read"), reason)
        XCTAssertEqual([summary.status, summary.recordsIn, summary.recordsRejected] as [AnyHashable], [ImportStatus.rejected, 1, 1])
        XCTAssertEqual(summary.note, "gzip archive over a limit: nothing read")
        // What the ledger hashes of a gzip file stops there too: no content (the file is hashed as it is on disk).
        XCTAssertNil(try GzipInput.wholeContent(of: bomb, path: "bomb.jsonl.gz", directory: TestPaths.scratch()))
    }

    /// 1 GiB of zeros as 103 members of 10 MiB, each under the ratio's 64 MiB floor, at gzip's fastest level (229 times
    /// smaller, not 1,000): the file's ratio stops it.
    func testAMultiMemberBombStopsAtTheFilesRatio() throws {
        let member = try Self.bomb(megabytes: 10, level: 1)
        let bomb = Data((0..<103).map { _ in member }.joined())
        let started = Date()
        let (summary, rejections, _) = try read(bomb, path: "members.jsonl.gz")
        let reason = rejections.first?.reason ?? ""
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
        XCTAssertEqual(rejections.count, 1)
        XCTAssertTrue(reason.contains("over the inflation-ratio limit (200; "), reason)
        XCTAssertEqual([summary.recordsIn, summary.recordsRejected], [1, 1])
    }

    /// Past `inflated-bytes`, the complete lines before are read, the rest is one rejection; raised, all is read.
    func testInflatedBytesKeepsTheLinesBeforeAndRaisedReadsAll() throws {
        let text = (1...30).map(Self.client).joined(separator: "\n") + "\n"
        let gzip = try Self.shell("printf '%s' '\(text)' | gzip -n")
        var limits = InputLimits()
        limits.inflatedBytes = 10 * (Self.client.utf8.count + 1) + 20
        let (summary, rejections, clients) = try read(gzip, limits: limits, path: "client.jsonl.gz")
        let reason = rejections.first?.reason ?? ""
        XCTAssertEqual(clients, 10)
        XCTAssertEqual(rejections.map(\.location.line), [11])
        XCTAssertEqual(
            reason,
            "gzip archive not read past a limit (it inflates to more than the inflated-bytes limit (\(limits.inflatedBytes) bytes; "
                + "raise it with --limit inflated-bytes=N): a decompression bomb?): lines 1–10 were read, the rest of the file was not")
        XCTAssertEqual([summary.recordsIn, summary.recordsImported, summary.recordsRejected], [11, 10, 1])
        XCTAssertEqual(summary.note, "gzip: client reports (archive limit after line 10)")
        try limits.set("inflated-bytes", "1M")
        let (all, none, every) = try read(gzip, limits: limits, path: "client.jsonl.gz")
        XCTAssertEqual([all.recordsIn, all.recordsRejected, none.count, every], [30, 0, 0, 30])
    }

    /// A gzip document cut short: the document's own rejection and the archive's are at one line, so they are one
    /// rejection (stored once: the ledger's rows are keyed by line), counted once.
    func testATruncatedGzipCountsTheRejectionsItStores() throws {
        let document =
            "{\n  \"status\": 0,\n  \"environment\": \"Production\",\n  \"receipt\": {\n    \"bundle_id\": \"com.example\",\n"
            + "    \"in_app\": [\n"
            + (1...200).map { "      {\"transaction_id\": \"\($0)\", \"product_id\": \"p\"}" }.joined(separator: ",\n")
            + "\n    ]\n  }\n}\n"
        let gzip = try Self.shell("printf '%s' '\(document)' | gzip -n")
        let (summary, rejections, _) = try read(gzip.prefix(gzip.count / 2), path: "verify.json.gz")
        let reason = rejections.first?.reason ?? ""
        XCTAssertEqual(rejections.count, 1)
        XCTAssertEqual(summary.recordsRejected, rejections.count)
        XCTAssertEqual(Set(rejections.map(\.location.line)).count, rejections.count)
        XCTAssertTrue(reason.contains("; gzip archive truncated ("), reason)
    }

    func testALineOverLineBytesEndsTheFileInOneRejection() throws {
        var limits = InputLimits()
        limits.lineBytes = 300
        let long = Self.client(2).replacingOccurrences(of: "\"D1\"", with: "\"" + String(repeating: "d", count: 200) + "\"")
        let text = [Self.client(1), long, Self.client(3)].joined(separator: "\n") + "\n"
        let (summary, rejections, clients) = try read(Data(text.utf8), limits: limits)
        let reason = rejections.first?.reason ?? ""
        XCTAssertEqual(clients, 1)
        XCTAssertEqual(rejections.map(\.location.line), [2])
        XCTAssertEqual(
            reason,
            "line 2 is longer than the line-bytes limit (300 bytes; raise it with --limit line-bytes=N): it and the rest of the "
                + "file (\(long.utf8.count + Self.client(3).utf8.count + 2) bytes) were not read")
        XCTAssertEqual([summary.recordsIn, summary.recordsImported, summary.recordsRejected], [2, 1, 1])
        XCTAssertEqual(summary.note, "client reports (not read from line 2: line-bytes limit)")
        // A line of exactly the limit (its CR LF not counted) is read.
        limits.lineBytes = long.utf8.count
        let crlf = [Self.client(1), long, Self.client(3)].joined(separator: "\r\n") + "\r\n"
        let (whole, none, three) = try read(Data(crlf.utf8), limits: limits)
        XCTAssertEqual([whole.recordsIn, none.count, three], [3, 0, 3])
    }

    /// CSV and compact JWS lines are cut by the same iterators: the lines before are read, the rest is one rejection.
    func testCSVAndSignedTextStopAtALineOverTheLimit() throws {
        var limits = InputLimits()
        limits.lineBytes = 200
        let row = { (n: Int) in
            "1790826426000,u8,D8,\(2_000_000_400_594_000 + n),\(2_000_000_400_594_000 + n),com.example.gems980,purchased,,"
        }
        let csv =
            ["ts,user_id,device_id,transaction_id,original_transaction_id,product_id,state,error_code,quantity", row(1), row(2)]
            + [row(3).replacingOccurrences(of: "D8", with: String(repeating: "D", count: 300)), row(4)]
        let (summary, rejections, clients) = try read(Data((csv.joined(separator: "\n") + "\n").utf8), limits: limits, path: "c.csv")
        XCTAssertEqual(clients, 2)
        XCTAssertEqual(rejections.map(\.location.line), [4])
        XCTAssertTrue(rejections.first?.reason.hasPrefix("line 4 is longer than the line-bytes limit (200 bytes; ") ?? false)
        XCTAssertEqual([summary.recordsIn, summary.recordsImported, summary.recordsRejected], [3, 2, 1])
        XCTAssertEqual(summary.note, "client reports (not read from line 4: line-bytes limit)")
        // Compact JWS, one a line (base64url: a long one is a long line).
        let jws = { (n: Int) in "eyJhbGciOiJFUzI1NiJ9." + String(repeating: "QUFB", count: n) + ".c2ln" }
        let text = [jws(10), jws(100), jws(10)].joined(separator: "\n") + "\n"
        let (signed, cut, _) = try read(Data(text.utf8), limits: limits, path: "s.txt")
        XCTAssertEqual(cut.map(\.location.line), [1, 2])
        XCTAssertTrue(cut.last?.reason.hasPrefix("line 2 is longer than the line-bytes limit (200 bytes; ") ?? false)
        XCTAssertEqual([signed.recordsIn, signed.recordsRejected], [2, 2])
    }

    /// A text file whose first line is over the limit (100 MiB of `a` gzipped: the ratio raised lets it inflate):
    /// nothing is read, the file is the one rejection, quickly.
    func testAFirstLineOverTheLimitRejectsTheFile() throws {
        var limits = InputLimits()
        try limits.set("inflation-ratio", "100000")
        let started = Date()
        let (summary, rejections, _) = try read(try Self.bomb(megabytes: 100, of: "141"), limits: limits, path: "letters.jsonl.gz")
        let reason = rejections.first?.reason ?? ""
        XCTAssertLessThan(Date().timeIntervalSince(started), 20)
        XCTAssertEqual(rejections.map(\.location.line), [1])
        XCTAssertTrue(
            reason.hasPrefix(
                "line 1 is longer than the line-bytes limit (16 MiB; raise it with --limit line-bytes=N): it and the rest of the file "
                    + "(104,857,600 bytes) were not read"), reason)
        XCTAssertEqual([summary.status, summary.recordsIn, summary.recordsRejected] as [AnyHashable], [ImportStatus.rejected, 1, 1])
        XCTAssertEqual(summary.note, "gzip: not read past the line-bytes limit")
    }

    func testPastRecordsTheRestIsOneRejection() throws {
        var limits = InputLimits()
        limits.records = 2
        let text = (1...5).map(Self.client).joined(separator: "\n\n") + "\n"
        let (summary, rejections, clients) = try read(Data(text.utf8), limits: limits)
        let reason = rejections.first?.reason ?? ""
        XCTAssertEqual(clients, 2)
        XCTAssertEqual(rejections.map(\.location.line), [5])
        XCTAssertTrue(
            reason.hasPrefix(
                "the file holds more lines than the records limit (2; raise it with --limit records=N): line 5 and the rest of the file ("),
            reason)
        XCTAssertEqual([summary.recordsIn, summary.recordsImported, summary.recordsRejected], [3, 2, 1])
    }

    /// Nesting past `depth` and keys past `fields`: that line is rejected naming the limit (fast path and strict reader
    /// alike), the lines after are read; raised, the line is read.
    func testDepthAndFieldsRejectTheirLine() throws {
        let open = String(Self.client(2).dropLast())
        let deep = open + #","extra":"# + String(repeating: "[", count: 130) + String(repeating: "]", count: 130) + "}"
        let wide = open + "," + (0..<10_001).map { #""k\#($0)":\#($0)"# }.joined(separator: ",") + "}"
        // Where the errors are: the 128th `[` (the object is depth 0), the 10,001st key (the client line has 8 keys).
        let deepColumn = open.utf8.count + #","extra":"#.utf8.count + 128
        let wideColumn = try XCTUnwrap(wide.range(of: #""k9992""#)).lowerBound.utf16Offset(in: wide) + 1
        for (line, limit, expected) in [
            (
                deep, "depth",
                "invalid JSON: nesting deeper than the depth limit (128; raise it with --limit depth=N) at line 1, column \(deepColumn)"
            ),
            (
                wide, "fields",
                "invalid JSON: an object with more keys than the fields limit (10000; raise it with --limit fields=N) at line 1, "
                    + "column \(wideColumn)"
            ),
        ] {
            let text = [Self.client(1), line, Self.client(3)].joined(separator: "\n") + "\n"
            for fastPath in [true, false] {
                var rejections: [Rejection] = []
                var clients = 0
                let sink = RecordSink {
                    rejections += $0.rejections
                    clients += $0.clientReports.count
                }
                let summary = try FileImporter.stream(
                    InputFile(path: "in.jsonl", data: Data(text.utf8)), checker: NoSignatureChecking(), sink: sink, fastPath: fastPath)
                XCTAssertEqual(rejections.map(\.location.line), [2], limit)
                XCTAssertEqual(rejections.first?.reason, expected, limit)
                XCTAssertEqual([summary.recordsIn, summary.recordsRejected, clients], [3, 1, 2], limit)
            }
            var raised = InputLimits()
            try raised.set(limit, limit == "depth" ? "512" : "20000")
            let (summary, none, clients) = try read(Data(text.utf8), limits: raised)
            XCTAssertEqual([summary.recordsRejected, none.count, clients], [0, 0, 3], limit)
        }
    }

    func testLimitOptionParsesNamesAndUnits() throws {
        let args = try ArgumentReader(
            ["in", "--limit", "line-bytes=32MiB", "--limit=records=1_000,depth=64", "--limit", "inflated-bytes=2G"],
            valued: RunCommand.valuedOptions, flags: RunCommand.flags, repeatable: RunCommand.repeatable, command: "run",
            usage: RunCommand.usage)
        let limits = try RunCommand.limits(args, usage: RunCommand.usage, command: "run")
        XCTAssertEqual(
            limits.named.map(\.value), [2 << 30, InputLimits().inflationRatio, 32 << 20, 64, InputLimits().fields, 1_000])
        XCTAssertEqual(limits.parameter, "inflated-bytes=2147483648,line-bytes=33554432,depth=64,records=1000")
        for (bad, message) in [
            ("size=1", "--limit: unknown limit 'size' (limits: inflated-bytes, inflation-ratio, line-bytes, depth, fields, records)"),
            ("depth=0", "--limit depth=0: expected a positive whole number"),
            ("depth=2K", "--limit depth=2K: expected a positive whole number"),
            ("depth=513", "--limit depth=513: at most 512 (the JSON parser recurses once a level)"),
            ("line-bytes=", "--limit line-bytes=: expected a positive whole number of bytes (e.g. 32MiB, 64G)"),
            ("line-bytes", "--limit: expected NAME=VALUE (e.g. --limit line-bytes=32MiB): 'line-bytes'"),
        ] {
            for command in [["run"], ["close", "--period", "2026-10"]] {
                let run = CLIRun(command + ["--limit", bad, "--out", TestPaths.scratch()])
                XCTAssertEqual(run.status, 64, bad)
                XCTAssertTrue(run.err.contains("Error: " + message), run.err)
            }
        }
    }

    /// Through the pipeline: a bomb beside a client log; the log is imported, the bomb is one rejection row, stored as
    /// counted; a run with the limit raised reads the file cut before again (the limits differ), further.
    func testARunOverABombImportsTheOtherFilesAndCountsWhatItStores() throws {
        let input = TestPaths.scratch()
        try Self.bomb(megabytes: 100).write(to: URL(fileURLWithPath: input + "/bomb.jsonl.gz"))
        let text = (1...30).map(Self.client).joined(separator: "\n") + "\n"
        try Self.shell("printf '%s' '\(text)' | gzip -n").write(to: URL(fileURLWithPath: input + "/client.jsonl.gz"))
        var options = AuditOptions(paths: [input], outputDirectory: TestPaths.scratch())
        options.limits.inflatedBytes = 2_000
        let started = Date()
        let result = try AuditPipeline.run(options)
        XCTAssertLessThan(Date().timeIntervalSince(started), 30)
        let files = Dictionary(uniqueKeysWithValues: result.snapshot.files.map { ($0.path, $0) })
        let bomb = try XCTUnwrap(files[input + "/bomb.jsonl.gz"])
        let client = try XCTUnwrap(files[input + "/client.jsonl.gz"])
        let kept = 2_000 / (Self.client.utf8.count + 1)
        XCTAssertEqual([bomb.recordsIn, bomb.recordsRejected, client.recordsImported, client.recordsRejected], [1, 1, Int64(kept), 1])
        let rows = try query(
            options.outputDirectory,
            "SELECT f.path, count(r.line), f.records_rejected FROM source_file f LEFT JOIN rejection r USING (file_id) "
                + "GROUP BY f.file_id ORDER BY f.path")
        XCTAssertEqual(rows.map { $0[1] as? Int }, rows.map { $0[2] as? Int }, "\(rows)")
        XCTAssertEqual(rows.count, 2)
        XCTAssertEqual(result.snapshot.parameters["input_limits"], "inflated-bytes=2000")
        // The same limits again: the file cut is not read again; other limits: it is.
        XCTAssertNil(try AuditPipeline.run(options).read[input + "/client.jsonl.gz"])
        options.limits.inflatedBytes = 1 << 20
        let raised = try AuditPipeline.run(options)
        let again = try XCTUnwrap(raised.snapshot.files.first { $0.path == input + "/client.jsonl.gz" })
        XCTAssertEqual([again.recordsImported, again.recordsRejected], [30, 0])
        XCTAssertEqual(raised.snapshot.parameters["input_limits"], "inflated-bytes=1048576")

    }

    func query(_ out: String, _ sql: String) throws -> [[Any]] {
        try PythonReader.run(
            """
            import json, sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            print(json.dumps([list(r) for r in db.execute(sys.argv[2])]))
            """, args: [out + "/audit.sqlite", sql]) as! [[Any]]
    }
}
