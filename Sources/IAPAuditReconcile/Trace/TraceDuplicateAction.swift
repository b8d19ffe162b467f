import IAPAuditModel

/// A duplicate credit's next action: which credit to keep and which to revoke. The finding's `grants` fact lists
/// each grant (request, user, and its id across a purchase's ids) in log order; the one kept
/// is the first by time (by log order when a grant's request is not in this trace: a grant of the purchase's
/// other id, whose time this trace does not read, so that tracing either id gives the same advice), unless
/// across accounts a client report of a purchase names the purchaser among the users (then that user's first
/// grant): the payment is theirs. A restore's report names a user who restored, not the purchaser.
enum TraceDuplicateAction {
    static func text(_ f: Finding, _ trace: TransactionTrace) -> String {
        let grants = self.grants(f)
        guard !grants.isEmpty else { return "revoke the extra credit: one payment \(f.detail)" }
        let times = Dictionary(
            trace.events.compactMap { e -> (String, Int64)? in
                guard case .request(let r) = e.detail, let time = e.timeMs else { return nil }
                return (r.requestId, time)
            }, uniquingKeysWith: min)
        // By time when every grant's is known; else in log order (helper-35: a grant of the other id sorted last
        // and the other user's restore was called "first", and tracing the two ids gave opposite advice).
        let timed = grants.allSatisfy { times[$0.request] != nil }
        let byTime =
            timed
            ? grants.indices.sorted { a, b in (times[grants[a].request]!, a) < (times[grants[b].request]!, b) } : Array(grants.indices)
        let purchaser = f.reason == "cross_account" ? clientUser(trace, among: grants.map(\.user)) : nil
        let kept = purchaser.flatMap { user in byTime.first { grants[$0].user.utf8.elementsEqual(user.utf8) } } ?? byTime[0]
        func shown(_ i: Int) -> String {
            let g = grants[i]
            let first = i != byTime[0] ? nil : timed ? "first" : "first in the logs"
            let words = [g.user, g.id, first, times[g.request].map(Timestamp.iso)].compactMap { $0 }
            return "\(g.request) (\(words.joined(separator: ", "))"
                + (i == kept && purchaser != nil ? "; the user of the client report" : "") + ")"
        }
        let extra = byTime.filter { $0 != kept }.map(shown).joined(separator: ", ")
        // The client report names a purchaser who holds none of the credits (found by a support user test): the payment may
        // be theirs, and keeping the first credit would leave the payer with nothing.
        let payer =
            f.reason == "cross_account" && purchaser == nil
            ? reporter(trace).map {
                "; but the client report's user \($0) was credited none of them: the payment may be theirs, so check the ticket's "
                    + "account before revoking, and credit \($0) instead if it is theirs"
            } ?? "" : ""
        return "revoke the extra credit: one payment granted \(grants.count) times: keep \(shown(kept)); revoke \(extra)\(payer)"
    }

    /// The grants a `duplicate_credit` lists (its `grants` fact): each one's request, user (`no user` when none was
    /// logged) and, when the purchase was credited under several ids, its id.
    static func grants(_ f: Finding) -> [(request: String, user: String, id: String?)] {
        let several = f.facts.texts(.grantedTransactionIds).count > 1
        return f.facts.objects(.grants).map { g in
            (g["request_id"]?.text ?? "?", g["user_id"]?.text ?? "no user", several ? g["transaction_id"]?.text : nil)
        }
    }

    /// The users the transaction's client reports of a purchase name, in timeline order.
    private static func reporters(_ trace: TransactionTrace) -> some Sequence<String> {
        trace.events.lazy.compactMap { e -> String? in
            guard case .client(let c) = e.detail, c.state == "purchased" else { return nil }
            return c.userId
        }
    }

    /// The user the transaction's first client report of a purchase names, if any.
    private static func reporter(_ trace: TransactionTrace) -> String? { reporters(trace).first { _ in true } }

    /// The user the transaction's client reports of a purchase name, when one of `users`.
    private static func clientUser(_ trace: TransactionTrace, among users: [String]) -> String? {
        reporters(trace).first { user in users.contains { $0.utf8.elementsEqual(user.utf8) } }
    }
}
