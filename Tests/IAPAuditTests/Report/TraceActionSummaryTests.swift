import XCTest

@testable import IAPAuditModel
@testable import IAPAuditReport

/// The next actions of an id of many transactions, counted up front (an on-call user test traced a user of 2,606
/// transactions and found its 43 manual credits buried in 33,778 lines).
final class TraceActionSummaryTests: XCTestCase {
    func trace(_ actions: [TraceAction]) -> TraceResult {
        var r = TraceResult(id: "u0", ledgerPath: "ledger/audit.sqlite")
        r.transactions = actions.enumerated().map { i, action in
            var t = TransactionTrace(transactionId: "\(1000 + i)")
            t.verdict = TraceVerdict(apple: .notConfirmed("none"), action: action, nextAction: action.rawValue)
            return t
        }
        return r
    }

    func testActionsAreCountedInTheirOrderWithTheTransactionsNeedingThem() {
        let actions = [TraceAction.noAction] + Array(repeating: .creditManually, count: 12) + [.revoke, .noAction, .wait]
        XCTAssertEqual(
            TraceOutput.actionSummary(trace(actions)),
            [
                "actions: credit manually 12 (1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008, 1009, 1010 … and 2 more), wait 1 (1015), "
                    + "revoke 1 (1013), no action 2"
            ])
        XCTAssertTrue(TraceOutput.text(trace(actions)).contains("\nactions: credit manually 12 ("))
    }

    func testOneTransactionHasNoSummary() {
        XCTAssertEqual(TraceOutput.actionSummary(trace([.creditManually])), [])
    }
}
