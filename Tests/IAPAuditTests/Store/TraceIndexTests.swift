import Foundation
import Synchronization
import XCTest

@testable import IAPAuditModel
@testable import IAPAuditPipeline
@testable import IAPAuditStore

/// `trace`'s indexes (docs/schema.md, Indexes): not built by `run` (they would add about a fifth to it),
/// built by `trace` (`TraceReader.buildIndexes`), kept while the ledger does not change, dropped by a run
/// that changes it; and every lookup of `trace` goes through its index (SQLite's query plan says so).
final class TraceIndexTests: XCTestCase {
    static let caseFolder = TestPaths.repoRoot + "/Tests/IAPAuditTests/Fixtures/cases/order-id-lookup-lost-order"

    func testKeptWhileTheLedgerDoesNotChange() throws {
        let input = TestPaths.scratch("traceindexinput")
        let out = TestPaths.scratch("traceindexout")
        for name in ["client.jsonl", "server.jsonl", "verify.jsonl", "order-lookup.jsonl"] {
            try FileManager.default.copyItem(atPath: Self.caseFolder + "/" + name, toPath: input + "/" + name)
        }
        let ledger = out + "/audit.sqlite"
        let run = { _ = try AuditPipeline.run(AuditOptions(paths: [input], outputDirectory: out)) }
        try run()
        XCTAssertEqual(try TraceReader.missingIndexes(ledgerPath: ledger), Schema.traceIndexNames)
        try TraceReader.buildIndexes(ledgerPath: ledger)
        XCTAssertEqual(try TraceReader.missingIndexes(ledgerPath: ledger), [])
        try run()  // nothing changed: kept
        XCTAssertEqual(try TraceReader.missingIndexes(ledgerPath: ledger), [])
        let client = try String(contentsOfFile: input + "/client.jsonl", encoding: .utf8)
        try (client + client.replacingOccurrences(of: "2000000400000101", with: "2000000400000103")).write(
            toFile: input + "/client.jsonl", atomically: true, encoding: .utf8)
        try run()  // a file changed: dropped
        XCTAssertEqual(try TraceReader.missingIndexes(ledgerPath: ledger), Schema.traceIndexNames)
        // Read without them all the same.
        XCTAssertEqual(
            try TraceReader.read(id: "MK5TTTVWJH", ledgerPath: ledger).transactions.map(\.transactionId),
            [
                "2000000400000101", "2000000400000102",
            ])
        try TraceReader.buildIndexes(ledgerPath: ledger)
        XCTAssertEqual(try TraceReader.missingIndexes(ledgerPath: ledger), [])
    }

    /// Traces starting at once on a ledger without the indexes: one builds them, the others wait for it and build
    /// nothing (helper-35 D5: each said "built the ledger's trace indexes", the others having checked before the
    /// first had built).
    func testTracesStartingAtOnceBuildTheIndexesOnce() throws {
        let out = TestPaths.scratch()
        addTeardownBlock { try? FileManager.default.removeItem(atPath: out) }
        _ = try AuditPipeline.run(AuditOptions(paths: [TestPaths.repoRoot + "/sample-data"], outputDirectory: out))
        let ledger = out + "/audit.sqlite"
        let built = Mutex<[Bool]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            let result = Result { try TraceReader.buildIndexes(ledgerPath: ledger) }
            built.withLock { $0.append((try? result.get()) ?? true) }
        }
        XCTAssertEqual(built.withLock { $0.sorted { !$0 && $1 } }, [false, false, false, true])
        XCTAssertEqual(try TraceReader.missingIndexes(ledgerPath: ledger), [])
        XCTAssertFalse(try TraceReader.buildIndexes(ledgerPath: ledger), "built already")
    }

    /// An id that matched nothing is offered the same near matches with the lookup indexes and without any (a
    /// ledger the trace may not write, and the run's own dropped here too): the nearest id is among the 200 read in
    /// id order, not in table order (helper-35: without them, 2000000400594o87 was offered 2000000400594687 first
    /// and not 2000000400594087, one character off).
    func testNearMatchesAreTheSameWithoutTheIndexes() throws {
        let root = TestPaths.scratch()
        addTeardownBlock { try? FileManager.default.removeItem(atPath: root) }
        let near = { (ledger: String, id: String) in
            try TraceReader.read(id: id, ledgerPath: ledger).nearMatches.map { "\($0.id) \($0.why)" }
        }
        let ids = ["2000000400594o87", "200000040059487", "20000004005948", "u4O1", "MK5TTTVWJ"]
        var read: [[[String]]] = []
        for indexed in [false, true] {
            let out = root + "/\(indexed)"
            _ = try AuditPipeline.run(AuditOptions(paths: [TestPaths.repoRoot + "/sample-data"], outputDirectory: out))
            let ledger = out + "/audit.sqlite"
            if indexed {
                try TraceReader.buildIndexes(ledgerPath: ledger)
            } else {
                try SQLiteDatabase(path: ledger).execute(Schema.dropIndexes)
            }
            read.append(try ids.map { try near(ledger, $0) })
        }
        XCTAssertEqual(read[0], read[1])
        XCTAssertEqual(read[0][0].first, "2000000400594087 one character different near its end")
    }

    /// The lookups `TraceReader` makes, each answered through the index of its kind of id.
    func testEveryLookupUsesItsIndex() throws {
        let out = TestPaths.scratch("traceindexplans")
        _ = try AuditPipeline.run(AuditOptions(paths: [Self.caseFolder], outputDirectory: out))
        try TraceReader.buildIndexes(ledgerPath: out + "/audit.sqlite")
        let lookups: [(String, String)] = [
            ("client_report_transaction", "SELECT 1 FROM client_report WHERE transaction_id = 'x'"),
            ("apple_transaction_id", "SELECT 1 FROM apple_transaction WHERE transaction_id = 'x'"),
            ("finding_transaction", "SELECT 1 FROM finding WHERE transaction_id = 'x'"),
            ("server_request_ids", "SELECT 1 FROM server_request WHERE transaction_ids >= '[\"x\"' AND transaction_ids < '[\"x#'"),
            (
                "apple_transaction_original",
                "SELECT 1 FROM apple_transaction WHERE original_transaction_id = 'x' AND original_transaction_id <> transaction_id"
            ),
            (
                "client_report_original",
                "SELECT 1 FROM client_report WHERE original_transaction_id = 'x' AND original_transaction_id <> transaction_id"
            ),
            ("apple_record_order", "SELECT 1 FROM apple_record WHERE order_id = 'x'"),
            ("client_report_user", "SELECT 1 FROM client_report WHERE user_id = 'x'"),
            ("server_request_user", "SELECT 1 FROM server_request s WHERE s.user_id = 'x'"),
            ("client_report_device", "SELECT 1 FROM client_report WHERE device_id = 'x'"),
            ("server_request_device", "SELECT 1 FROM server_request s WHERE s.device_id = 'x'"),
            ("server_request_request", "SELECT 1 FROM server_request s WHERE s.request_id = 'x'"),
            ("apple_record_request", "SELECT 1 FROM apple_record WHERE request_id = 'x'"),
            ("apple_transaction_line_item", "SELECT 1 FROM apple_transaction WHERE web_order_line_item_id = 'x'"),
            ("finding_original", "SELECT 1 FROM finding WHERE original_transaction_id = 'x' AND transaction_id <> 'y'"),
            ("finding_state_transaction", "SELECT 1 FROM finding_state WHERE transaction_id = 'x' AND status = 'resolved'"),
            ("PRIMARY KEY", "SELECT status FROM finding_state WHERE finding_id = 'x'"),  // a finding's state, by its id
        ]
        let plans =
            try PythonReader.run(
                """
                import json, sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                print(json.dumps([' '.join(r[3] for r in db.execute('EXPLAIN QUERY PLAN ' + q)) for q in json.loads(sys.argv[2])]))
                """,
                args: [
                    out + "/audit.sqlite",
                    String(decoding: try JSONSerialization.data(withJSONObject: lookups.map(\.1)), as: UTF8.self),
                ]) as? [String]
        for (plan, (index, query)) in zip(try XCTUnwrap(plans), lookups) {
            XCTAssertTrue(
                ["USING INDEX ", "USING COVERING INDEX ", "USING "].contains { plan.contains($0 + index) }, "\(query): \(plan)")
        }
    }
}
