import IAPAuditModel

/// The next action of a trace that no transaction answers (docs/trace.md): an id only rejected lines hold
/// (the run could not read them: fix them and run again), or an order id Apple answered it does not know
/// (Look Up Order ID status 1: the customer's id is not an Apple order id), or an id no record holds at all
/// (check it; if it is right, the ledger lacks the records of its time). Nil otherwise.
enum TraceResultActions {
    static func next(_ r: TraceResult) -> (code: TraceAction, text: String)? {
        if r.matches.isEmpty && !r.rejectedLines.isEmpty {
            let one = r.rejectedLines.count == 1 && !r.moreRejectedLines
            return (
                .fixInput,
                one ? "fix the line and run again: the run could not read it" : "fix the lines and run again: the run could not read them"
            )
        }
        if r.matches.isEmpty {
            // Several equally near: naming one would guess (found by a support user test: ten ids one digit off, one named).
            let near =
                r.nearMatches.count > 1
                ? "check the id: did you mean one of the \(r.nearMatches.count) near matches above? "
                : r.nearMatches.first.map { "check the id: did you mean \($0.id) (\($0.kind.label))? " }
                    ?? "check the id against the ticket; "
            return (
                .checkId,
                near + "if it is right, no record of this ledger holds it: run over the logs and Apple's answers of the purchase's "
                    + "days, and for an Apple order id keep a Look Up Order ID answer for it (docs/trace.md)"
            )
        }
        let unknownOrder = r.unattached.contains { event in
            guard case .apple(let a) = event.detail, let status = a.orderStatus else { return false }
            return status != 0
        }
        guard r.transactions.isEmpty, r.matches.contains(where: { $0.kind == .orderId }), unknownOrder else { return nil }
        return (
            .tellCustomer,
            "tell the customer: Apple does not know this order id (check it against the invoice: it is the Order ID on the emailed receipt)"
        )
    }
}
