import IAPAuditModel
import IAPAuditStore

/// How `trace` looks an id up and shows its user and device ids (docs/trace.md, "Redaction"), from `--redact`
/// and the ledger's run parameter `redaction`:
///
/// | ledger | `--redact` and its key | looked up | shown |
/// |---|---|---|---|
/// | original ids | no | the id | as stored |
/// | original ids | yes | the id; a token: the ledger's id it is the token of | tokens |
/// | tokens (`--redact-ledger`) | no | the id (a token finds its rows) | as stored: tokens |
/// | tokens | the same key | a token as is; another id also as a user's and a device's token | as stored: tokens |
/// | tokens | another key | refused: its tokens would not join the ledger's | — |
struct TraceRedaction {
    /// The text looked up as a user or device id instead of the id.
    var lookup: [TraceIdKind: String] = [:]
    /// Replaces the ids read (a ledger of original ids under `--redact`).
    var redactor: IdRedactor?
    /// Shows a user's or device's id as asked by its token.
    var shownBy: IdRedactor?
    var parameter: String?
    var notes: [String] = []
    /// `lookup` holds the tokens of the id given, though it has a token's form (a real id that looks like one).
    var lookingUpTokensOfGiven = false
    /// The key of `--redact` on a ledger of tokens.
    private var ledgerKey: IdRedactor?

    /// On a ledger of tokens traced with its key, an id of a token's form that matched nothing as a token: the plan
    /// that looks it up by its own tokens (it may be a user's real id; found by a privacy retest, which traced one on
    /// a `--redact-ledger` ledger and found nothing). Nil otherwise.
    func lookingUpTokens(of id: String) -> TraceRedaction? {
        guard let ledgerKey, lookup.isEmpty, IdRedactor.isToken(id) else { return nil }
        var plan = self
        plan.lookup = [.userId: ledgerKey.user(id), .deviceId: ledgerKey.device(id)]
        plan.lookingUpTokensOfGiven = true
        return plan
    }

    /// - Throws: `AuditError.ledger`: a ledger redacted with another key than `--redact`'s; or as `TraceReader.read`.
    static func plan(id: String, ledgerPath: String, redaction: Redaction?) throws -> TraceRedaction {
        let parameters = try TraceReader.runParameters(ledgerPath: ledgerPath)
        var plan = TraceRedaction()
        let isToken = IdRedactor.isToken(id)
        let kind = id.hasPrefix("u_") ? TraceIdKind.userId : .deviceId
        if let stored = Redaction.ledgerKey(parameters["redaction"]) {
            plan.parameter = "ledger, key \(stored)"
            guard let redaction else {
                plan.notes.append(
                    "this ledger holds redacted ids (made with --redact-ledger, key \(stored)): its user and device ids are tokens; "
                        + "trace one by its token (u_…, d_…), or by the original id with --redact and the same key")
                return plan
            }
            let given = redaction.redactor.fingerprint
            guard given == stored else {
                throw AuditError.ledger(
                    ledgerPath,
                    "this ledger was redacted with another key (\(stored); the key given is \(given)): an id's token under the key "
                        + "given would not join the ledger's; give the same key, or trace a token without --redact")
            }
            if !isToken { plan.lookup = [.userId: redaction.redactor.user(id), .deviceId: redaction.redactor.device(id)] }
            (plan.shownBy, plan.ledgerKey) = (redaction.redactor, redaction.redactor)
            plan.notes.append("this ledger holds redacted ids (made with --redact-ledger, key \(stored)): user and device ids are tokens")
        } else if let redaction {
            (plan.redactor, plan.shownBy) = (redaction.redactor, redaction.redactor)
            plan.parameter = "outputs, key \(redaction.redactor.fingerprint)"
            plan.notes.append("redacted (--redact, key \(redaction.redactor.fingerprint)): user and device ids are shown as tokens")
            if isToken {
                if let original = try TraceReader.original(ofToken: id, redactor: redaction.redactor, ledgerPath: ledgerPath) {
                    plan.lookup[kind] = original
                } else {
                    // Not echoed: it is looked up as given, and may be a real id of a token's form.
                    plan.notes.append("the id given has a token's form but is the token of no \(kind.label) of this ledger under this key")
                }
            }
        } else if isToken {
            plan.notes.append(
                "\(id) has the form of a token (--redact): this ledger holds original ids; to trace a token give --redact and the "
                    + "key that made it")
        }
        return plan
    }

    /// The ids read shown as this plan says, before the trace is judged (its verdict's words name tokens too).
    func apply(_ result: inout TraceResult) {
        if let redactor { result.redact(with: redactor) }
        // A token given stands for itself in a ledger of tokens, and where the ledger's original id was found for it.
        let isToken = IdRedactor.isToken(result.id)
        let standsForItself = isToken && (redactor == nil || !lookup.isEmpty) && !lookingUpTokensOfGiven
        if let shownBy { result.id = result.shownId(shownBy, standsForItself: standsForItself) }
        (result.redaction, result.notes) = (parameter, notes + result.notes)
    }
}
