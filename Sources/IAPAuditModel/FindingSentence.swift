import Foundation

/// A finding's sentence (`Finding.detail`), made from its reason and facts in this one place: the rules fill
/// facts and never write text, and nothing reads the sentence back (trace and the actions read `facts`).
public enum FindingSentence {
    public static func text(_ f: Finding) -> String {
        let x = f.facts
        let body: String
        switch f.cause {
        case .droppedOrderNeverSent?: body = "client reported purchased; no server request carried it"
        case .droppedOrderNotCredited?:
            body = "verified by Apple and present in the receipt of \(x.text(.proofRequestId) ?? "?"), never granted (\(requests(x)))"
        case .droppedOrderStaleReceipt?:
            body =
                "the receipt Apple verified in \(x.text(.proofRequestId) ?? "?") was created at \(iso(x, .receiptCreatedMs)), "
                + "before the purchase reported at \(iso(x, .reportedMs)): it cannot show it; re-query Apple by transaction id (\(requests(x)))"
        case .droppedOrderNotInReceipt?:
            body = "verified by Apple (status 0) in \(x.text(.proofRequestId) ?? "?") but absent from the receipt (\(requests(x)))"
        case .droppedOrderVerifyFailed?:
            let status = Int(x.integer(.status) ?? 0)
            body = "last status \(status): \(VerifyStatus.meaning(status)) (\(x.text(.proofRequestId) ?? "?"); \(requests(x)))"
        case .droppedOrderNoVerifyResponse?: body = "Apple never answered a request that carried it (\(requests(x)))"
        case .droppedOrderInReceiptNeverCredited?: body = inReceipt(x)
        case .droppedOrderRevokedWhilePaid?: body = revokedWhilePaid(x)
        case .droppedOrderUnderCredited?:
            let (paid, credited) = (x.integer(.quantityPaid) ?? 0, x.integer(.quantityCredited) ?? 0)
            let source =
                x.text(.quantitySource) == "credited_quantity" ? "the server log's credited_quantity" : "the quantity the client reported"
            body = "paid \(paid), credited \(credited) (\(source)): \(missing(paid, credited)) unit(s) not delivered"
        case .duplicateCreditCrossAccount?, .duplicateCreditReissuedIdCredited?, .duplicateCreditRestoreCreditedAsPurchase?,
            .duplicateCreditSameUser?, .regrantedNonConsumable?, .regrantedAutoRenewable?, .regrantedNonRenewing?:
            body = grants(x)
        case .duplicateCreditManualAndAutomatic?:
            let manual = x.objects(.manualCredits).map {
                "by hand by \($0["by"]?.text ?? "?") on \($0["at_ms"]?.integer.map(Timestamp.iso) ?? "?") (manual action #\($0["action_id"]?.text ?? "?"))"
            }
            body = "credited \(manual.joined(separator: " and ")) and by the server: " + grants(x)
        case .sandboxLeakSandboxCredited?, .sandboxAllowlistedAllowlistedUser?:
            body =
                "credited on a \(f.environment ?? "Sandbox") answer, where no money is paid, by request(s) \(x.texts(.requestIds).joined(separator: ", "))"
        case .sandboxLeakEnvironmentConflict?:
            body =
                "credited on an answer \(f.environment.map { "labelled \($0)" } ?? "naming no environment") whose receipt_type or "
                + "subscription periods (an hour or less) are the sandbox's: no production payment is proven; request(s) "
                + x.texts(.requestIds).joined(separator: ", ")
        case .refundStillGrantedCancelledNotRevoked?, .refundSupersededLaterPurchase?: body = refund(x, f.productId)
        case .invalidCreditSignatureInvalid?, .invalidCreditBundleMismatch?, .invalidCreditNonzeroStatus?, .invalidCreditNotInReceipt?,
            .invalidCreditNoVerifyResponse?:
            body =
                "granted without proof by "
                + x.objects(.unprovenGrants).map { "\($0["request_id"]?.text ?? "?") (\($0["reason"]?.text ?? "?"))" }.joined(
                    separator: ", ")
        case .verificationBacklogNoVerifyResponse?, .verificationBacklogRetryableStatus?, .pendingVerificationNoVerifyResponse?,
            .pendingVerificationRetryableStatus?:
            body = unresolved(x)
        case .sandboxRefusedSandboxReceipt?:
            body =
                x.integer(.status) == 21007
                ? "Apple answered 21007 (a sandbox receipt sent to production) in \(x.texts(.requestIds).joined(separator: ", ")) and the server "
                    + "never retried it against the sandbox; nothing was granted: no money was paid"
                : "every answer was from the sandbox and nothing was granted: no money was paid"
        case .sandboxRefusedEnvironmentConflict?:
            body =
                x.integer(.appleRecordCount).map {
                    "listed only by \($0) Apple record(s) whose environment signals disagree (Production "
                        + "with a sandbox receipt_type or a notification's Sandbox unified_receipt, or subscription periods of an hour "
                        + "or less labelled Production or unlabelled): no production payment is proven; never reported by the client, "
                        + "never granted"
                }
                ?? "Apple's answer (\(x.texts(.requestIds).joined(separator: ", "))) is labelled Production or names no environment, but its "
                + "receipt_type or subscription periods (an hour or less) are the sandbox's: no production payment is proven; nothing was granted"
        case .idReissuedSameBillingEvent?:
            let (ids, granted) = (x.texts(.transactionIds), x.texts(.grantedTransactionIds))
            body =
                "one purchase under \(ids.count) transaction ids: \(ids.joined(separator: ", "))"
                + (granted.isEmpty ? "; none granted" : "; granted as \(granted.joined(separator: ", "))")
        case .outsideWindowBeforeWindow?, .outsideWindowAfterWindow?: body = outside(x)
        case .pendingEvidenceAwaitingServerLog?, .pendingEvidenceAwaitingAppleAnswer?:
            body = pending(
                x, feed: f.reason == FindingReason.pendingEvidenceAwaitingAppleAnswer.name ? "Apple's answers end" : "the server log ends")
        case nil: return f.detail
        }
        return body + attribution(x)
            + (x.text(.appleNotFound).map { "; asked by the id, Apple has no such purchase in production (\($0))" } ?? "")
    }

    private static func iso(_ x: FindingFacts, _ field: FindingField) -> String { x.integer(field).map(Timestamp.iso) ?? "?" }

    private static func requests(_ x: FindingFacts) -> String { "requests " + x.texts(.requestIds).joined(separator: ", ") }

    /// Rule 9's attribution of a renewal no request links to anyone: the users granted its subscription.
    private static func attribution(_ x: FindingFacts) -> String {
        let users = x.texts(.attributedTo)
        guard !users.isEmpty else { return "" }
        return "; attributed to \(users.joined(separator: ", ")) (granted subscription \(x.text(.attributedSubscription) ?? "?"))"
    }

    private static func inReceipt(_ x: FindingFacts) -> String {
        let records =
            x.integer(.environmentUnlabelled) == 1 ? "record(s) not marked Sandbox (no environment given)" : "production record(s)"
        let cancelled = x.integer(.cancelledMs).map { "; Apple shows it cancelled (refunded) at \(Timestamp.iso($0))" } ?? ""
        return
            "in \(x.integer(.appleRecordCount) ?? 0) \(records) from Apple (\(x.texts(.appleSources).joined(separator: ", "))); "
            + "never reported by the client, never granted\(cancelled)"
    }

    private static func revokedWhilePaid(_ x: FindingFacts) -> String {
        let expiry = x.integer(.expiresMs).map { "; the paid period runs to \(Timestamp.iso($0))" } ?? ""
        let refund = x.integer(.cancelledMs).map { "; Apple refunded it only after the revoke, at \(Timestamp.iso($0))" } ?? ""
        return
            "revoked at \(iso(x, .revokedMs)) after its last grant at \(iso(x, .lastGrantedMs)): nobody holds it, "
            + "and Apple shows it paid and not refunded at the revoke\(expiry)\(refund)"
    }

    /// `granted N times: r1 (u1), r2 (u2)`, each with its id when the purchase was credited under several.
    private static func grants(_ x: FindingFacts) -> String {
        let grants = x.objects(.grants)
        let granted = x.texts(.grantedTransactionIds)
        let several = granted.count > 1
        let list = grants.map { g in
            "\(g["request_id"]?.text ?? "?") (\(g["user_id"]?.text ?? "no user")\(several ? ", " + (g["transaction_id"]?.text ?? "?") : ""))"
        }.joined(separator: ", ")
        return "granted \(grants.count) times: \(list)" + (several ? "; one purchase under ids \(granted.joined(separator: ", "))" : "")
    }

    /// Rule 12's refund, who still holds it, and (rule 23) whose later purchase supersedes it.
    private static func refund(_ x: FindingFacts, _ productId: String?) -> String {
        var text = "cancelled at \(iso(x, .cancelledMs))"
        if let reason = x.text(.cancellationReason) { text += ", cancellation_reason \(reason)" }
        if let type = x.text(.revocationType) { text += ", revocationType \(type)" }
        if let share = x.integer(.revocationPercentage) { text += ", revocationPercentage \(share) (\(percent(Int(share))) refunded)" }
        let holders = x.optionalTexts(.holders)
        if !holders.isEmpty { text += "; still granted to \(holders.map { $0 ?? "(no user)" }.sorted().joined(separator: ", "))" }
        if let later = laterPurchases(x, productId: productId) { text += supersededMarker + later }
        return text
    }

    /// Rule 23's later purchases that supersede a refund, in words (`u7 holds the later purchase T of P (purchased …); …`);
    /// nil when there are none.
    public static func laterPurchases(_ x: FindingFacts, productId: String?) -> String? {
        let later = x.objects(.laterPurchases)
        guard !later.isEmpty else { return nil }
        return later.map {
            "\($0["user_id"]?.text ?? "?")\(laterPurchasePhrase)\($0["transaction_id"]?.text ?? "?") of "
                + "\($0["product_id"]?.text ?? productId ?? "?") (purchased \($0["purchase_ms"]?.integer.map(Timestamp.iso) ?? "?"))"
        }.joined(separator: "; ")
    }

    /// Before the list of later purchases that supersede a refund (rule 23).
    public static let supersededMarker = "; superseded: "
    /// Between a holder and their later purchase.
    public static let laterPurchasePhrase = " holds the later purchase "

    /// The units paid and not credited, `paid - credited`, held at Int64's bounds: facts read from a damaged ledger may
    /// hold any integers (a difference past them trapped `trace --redact`).
    public static func missing(_ paid: Int64, _ credited: Int64) -> Int64 {
        let (difference, overflow) = paid.subtractingReportingOverflow(credited)
        return overflow ? (credited < 0 ? .max : .min) : difference
    }

    /// Thousandths of a percent as text: 50000 → `50%`, 33333 → `33.333%`, -1500 → `-1.5%` (no source writes a negative
    /// share, but a signed transaction may carry one: its fraction's digits trapped).
    public static func percent(_ milliPercent: Int) -> String {
        let sign = milliPercent < 0 ? "-" : ""
        let whole = milliPercent.magnitude / 1000
        let fraction = milliPercent.magnitude % 1000
        if fraction == 0 { return "\(sign)\(whole)%" }
        var digits = String(fraction)
        digits = String(repeating: "0", count: 3 - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return "\(sign)\(whole).\(digits)%"
    }

    /// Rule 14: how many requests wait, the oldest and its age, Apple's last word.
    private static func unresolved(_ x: FindingFacts) -> String {
        // In Double: the difference of two Int64s read from a damaged ledger may be past Int64's bounds.
        let ageHours = (Double(x.integer(.asOfMs) ?? 0) - Double(x.integer(.oldestRequestMs) ?? 0)) / 3_600_000
        return
            "\(x.integer(.unresolvedCount) ?? 0) unresolved request(s); oldest \(x.text(.oldestRequestId) ?? "?") is "
            + "\(String(format: "%.1f", ageHours)) h old at as-of"
            + (x.integer(.status).map { ", status \($0): \(VerifyStatus.meaning(Int($0)))" } ?? ", no answer from Apple")
    }

    /// Rule 26: what it would be, where its feed ends, and the grace it is within.
    private static func pending(_ x: FindingFacts, feed: String) -> String {
        let hours = Double(x.integer(.graceMs) ?? 0) / 3_600_000
        let grace = hours == hours.rounded() ? String(Int64(hours)) : String(format: "%.1f", hours)
        return "would be \(x.text(.wouldBe) ?? "?"); \(feed) at \(iso(x, .feedEndMs)), within the \(grace) h grace of "
            + "\(x.text(.wouldBe)?.hasPrefix("refund_still_granted") == true ? "the refund" : x.text(.wouldBe)?.hasPrefix("invalid_credit") == true ? "the grant" : "the purchase") at \(iso(x, .pendingSinceMs))"
    }

    /// Rule 17: what would have been judged, its date, and the bound it falls outside.
    private static func outside(_ x: FindingFacts) -> String {
        let what =
            [
                "purchase_reported": "purchase reported", "purchase_only_apple_lists": "purchase only Apple lists",
                "purchase_revoked_while_paid": "purchase revoked while paid", "purchase_under_credited": "purchase under-credited",
            ][
                x.text(.judged) ?? ""] ?? "purchase"
        let at = iso(x, .windowBoundMs)
        let unknown = ": these logs cannot show whether it was credited"
        let bound =
            [
                "to": "after --to \(at)", "logs_end": "after the newest log ts \(at)\(unknown)", "from": "before --from \(at)",
                "logs_start": "before the earliest log ts \(at)\(unknown)",
            ][x.text(.windowBound) ?? ""] ?? "outside the window"
        return "\(what) dated \(iso(x, .datedMs)), \(bound)"
    }
}
