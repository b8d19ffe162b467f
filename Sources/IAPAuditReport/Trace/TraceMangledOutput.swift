import Foundation
import IAPAuditModel

/// What `trace ID` says of an id that looks spreadsheet-mangled (`TraceMangledId`): why, and every ledger id it may
/// be, none traced (the one equal to ID neither: it may be another customer's).
package enum TraceMangledOutput {
    package struct Answer: Sendable {
        package var id: String
        package var mangled: TraceMangledId
        package var candidates: [TraceMangledCandidate]
        /// Candidates beyond those listed; `moreCapped`: at least that many (counted no further).
        package var more: Int
        package var moreCapped = false
        package var userId: String?
        package var ledgerPath: String

        package init(
            id: String, mangled: TraceMangledId, candidates: [TraceMangledCandidate], more: Int, userId: String?, ledgerPath: String
        ) {
            (self.id, self.mangled, self.candidates, self.more, self.userId, self.ledgerPath) = (
                id, mangled, candidates, more, userId, ledgerPath
            )
        }
    }

    /// - Parameter tail: the options a command repeats (`--out DIR`), with a leading space.
    package static func text(_ a: Answer, tail: String) -> String {
        var lines = [
            "trace \(TraceOutput.shown(a.id)): not traced: the id looks spreadsheet-mangled: \(a.mangled.why)",
            "ledger \(a.ledgerPath)",
        ]
        if a.candidates.isEmpty {
            lines.append("no ledger id it may be (\(a.mangled.length) digits from \(a.mangled.low) to below \(a.mangled.high))")
        } else {
            let count = a.moreCapped ? "more than \(a.candidates.count + a.more)" : "\(a.candidates.count + a.more)"
            lines.append(
                "it may be any of \(count) ledger id(s) of \(a.mangled.length) digits"
                    + (a.userId.map { ", those of user \($0) first" } ?? "") + "; ask the customer for the id as Apple sent it:")
        }
        for c in a.candidates {
            var words = [
                c.userIds.isEmpty ? "user unknown" : "user " + c.userIds.joined(separator: ", "), c.productId ?? "product unknown",
                c.purchaseMs.map(Timestamp.iso) ?? "date unknown",
            ]
            if c.exact { words.append("exact match, but the id looks mangled") }
            lines.append("  \(c.transactionId)  " + words.joined(separator: ", "))
            lines.append("    iap-audit trace --exact \(c.transactionId)\(tail)")
        }
        if a.more > 0 {
            let more = "and \(a.moreCapped ? "more than " : "")\(a.more) more"
            lines.append(
                a.userId == nil
                    ? "\(more): give the customer's user id (trace \(a.id) --user USER) to list theirs first"
                    : "\(more), none of them user \(a.userId!)'s")
        }
        lines.append("to trace an id that only looks mangled (a real id ending in 0): trace --exact ID")
        return lines.map(\.controlCharactersEscaped).joined(separator: "\n")
    }

    /// `{"id", "found": false, "mangled": {"why", "length", "low", "high"}, "candidates": [{"transaction_id", "user_ids",
    /// "product_id", "purchase_ms", "exact", "of_user"}], "more": N}`.
    package static func json(_ a: Answer, tail: String) -> String {
        let null = NSNull() as Any
        let object: [String: Any] = [
            "id": a.id, "found": false, "traced": false, "ledger": a.ledgerPath,
            "mangled": ["why": a.mangled.why, "length": a.mangled.length, "low": a.mangled.low, "high": a.mangled.high] as [String: Any],
            "user_id": a.userId ?? null,
            "candidates": a.candidates.map { c in
                [
                    "transaction_id": c.transactionId, "user_ids": c.userIds, "product_id": c.productId ?? null,
                    "purchase_ms": c.purchaseMs ?? null, "purchase_date": c.purchaseMs.map(Timestamp.iso) ?? null, "exact": c.exact,
                    "of_user": c.ofUser, "command": "iap-audit trace --exact \(c.transactionId)\(tail)",
                ] as [String: Any]
            },
            "more": a.more, "more_is_at_least": a.moreCapped,
        ]
        return JSONText.encode(object)
    }
}
