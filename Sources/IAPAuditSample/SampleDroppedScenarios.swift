import IAPAuditModel

/// Planted cases of `dropped_order` and `duplicate_credit` (semantics.md rules 8–10).
///
/// Every case uses fresh users and fresh transaction ids, so its findings are exactly the ones
/// it records; `rep` picks a variant.
extension SampleBuilder {
    /// `dropped_order/never_sent`: the client reported a purchase; no request ever carried it.
    func plantNeverSent(_ rep: Int) {
        planted("dropped_order/never_sent")
        let (user, device) = newUser()
        let tx = newTransaction(consumable(), at: slot())
        report(tx, user, device, "purchased", at: tx.purchasedAt + 2, purchasingFirst: true)
        expect(.droppedOrder, "never_sent", tx, confirmed: false)
    }

    /// `dropped_order/no_verify_response` (refused) or `invalid_credit/no_verify_response` (credited
    /// fail-open): the request timed out and Apple's answer never came. Older than the grace, so
    /// also `verification_backlog/no_verify_response`.
    func plantNoAnswer(_ rep: Int, granted: Bool) {
        planted(
            granted ? "invalid_credit/no_verify_response + verification_backlog/no_verify_response" : "dropped_order/no_verify_response")
        let (tx, user, device) = reportedPurchase()
        verify(at: tx.purchasedAt + 4, user, device, ids: [tx.id], answers: [], status: nil, environment: nil, granted: granted)
        expect(granted ? .invalidCredit : .droppedOrder, "no_verify_response", tx, confirmed: granted ? nil : false)
        expect(.verificationBacklog, "no_verify_response", tx)
    }

    /// `dropped_order/verify_failed`, never retried. A retryable status (21002, 21005, 21009, 21100
    /// with `is-retryable: true`) older than the grace is also `verification_backlog/retryable_status`;
    /// the others (21003, 21010, 21199 with `is-retryable: false`, 21004) are not.
    func plantVerifyFailed(_ rep: Int, retryable: Bool) {
        planted(
            retryable
                ? "dropped_order/verify_failed + verification_backlog/retryable_status" : "dropped_order/verify_failed (not retryable)")
        let failures: [(Int, Bool?)] =
            retryable
            ? [(21002, nil), (21005, nil), (21009, nil), (21100, true)] : [(21003, nil), (21010, nil), (21199, false), (21004, nil)]
        let (status, isRetryable) = failures[rep % failures.count]
        let (tx, user, device) = reportedPurchase()
        verify(
            at: tx.purchasedAt + 4, user, device, ids: [tx.id],
            answers: [SampleApple.errorResponse(status, retryable: isRetryable)], status: status, environment: nil,
            granted: false)
        expect(.droppedOrder, "verify_failed", tx, confirmed: false)
        if retryable { expect(.verificationBacklog, "retryable_status", tx) }
    }

    /// `dropped_order/not_in_receipt` (refused) or `invalid_credit/not_in_receipt` (credited): Apple
    /// answered status 0 in production without the purchase; the receipt lists only the user's
    /// earlier (granted) purchase, or nothing.
    func plantNotInReceipt(_ rep: Int, granted: Bool) {
        planted(granted ? "invalid_credit/not_in_receipt" : "dropped_order/not_in_receipt")
        let (user, device) = newUser()
        let earlier = newTransaction(consumable(), at: slot(length: 2 * SampleClock.day))
        grantedPurchase(earlier, user, device)
        let tx = newTransaction(consumable(), at: earlier.purchasedAt + random.seconds(SampleClock.hour...SampleClock.day))
        report(tx, user, device, "purchased", at: tx.purchasedAt + 2)
        let at = tx.purchasedAt + 4
        verify(
            at: at, user, device, ids: [tx.id], answers: [ok(user, rep % 2 == 0 ? [earlier] : [], at: at)],
            status: 0, environment: "Production", granted: granted)
        expect(granted ? .invalidCredit : .droppedOrder, "not_in_receipt", tx, confirmed: granted ? nil : false)
    }

    /// `dropped_order/not_credited`: in the verified production receipt, never granted. Either the
    /// server refused it, or it credited only part of a batch (`credited_transaction_ids`).
    func plantDroppedNotCredited(_ rep: Int) {
        planted("dropped_order/not_credited")
        let (tx, user, device) = reportedPurchase()
        if rep % 2 == 0 {
            let at = tx.purchasedAt + 4
            verifyProduction(at: at, user, device, [tx], granted: false)
            expect(.droppedOrder, "not_credited", tx, confirmed: true)
        } else {
            let second = newTransaction(consumable(), at: tx.purchasedAt + random.seconds(5...20))
            report(second, user, device, "purchased", at: second.purchasedAt + 2)
            let at = second.purchasedAt + 4
            verifyProduction(at: at, user, device, [tx, second], credited: [tx.id])
            expect(.droppedOrder, "not_credited", second, confirmed: true)
        }
    }

    /// `dropped_order/in_receipt_never_credited`: a purchase the client never reported shows up in
    /// the receipt of the user's next (granted) purchase. The first one has a 19-digit id written as
    /// a JSON number.
    func plantInReceiptNeverCredited(_ rep: Int) {
        planted("dropped_order/in_receipt_never_credited")
        let (user, device) = newUser()
        let t = slot()
        let hidden = newTransaction(consumable(), at: t - random.seconds(SampleClock.hour...SampleClock.day), big: rep == 0)
        let tx = newTransaction(consumable(), at: t)
        grantedPurchase(tx, user, device, extraItems: [hidden])
        expect(.droppedOrder, "in_receipt_never_credited", hidden, confirmed: true)
    }

    /// `duplicate_credit/same_user`: the client retried after a timeout and the server credited the
    /// consumable again. The first uses a product missing from the config (type unknown).
    func plantDuplicateSameUser(_ rep: Int) {
        planted("duplicate_credit/same_user")
        let (user, device) = newUser()
        let tx = newTransaction(rep == 0 ? SampleCatalog.unknownProduct : consumable(), at: slot())
        report(tx, user, device, "purchased", at: tx.purchasedAt + 2)
        let sha = random.hex(64)
        let first = tx.purchasedAt + 4
        let second = first + random.seconds(31...90)
        for at in [first, second] {
            verifyProduction(at: at, user, device, [tx], sha: sha)
        }
        expect(.duplicateCredit, "same_user", tx)
    }

    /// `duplicate_credit/cross_account`: the same receipt replayed from another account. Variants:
    /// the owner was also credited twice (cross_account wins); a non-consumable.
    func plantDuplicateCrossAccount(_ rep: Int) {
        planted("duplicate_credit/cross_account")
        let variant = rep % 3
        let (owner, ownerDevice) = newUser()
        let (other, otherDevice) = newUser()
        let product = variant == 2 ? random.pick(SampleCatalog.nonConsumables) : consumable()
        let tx = newTransaction(product, at: slot(length: SampleClock.day))
        report(tx, owner, ownerDevice, "purchased", at: tx.purchasedAt + 2)
        let sha = random.hex(64)
        var at = tx.purchasedAt + 4
        var grants = [(at, owner, ownerDevice)]
        if variant == 1 { grants.append((at + random.seconds(31...90), owner, ownerDevice)) }
        at += random.seconds(SampleClock.hour...20 * SampleClock.hour)
        grants.append((at, other, otherDevice))
        for (when, user, device) in grants {
            verify(
                at: when, user, device, ids: [tx.id], answers: [ok(owner, [tx], at: when)], status: 0,
                environment: "Production", granted: true, sha: sha)
        }
        expect(.duplicateCredit, "cross_account", tx)
    }

    /// `duplicate_credit/restore_credited_as_purchase`: a consumable credited again days later by a
    /// `restore` request of the same user.
    func plantRestoreCreditedAsPurchase(_ rep: Int) {
        planted("duplicate_credit/restore_credited_as_purchase")
        let (user, device) = newUser()
        let tx = newTransaction(consumable(), at: slot(length: 6 * SampleClock.day))
        grantedPurchase(tx, user, device)
        let at = tx.purchasedAt + random.seconds(SampleClock.day...5 * SampleClock.day)
        verifyProduction(at: at, user, device, [tx], restore: true)
        expect(.duplicateCredit, "restore_credited_as_purchase", tx)
    }
}
