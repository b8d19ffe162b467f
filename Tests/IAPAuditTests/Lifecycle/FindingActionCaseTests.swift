import Foundation
import XCTest

@testable import IAPAuditCLI
@testable import IAPAuditModel

/// Every finding of every fixture case has its action asserted as data (`Fixtures/actions.json`: per case, per
/// `finding_id`, the code, user, quantity and requests that table `finding_action` holds, read back with Python's
/// sqlite3), every kind × reason of the cases is among them, and `trace --format json` of each transaction carries, as its
/// verdict's `action`, the action of the finding that decides it (and each finding's own).
///
/// `IAP_AUDIT_UPDATE_ACTIONS=1` rewrites actions.json from what the run stores (then read the diff before committing).
final class FindingActionCaseTests: XCTestCase {
    static var goldenPath: String { TestPaths.repoRoot + "/Tests/IAPAuditTests/Fixtures/actions.json" }

    /// The actions table joined with the findings, as an independent reader sees them.
    static let readActions = """
        import json, sqlite3, sys
        db = sqlite3.connect(sys.argv[1])
        rows = db.execute('''SELECT f.finding_id, f.kind, f.reason, f.transaction_id, f.apple_confirmation, f.facts, a.code, a.user_id,
            a.quantity, a.status, a.open_code, a.transaction_id, a.because, a.request_ids FROM finding f LEFT JOIN finding_action a USING (finding_id)
            ORDER BY f.finding_id''').fetchall()
        print(json.dumps([list(r) for r in rows]))
        """

    /// The code a finding calls for, from docs/semantics.md (independent of `FindingAction.of`): rule 22 decides a dropped
    /// order's, and rule 25 a claim Apple's production does not know (`refuse`); a credit without proof that Apple confirms
    /// stands.
    static func specifiedCode(kind: String, reason: String, confirmation: String?, facts: [String: Any]) -> String {
        switch kind {
        case "dropped_order":
            if ["under_credited", "revoked_while_paid"].contains(reason) { return "credit" }
            switch confirmation {
            case "confirmed": return "credit|ask_customer"
            case "refunded": return "none"
            case "not_found": return "refuse"
            default: return "ask_apple"
            }
        case "duplicate_credit", "sandbox_leak", "refund_still_granted": return "revoke"
        case "invalid_credit": return facts["apple_confirms_at"] == nil ? "ask_apple" : "none"
        case "verification_backlog": return "ask_apple"
        default: return "none"
        }
    }

    func testEveryCasesFindingsHaveTheirActionsAndTraceCarriesThem() throws {
        _ = try PythonReader.pythonPath()
        var golden: [String: [String: [String: Any]]] = [:]
        var pairs = Set<String>()
        let update = ProcessInfo.processInfo.environment["IAP_AUDIT_UPDATE_ACTIONS"] == "1"
        let want =
            update
            ? [:]
            : try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: Self.goldenPath))) as? [String: Any])
        for name in try FixtureCaseTests.caseNames() {
            let scratch = TestPaths.scratch("actions-\(name)")
            defer { try? FileManager.default.removeItem(atPath: scratch) }
            _ = try FixtureCaseTests.run(name, in: scratch)
            let out = scratch + "/out"
            let rows = try XCTUnwrap(PythonReader.run(Self.readActions, args: [out + "/audit.sqlite"]) as? [[Any]])
            var actions: [String: [String: Any]] = [:]
            for row in rows {
                let (id, kind, reason, transaction) = (row[0] as! String, row[1] as! String, row[2] as! String, row[3] as! String)
                pairs.insert(kind + "/" + reason)
                let facts = try XCTUnwrap(JSONSerialization.jsonObject(with: Data((row[5] as! String).utf8)) as? [String: Any])
                guard let code = row[6] as? String else {
                    XCTFail("\(name): \(id) has no row in finding_action")
                    continue
                }
                let spec = Self.specifiedCode(kind: kind, reason: reason, confirmation: row[4] as? String, facts: facts)
                XCTAssertTrue(spec.split(separator: "|").contains(Substring(code)), "\(name): \(id): action \(code), rules say \(spec)")
                XCTAssertEqual(row[11] as? String, transaction, "\(name): \(id)")
                XCTAssertEqual(row[9] as? String, "open", "\(name): \(id)")
                XCTAssertFalse((row[12] as? String ?? "").isEmpty, "\(name): \(id): an action says why")
                actions[id] = [
                    "code": code, "user_id": row[7] ?? NSNull(), "quantity": row[8] ?? NSNull(),
                    "request_ids": try JSONSerialization.jsonObject(with: Data((row[13] as? String ?? "").utf8)),
                ]
            }
            golden[name] = actions
            if !update {
                let expected = (want[name] as? [String: [String: Any]]) ?? [:]
                XCTAssertEqual(Self.canonical(actions), Self.canonical(expected), "\(name): actions differ from Fixtures/actions.json")
            }
            try checkTrace(name, out: out, rows: rows)
        }
        // Every kind × reason the cases produce has its action asserted: each is a declared reason.
        for pair in pairs { XCTAssertNotNil(FindingReason(rawValue: pair), "\(pair) is not declared in LedgerDeclarations/Findings.swift") }
        // 34 of the 37 declared: no case makes invalid_credit/signature_invalid, pending_verification/retryable_status or
        // regranted/non_renewing (the sample makes pending_verification/retryable_status).
        XCTAssertGreaterThanOrEqual(pairs.count, 34, "the cases cover the reasons: \(pairs.sorted())")
        if update {
            let data = try JSONSerialization.data(withJSONObject: golden, options: [.prettyPrinted, .sortedKeys])
            try data.write(to: URL(fileURLWithPath: Self.goldenPath))
        }
    }

    /// `trace --format json` of each transaction with findings: each finding carries its action as the ledger holds it,
    /// and the verdict's `action` is that of the finding that decides it (the first problem by kind, else an info finding
    /// that says what is going on), or `fix_input` when a rejected line names the transaction.
    private func checkTrace(_ name: String, out: String, rows: [[Any]]) throws {
        let byTransaction = Dictionary(grouping: rows, by: { $0[3] as! String })
        for (transaction, findings) in byTransaction {
            var printed = ""
            let status = CommandLineInterface.main(
                arguments: ["trace", "--exact", transaction, "--out", out, "--format", "json"], out: { printed += $0 }, err: { _ in })
            XCTAssertEqual(status, 0, "\(name): trace \(transaction)")
            let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(printed.utf8)) as? [String: Any])
            let traced = try XCTUnwrap(
                (json["transactions"] as? [[String: Any]])?.first { $0["transaction_id"] as? String == transaction },
                "\(name): \(transaction)")
            let shown = try XCTUnwrap(traced["findings"] as? [[String: Any]])
            for f in shown where f["transaction_id"] as? String == transaction {
                let row = try XCTUnwrap(findings.first { $0[0] as? String == f["finding_id"] as? String })
                let action = try XCTUnwrap(f["action"] as? [String: Any], "\(name): \(transaction): a finding without its action")
                XCTAssertEqual(action["code"] as? String, row[6] as? String, "\(name): \(transaction)")
            }
            let verdict = try XCTUnwrap((traced["verdict"] as? [String: Any])?["action"] as? [String: Any])
            if !((traced["rejected_lines"] as? [Any]) ?? []).isEmpty {
                XCTAssertEqual(verdict["code"] as? String, "fix_input", "\(name): \(transaction)")
                continue
            }
            let order = FindingKind.allCases.map(\.rawValue)
            let sorted = findings.sorted { order.firstIndex(of: $0[1] as! String)! < order.firstIndex(of: $1[1] as! String)! }
            let deciding =
                sorted.first { FindingKind(rawValue: $0[1] as! String)?.isInfo == false }
                ?? sorted.first {
                    ["sandbox_allowlisted", "sandbox_refused", "pending_verification", "outside_window"].contains($0[1] as! String)
                }
            guard let deciding else { continue }
            for (key, column) in [("code", 6), ("user_id", 7), ("quantity", 8), ("status", 9), ("because", 12)] {
                XCTAssertEqual(
                    "\(verdict[key] ?? NSNull())", "\(deciding[column])", "\(name): trace \(transaction): verdict action's \(key)")
            }
        }
    }

    private static func canonical(_ object: Any) -> String {
        String(decoding: (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data(), as: UTF8.self)
    }
}
