import Foundation
import XCTest

@testable import IAPAuditCLI
@testable import IAPAuditCrypto
@testable import IAPAuditIngest
@testable import IAPAuditModel
@testable import IAPAuditPipeline
@testable import IAPAuditReconcile
@testable import IAPAuditReport
@testable import IAPAuditSample
@testable import IAPAuditStore

final class SampleGeneratorTests: XCTestCase {
    /// Every kind/reason the generator must plant at least once (semantics.md rules 8–14).
    static let required = [
        "dropped_order/never_sent", "dropped_order/no_verify_response", "dropped_order/verify_failed",
        "dropped_order/not_in_receipt", "dropped_order/not_credited", "dropped_order/in_receipt_never_credited",
        "duplicate_credit/same_user", "duplicate_credit/cross_account", "duplicate_credit/restore_credited_as_purchase",
        "sandbox_leak/sandbox_credited", "refund_still_granted/cancelled_not_revoked",
        "invalid_credit/nonzero_status", "invalid_credit/no_verify_response", "invalid_credit/not_in_receipt",
        "invalid_credit/bundle_mismatch",
        "verification_backlog/no_verify_response", "verification_backlog/retryable_status",
        "pending_verification/no_verify_response", "pending_verification/retryable_status",
    ]
    /// Info kinds whose reason docs/semantics.md leaves open: only the kind is required.
    static let requiredKinds = ["sandbox_allowlisted", "sandbox_refused", "regranted"]

    private var directories: [String] = []

    override func tearDown() {
        for directory in directories { try? FileManager.default.removeItem(atPath: directory) }
        directories = []
        super.tearDown()
    }

    private func generate(transactions: Int, seed: UInt64) throws -> (String, SampleSummary) {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("iap-sample-\(UUID().uuidString)").appendingPathComponent("nested").path
        directories.append((directory as NSString).deletingLastPathComponent)
        let summary = try SampleGenerator(transactions: transactions, seed: seed).write(to: directory)
        return (directory, summary)
    }

    private func text(_ directory: String, _ name: String) throws -> String {
        try String(contentsOfFile: (directory as NSString).appendingPathComponent(name), encoding: .utf8)
    }

    private func lines(_ directory: String, _ name: String) throws -> [String] {
        try text(directory, name).split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    private func object(_ line: String) throws -> [String: Any] {
        let value = try JSONSerialization.jsonObject(with: Data(line.utf8))
        return try XCTUnwrap(value as? [String: Any], "not a JSON object: \(line.prefix(200))")
    }

    private func key(_ directory: String) throws -> [String: Any] {
        try object(text(directory, "answer-key.json"))
    }

    private func findings(_ key: [String: Any]) throws -> [[String: String]] {
        try XCTUnwrap(key["findings"] as? [[String: String]])
    }

    func testSameSeedGivesByteIdenticalFiles() throws {
        let (first, _) = try generate(transactions: 700, seed: 42)
        let (second, _) = try generate(transactions: 700, seed: 42)
        let (other, _) = try generate(transactions: 700, seed: 43)
        for name in SampleGenerator.fileNames {
            XCTAssertEqual(try text(first, name), try text(second, name), name)
        }
        XCTAssertNotEqual(try text(first, "verify.jsonl"), try text(other, "verify.jsonl"))
    }

    func testEveryKindAndReasonIsPlantedAtLeastThreeTimes() throws {
        let (directory, summary) = try generate(transactions: 2000, seed: 1)
        let rows = try findings(key(directory))
        var counts: [String: Int] = [:]
        for row in rows { counts["\(row["kind"]!)/\(row["reason"]!)", default: 0] += 1 }
        for label in SampleGeneratorTests.required {
            XCTAssertGreaterThanOrEqual(counts[label] ?? 0, 3, label)
        }
        for kind in SampleGeneratorTests.requiredKinds {
            XCTAssertGreaterThanOrEqual(rows.filter { $0["kind"] == kind }.count, 3, kind)
        }
        XCTAssertEqual(summary.transactions, 2001, "2,000 and the support ticket's lost order (planted after them)")
        XCTAssertEqual(summary.plantedFindings, rows.count)
        XCTAssertEqual(summary.planted, counts)
        XCTAssertEqual(summary.asOf, "2026-10-31T00:00:00Z")
    }

    func testKeyIsSortedAndCountsMatchTheFiles() throws {
        let (directory, _) = try generate(transactions: 600, seed: 9)
        let key = try key(directory)
        let rows = try findings(key)
        let tuples = rows.map { [$0["kind"]!, $0["reason"]!, $0["transaction_id"]!] }
        XCTAssertEqual(tuples, tuples.sorted { $0.lexicographicallyPrecedes($1) })
        XCTAssertEqual(Set(tuples.map { $0.joined(separator: " ") }).count, rows.count, "duplicate rows")
        let planted = try XCTUnwrap(key["planted"] as? [String: Int])
        XCTAssertEqual(planted.values.reduce(0, +), rows.count)
        let counts = try XCTUnwrap(key["counts"] as? [String: Int])
        let csvRows = try lines(directory, "client.csv").count - 1
        XCTAssertEqual(counts["client_lines"], try lines(directory, "client.jsonl").count + csvRows)
        XCTAssertEqual(counts["client_csv_lines"], csvRows)
        XCTAssertEqual(counts["server_lines"], try lines(directory, "server.jsonl").count)
        XCTAssertEqual(counts["verify_lines"], try lines(directory, "verify.jsonl").count)
        XCTAssertEqual(counts["signed_lines"], try lines(directory, "signed.jsonl").count)
        XCTAssertEqual(counts["history_lines"], try lines(directory, "history.jsonl").count)
        XCTAssertEqual(counts["notification_lines"], try lines(directory, "notifications.jsonl").count)
        XCTAssertGreaterThan(csvRows, 0)
    }

    func testEveryLineParses() throws {
        let (directory, _) = try generate(transactions: 2000, seed: 1)
        for name in ["client.jsonl", "server.jsonl", "verify.jsonl", "signed.jsonl", "history.jsonl", "notifications.jsonl"] {
            for line in try lines(directory, name) { _ = try object(line) }
        }
        _ = try object(text(directory, "config.json"))
        _ = try key(directory)
        let csv = try lines(directory, "client.csv")
        XCTAssertEqual(csv.first, SampleClientLine.csvHeader)
        for row in csv.dropFirst() {
            let fields = try CSVRecords.fields(row)
            XCTAssertEqual(fields.count, 9, row)
            XCTAssertNotNil(Int64(fields[0]), "ts must be epoch milliseconds: \(row)")
        }
    }

    func testKeyIdsExistInTheFiles() throws {
        let (directory, _) = try generate(transactions: 2000, seed: 1)
        var ids = Set<String>()
        func add(_ value: Any?) {
            if let s = value as? String { ids.insert(s) } else if let n = value as? NSNumber { ids.insert(n.stringValue) }
        }
        func addItems(_ value: Any?) {
            if let one = value as? [String: Any] { add(one["transaction_id"]) }
            for item in value as? [[String: Any]] ?? [] { add(item["transaction_id"]) }
        }
        for line in try lines(directory, "client.jsonl") { add(try object(line)["transaction_id"]) }
        for row in try lines(directory, "client.csv").dropFirst() { add(try CSVRecords.fields(row)[3]) }
        for line in try lines(directory, "server.jsonl") {
            for id in try object(line)["transaction_ids"] as? [Any] ?? [] { add(id) }
        }
        for line in try lines(directory, "verify.jsonl") {
            let response = try XCTUnwrap(try object(line)["response"] as? [String: Any])
            let receipt = response["receipt"] as? [String: Any]
            addItems(receipt?["in_app"])
            add(receipt?["transaction_id"])
            addItems(response["latest_receipt_info"])
        }
        // Apple's signed transactions: answers to requests, Server API pages, notifications.
        func addSigned(_ jws: Any?) throws {
            guard let jws = jws as? String else { return }
            let payload = try TestJWS(jws).payload
            add(payload["transactionId"])
            if let data = payload["data"] as? [String: Any] { try addSigned(data["signedTransactionInfo"]) }
        }
        for line in try lines(directory, "signed.jsonl") { try addSigned(try object(line)["signed_transaction"]) }
        for line in try lines(directory, "notifications.jsonl") { try addSigned(try object(line)["signedPayload"]) }
        for line in try lines(directory, "history.jsonl") {
            for jws in try object(line)["signedTransactions"] as? [Any] ?? [] { try addSigned(jws) }
        }
        for line in try lines(directory, "order-lookup.jsonl") {
            let response = try XCTUnwrap(try object(line)["response"] as? [String: Any])
            for jws in response["signedTransactions"] as? [Any] ?? [] { try addSigned(jws) }
        }
        for row in try findings(key(directory)) {
            XCTAssertTrue(ids.contains(row["transaction_id"]!), "\(row) not in the files")
        }
    }

    func testIdsAboveTwoToThe53AreJSONNumbers() throws {
        let (directory, _) = try generate(transactions: 2000, seed: 1)
        let verify = try text(directory, "verify.jsonl")
        XCTAssertTrue(verify.contains("\"transaction_id\":9223372036854775001"))
        let bigInKey = try findings(key(directory)).filter { $0["transaction_id"]!.count == 19 }
        XCTAssertFalse(bigInKey.isEmpty)
        for row in bigInKey {
            XCTAssertTrue(verify.contains("\"transaction_id\":\(row["transaction_id"]!)"))
        }
    }

    func testConfigLeavesOneProductOut() throws {
        let (directory, _) = try generate(transactions: 600, seed: 3)
        let config = try object(text(directory, "config.json"))
        let products = try XCTUnwrap(config["products"] as? [String: String])
        XCTAssertNil(products[SampleCatalog.unknownProduct])
        XCTAssertTrue(try text(directory, "verify.jsonl").contains(SampleCatalog.unknownProduct))
        XCTAssertEqual(config["bundle_ids"] as? [String], ["com.example.app"])
    }

    /// The generator's own calendar agrees with the tool's: fiscal October 2026 by Apple's rule, and the
    /// Pacific-time days of the month's edges (Summary Sales days).
    func testFiscalOctoberAndPacificDaysAreApples() throws {
        let october = FiscalCalendar().dates(of: try XCTUnwrap(FiscalMonth(named: 10, of: 2026)))
        XCTAssertEqual(SampleClock.fiscalOctober.first, "\(october.lowerBound)")
        XCTAssertEqual(SampleClock.fiscalOctober.last, "\(october.upperBound)")
        XCTAssertEqual(SampleClock.fiscalOctober.first, "2026-09-27")
        let pacific = try PeriodTimeZone(parsing: "America/Los_Angeles")
        for t in [SampleClock.start, SampleClock.start + 7 * 3600 - 1, SampleClock.start + 7 * 3600, SampleClock.periodEnd + 9000] {
            XCTAssertEqual(SampleClock.pacificDay(t), "\(pacific.date(containing: t * 1000))", SampleClock.iso(t))
        }
        XCTAssertEqual(SampleClock.pacificDay(SampleClock.periodEnd + 9000), "2026-10-31")
    }

    func testPacificTimeFollowsDaylightSaving() {
        XCTAssertEqual(SampleClock.pacific(SampleClock.start), "2026-09-30 17:00:00 America/Los_Angeles")
        XCTAssertEqual(SampleClock.pacific(1_797_811_200), "2026-12-20 16:00:00 America/Los_Angeles")  // 2026-12-21T00:00Z
        XCTAssertEqual(SampleClock.gmt(SampleClock.end), "2026-10-31 00:00:00 Etc/GMT")
        XCTAssertEqual(SampleClock.iso(951_782_400), "2000-02-29T00:00:00Z")
    }
}
