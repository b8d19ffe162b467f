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

/// `run` on the committed sample-data/ finds exactly what its answer key lists: every planted
/// anomaly, nothing else. The outputs are read back with independent readers.
final class SampleDataTests: XCTestCase {
    static let out = TestPaths.scratch("sampledata")
    nonisolated(unsafe) static var result: AuditResult?

    var sampleData: String { TestPaths.repoRoot + "/sample-data" }

    func audit() throws -> AuditResult {
        if let result = Self.result { return result }
        let config = try ConfigLoader.load(path: sampleData + "/config.json")
        let result = try AuditPipeline.run(AuditOptions(paths: [sampleData], outputDirectory: Self.out, config: config))
        Self.result = result
        return result
    }

    func answerKey() throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: sampleData + "/answer-key.json"))
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func testFindingsEqualTheAnswerKey() throws {
        let key = try XCTUnwrap(try answerKey()["findings"] as? [[String: String]])
        // A dropped order also says whether Apple confirms it (rule 22).
        let expected = key.map { "\($0["kind"]!)/\($0["reason"]!)/\($0["transaction_id"]!)/\($0["apple_confirmation"] ?? "-")" }.sorted()
        let found = try audit().snapshot.findings.all().map {
            "\($0.kind.rawValue)/\($0.reason)/\($0.transactionId)/\($0.appleConfirmation?.rawValue ?? "-")"
        }.sorted()
        let missing = Set(expected).subtracting(found).sorted()
        let extra = Set(found).subtracting(expected).sorted()
        XCTAssertEqual(missing, [], "planted but not found")
        XCTAssertEqual(extra, [], "found but not planted")
        XCTAssertEqual(found, expected)
        for kind in FindingKind.allCases {
            XCTAssertTrue(found.contains { $0.hasPrefix(kind.rawValue + "/") }, "sample plants \(kind.rawValue)")
        }
    }

    func testEveryLineIsAccountedFor() throws {
        let files = try audit().snapshot.files
        let counts = try XCTUnwrap(try answerKey()["counts"] as? [String: Int])
        for f in files where f.status == "imported" {
            XCTAssertEqual(f.recordsIn, f.recordsImported + f.recordsRejected, f.path)
        }
        func records(_ suffix: String) -> Int64 { files.first { $0.path.hasSuffix(suffix) }?.recordsIn ?? -1 }
        XCTAssertEqual(records("/server.jsonl"), Int64(counts["server_lines"] ?? -2))
        XCTAssertEqual(records("/verify.jsonl"), Int64(counts["verify_lines"] ?? -2))
        XCTAssertEqual(records("/client.jsonl") + records("/client.csv") - 0, Int64(counts["client_lines"] ?? -2))
        XCTAssertEqual(records("/signed.jsonl"), Int64(counts["signed_lines"] ?? -2))
        XCTAssertEqual(records("/history.jsonl"), Int64(counts["history_lines"] ?? -2))
        XCTAssertEqual(records("/notifications.jsonl"), Int64(counts["notification_lines"] ?? -2))
        // App Store Connect's reports: every line a record (Summary Sales rows, Financial rows and their
        // totals, the payments summary's regions, total and bank line).
        let reports = files.filter { $0.path.contains("/app-store-connect/") }
        XCTAssertEqual(reports.count, 36)
        XCTAssertEqual(reports.filter { $0.status != "imported" || $0.recordsRejected != 0 }.map(\.path), [])
    }

    /// The SQLite file read back with Python's sqlite3: findings by kind equal the store's, views answer.
    func testSQLiteReadBack() throws {
        let result = try audit()
        let read =
            try PythonReader.run(
                """
                import json, sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                out = {
                  "by_kind": {k: n for k, n in db.execute("SELECT kind, sum(findings) FROM finding_by_kind_reason GROUP BY kind")},
                  "strict": [r[0] for r in db.execute("SELECT name FROM sqlite_schema WHERE type = 'table' AND sql NOT LIKE '%STRICT%'")],
                  "statuses": {str(s): n for s, n in db.execute("SELECT status, responses FROM verify_status_distribution")},
                  "latency": list(db.execute("SELECT requests, p50_ms, max_ms FROM latency_percentiles").fetchone()),
                  "files_in": db.execute("SELECT sum(records_in), sum(records_imported), sum(records_rejected) FROM source_file").fetchone(),
                  "rejections": db.execute("SELECT count(*) FROM rejection").fetchone()[0],
                  # Evidence is a JSON array of file:line texts; a finding without any is a defect.
                  "without_evidence": db.execute("SELECT count(*) FROM finding WHERE NOT json_valid(evidence) OR json_array_length(evidence) = 0 OR evidence NOT LIKE '%:%'").fetchone()[0],
                  "findings": db.execute("SELECT count(*) FROM finding").fetchone()[0],
                  "info_severity": db.execute("SELECT DISTINCT severity FROM finding WHERE kind IN ('sandbox_allowlisted','sandbox_refused','pending_verification','regranted')").fetchall(),
                  # Apple's signed records (by the sample's test CA, config.json's jws_trust_anchors): each transaction's signature.
                  "signed": {s: n for s, n in db.execute("SELECT t.signature, count(*) FROM apple_transaction t JOIN apple_record r ON r.record_id = t.record_id WHERE r.source != 'verify_receipt' GROUP BY t.signature")},
                }
                print(json.dumps(out))
                """, args: [Self.out + "/audit.sqlite"]) as! [String: Any]
        var byKind: [String: Int] = [:]
        for f in try result.snapshot.findings.all() { byKind[f.kind.rawValue, default: 0] += 1 }
        XCTAssertEqual(read["by_kind"] as? [String: Int], byKind)
        XCTAssertEqual(read["strict"] as? [String], [], "every table is STRICT")
        XCTAssertEqual(read["without_evidence"] as? Int, 0, "every finding names its evidence (file:line)")
        XCTAssertEqual(read["findings"] as? Int, byKind.values.reduce(0, +))
        XCTAssertEqual(read["info_severity"] as? [[String]], [["info"]])
        XCTAssertEqual(read["signed"] as? [String: Int], ["verified": 434], "every signed transaction of the sample verifies")
        let totals = read["files_in"] as! [Int]
        XCTAssertEqual(totals[0], totals[1] + totals[2])
        XCTAssertEqual(totals[2], read["rejections"] as? Int)
        var statuses: [String: Int] = [:]
        for s in result.snapshot.statuses { statuses[String(s.status)] = Int(s.responses) }
        XCTAssertEqual(read["statuses"] as? [String: Int], statuses)
        XCTAssertEqual((read["latency"] as? [Int])?.first, Int(result.snapshot.latency.requests))
    }

    /// Support's view: every record about one transaction, in one query.
    func testTransactionEvidenceView() throws {
        _ = try audit()
        let key = try XCTUnwrap(try answerKey()["findings"] as? [[String: String]])
        let id = try XCTUnwrap(key.first { $0["reason"] == "cross_account" }?["transaction_id"])
        let rows =
            try PythonReader.run(
                """
                import json, sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                print(json.dumps([r[0] for r in db.execute(
                    "SELECT source FROM transaction_evidence WHERE transaction_id = ? ORDER BY source, time", (sys.argv[2],))]))
                """, args: [Self.out + "/audit.sqlite", id]) as? [String]
        // Two accounts were granted it: the finding is listed once for each.
        XCTAssertEqual(
            rows, ["client_report", "finding", "finding", "server_request", "server_request", "verify_receipt", "verify_receipt"])
    }

    /// A granted request that credited only part of what it carried (`credited_transaction_ids`, the
    /// sample's `dropped_order/not_credited` batch): its line is evidence of both ids, and says which one
    /// it did not credit.
    func testTransactionEvidenceSaysWhatAGrantedRequestDidNotCredit() throws {
        _ = try audit()
        func requests(_ id: String) throws -> [String] {
            try PythonReader.run(
                """
                import json, os, sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                print(json.dumps([os.path.basename(f) + ':' + str(l) + ' ' + d for f, l, d in db.execute(
                    "SELECT file, line, detail FROM transaction_evidence WHERE transaction_id = ? AND source = 'server_request' "
                    "ORDER BY time", (sys.argv[2],))]))
                """, args: [Self.out + "/audit.sqlite", id]) as! [String]
        }
        XCTAssertEqual(
            try requests("2000000400594110"),
            [
                "server.jsonl:1022 verify rd2d18764625a26ec, granted but did not credit this id (credited 2000000400594109), "
                    + "logged status 0, Production"
            ])
        XCTAssertEqual(
            try requests("2000000400594109"), ["server.jsonl:1022 verify rd2d18764625a26ec, granted, logged status 0, Production"])
    }

    /// The sample's run warns only about what it holds: its environment conflicts and iOS 6 answers, never
    /// a missing receipt trust anchor (it holds JWS, verified by the sample CA, and no PKCS#7 receipt);
    /// its price list is named as what it is.
    func testTheSampleRunWarnsOnlyAboutWhatItHolds() throws {
        let result = try audit()
        XCTAssertEqual(result.warnings.map(\.code), [.environmentConflict, .environmentUnknown])
        XCTAssertEqual(
            result.snapshot.files.first { $0.path.hasSuffix("/prices.csv") }?.note,
            "price list (read by `iap-audit close --prices`, not by run: not evidence)")
    }

    /// The XLSX read back with openpyxl: sheet names, header rows, the Summary's counts.
    func testXLSXReadBack() throws {
        let result = try audit()
        let read =
            try PythonReader.run(
                """
                import json, sys, openpyxl
                wb = openpyxl.load_workbook(sys.argv[1])
                out = {"sheets": wb.sheetnames, "headers": {}, "rows": {}, "summary": {}}
                for ws in wb.worksheets[1:]:
                    out["headers"][ws.title] = [c.value for c in ws[1] if c.value is not None]
                    out["rows"][ws.title] = ws.max_row - 1
                    out.setdefault("freeze", {})[ws.title] = ws.freeze_panes
                s = wb["Summary"]
                for row in s.iter_rows(values_only=True):
                    if row[0] == "Total": out["summary"]["inputs"] = list(row[4:7])
                    if row[0] == "Total problems": out["summary"]["problems"] = row[3]
                    if row[0] == "Total info": out["summary"]["info"] = row[3]
                    if row[0] == "Dropped orders": out["summary"]["dropped"] = list(row[3:7])
                    if row[0] == "run_status": out["summary"]["run_status"] = row[1]
                out["charts"] = len(s._charts)
                ws = wb["dropped_order"]
                out["first_seen_type"] = type(ws["J2"].value).__name__ if ws.max_row > 1 else None
                print(json.dumps(out))
                """, args: [Self.out + "/audit.xlsx"]) as! [String: Any]
        XCTAssertEqual(
            read["sheets"] as? [String],
            [
                "Summary", "Changes", "dropped_order", "duplicate_credit", "sandbox_leak", "refund_still_granted",
                "invalid_credit", "verification_backlog", "info", "Verify Status", "Apple Records", "Rejected",
            ])
        let headers = try XCTUnwrap(read["headers"] as? [String: [String]])
        XCTAssertEqual(headers["dropped_order"], ReportBuilder.findingHeader)
        XCTAssertEqual(headers["Rejected"], ["file", "line", "reason", "raw_text"])
        XCTAssertEqual(headers["Verify Status"], ["status", "meaning", "responses", "percent"])
        XCTAssertEqual(headers["Apple Records"], ReportBuilder.appleRecordHeader)
        let rows = try XCTUnwrap(read["rows"] as? [String: Int])
        for kind in FindingKind.problems {
            XCTAssertEqual(rows[kind.rawValue], (try result.snapshot.findings.all()).filter { $0.kind == kind }.count, kind.rawValue)
        }
        XCTAssertEqual(rows["info"], (try result.snapshot.findings.all()).filter { $0.kind.isInfo }.count)
        XCTAssertEqual(rows["Rejected"], (try result.snapshot.rejections.all()).count)
        XCTAssertEqual((read["freeze"] as? [String: String])?["dropped_order"], "A2")
        let summary = try XCTUnwrap(read["summary"] as? [String: Any])
        let counts = try XCTUnwrap(try answerKey()["counts"] as? [String: Int])
        let lines = counts["client_lines"]! + counts["server_lines"]! + counts["verify_lines"]!
        XCTAssertEqual(lines, 6037)
        // The logs and verifyReceipt answers, Apple's signed records (427 answers, 2 Server API pages, 4
        // notifications, 1 Look Up Order ID answer) and App Store Connect's reports (734 lines).
        let signed = counts["signed_lines"]! + counts["history_lines"]! + counts["notification_lines"]! + counts["order_lookup_lines"]!
        XCTAssertEqual(signed, 434)
        let records = lines + signed + 734
        XCTAssertEqual(summary["inputs"] as? [Int], [records, records, 0], "records in = imported + rejected")
        XCTAssertEqual(summary["run_status"] as? String, "complete")
        // The close's planted cases add one pending_evidence (bought 2026-11-01, after the logs end: rule 26, it would be a
        // confirmed dropped order) and two outside_window/before_window (bought in September, only Apple's records show them).
        XCTAssertEqual(summary["problems"] as? Int, 111)
        XCTAssertEqual(summary["info"] as? Int, 53)
        // Rule 22: the Summary splits dropped orders into confirmed by Apple and claimed by the client alone.
        let key = try XCTUnwrap(try answerKey()["findings"] as? [[String: String]])
        let confirmed = key.filter { $0["apple_confirmation"] == "confirmed" }.count
        let claimed = key.filter { $0["apple_confirmation"] == "claimed" }.count
        XCTAssertEqual(summary["dropped"] as? [Int], [confirmed + claimed, confirmed, 0, claimed])
        XCTAssertEqual([confirmed, claimed], [17, 24])
        XCTAssertEqual(read["charts"] as? Int, 1)
        XCTAssertEqual(read["first_seen_type"] as? String, "datetime")
    }
}
