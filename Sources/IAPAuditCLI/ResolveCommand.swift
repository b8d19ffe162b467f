import Foundation
import IAPAuditModel
import IAPAuditPipeline

/// `iap-audit resolve ID --credited|--refused|--revoked|--refunded --note TEXT [--by NAME] [--quantity N] [--user U]
/// [--at TIME] [--out DIR] [--ledger FILE] [--json]`: records what a person did about a purchase (docs/semantics.md
/// rule 25).
enum ResolveCommand: Subcommand {
    static let name = "resolve", help = HelpText.resolve
    static let usage =
        "iap-audit resolve TRANSACTION_ID --credited|--refused|--revoked|--refunded --note TEXT [--by NAME] [--quantity N] [--user USER] "
        + "[--at TIME] [--out DIR] [--ledger FILE] [--json]"
    static let valuedOptions: Set<String> = ["--note", "--by", "--quantity", "--user", "--at", "--out", "--ledger"]
    static let flags: Set<String> = ["--credited", "--refused", "--revoked", "--refunded", "--json", "-h", "--help"]

    static func execute(_ arguments: [String], out: (String) -> Void, err: (String) -> Void) throws -> Int32 {
        guard let args = try read(arguments, out: out) else { return 0 }
        let fail = { (message: String) in UsageError(message: message, usage: usage, command: name) }
        guard args.positionals.count == 1, let id = args.positionals.first, !id.isEmpty else {
            throw fail(args.positionals.isEmpty ? "missing the TRANSACTION_ID (e.g. 2000000400594083)" : "one TRANSACTION_ID at a time")
        }
        let kinds = ManualAction.Kind.allCases.filter { args.has("--" + $0.rawValue) }
        guard kinds.count == 1, let kind = kinds.first else {
            throw fail("say what was done: one of --credited, --refused, --revoked, --refunded")
        }
        guard let note = args.value("--note"), !note.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw fail("--note TEXT is required: say what was done and why (the ticket)")
        }
        let environment = ProcessInfo.processInfo.environment
        guard
            let by = [args.value("--by"), environment["USER"], environment["LOGNAME"]].lazy.compactMap({ $0 })
                .first(where: { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty })
        else { throw fail("--by NAME is required here: no login name (USER, LOGNAME) says who") }
        var quantity: Int64? = nil
        if let text = args.value("--quantity") {
            guard let n = Int64(text), n >= 1, n <= 1_000_000 else {
                throw fail("--quantity: expected a whole number 1–1000000, not '\(text)'")
            }
            quantity = n
        }
        let nowMs = Int64(Date().timeIntervalSince1970 * 1000)
        var atMs = nowMs
        if let text = args.value("--at") {
            guard let ms = Timestamp.parseMs(text), ms >= Timestamp.earliestLogEpochMs, ms <= nowMs + 60_000 else {
                throw fail("--at: expected an ISO 8601 time not in the future (2026-10-24T09:12:00Z), not '\(text)'")
            }
            atMs = ms
        }
        let folder = args.value("--out") ?? RunCommand.defaultOutput
        if folder.isEmpty || args.value("--ledger") == "" || args.value("--user") == "" {
            throw fail("an empty value (\"\") names nothing")
        }
        let action = ManualAction(
            transactionId: id, kind: kind, quantity: quantity, userId: args.value("--user"), by: by, note: note, atMs: atMs,
            recordedAtMs: nowMs)
        let outcome = try ManualResolution.record(action, outputDirectory: folder, ledger: args.value("--ledger"))
        if args.has("--json") {
            out(RunSummary.encoded(json(outcome)))
            return 0
        }
        out("recorded in \(RunSummary.printable(outcome.databasePath)): \(RunSummary.printable(outcome.action.named))")
        for earlier in outcome.earlier {
            out("  before it: \(RunSummary.printable(earlier.named))")
        }
        if kind == .credited && outcome.earlier.contains(where: { $0.kind == .credited }) {
            out("  warning: this purchase was credited by hand before: check that the customer is not credited twice")
        }
        // Found by a support user test: a credit by hand of a claim only Apple can decide passed without a word.
        if kind == .credited && outcome.calledFor.contains("ask_apple") && !outcome.calledFor.contains("credit") {
            out(
                "  warning: Apple does not confirm this payment (its finding called for ask_apple): a credit by hand may pay for a "
                    + "purchase never made; iap-audit ask-apple settles it")
        }
        let open = outcome.openFindings.isEmpty ? "no open finding" : "open: \(outcome.openFindings.joined(separator: ", "))"
        out(
            "  \(RunSummary.printable(open)); the next run judges it with this action (docs/semantics.md rule 25): "
                + next(kind))
        return 0
    }

    /// What the next run does with an action of `kind`.
    private static func next(_ kind: ManualAction.Kind) -> String {
        switch kind {
        case .credited:
            return "a dropped order is resolved, and a credit by the server of the same purchase is a duplicate_credit "
                + "(manual_and_automatic)"
        case .refused: return "a claim Apple does not confirm is resolved; one Apple confirms stays open (credit it)"
        case .revoked: return "a finding that asks to take credits back is resolved once as many were taken back"
        case .refunded: return "a dropped order is resolved: the customer was paid back"
        }
    }

    private static func json(_ o: ManualResolution.Outcome) -> [String: Any] {
        let a = o.action
        return [
            "action_id": a.actionId, "transaction_id": a.transactionId, "action": a.kind.rawValue,
            "quantity": a.quantity.map { $0 as Any } ?? NSNull(), "user_id": a.userId.map { $0 as Any } ?? NSNull(), "by": a.by,
            "note": a.note, "at": Timestamp.iso(a.atMs), "at_ms": a.atMs, "recorded_at_ms": a.recordedAtMs, "ledger": o.databasePath,
            "open_findings": o.openFindings, "earlier_action_ids": o.earlier.map(\.actionId),
        ]
    }
}
