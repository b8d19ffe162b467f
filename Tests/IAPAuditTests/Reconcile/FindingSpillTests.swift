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

/// The finding spill gives back every finding, whole, in table order: kind, reason, transaction id,
/// users, each text compared as exact bytes (SQLite's BINARY order), whatever order they came in.
final class FindingSpillTests: XCTestCase {
    private func finding(_ kind: FindingKind, _ reason: String, _ id: String, users: [String] = []) -> Finding {
        Finding(
            kind: kind, reason: reason, transactionId: id, userIds: users, firstSeenMs: 1_790_812_800_000,
            evidence: [SourceLocation(file: "server.jsonl", line: 7)], detail: "d \(id)")
    }

    func testTableOrderIsByExactBytes() throws {
        let expected = [
            finding(.droppedOrder, "in_receipt_never_credited", "a"),
            finding(.droppedOrder, "in_receipt_never_credited", "a\u{0}b"),
            finding(.droppedOrder, "in_receipt_never_credited", "ab"),
            finding(.droppedOrder, "in_receipt_never_credited", "e\u{301}"),  // 65 CC 81
            finding(.droppedOrder, "in_receipt_never_credited", "\u{E9}"),  // C3 A9: after, though Swift calls them equal
            finding(.droppedOrder, "not_verified", "0"),
            finding(.duplicateCredit, "cross_account", "1", users: ["u1", "u2"]),
            finding(.duplicateCredit, "cross_account", "1", users: ["u1", "u3"]),
            finding(.duplicateCredit, "cross_account", "1", users: ["u10"]),
            finding(.regranted, "restore", "0"),
        ]
        for directory in [nil, TestPaths.scratch()] {
            let spill = try FindingSpill(directory: directory)
            let shuffled = expected.reversed().enumerated()
            try spill.add(shuffled.filter { $0.offset % 2 == 0 }.map(\.element))
            try spill.add(shuffled.filter { $0.offset % 2 == 1 }.map(\.element))
            let all = try spill.all()
            XCTAssertEqual(all.map { Array($0.transactionId.utf8) }, expected.map { Array($0.transactionId.utf8) })
            XCTAssertEqual(all.map(\.userIds), expected.map(\.userIds))
            XCTAssertEqual(all, expected)
            // The lifecycle reads only what a finding's id is made of: the same, in the same order.
            var identities: [String] = []
            try spill.forEachIdentity { identities.append("\($0.rawValue)|\($1)|\($2)") }
            XCTAssertEqual(identities, expected.map { "\($0.kind.rawValue)|\($0.reason)|\($0.transactionId)" })
            var ids = FindingIds(), fromFindings = FindingIds()
            XCTAssertEqual(
                try { () -> [String] in
                    var result: [String] = []
                    try spill.forEachIdentity { result.append(ids.id(kind: $0, transactionId: $2, reason: $1)) }
                    return result
                }(), expected.map { fromFindings.id(for: $0) })
            let stream = try spill.stream()
            XCTAssertEqual(
                stream.counts.map { "\($0.kind.rawValue)/\($0.reason)=\($0.count)" },
                [
                    "dropped_order/in_receipt_never_credited=5", "dropped_order/not_verified=1",
                    "duplicate_credit/cross_account=3", "regranted/restore=1",
                ])
        }
    }
}
