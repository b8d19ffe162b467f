import XCTest

@testable import IAPAuditModel
@testable import IAPAuditReconcile

/// `TraceJudge`'s next action on traces built here: which credit of a duplicate to keep.
final class TraceActionTests: XCTestCase {
    static let t = "2000000400000201"

    func event(_ time: String, _ line: Int, _ detail: TraceEvent.Detail) -> TraceEvent {
        let source: String
        switch detail {
        case .client: source = "client_report"
        case .request: source = "server_request"
        case .apple: source = "verify_receipt"
        }
        return TraceEvent(
            timeMs: Timestamp.parseMs(time), source: source, location: SourceLocation(file: "log.jsonl", line: line), detail: detail)
    }

    func grant(_ request: String, _ user: String) -> TraceEvent.Detail {
        var r = TraceRequest(requestId: request, event: "verify")
        (r.userId, r.postedIds, r.granted, r.creditsTransaction) = (user, [Self.t], true, true)
        return .request(r)
    }

    func client(_ user: String) -> TraceEvent.Detail {
        var c = TraceClientReport(state: "purchased")
        (c.userId, c.transactionId) = (user, Self.t)
        return .client(c)
    }

    /// The next action of a duplicate credit whose `grants` fact lists `grants` (request, user, id; the ids given: the
    /// purchase was credited under each).
    func duplicate(_ events: [TraceEvent], grants: [(String, String, String?)], reason: String = "cross_account") -> String {
        var trace = TransactionTrace(transactionId: Self.t)
        trace.events = events
        var f = Finding(kind: .duplicateCredit, reason: reason, transactionId: Self.t, userIds: ["u1", "u2"])
        f.facts.set(.grants, objects: grants.map { [$0.0, $0.1, $0.2 ?? Self.t] })
        let ids = grants.compactMap(\.2)
        f.facts.set(.grantedTransactionIds, texts: ids.isEmpty ? [Self.t] : ids)
        f.detail = FindingSentence.text(f)
        trace.findings = [f]
        return TraceJudge.verdict(trace).nextAction
    }

    /// Across accounts, the client report's user keeps the credit even when another user was credited first.
    func testTheClientReportsUserKeepsACrossAccountCredit() {
        let three: [(String, String, String?)] = [("r1", "u1", nil), ("r2", "u2", nil), ("r3", "u3", nil)]
        let events = [
            event("2026-10-01T10:00:00Z", 1, client("u2")), event("2026-10-01T10:00:05Z", 2, grant("r1", "u1")),
            event("2026-10-01T10:00:09Z", 3, grant("r2", "u2")), event("2026-10-02T08:00:00Z", 4, grant("r3", "u3")),
        ]
        XCTAssertEqual(
            duplicate(events, grants: three),
            "revoke the extra credit: one payment granted 3 times: keep r2 (u2, 2026-10-01T10:00:09.000Z; the user of the client "
                + "report); revoke r1 (u1, first, 2026-10-01T10:00:05.000Z), r3 (u3, 2026-10-02T08:00:00.000Z)")
        // No client report among them: the first credit stays.
        XCTAssertEqual(
            duplicate(Array(events.dropFirst()), grants: three),
            "revoke the extra credit: one payment granted 3 times: keep r1 (u1, first, 2026-10-01T10:00:05.000Z); revoke r2 (u2, "
                + "2026-10-01T10:00:09.000Z), r3 (u3, 2026-10-02T08:00:00.000Z)")
        // One user twice: the first by time, whatever the log's order.
        let twice = [event("2026-10-03T00:00:00Z", 1, grant("r1", "u1")), event("2026-10-02T00:00:00Z", 2, grant("r2", "u1"))]
        XCTAssertEqual(
            duplicate(twice, grants: [("r1", "u1", nil), ("r2", "u1", nil)], reason: "same_user"),
            "revoke the extra credit: one payment granted 2 times: keep r2 (u1, first, 2026-10-02T00:00:00.000Z); revoke r1 (u1, "
                + "2026-10-03T00:00:00.000Z)")
        // A grant the trace has no time for (another id's): the log's order, said so.
        XCTAssertEqual(
            duplicate(twice, grants: [("r1", "u1", nil), ("r2", "u1", nil), ("r9", "u1", nil)], reason: "same_user"),
            "revoke the extra credit: one payment granted 3 times: keep r1 (u1, first in the logs, 2026-10-03T00:00:00.000Z); "
                + "revoke r2 (u1, 2026-10-02T00:00:00.000Z), r9 (u1)")
    }

    /// One purchase under two ids, credited to its buyer under the first and to another account's restore under the
    /// second (helper-35, the sample's 2000000400594692/693): tracing either id keeps the buyer's credit. Tracing the
    /// second, the other id's grant has no time here and the client report is a restore: neither makes u2 "first".
    func testBothIdsOfAPurchaseGiveTheSameAdvice() {
        let grants: [(String, String, String?)] = [("r1", "u1", "2000000400000200"), ("r2", "u2", Self.t)]
        var restore = TraceClientReport(state: "restored")
        (restore.userId, restore.transactionId) = ("u2", Self.t)
        let second = [event("2026-10-12T13:21:18Z", 1, .client(restore)), event("2026-10-12T13:21:20Z", 2, grant("r2", "u2"))]
        XCTAssertEqual(
            duplicate(second, grants: grants),
            "revoke the extra credit: one payment granted 2 times: keep r1 (u1, 2000000400000200, first in the logs); revoke r2 (u2, "
                + "\(Self.t), 2026-10-12T13:21:20.000Z)")
    }
}
