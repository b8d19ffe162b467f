import Foundation
import XCTest

@testable import IAPAuditModel
@testable import IAPAuditPipeline
@testable import IAPAuditStore

/// A damaged ledger is detected, never trusted (issue 27): stored facts carry a checksum checked as they are read, and
/// no stored byte can crash the process. Runs go through the built binary, so a crash is seen as a signal, not lost
/// with the test runner.
final class DamagedLedgerTests: XCTestCase {
    /// A small sample month, its ledger after one run, and the findings a run of an undamaged copy stores.
    private struct Base {
        let inputs: String
        let ledger: String
        let findings: String
    }

    private static let asOf = "2026-12-01T00:00:00Z"

    private func base() throws -> Base {
        let root = TestPaths.scratch("damaged-ledger")
        let inputs = root + "/sample"
        let made = try BuiltBinary.run(["sample", "--out", inputs, "--transactions", "200"])
        XCTAssertEqual(made.status, 0, made.err)
        let first = try BuiltBinary.run(["run", inputs, "--out", root + "/first", "--as-of", Self.asOf])
        XCTAssertEqual(first.status, 0, first.err)
        let copy = root + "/undamaged"
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: root + "/first/audit.sqlite", toPath: copy + "/audit.sqlite")
        let again = try BuiltBinary.run(["run", inputs, "--out", copy, "--as-of", Self.asOf])
        XCTAssertEqual(again.status, 0, again.err)
        let findings = try Self.findings([copy])[0]
        XCTAssertGreaterThan(findings.split(separator: "\n").count, 50, "the sample has findings to change")
        return Base(inputs: inputs, ledger: root + "/first/audit.sqlite", findings: findings)
    }

    /// The stored findings of each ledger folder, one line each (id, reason, confirmation, users, detail), as text.
    private static func findings(_ folders: [String]) throws -> [String] {
        try PythonReader.run(
            """
            import json, sqlite3, sys
            out = []
            for folder in sys.argv[1:]:
                db = sqlite3.connect(folder + "/audit.sqlite")
                rows = db.execute("SELECT finding_id, reason, user_ids, evidence, detail FROM finding ORDER BY finding_id").fetchall()
                out.append("\\n".join("\\t".join(str(v) for v in r) for r in rows))
            print(json.dumps(out))
            """, args: folders) as? [String] ?? []
    }

    /// 100 single-byte corruptions of stored fact blobs (seeded) and 20 of raw bytes in `fact_chunk`'s pages: each run
    /// of a damaged copy ends by itself (no signal) with exit 0 and the undamaged findings, or exit 1 naming the damage
    /// (a corrupted blob: `fact_chunk row <its chunk_id>`, every time). Before checksums, 2 of 12 such runs crashed
    /// (SIGILL, SIGSEGV) and 2 changed the findings silently.
    func testSingleByteCorruptionsAreDetectedNeverTrusted() throws {
        let base = try base()
        let root = TestPaths.scratch("damaged-copies")
        // One python run makes every damaged copy: (folder, "blob" chunk_id | "page" offset).
        let made =
            try PythonReader.run(
                """
                import json, os, random, shutil, sqlite3, sys
                src, root = sys.argv[1], sys.argv[2]
                rng = random.Random(27)
                db = sqlite3.connect(src)
                chunks = db.execute("SELECT chunk_id, length(data) FROM fact_chunk ORDER BY chunk_id").fetchall()
                page_size = db.execute("PRAGMA page_size").fetchone()[0]
                pages = [p for (p,) in db.execute("SELECT pageno FROM dbstat WHERE name = 'fact_chunk' ORDER BY pageno")]
                db.close()
                made = []
                for i in range(120):
                    folder = f"{root}/copy-{i}"
                    os.makedirs(folder)
                    shutil.copyfile(src, folder + "/audit.sqlite")
                    flip = rng.randrange(1, 256)
                    if i < 100:
                        chunk, size = chunks[rng.randrange(len(chunks))]
                        at = rng.randrange(size)
                        c = sqlite3.connect(folder + "/audit.sqlite")
                        data = bytearray(c.execute("SELECT data FROM fact_chunk WHERE chunk_id = ?", (chunk,)).fetchone()[0])
                        data[at] ^= flip
                        c.execute("UPDATE fact_chunk SET data = ? WHERE chunk_id = ?", (bytes(data), chunk))
                        c.commit()
                        c.close()
                        made.append([folder, "blob", chunk])
                    else:
                        offset = (rng.choice(pages) - 1) * page_size + rng.randrange(page_size)
                        with open(folder + "/audit.sqlite", "r+b") as f:
                            f.seek(offset)
                            b = f.read(1)[0]
                            f.seek(offset)
                            f.write(bytes([b ^ flip]))
                        made.append([folder, "page", offset])
                print(json.dumps(made))
                """, args: [base.ledger, root]) as? [[Any]] ?? []
        XCTAssertEqual(made.count, 120)
        var unchanged: [String] = []
        var blobsDetected = 0
        for copy in made {
            let (folder, kind) = (copy[0] as! String, copy[1] as! String)
            let run = try BuiltBinary.run(["run", base.inputs, "--out", folder, "--as-of", Self.asOf, "--json"])
            switch (run.status, kind) {
            case (1, "blob"):
                let row = copy[2] as! Int
                XCTAssertTrue(run.err.contains("error: damaged ledger: fact_chunk row \(row) (facts of \(base.inputs)/"), run.err)
                XCTAssertTrue(run.err.contains(") fails its checksum: the run stopped and used nothing of it; repair: "), run.err)
                XCTAssertTrue(run.out.contains("damaged ledger: fact_chunk row \(row) "), "--json says it too: \(run.out)")
                blobsDetected += 1
            case (1, _):
                // A blob's bytes fail its checksum; a page's structure, SQLite (then the repair is a new ledger).
                XCTAssertTrue(run.err.contains("iap-audit: \(folder)/audit.sqlite: error: damaged ledger: "), "page damage: \(run.err)")
                XCTAssertTrue(
                    run.err.contains(") fails its checksum: the run stopped and used nothing of it; repair: run again")
                        || run.err.contains("; repair: move \(folder)/audit.sqlite aside and run again"), run.err)
            case (0, "page"):
                unchanged.append(folder)
            default:
                XCTFail("\(kind) damage \(copy[2]): exit \(run.status) (negative: killed by that signal)\n\(run.err)")
            }
        }
        XCTAssertEqual(blobsDetected, 100, "every corrupted blob fails its checksum")
        for (folder, findings) in zip(unchanged, try Self.findings(unchanged)) {
            XCTAssertEqual(findings, base.findings, "\(folder): exit 0 with other findings")
        }
    }

    /// The repair the message gives: the damaged file is marked to be read again, so the next run with the same inputs
    /// reads it again and stores the undamaged findings, keeping the ledger's runs.
    func testTheNextRunWithTheSameInputsRepairsTheLedger() throws {
        let base = try base()
        let folder = TestPaths.scratch("damaged-repair")
        try FileManager.default.copyItem(atPath: base.ledger, toPath: folder + "/audit.sqlite")
        let damaged =
            try PythonReader.run(
                """
                import json, sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                chunk, path = db.execute("SELECT c.chunk_id, f.path FROM fact_chunk c JOIN source_file f USING (file_id) "
                                         "WHERE c.stream = 2 ORDER BY c.chunk_id LIMIT 1").fetchone()
                data = bytearray(db.execute("SELECT data FROM fact_chunk WHERE chunk_id = ?", (chunk,)).fetchone()[0])
                data[len(data) // 2] ^= 0x10
                db.execute("UPDATE fact_chunk SET data = ? WHERE chunk_id = ?", (bytes(data), chunk))
                db.commit()
                print(json.dumps([chunk, path]))
                """, args: [folder + "/audit.sqlite"]) as? [Any] ?? []
        let (chunk, path) = (damaged[0] as! Int, damaged[1] as! String)
        let stopped = try BuiltBinary.run(["run", base.inputs, "--out", folder, "--as-of", Self.asOf])
        XCTAssertEqual(stopped.status, 1, stopped.err)
        XCTAssertEqual(
            stopped.err.split(separator: "\n").last.map { $0 + "\n" },
            "iap-audit: \(folder)/audit.sqlite: error: damaged ledger: fact_chunk row \(chunk) (facts of \(path)) fails its checksum: "
                + "the run stopped and used nothing of it; repair: run again with the same inputs: \(path) is marked to be read again "
                + "(its records and facts are replaced; the runs, the findings' history and the other files' records are kept)\n")
        let repaired = try BuiltBinary.run(["run", base.inputs, "--out", folder, "--as-of", Self.asOf])
        XCTAssertEqual(repaired.status, 0, repaired.err)
        XCTAssertEqual(try Self.findings([folder])[0], base.findings)
        let runs =
            try PythonReader.run(
                "import json, sqlite3, sys; print(json.dumps(sqlite3.connect(sys.argv[1]).execute('SELECT count(*) FROM audit_run').fetchone()[0]))",
                args: [folder + "/audit.sqlite"]) as? Int
        XCTAssertEqual(runs, 1, "the first run's record kept; the repairing run has the same inputs: a re-run")
    }

    /// A stored amount no reader writes (-2^63, whose magnitude Int64 cannot hold) stops the close naming its row; it
    /// trapped (SIGILL) in `abs`, found by setting each column of each table to an extreme value.
    func testAnAmountNoReaderStoresStopsTheCloseNamingItsRow() throws {
        let base = try base()
        let folder = TestPaths.scratch("damaged-amount")
        try FileManager.default.copyItem(atPath: base.ledger, toPath: folder + "/audit.sqlite")
        let row =
            try PythonReader.run(
                """
                import json, sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                row = db.execute("SELECT min(record_id) FROM sales_report_line WHERE layout = 'summary_sales'").fetchone()[0]
                db.execute("UPDATE sales_report_line SET customer_price_milliunits = -9223372036854775808 WHERE record_id = ?", (row,))
                db.commit()
                print(json.dumps(row))
                """, args: [folder + "/audit.sqlite"]) as? Int
        let close = try BuiltBinary.run(["close", "--period", "2026-10", "--out", folder, base.inputs])
        XCTAssertEqual(close.status, 1, close.err)
        XCTAssertTrue(
            close.err.contains(
                "error: damaged ledger: sales_report_line row \(try XCTUnwrap(row)) (read from \(base.inputs)/app-store-connect/"),
            close.err)
        XCTAssertTrue(close.err.contains(") holds an amount out of range: the run stopped and used nothing of it; repair: "), close.err)
    }

    /// A `source_file` row whose counts no run writes (SQLite checks its CHECK on write only) stops the run naming the
    /// row; they trapped (SIGILL) adding them up for the Summary sheet and the rotation check. The file marked, the next
    /// run with the same inputs reads it again and stores the undamaged findings.
    func testCountsNoRunWritesStopTheRunNamingTheFile() throws {
        let base = try base()
        for column in ["records_in", "records_rejected"] {
            let folder = TestPaths.scratch("damaged-counts-\(column)")
            try FileManager.default.copyItem(atPath: base.ledger, toPath: folder + "/audit.sqlite")
            let damaged =
                try PythonReader.run(
                    """
                    import json, sqlite3, sys
                    db = sqlite3.connect(sys.argv[1])
                    db.execute("PRAGMA ignore_check_constraints = ON")
                    row, path = db.execute("SELECT file_id, path FROM source_file WHERE path LIKE '%/server.jsonl'").fetchone()
                    db.execute(f"UPDATE source_file SET {sys.argv[2]} = 9223372036854775807 WHERE file_id = ?", (row,))
                    db.commit()
                    print(json.dumps([row, path]))
                    """, args: [folder + "/audit.sqlite", column]) as? [Any] ?? []
            let (row, path) = (try XCTUnwrap(damaged.first as? Int), try XCTUnwrap(damaged.last as? String))
            let stopped = try BuiltBinary.run(["run", base.inputs, "--out", folder, "--as-of", Self.asOf])
            XCTAssertEqual(stopped.status, 1, stopped.err)
            XCTAssertTrue(
                stopped.err.contains(
                    "error: damaged ledger: source_file row \(row) (read from \(path)) holds counts no run writes: the run stopped and "
                        + "used nothing of it; repair: run again with the same inputs: \(path) is marked to be read again"), stopped.err)
            let repaired = try BuiltBinary.run(["run", base.inputs, "--out", folder, "--as-of", Self.asOf])
            XCTAssertEqual(repaired.status, 0, repaired.err)
            XCTAssertEqual(try Self.findings([folder])[0], base.findings, column)
        }
    }

    /// XXH64 as its specification's reference gives it.
    func testTheChecksumIsXXH64() {
        func xxh64(_ text: String, seed: UInt64 = 0) -> UInt64 { Array(text.utf8).withUnsafeBytes { FactChecksum.xxh64($0, seed: seed) } }
        XCTAssertEqual(xxh64(""), 0xEF46_DB37_51D8_E999)
        XCTAssertEqual(xxh64("a"), 0xD24E_C4F1_A98C_6E5B)
        XCTAssertEqual(xxh64("abc"), 0x44BC_2CF5_AD77_0999)
        XCTAssertEqual(xxh64("Nobody inspects the spammish repetition"), 0xFBCE_A83C_8A37_8BF1)
        // Where a chunk belongs is in its checksum: the same bytes under another file, stream or partition differ.
        let sums = [(1, 2, 3), (2, 2, 3), (1, 1, 3), (1, 2, 4)].map { file, stream, part in
            Array("facts".utf8).withUnsafeBytes { FactChecksum.chunk($0, fileId: Int64(file), stream: Int64(stream), part: Int64(part)) }
        }
        XCTAssertEqual(Set(sums).count, 4)
    }

    /// Reads one fact of any kind from `bytes` the way the stages do; returns whether the reader found damage and where
    /// it stopped.
    private static func decode(_ bytes: [UInt8]) -> (damaged: Bool, at: Int) {
        bytes.withUnsafeBufferPointer { b in
            guard let base = b.baseAddress else { return (false, 0) }
            var r = FactReader(base, count: b.count)
            var ids: [FactId] = []
            var quantities: [RequestLineFact.Quantity] = []
            var items: [LinkedResponseFact.Item] = []
            var evidence: [CarrierFact.Evidence] = []
            switch FactKind(rawValue: r.u8()) {
            case .requestLine?: _ = RequestLineFact.read(&r, chunkFile: 1, ids: &ids, creditedQuantities: &quantities)
            case .linkedResponse?: _ = LinkedResponseFact.read(&r, chunkFile: 1, items: &items)
            case .client?: _ = ClientFact.read(&r, chunkFile: 1)
            case .revoke?: _ = RevokeFact.read(&r, chunkFile: 1)
            case .listing?: _ = ListingFact.read(&r, chunkFile: 1)
            case .carrier?: _ = CarrierFact.read(&r, evidence: &evidence)
            case .notification?: _ = NotificationFact.read(&r, chunkFile: 1)
            case .purchase?: _ = PurchaseFact.read(&r, chunkFile: 1)
            case .summary?: _ = FileFacts.read(&r)
            case .link?: _ = LinkFact.read(&r)
            case .holding?: _ = HoldingFact.read(&r)
            case .owner?: _ = OwnerFact.read(&r)
            case .lookup?: _ = LookupFact.read(&r, chunkFile: 1)
            case nil: r.fail()
            }
            XCTAssertLessThanOrEqual(r.at, b.count, "never past the end")
            return (r.damaged, r.at)
        }
    }

    /// Every fact kind cut short at every length is found damaged (a read past the end gives 0s, never a trap or a read
    /// outside the buffer); whole, it reads to its end undamaged. Garbage (seeded) never traps: it reads as damaged or as
    /// some fact inside the buffer.
    func testTheDecodersFindTruncatedAndGarbageFactsDamaged() throws {
        var truncations = 0
        for (kind, bytes) in FactSamples.all() {
            XCTAssertEqual(Self.decode(bytes).damaged, false, kind)
            XCTAssertEqual(Self.decode(bytes).at, bytes.count, kind)
            for cut in 1..<bytes.count {
                XCTAssertEqual(Self.decode(Array(bytes[..<cut])).damaged, true, "\(kind) cut to \(cut) bytes")
                truncations += 1
            }
        }
        XCTAssertGreaterThan(truncations, 500)
        var random = SeededBytes(seed: 27)
        var damaged = 0
        for (_, bytes) in FactSamples.all() {
            for _ in 0..<200 {
                var garbage = bytes
                for _ in 0..<4 { garbage[Int(random.next() % UInt64(garbage.count - 1)) + 1] = UInt8(truncatingIfNeeded: random.next()) }
                if Self.decode(garbage).damaged { damaged += 1 }
                let noise = (0..<Int(random.next() % 64)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                if Self.decode([bytes[0]] + noise).damaged { damaged += 1 }
            }
        }
        XCTAssertGreaterThan(damaged, 1000, "garbage is mostly found damaged")
        // A null where a value is required, a count beyond the bytes left, a code no writer writes, an over-long varint.
        var r = [UInt8]([0]).withUnsafeBufferPointer { FactReader($0.baseAddress!, count: 1) }
        _ = r.requiredText()
        XCTAssertTrue(r.damaged)
        for bytes: [UInt8] in [[5, 1, 2], [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01], [0x80]] {
            bytes.withUnsafeBufferPointer { b in
                var r = FactReader(b.baseAddress!, count: b.count)
                XCTAssertEqual(r.count(), 0, "\(bytes)")
                XCTAssertTrue(r.damaged, "\(bytes)")
                XCTAssertTrue(r.isAtEnd)
            }
        }
        [UInt8]([200]).withUnsafeBufferPointer { b in
            var r = FactReader(b.baseAddress!, count: 1)
            XCTAssertEqual(r.element(of: EvidenceSource.allCases), EvidenceSource.allCases[0])
            XCTAssertTrue(r.damaged, "no source has code 200")
        }
    }

    /// A stored summary cut short is refused with the error naming it, not read (the summaries are decoded outside the
    /// stages too).
    func testATruncatedSummaryThrows() throws {
        let summary = FactSamples.all().first { $0.kind == "summary" }!.bytes
        XCTAssertNoThrow(try summary.withUnsafeBytes { try FileFacts(decoding: $0, fileId: 3) })
        XCTAssertThrowsError(try Array(summary.dropLast()).withUnsafeBytes { try FileFacts(decoding: $0, fileId: 3) }) {
            XCTAssertEqual("\($0)", "damaged facts: the summary of file id 3 cannot be decoded")
        }
        XCTAssertThrowsError(try [UInt8]().withUnsafeBytes { try FileFacts(decoding: $0, fileId: 3) })
    }
}

/// splitmix64: the same bytes on every platform and run.
private struct SeededBytes {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return FactKey.mix(state &- 0x9E37_79B9_7F4A_7C15)
    }
}
