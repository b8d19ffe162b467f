import IAPAuditModel

/// Planted cases of `sandbox_leak`, `refund_still_granted`, `invalid_credit`,
/// `verification_backlog` and the info kinds (semantics.md rules 8, 10–14).
extension SampleBuilder {
    /// `sandbox_leak/sandbox_credited`, or info `sandbox_allowlisted/allowlisted_user` for an App
    /// Review account: a sandbox receipt credited. Variants: 21007 then the sandbox retry; the
    /// sandbox directly; a retry whose `environment` is missing (the receipt type tells).
    func plantSandboxCredit(_ rep: Int, reviewer: Bool) {
        planted(reviewer ? "sandbox_allowlisted/allowlisted_user" : "sandbox_leak/sandbox_credited")
        let user: String
        let device: String
        if reviewer {
            user = SampleCatalog.reviewers[rep % SampleCatalog.reviewers.count]
            device = self.device(of: user)
        } else {
            (user, device) = newUser()
        }
        let tx = newTransaction(consumable(), at: slot())
        report(tx, user, device, "purchased", at: tx.purchasedAt + 2)
        let at = tx.purchasedAt + 4
        let answers: [SampleJSON]
        switch rep % 3 {
        case 0: answers = [SampleApple.errorResponse(21007), ok(user, [tx], at: at, .sandbox)]
        case 1: answers = [ok(user, [tx], at: at, .sandbox)]
        default:
            answers = [
                SampleApple.errorResponse(21007),
                ok(user, [tx], at: at, ReceiptStyle(environment: nil, receiptType: "ProductionSandbox")),
            ]
        }
        verify(at: at, user, device, ids: [tx.id], answers: answers, status: 0, environment: "Sandbox", granted: true)
        if reviewer {
            expect(.sandboxAllowlisted, AnswerKey.InfoReason.allowlisted, tx)
        } else {
            expect(.sandboxLeak, "sandbox_credited", tx)
        }
    }

    /// Info `sandbox_refused`: a reported purchase whose only answers came from the sandbox, and the
    /// server correctly refused it. Variants: the sandbox retry; a 21007 never retried.
    func plantSandboxRefused(_ rep: Int) {
        planted("sandbox_refused/" + AnswerKey.InfoReason.sandboxReceipt)
        let (tx, user, device) = reportedPurchase()
        let at = tx.purchasedAt + 4
        if rep % 2 == 0 {
            verify(
                at: at, user, device, ids: [tx.id],
                answers: [SampleApple.errorResponse(21007), ok(user, [tx], at: at, .sandbox)],
                status: 0, environment: "Sandbox", granted: false)
        } else {
            verify(
                at: at, user, device, ids: [tx.id], answers: [SampleApple.errorResponse(21007)],
                status: 21007, environment: nil, granted: false)
        }
        expect(.sandboxRefused, AnswerKey.InfoReason.sandboxReceipt, tx)
    }

    /// A purchase credited with proof, then refunded: the user's next receipt lists it with a
    /// `cancellation_date`. Not revoked → `refund_still_granted/cancelled_not_revoked`; revoked
    /// afterwards (by user, or by a revoke without a user) → no finding.
    func plantRefund(_ rep: Int, revoked: Bool) {
        planted(revoked ? "benign: refund followed by a revoke" : "refund_still_granted/cancelled_not_revoked")
        let (user, device) = newUser()
        // Never a product the price list gets wrong: its refund would be valued at the wrong estimate.
        var product = rep % 3 == 2 ? consumable() : random.pick(SampleCatalog.nonConsumables)
        while SamplePrices.misestimated[product] != nil { product = consumable() }
        let tx = newTransaction(product, at: slot(length: 6 * SampleClock.day))
        let grantedAt = grantedPurchase(tx, user, device)
        let next = newTransaction(consumable(), at: tx.purchasedAt + random.seconds(2 * SampleClock.day...5 * SampleClock.day))
        let cancelledAt = random.seconds((grantedAt + SampleClock.hour)...(next.purchasedAt - SampleClock.hour))
        grantedPurchase(next, user, device, extraItems: [tx.cancelled(at: cancelledAt, reason: rep % 2 == 0 ? "0" : "1")])
        if revoked {
            revoke(at: next.purchasedAt + random.seconds(600...3600), rep % 2 == 0 ? user : nil, ids: [tx.id])
        } else {
            expect(.refundStillGranted, "cancelled_not_revoked", tx)
        }
    }

    /// `invalid_credit/nonzero_status`: credited although Apple's final status was not 0. Variants:
    /// the server logged the failure; the server logged 0 (never proof); a 21006 body that lists
    /// another, expired purchase (21006 proves only what it lists, rule 7); 21004.
    func plantInvalidNonzero(_ rep: Int) {
        planted("invalid_credit/nonzero_status")
        let (tx, user, device) = reportedPurchase()
        let answer: SampleJSON
        var logged: Int
        var environment: String? = nil
        switch rep % 4 {
        case 0: (answer, logged) = (SampleApple.errorResponse(21003), 21003)
        case 1: (answer, logged, environment) = (SampleApple.errorResponse(21010), 0, "Production")
        case 2:
            let expired = newTransaction(SampleCatalog.monthly, at: tx.purchasedAt - 45 * SampleClock.day)
            (answer, logged) = (ios6(expired, status: 21006), 21006)
        default: (answer, logged) = (SampleApple.errorResponse(21004), 21004)
        }
        verify(
            at: tx.purchasedAt + 4, user, device, ids: [tx.id], answers: [answer], status: logged,
            environment: environment, granted: true)
        expect(.invalidCredit, "nonzero_status", tx)
    }

    /// `invalid_credit/bundle_mismatch`: credited on a valid receipt of another app (iOS 7 `bundle_id`,
    /// or iOS 6 `bid`).
    func plantInvalidBundle(_ rep: Int) {
        planted("invalid_credit/bundle_mismatch")
        let (tx, user, device) = reportedPurchase()
        let at = tx.purchasedAt + 4
        let foreign = SampleCatalog.foreignBundleIds[rep % 2]
        let answer =
            rep % 2 == 0
            ? ok(user, [tx], at: at, ReceiptStyle(bundleId: foreign))
            : ios6(tx, bundleId: foreign, status: 0)
        verify(at: at, user, device, ids: [tx.id], answers: [answer], status: 0, environment: "Production", granted: true)
        expect(.invalidCredit, "bundle_mismatch", tx)
    }

    /// `verification_backlog/no_verify_response` alone: a restore (no payment, so no dropped order)
    /// or a request the client never reported, never answered, never granted.
    func plantBacklogNoAnswer(_ rep: Int) {
        planted("verification_backlog/no_verify_response (alone)")
        let (user, device) = newUser()
        let t = slot()
        let restore = rep % 2 == 0
        let tx = restore ? restoredTransaction(random.pick(SampleCatalog.nonConsumables), at: t) : newTransaction(consumable(), at: t)
        if restore { report(tx, user, device, "restored", at: t + 2) }
        verify(
            at: t + 4, user, device, ids: [tx.id], answers: [], status: nil, environment: nil, granted: false,
            restore: restore)
        expect(.verificationBacklog, "no_verify_response", tx)
    }

    /// `verification_backlog/retryable_status` alone: a restore answered with a retryable status
    /// (211xx with `is-retryable: true` among them), never retried.
    func plantBacklogRetryable(_ rep: Int) {
        planted("verification_backlog/retryable_status (alone)")
        let failures: [(Int, Bool?)] = [(21005, nil), (21002, nil), (21150, true), (21009, nil)]
        let (status, retryable) = failures[rep % failures.count]
        let (user, device) = newUser()
        let tx = restoredTransaction(random.pick(SampleCatalog.nonConsumables), at: slot())
        report(tx, user, device, "restored", at: tx.purchasedAt + 2)
        verify(
            at: tx.purchasedAt + 4, user, device, ids: [tx.id],
            answers: [SampleApple.errorResponse(status, retryable: retryable)], status: status, environment: nil,
            granted: false, restore: true)
        expect(.verificationBacklog, "retryable_status", tx)
    }

    /// Info `pending_verification`: a purchase 2–12 h before as-of whose request has no answer yet,
    /// or a retryable status. Not yet a dropped order.
    func plantPending(_ rep: Int, retryable: Bool) {
        planted(retryable ? "pending_verification/retryable_status" : "pending_verification/no_verify_response")
        let (user, device) = newUser()
        let tx = newTransaction(consumable(), at: recentSlot())
        report(tx, user, device, "purchased", at: tx.purchasedAt + 2)
        let at = tx.purchasedAt + 4
        if retryable {
            let (status, flag): (Int, Bool?) = [(21002, nil), (21005, nil), (21120, true), (21009, nil)][rep % 4]
            verify(
                at: at, user, device, ids: [tx.id], answers: [SampleApple.errorResponse(status, retryable: flag)],
                status: status,
                environment: nil, granted: false)
            expect(.pendingVerification, "retryable_status", tx)
        } else {
            verify(at: at, user, device, ids: [tx.id], answers: [], status: nil, environment: nil, granted: false)
            expect(.pendingVerification, "no_verify_response", tx)
        }
    }

    /// Info `regranted`: a non-consumable (re-verified from a second device, or by a `restore`
    /// request) or a subscription credited twice to one user; the reason is the product type.
    func plantRegranted(_ rep: Int, subscription: Bool) {
        let product = subscription ? SampleCatalog.monthly : random.pick(SampleCatalog.nonConsumables)
        let reason = subscription ? "auto_renewable" : "non_consumable"
        planted("regranted/" + reason)
        let (user, device) = newUser()
        let tx = newTransaction(product, at: slot(length: 4 * SampleClock.day))
        grantedPurchase(tx, user, device)
        let at = tx.purchasedAt + random.seconds(SampleClock.day...3 * SampleClock.day)
        verifyProduction(at: at, user, random.uuid(), [tx], restore: !subscription && rep % 2 == 1)
        expect(.regranted, reason, tx)
    }
}
