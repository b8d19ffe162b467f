import Foundation
import XCTest

@testable import IAPAuditModel

/// A finding's sentence and action made from facts no rule writes (a tampered ledger read by `trace --redact`, which makes
/// them again; a signed transaction's negative `revocationPercentage`): they are made, never trap.
final class FindingActionHostileTests: XCTestCase {
    private func finding(_ kind: FindingKind, _ reason: String, _ fill: (inout FindingFacts) -> Void) -> Finding {
        var facts = FindingFacts()
        fill(&facts)
        return Finding(kind: kind, reason: reason, transactionId: "T1", productId: "P", userIds: ["u1"], facts: facts)
    }

    func testAnUnderCreditedOrderOfQuantitiesPastInt64IsHeldAtItsBounds() {
        // paid - credited overflowed: Int64.max - (-1) trapped (Swift runtime failure: arithmetic overflow).
        let f = finding(.droppedOrder, "under_credited") {
            $0.set(.quantityPaid, Int64.max)
            $0.set(.quantityCredited, Int64(-1))
            $0.set(.quantitySource, "quantity")
        }
        XCTAssertEqual(
            FindingSentence.text(f),
            "paid 9223372036854775807, credited -1 (the quantity the client reported): 9223372036854775807 unit(s) not delivered")
        XCTAssertEqual(FindingAction.of(f).quantity, Int64.max)
    }

    func testABacklogOfTimesPastInt64IsAged() {
        // as_of_ms - oldest_request_ms overflowed.
        let f = finding(.verificationBacklog, "no_verify_response") {
            $0.set(.unresolvedCount, 1)
            $0.set(.oldestRequestId, "r1")
            $0.set(.oldestRequestMs, Int64.min)
            $0.set(.asOfMs, Int64.max)
        }
        XCTAssertEqual(
            FindingSentence.text(f), "1 unresolved request(s); oldest r1 is 5124095576030.4 h old at as-of, no answer from Apple")
        let usual = finding(.verificationBacklog, "no_verify_response") {
            $0.set(.unresolvedCount, 2)
            $0.set(.oldestRequestId, "r1")
            $0.set(.oldestRequestMs, Int64(1_790_000_000_000))
            $0.set(.asOfMs, Int64(1_790_000_000_000 + 90 * 60_000))
        }
        XCTAssertEqual(FindingSentence.text(usual), "2 unresolved request(s); oldest r1 is 1.5 h old at as-of, no answer from Apple")
    }

    func testANegativeRevocationPercentageIsWritten() {
        // Its fraction's digits ("-500") were padded with a negative count of zeros: a trap.
        XCTAssertEqual(FindingSentence.percent(-1500), "-1.5%")
        XCTAssertEqual(FindingSentence.percent(-50000), "-50%")
        XCTAssertEqual(FindingSentence.percent(Int.min), "-9223372036854775.808%")
        XCTAssertEqual(FindingSentence.percent(33333), "33.333%")
        XCTAssertEqual(FindingSentence.percent(50000), "50%")
        let f = finding(.refundStillGranted, "cancelled_not_revoked") {
            $0.set(.cancelledMs, Int64(0))
            $0.set(.revocationPercentage, Int64(-1500))
            $0.set(.holders, texts: ["u1"])
        }
        XCTAssertEqual(
            FindingSentence.text(f),
            "cancelled at 1970-01-01T00:00:00.000Z, revocationPercentage -1500 (-1.5% refunded); still granted to u1")
    }
}
