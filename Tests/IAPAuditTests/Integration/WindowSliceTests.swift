import Foundation
import XCTest

@testable import IAPAuditModel
@testable import IAPAuditPipeline

/// semantics.md rule 17 on a one-day slice of the sample month: the day's logs and Apple's answers of that
/// day, whose receipts list purchases of earlier days (renewal chains, earlier purchases, a customer's
/// history from before the month). Audited alone, the slice must not turn that history into problems,
/// and every problem it reports must be one the whole month's run reports too, or one whose story
/// crosses the day's edge (a record of the transaction lies outside the slice).
final class WindowSliceTests: XCTestCase {
    static let dayStart = Timestamp.parseMs("2026-10-15T00:00:00Z")!
    static let dayEnd = Timestamp.parseMs("2026-10-16T00:00:00Z")!

    var sampleData: String { TestPaths.repoRoot + "/sample-data" }

    /// One input line with its time and the transaction ids it names.
    struct Line {
        var text: String
        var ms: Int64
        var ids: Set<String>
        /// Apple's purchase date of each transaction an Apple answer lists.
        var purchases: [String: Int64] = [:]
    }

    /// The committed sample month (planted stories, a customer history from before the month).
    func testOneDayOfTheSampleMonth() throws {
        let config = try ConfigLoader.load(path: sampleData + "/config.json")
        let crossing = try checkSlice(
            of: sampleData, files: ["client.jsonl", "client.csv", "server.jsonl", "verify.jsonl", "signed.jsonl"], config: config,
            minimumHistory: 20)
        XCTAssertEqual(crossing.crossing, [:])
    }

    /// A month made by the benchmark's generator (`../shared/bench/gen.py`), whose receipts list each
    /// user's recent purchases: the case of the issue (496 dropped orders for one day's logs, 22 in the
    /// month's run).
    func testOneDayOfAGeneratedMonth() throws {
        let generator = TestPaths.repoRoot + "/../shared/bench/gen.py"
        try XCTSkipUnless(FileManager.default.fileExists(atPath: generator), "needs ../shared/bench/gen.py")
        let month = TestPaths.scratch()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", generator, "--n", "30000", "--seed", "7", "--out", month]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        let crossing = try checkSlice(
            of: month, files: ["client.jsonl", "server.jsonl", "verify.jsonl"], config: AuditConfig(), minimumHistory: 500)
        // 27 before rule 26: the day's logs end within the grace of 8 of them, pending_evidence now.
        XCTAssertEqual(crossing.problems, 19)
        // Each of the day's 19 problems is also the month's: no story of this seed crosses the day's edge
        // in a way that changes its finding (a purchase reported at 23:59 and sent after midnight would).
        XCTAssertEqual(crossing.crossing, [:])
    }

    /// Audits the day alone and the whole month; checks that history from before the day is no problem
    /// (each such purchase is `outside_window`), and that every problem of the day is the month's or
    /// has a record beyond the day's edge. Returns the day's problems, and those crossing the edge counted
    /// by kind/reason.
    func checkSlice(of folder: String, files: [String], config: AuditConfig, minimumHistory: Int) throws -> (
        problems: Int, crossing: [String: Int]
    ) {
        let slice = TestPaths.scratch() + "/day"
        try FileManager.default.createDirectory(atPath: slice, withIntermediateDirectories: true)
        var outside = Set<String>()  // ids named by a line outside the day
        var appleOnlyBefore: [String: Int64] = [:]  // listed by the day's answers, bought before the day
        var logged = Set<String>()  // ids the day's client and server lines name
        for name in files {
            let text = try String(contentsOfFile: folder + "/" + name, encoding: .utf8)
            var lines = text.split(separator: "\n").map(String.init)
            let header = name.hasSuffix(".csv") ? lines.removeFirst() : nil
            var kept: [String] = header.map { [$0] } ?? []
            for raw in lines {
                let line = try Self.parse(raw, name)
                guard (Self.dayStart..<Self.dayEnd).contains(line.ms) else {
                    outside.formUnion(line.ids)
                    continue
                }
                kept.append(raw)
                if name == "verify.jsonl" || name == "signed.jsonl" {
                    for (id, ms) in line.purchases where ms < Self.dayStart { appleOnlyBefore[id] = ms }
                } else {
                    logged.formUnion(line.ids)
                }
            }
            try (kept.joined(separator: "\n") + "\n").write(toFile: slice + "/" + name, atomically: true, encoding: .utf8)
        }
        for id in logged { appleOnlyBefore[id] = nil }
        let day = try AuditPipeline.run(AuditOptions(paths: [slice], outputDirectory: slice + "-out", config: config))
        let month = try AuditPipeline.run(AuditOptions(paths: [folder], outputDirectory: slice + "-month", config: config))
        let dayFindings = try day.snapshot.findings.all()
        let monthProblems = Set(try month.snapshot.findings.all().filter { !$0.kind.isInfo }.map(Self.key))

        // The history the day's receipts carry: from before the day's first log line, so outside the window.
        XCTAssertGreaterThan(appleOnlyBefore.count, minimumHistory, "the day's receipts list earlier purchases")
        let problemIds = Set(dayFindings.filter { !$0.kind.isInfo }.map(\.transactionId))
        XCTAssertEqual(problemIds.intersection(appleOnlyBefore.keys).sorted(), [], "history from before the slice is no problem")
        let outsideWindow = dayFindings.filter { $0.kind == .outsideWindow }
        XCTAssertEqual(outsideWindow.filter { $0.reason != "before_window" || appleOnlyBefore[$0.transactionId] == nil }.map(Self.key), [])
        XCTAssertGreaterThan(outsideWindow.count, minimumHistory)
        XCTAssertEqual(day.snapshot.parameters["audit_window"]?.hasSuffix("(the earliest log ts); no end"), true)

        // Every problem of the day is the month's, or its transaction has records beyond the day's edge.
        let extra = dayFindings.filter { !$0.kind.isInfo && !monthProblems.contains(Self.key($0)) }
        for f in extra {
            XCTAssertTrue(outside.contains(f.transactionId), "\(Self.key(f)): no record outside the day explains it")
        }
        var crossing: [String: Int] = [:]
        for f in extra { crossing["\(f.kind.rawValue)/\(f.reason)", default: 0] += 1 }
        return (problemIds.count, crossing)
    }

    static func key(_ f: Finding) -> String { "\(f.kind.rawValue)/\(f.reason)/\(f.transactionId)" }

    /// The time of a line (client and server `ts`, Apple's `received_at`), the ids it names, and for an
    /// Apple answer the purchase date of each transaction it lists.
    static func parse(_ raw: String, _ name: String) throws -> Line {
        if name.hasSuffix(".csv") {
            let fields = raw.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            return Line(text: raw, ms: Int64(fields[0])!, ids: Set([fields[3], fields[4]].filter { !$0.isEmpty }))
        }
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(raw.utf8)) as? [String: Any])
        let time = try XCTUnwrap((object["ts"] ?? object["received_at"]) as? String)
        var line = Line(text: raw, ms: try XCTUnwrap(Timestamp.parseMs(time)), ids: [])
        func walk(_ value: Any) {
            if let dict = value as? [String: Any] {
                if let id = dict["transaction_id"].map({ "\($0)" }), id != "<null>" {
                    line.ids.insert(id)
                    if let ms = (dict["purchase_date_ms"] as? String).flatMap({ Int64($0) }) { line.purchases[id] = ms }
                }
                // A signed transaction answering the request (App Store Server API): its decoded payload.
                if let jws = dict["signed_transaction"] as? String, let payload = try? TestJWS(jws).payload,
                    let id = payload["transactionId"] as? String
                {
                    line.ids.insert(id)
                    line.purchases[id] = (payload["purchaseDate"] as? NSNumber)?.int64Value
                }
                for key in ["transaction_ids", "credited_transaction_ids"] {
                    for id in dict[key] as? [Any] ?? [] { line.ids.insert("\(id)") }
                }
                for child in dict.values { walk(child) }
            } else if let array = value as? [Any] {
                for child in array { walk(child) }
            }
        }
        walk(object)
        return line
    }
}
