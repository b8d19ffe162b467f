import XCTest

@testable import IAPAuditModel

/// The lifecycle's rule on its own: ids, and how a run moves each finding (new, still open, reopened, resolved).
final class FindingLifecycleTests: XCTestCase {
    func testIdsAreKindAndPurchaseKeyAndTellTwoReasonsApart() {
        var ids = FindingIds()
        let a = Finding(kind: .droppedOrder, reason: "revoked_while_paid", transactionId: "2000000400594083")
        let b = Finding(kind: .droppedOrder, reason: "under_credited", transactionId: "2000000400594083")
        let c = Finding(kind: .duplicateCredit, reason: "same_user", transactionId: "2000000400594083")
        let d = Finding(kind: .outsideWindow, reason: "before_window", transactionId: "7")
        XCTAssertEqual(
            [a, b, c, d, d].map { ids.id(for: $0) },
            [
                "dropped_order:2000000400594083", "dropped_order:2000000400594083:under_credited", "duplicate_credit:2000000400594083",
                "outside_window:7", "outside_window:7:before_window",
            ])
        XCTAssertEqual(ids.id(for: d), "outside_window:7:before_window#2")
        // Ids are exact bytes: é and e + U+0301 are two transactions, two ids.
        XCTAssertEqual(ids.id(for: Finding(kind: .droppedOrder, reason: "x", transactionId: "caf\u{E9}")), "dropped_order:caf\u{E9}")
        XCTAssertEqual(ids.id(for: Finding(kind: .droppedOrder, reason: "x", transactionId: "cafe\u{301}")), "dropped_order:cafe\u{301}")
    }

    private func state(_ id: String, _ status: FindingStatus, first: Int = 1, last: Int = 2, note: String? = nil) -> FindingState {
        FindingState(
            id: id, kind: String(id.prefix { $0 != ":" }), transactionId: String(id.split(separator: ":")[1]), reason: "never_sent",
            status: status, firstSeenRun: first, lastSeenRun: last, resolvedRun: status == .resolved ? last : nil,
            acknowledgedAtMs: note == nil ? nil : 5, note: note)
    }

    private func current(_ id: String, _ reason: String = "not_credited") -> FindingLifecycle.Current {
        FindingLifecycle.Current(
            id: id, kind: FindingKind(rawValue: String(id.prefix { $0 != ":" }))!, transactionId: String(id.split(separator: ":")[1]),
            reason: reason)
    }

    /// A finding still open for the same reason is not a change history keeps (only its last_seen_run moves).
    func testAStillOpenFindingIsRecordedOnlyWhenItsReasonChanges() throws {
        let changes = try FindingLifecycle.changes(
            run: 2, current: [current("dropped_order:1", "never_sent"), current("dropped_order:2", "verify_failed")],
            previous: [state("dropped_order:1", .open, last: 1), state("dropped_order:2", .open, last: 1)], earlier: { _ in [:] },
            resolve: { _ in [:] }, asOfMs: 9_000)
        XCTAssertEqual(
            changes.map {
                "\($0.event.rawValue) \($0.state.id) \($0.state.lastSeenRun) \($0.reasonWas ?? "-") \($0.isRecorded) \($0.detail)"
            },
            [
                "still_open dropped_order:1 2 - false never_sent",
                "still_open dropped_order:2 2 never_sent true verify_failed (was never_sent)",
            ])
    }

    /// A pending verification past the grace is a verification backlog now (another kind, another id): with no new record
    /// of its transaction it expired under its old id, and the detail says what it became, not that something settled it;
    /// with a new record it was resolved by it.
    func testAFindingThatBecameAnotherKindSaysWhat() throws {
        let changes = try FindingLifecycle.changes(
            run: 2, current: [current("verification_backlog:7", "no_verify_response"), current("dropped_order:8", "verify_failed")],
            previous: [state("pending_verification:7", .open, last: 1), state("pending_verification:8", .open, last: 1)],
            earlier: { _ in [:] },
            resolve: { _ in ["pending_verification:8": FindingLifecycle.Resolution(atMs: 5, evidence: ["v.jsonl:2"])] },
            asOfMs: 9_000)
        XCTAssertEqual(
            changes.filter { $0.event.isGone }.map {
                "\($0.event.rawValue) \($0.state.id) \($0.state.status.rawValue) \($0.state.resolvedRun ?? 0) "
                    + "\($0.state.resolvedAtMs ?? 0) \($0.state.resolvedEvidence): \($0.detail)"
            },
            [
                "resolved pending_verification:8 resolved 2 5 [\"v.jsonl:2\"]: resolved by 1 new record(s): v.jsonl:2; it is "
                    + "dropped_order:8 (verify_failed) now",
                "expired pending_verification:7 expired 2 9000 []: expired: no new record of 7 and its grace ran out; it is "
                    + "verification_backlog:7 (no_verify_response) now",
            ])
    }

    /// A pending finding gone with no new record and no finding of its transaction now was not outgrown but resolved by
    /// what changed (the inputs, the parameters); a finding of another kind gone without a record is never expired; an
    /// expired finding found again reopens, saying it had expired.
    func testOnlyAPendingKindOutgrownByItsProblemExpires() throws {
        let changes = try FindingLifecycle.changes(
            run: 3,
            current: [current("dropped_order:4", "never_sent"), current("pending_evidence:6", "awaiting_server_log")],
            previous: [
                state("pending_evidence:3", .open, last: 2), state("pending_evidence:4", .open, last: 2),
                state("invalid_credit:5", .open, last: 2),
            ],
            earlier: { ids in
                var expired = self.state("pending_evidence:6", .expired, last: 1)
                expired.resolvedRun = 2
                return ids.contains("pending_evidence:6") ? ["pending_evidence:6": expired] : [:]
            },
            resolve: { _ in [:] }, asOfMs: 9_000)
        XCTAssertEqual(
            changes.map { "\($0.event.rawValue) \($0.state.id) \($0.state.status.rawValue): \($0.detail)" },
            [
                "new dropped_order:4 open: never_sent",
                "reopened pending_evidence:6 open: awaiting_server_log (expired in run 2)",
                "resolved invalid_credit:5 resolved: no new record of 5: resolved by what changed in the inputs or parameters",
                "resolved pending_evidence:3 resolved: no new record of 3: resolved by what changed in the inputs or parameters",
                "expired pending_evidence:4 expired: expired: no new record of 4 and its grace ran out; it is dropped_order:4 "
                    + "(never_sent) now",
            ])
    }

    /// A finding of the transaction open before this run is none the resolved one became: said as open since its run
    /// (found by an on-call user test: "it is invalid_credit:905 … now" named one open since run 4).
    func testAFindingOpenBeforeIsSaidAsSuch() throws {
        let changes = try FindingLifecycle.changes(
            run: 5, current: [current("invalid_credit:9", "no_verify_response"), current("verification_backlog:9", "no_verify_response")],
            previous: [state("pending_verification:9", .open, last: 4), state("invalid_credit:9", .open, first: 4, last: 4)],
            earlier: { _ in [:] }, resolve: { _ in [:] }, asOfMs: 9_000)
        XCTAssertEqual(
            changes.filter { $0.event == .expired }.map(\.detail),
            [
                "expired: no new record of 9 and its grace ran out; it is invalid_credit:9 (no_verify_response, open since run 4), "
                    + "verification_backlog:9 (no_verify_response) now"
            ])
    }

    func testEveryTransitionOfARun() throws {
        let earlier = ["dropped_order:4": state("dropped_order:4", .resolved, first: 1, last: 1)]
        var asked: [[String]] = []
        let changes = try FindingLifecycle.changes(
            run: 3,
            current: [current("dropped_order:1"), current("dropped_order:2"), current("dropped_order:4"), current("sandbox_leak:5")],
            previous: [
                state("dropped_order:1", .open), state("dropped_order:2", .acknowledged, note: "known"), state("dropped_order:3", .open),
                state("duplicate_credit:6", .acknowledged, note: "refunded"),
            ],
            earlier: { ids in earlier.filter { ids.contains($0.key) } },
            resolve: { gone in
                asked.append(gone.map(\.id).sorted())
                return ["dropped_order:3": FindingLifecycle.Resolution(atMs: 1_000, evidence: ["day3/server.jsonl:4"])]
            }, asOfMs: 9_000)
        XCTAssertEqual(asked, [["dropped_order:3", "duplicate_credit:6"]], "resolve is asked once, for what went away")
        XCTAssertEqual(
            changes.map { "\($0.event.rawValue) \($0.state.id) \($0.state.status.rawValue)" },
            [
                "new sandbox_leak:5 open", "reopened dropped_order:4 open", "resolved dropped_order:3 resolved",
                "resolved duplicate_credit:6 resolved", "still_open dropped_order:1 open", "still_open dropped_order:2 acknowledged",
            ])
        let byId = Dictionary(uniqueKeysWithValues: changes.map { ($0.state.id, $0) })
        XCTAssertEqual(
            byId["sandbox_leak:5"]?.state,
            FindingState(
                id: "sandbox_leak:5", kind: "sandbox_leak", transactionId: "5", reason: "not_credited", status: .open, firstSeenRun: 3,
                lastSeenRun: 3))
        // Still open: seen by this run, its reason now; an acknowledgement carries on.
        XCTAssertEqual(byId["dropped_order:1"]?.state.lastSeenRun, 3)
        XCTAssertEqual(byId["dropped_order:1"]?.state.reason, "not_credited")
        XCTAssertEqual(byId["dropped_order:2"]?.state.note, "known")
        XCTAssertEqual(byId["dropped_order:2"]?.detail, "not_credited (was never_sent) (acknowledged: known)")
        // Its reason changed (never_sent before): history keeps a row, saying from what.
        XCTAssertEqual(byId["dropped_order:1"]?.reasonWas, "never_sent")
        XCTAssertEqual(byId["dropped_order:1"]?.detail, "not_credited (was never_sent)")
        XCTAssertEqual(changes.filter(\.isRecorded).count, changes.count)
        // Reopened: first seen kept, the acknowledgement spent.
        XCTAssertEqual(byId["dropped_order:4"]?.state.firstSeenRun, 1)
        XCTAssertEqual(byId["dropped_order:4"]?.detail, "not_credited (resolved in run 1)")
        // Resolved by new records, or at the as-of without one.
        XCTAssertEqual(byId["dropped_order:3"]?.state.resolvedAtMs, 1_000)
        XCTAssertEqual(byId["dropped_order:3"]?.state.resolvedEvidence, ["day3/server.jsonl:4"])
        XCTAssertEqual(byId["dropped_order:3"]?.detail, "resolved by 1 new record(s): day3/server.jsonl:4")
        XCTAssertEqual(byId["duplicate_credit:6"]?.state.resolvedAtMs, 9_000)
        XCTAssertEqual(byId["duplicate_credit:6"]?.state.resolvedRun, 3)
        XCTAssertEqual(
            byId["duplicate_credit:6"]?.detail, "no new record of 6: resolved by what changed in the inputs or parameters")
    }

    /// A finding resolved without a new record on a night that dropped files (`--forget-missing`) names them.
    func testAFindingResolvedByForgottenFilesNamesThem() throws {
        let changes = try FindingLifecycle.changes(
            run: 2, current: [current("verification_backlog:2", "no_verify_response")],
            previous: [state("dropped_order:1", .open, last: 1), state("dropped_order:2", .open, last: 1)], earlier: { _ in [:] },
            resolve: { _ in [:] }, asOfMs: 9_000, inputsGone: ["a/server.jsonl", "b.jsonl", "c.jsonl", "d.jsonl"])
        XCTAssertEqual(
            changes.filter { $0.event == .resolved }.map(\.detail),
            [
                "no new record of 1: resolved by what changed in the inputs (no longer in the ledger: a/server.jsonl, b.jsonl, "
                    + "c.jsonl and 1 more) or parameters",
                "no new record of 2; it is verification_backlog:2 (no_verify_response) now: the as-of passed a grace, or the inputs "
                    + "(no longer in the ledger: a/server.jsonl, b.jsonl, c.jsonl and 1 more) or parameters changed",
            ])
    }
}
