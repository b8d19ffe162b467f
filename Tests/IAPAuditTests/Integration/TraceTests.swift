import Foundation
import XCTest

@testable import IAPAuditCLI
@testable import IAPAuditModel
@testable import IAPAuditPipeline
@testable import IAPAuditReport

/// `iap-audit trace ID` over the ledger `run` leaves on sample-data/: every kind of id, with its exact
/// timeline and verdict (Fixtures/trace/*.txt; `IAP_AUDIT_RECORD_TRACE=1` writes a missing one: read it
/// before committing), and one planted finding of each kind with its exact next action.
final class TraceTests: XCTestCase {
    static let out = TestPaths.scratch("tracesample")
    nonisolated(unsafe) static var ran = false
    static var goldenFolder: String { TestPaths.repoRoot + "/Tests/IAPAuditTests/Fixtures/trace" }

    /// The sample's ledger (made once).
    func sampleLedger() throws -> String {
        if !Self.ran {
            let sample = TestPaths.repoRoot + "/sample-data"
            let config = try ConfigLoader.load(path: sample + "/config.json")
            _ = try AuditPipeline.run(AuditOptions(paths: [sample], outputDirectory: Self.out, config: config))
            Self.ran = true
        }
        return Self.out
    }

    /// `trace` through the command line.
    static func trace(_ arguments: [String]) -> CLIRun { CLIRun(["trace"] + arguments) }

    /// `text` as on any machine: paths under `base` shown relative to it, the scratch folder as `OUT`, and
    /// the columns' padding (which the paths' length sets) as two spaces.
    static func portable(_ text: String, out: String, base: String = TestPaths.repoRoot) -> String {
        text.replacingOccurrences(of: base + "/", with: "").replacingOccurrences(of: out, with: "OUT")
            .replacingOccurrences(of: "(?<=\\S) {2,}", with: "  ", options: .regularExpression)
    }

    /// Compares the trace of `id` with Fixtures/trace/`name`.txt.
    /// - Parameter options: more of trace's options (`--exact`: an id ending in 0 that would look spreadsheet-mangled).
    func assertGolden(_ name: String, _ id: String, _ options: [String] = [], file: StaticString = #filePath, line: UInt = #line) throws {
        let out = try sampleLedger()
        let run = Self.trace([id, "--out", out] + options)
        XCTAssertEqual(run.status, 0, run.err, file: file, line: line)
        let text = Self.portable(run.out, out: out) + "\n"
        let path = Self.goldenFolder + "/\(name).txt"
        guard let expected = try? String(contentsOfFile: path, encoding: .utf8) else {
            if ProcessInfo.processInfo.environment["IAP_AUDIT_RECORD_TRACE"] == "1" {
                try FileManager.default.createDirectory(atPath: Self.goldenFolder, withIntermediateDirectories: true)
                try text.write(toFile: path, atomically: true, encoding: .utf8)
            }
            return XCTFail("no \(path) (IAP_AUDIT_RECORD_TRACE=1 records it from this build)", file: file, line: line)
        }
        XCTAssertEqual(text, expected, "trace \(id) differs from Fixtures/trace/\(name).txt", file: file, line: line)
    }

    // MARK: Every kind of id

    /// A transaction id: a dropped order Apple confirms (not_credited).
    func testTransactionId() throws { try assertGolden("sample-transaction-id", "2000000400594108") }

    /// A transaction id whose timeline crosses a JWS signed transaction, a V2 REFUND notification (prorated)
    /// and the server's revoke: refunded and taken back, nothing to do.
    func testSignedTransactionAndRefundNotification() throws {
        try assertGolden("sample-refund-notification", "2000000400594860", ["--exact"])
    }

    /// An original transaction id: a subscription's first id and its renewals, each credited through the
    /// original id (semantics.md rule 6: "its original id, standing for it"); each period traced on its own.
    func testOriginalTransactionId() throws { try assertGolden("sample-original-transaction-id", "2000000400594378") }

    /// A user id: the user's three purchases (one request posting two of them), and a purchase still
    /// `purchasing` that names no transaction.
    func testUserId() throws { try assertGolden("sample-user-id", "u104") }

    /// A device id: the device's purchases, one in a receipt answering another purchase's request and
    /// never credited (in_receipt_never_credited).
    func testDeviceId() throws { try assertGolden("sample-device-id", "F7C25EB8-EE1C-47BD-ABEC-FDA67A3A7F2E") }

    /// A request id: the transactions it posted and those its answer lists.
    func testRequestId() throws { try assertGolden("sample-request-id", "rf7f6e9ee74b3b744") }

    /// An Apple order id (the support ticket of SampleSupportTicket): the customer's invoice id alone finds the
    /// purchase no log of ours names, through the Look Up Order ID answer support fetched; Apple confirms the
    /// payment and nobody was credited: credit manually.
    func testAppleOrderId() throws { try assertGolden("sample-apple-order-id", "MQ7K2XW9PL") }

    /// A web order line item id: one subscription period under two ids (re-issued), credited twice.
    func testWebOrderLineItemId() throws { try assertGolden("sample-web-order-line-item-id", "2000000384090660", ["--exact"]) }

    // MARK: Verdicts

    /// One planted finding of each kind (the answer key's first), with the exact next action.
    func testNextActionOfOneFindingOfEachKind() throws {
        let out = try sampleLedger()
        let expected: [(finding: String, id: String, action: TraceAction, text: String)] = [
            (
                "dropped_order/in_receipt_never_credited", "2000000400594115", .creditManually,
                "credit manually to u276: Apple confirms payment (sample-data/verify.jsonl:227), no credit found"
            ),
            (
                "dropped_order/never_sent", "2000000400594083", .requery,
                "re-query Apple Get Transaction Info for 2000000400594083: only the client reports the purchase; it never reached the server"
            ),
            (
                "dropped_order/revoked_while_paid", "2000000400594750", .creditRest,
                "credit u407 again: the credit was revoked on 2026-10-20 (sample-data/server.jsonl:1271) while Apple shows it paid "
                    + "(sample-data/verify.jsonl:786) and not refunded"
            ),
            (
                "dropped_order/stale_receipt", "2000000400594778", .requery,
                "re-query Apple Get Transaction Info for 2000000400594778: the receipt was stale (created before the purchase)"
            ),
            (
                "dropped_order/under_credited", "2000000400594758", .creditRest,
                "credit the rest to u417: paid 3, credited 1 (the server log's credited_quantity): 2 unit(s) not delivered"
            ),
            (
                "dropped_order/verify_failed", "2000000400594091", .requery,
                "re-query Apple Get Transaction Info for 2000000400594091: the verification failed (last status 21003: receipt could "
                    + "not be authenticated), and no Apple record proves the payment"
            ),
            (
                "duplicate_credit/cross_account", "2000000400594197", .revoke,
                "revoke the extra credit: one payment granted 2 times: keep rd2f9cc28370b39a2 (u283, first, 2026-10-19T06:20:24.000Z; "
                    + "the user of the client report); revoke rf37b075b8d93a858 (u284, 2026-10-19T10:36:14.000Z)"
            ),
            (
                "sandbox_leak/sandbox_credited", "2000000400594205", .revoke,
                "revoke from u295: credited on a Sandbox answer, where no money is paid, by request(s) r6fd0a04b4af91a88"
            ),
            (
                "refund_still_granted/cancelled_not_revoked", "2000000400594217", .revoke,
                "revoke: refunded on 2026-10-07 (sample-data/verify.jsonl:445) but still granted to u303"
            ),
            (
                "invalid_credit/nonzero_status", "2000000400594233", .reverify,
                "re-verify with Apple Get Transaction Info for 2000000400594233: granted to u311 without proof (Apple answered status "
                    + "21003: receipt could not be authenticated); take the credit back if Apple does not list it"
            ),
            (
                "verification_backlog/retryable_status", "2000000400594095", .requery,
                "re-query Apple Get Transaction Info for 2000000400594095: the verification failed (last status 21002: receipt-data "
                    + "malformed or the service had a temporary issue), and no Apple record proves the payment"
            ),
            (
                "sandbox_allowlisted/allowlisted_user", "2000000400594209", .noAction,
                "no action: credited to u-reviewer-1, an allowlisted tester, on a Sandbox answer (no money was paid)"
            ),
            (
                "sandbox_refused/sandbox_receipt", "2000000400594213", .noAction,
                "no action: a sandbox purchase, correctly not credited (no money was paid)"
            ),
            (
                "pending_verification/no_verify_response", "2000000400594350", .wait,
                "wait: Apple has not answered yet (request r399a6c6f4a4d20b2); pending since 2026-10-30T12:06:18.000Z"
            ),
            (
                "pending_evidence/awaiting_server_log", "2000000400594857", .wait,
                "wait: would be dropped_order/in_receipt_never_credited; the server log ends at 2026-10-30T23:59:55.000Z, within the "
                    + "24 h grace of the purchase at 2026-11-01T02:30:00.000Z"
            ),
            (
                "regranted/non_consumable", "2000000400594358", .noAction,
                "delivered: credited on 2026-10-12T20:52:42.000Z to u343 (request ref90d24e42a81c11, quantity 1 as Apple lists it); credited on "
                    + "2026-10-13T23:12:46.000Z to u343 (request r3cadd0a9d95bb0e2, quantity 1 as Apple lists it); Apple confirms payment "
                    + "(sample-data/verify.jsonl:595)"
            ),
            (
                "id_reissued/same_billing_event", "2000000400594613", .noAction,
                "delivered: credited on 2026-10-03T03:41:57.000Z to u387 (request rf14cdede3aa1e73b, quantity 1 as Apple lists it); Apple confirms "
                    + "payment (sample-data/verify.jsonl:101)"
            ),
            (
                "outside_window/before_window", "2000000400594673", .notJudged,
                "not judged by these logs: purchase only Apple lists dated 2026-04-29T11:18:12.000Z, before the earliest log ts "
                    + "2026-10-01T00:01:09.000Z: these logs cannot show whether it was credited"
            ),
            (
                "refund_superseded/later_purchase", "2000000400594785", .noAction,
                "no action: refunded on 2026-10-05 (sample-data/verify.jsonl:261); u429 holds the later purchase 2000000400594841 of "
                    + "com.example.premium (purchased 2026-10-06T12:38:15.000Z)"
            ),
        ]
        let key = try answerKey()
        XCTAssertEqual(Set(expected.map { $0.finding.components(separatedBy: "/")[0] }), Set(FindingKind.allCases.map(\.rawValue)))
        for e in expected {
            XCTAssertTrue(key.contains("\(e.finding)/\(e.id)"), "the answer key plants \(e.finding) on \(e.id)")
            let outcome = try TracePipeline.run(id: e.id, ledgerPath: out + "/audit.sqlite")
            let trace = try XCTUnwrap(outcome.result.transactions.first { $0.transactionId == e.id }, e.finding)
            XCTAssertTrue(trace.findings.contains { "\($0.kind.rawValue)/\($0.reason)" == e.finding }, e.finding)
            let verdict = try XCTUnwrap(trace.verdict)
            XCTAssertEqual(verdict.action, e.action, e.finding)
            XCTAssertEqual(Self.portable(verdict.nextAction, out: out), e.text, e.finding)
        }
    }

    /// A purchase only a family member's Server API page lists (FAMILY_SHARED): Apple proves no payment of
    /// this account's, and there is nothing to do.
    func testFamilySharedCopy() throws {
        let outcome = try TracePipeline.run(id: "2000000400594865", ledgerPath: try sampleLedger() + "/audit.sqlite")
        let verdict = try XCTUnwrap(outcome.result.transactions.first?.verdict)
        XCTAssertEqual(verdict.apple.code, "not_confirmed")
        if case .notConfirmed(let why) = verdict.apple {
            XCTAssertEqual(
                Self.portable(why, out: Self.out),
                "no Apple record proves a production payment: sample-data/history.jsonl:1 (a family member's own transaction (FAMILY_SHARED))"
            )
        }
        XCTAssertEqual(verdict.action, .noAction)
        XCTAssertEqual(
            verdict.nextAction, "no action: a Family Sharing copy (FAMILY_SHARED) of the organizer's purchase, no payment of its own")
    }

    /// Every dropped order of the answer key: the verdict's word on Apple's confirmation is the finding's.
    func testAppleConfirmationAgreesWithEveryDroppedOrder() throws {
        let out = try sampleLedger()
        let data = try Data(contentsOf: URL(fileURLWithPath: TestPaths.repoRoot + "/sample-data/answer-key.json"))
        let findings = try XCTUnwrap((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["findings"] as? [[String: String]])
        let dropped = findings.filter { $0["kind"] == "dropped_order" }
        XCTAssertEqual(dropped.count, 41)
        let word = ["confirmed": "confirmed", "refunded": "refunded", "claimed": "not_confirmed"]
        for f in dropped {
            let id = try XCTUnwrap(f["transaction_id"])
            let trace = try XCTUnwrap(
                try TracePipeline.run(id: id, ledgerPath: out + "/audit.sqlite").result.transactions.first { $0.transactionId == id })
            XCTAssertEqual(trace.verdict?.apple.code, word[f["apple_confirmation"] ?? ""], "\(f["reason"] ?? "") \(id)")
        }
    }

    /// `kind/reason/transaction_id` of every planted finding.
    private func answerKey() throws -> Set<String> {
        let data = try Data(contentsOf: URL(fileURLWithPath: TestPaths.repoRoot + "/sample-data/answer-key.json"))
        let findings = try XCTUnwrap((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["findings"] as? [[String: String]])
        return Set(findings.map { "\($0["kind"]!)/\($0["reason"]!)/\($0["transaction_id"]!)" })
    }

    /// An original id whose own purchase no record holds (only its renewal names it) leads to the renewal alone: an
    /// empty block said "no action" and was counted (found by a support user test).
    func testAnOriginalIdWithoutItsOwnRecordsListsOnlyTheTransactionsThatHaveSome() throws {
        let outcome = try TracePipeline.run(id: "2000000400594867", ledgerPath: try sampleLedger() + "/audit.sqlite")
        XCTAssertEqual(outcome.result.transactions.map(\.transactionId), ["2000000400594868"])
        XCTAssertEqual(
            outcome.result.notes,
            ["no record is of transaction 2000000400594867 itself (only others of its purchase name it, as their original id): not listed"])
    }

    /// A pasted id of 100,000 characters is shown cut, with its length.
    /// Several ids equally near (a digit missing at the end: ten candidates): the action names none of them as the one
    /// (found by a support user test: it asked "did you mean 2000000400594100?", a guess).
    func testSeveralNearMatchesAreNotGuessed() throws {
        let trace = Self.trace(["200000040059410", "--out", try sampleLedger(), "--format", "json"])
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(trace.out.utf8)) as? [String: Any])
        XCTAssertGreaterThan((json["near_matches"] as? [Any])?.count ?? 0, 1)
        XCTAssertEqual(
            ((json["next_action"] as? [String: Any])?["text"] as? String)?.components(separatedBy: "? ").first,
            "check the id: did you mean one of the \((json["near_matches"] as? [Any])?.count ?? 0) near matches above")
    }

    func testAVeryLongIdIsShownCut() {
        let id = String(repeating: "x", count: 100_000)
        XCTAssertEqual(TraceOutput.shown(id), String(repeating: "x", count: TraceOutput.shownCharacters) + "… (100000 characters)")
        XCTAssertEqual(TraceOutput.shown("2000000400594867"), "2000000400594867")
    }
}
