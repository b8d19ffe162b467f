import IAPAuditModel

/// Planted cases of semantics.md rules 17–24 (real-world data): the audit window, one purchase under many
/// ids, revoked while paid, quantities, stale receipts, refunds superseded by a later purchase, and
/// environment conflicts; with benign look-alikes.
extension SampleBuilder {
    /// Info `outside_window/before_window` (rule 17): a long-time customer's receipt lists purchases made
    /// before the logs begin (a non-consumable bought months ago; two old monthly periods) that these
    /// logs cannot judge: never a dropped order.
    func plantOlderHistory(_ rep: Int) {
        planted("outside_window/before_window: receipt history older than the logs")
        let (user, device) = newUser()
        let t = slot()
        var old: [SampleTransaction] = []
        if rep % 2 == 0 {
            old.append(
                newTransaction(
                    random.pick(SampleCatalog.nonConsumables),
                    at: SampleClock.start - random.seconds(40 * SampleClock.day...300 * SampleClock.day)))
        } else {
            let first = newTransaction(
                SampleCatalog.monthly, at: SampleClock.start - 61 * SampleClock.day - random.seconds(0...SampleClock.day))
            old = [first, newTransaction(SampleCatalog.monthly, at: first.purchasedAt + 30 * SampleClock.day, renewing: first)]
        }
        grantedPurchase(newTransaction(consumable(), at: t), user, device, extraItems: old)
        for tx in old { expect(.outsideWindow, "before_window", tx) }
    }

    /// `duplicate_credit/cross_account` across ids (rule 18): a non-consumable bought by one account is
    /// restored onto another (a new `transaction_id`, the same `original_transaction_id`) and credited
    /// there: one purchase, two users. The row is keyed by the earliest granted id.
    func plantRestoredOntoAnotherAccount(_ rep: Int) {
        planted("duplicate_credit/cross_account: a restore onto another account")
        let (owner, ownerDevice) = newUser()
        let (other, otherDevice) = newUser()
        let bought = grantedNonConsumable(rep, owner, ownerDevice)
        let restored = newTransaction(
            bought.productId, at: bought.purchasedAt + random.seconds(SampleClock.day...5 * SampleClock.day), renewing: bought)
        report(restored, other, otherDevice, "restored", at: restored.purchasedAt + 1)
        verifyProduction(at: restored.purchasedAt + 3, other, otherDevice, [restored], restore: true)
        expect(.duplicateCredit, "cross_account", bought)
    }

    /// `duplicate_credit/reissued_id_credited` (rule 18): one weekly period listed under a second
    /// `transaction_id` (same original id and web order line item), credited again to the same user
    /// when the app re-posts it: a second period for one payment. Also info `id_reissued`.
    func plantReissuedIdCredited(_ rep: Int) {
        planted("duplicate_credit/reissued_id_credited + id_reissued/same_billing_event")
        let (user, device) = newUser()
        let (first, reissued) = reissuedWeekly()
        let style = ReceiptStyle(latest: .array)
        grantedPurchase(first, user, device, extraItems: [reissued], style: style)
        let at = first.purchasedAt + random.seconds(SampleClock.hour...SampleClock.day)
        verify(
            at: at, user, device, ids: [reissued.id], answers: [ok(user, [first, reissued], at: at, style)], status: 0,
            environment: "Production", granted: true, restore: rep % 2 == 0)
        expect(.duplicateCredit, "reissued_id_credited", first)
        expect(.idReissued, "same_billing_event", first)
    }

    /// `dropped_order/revoked_while_paid` (rule 19): the server revokes a monthly subscription days into
    /// its paid period (a late, older notification processed last), or a non-consumable; Apple shows it
    /// paid and never refunded it.
    func plantRevokedWhilePaid(_ rep: Int) {
        planted("dropped_order/revoked_while_paid")
        let (user, device) = newUser()
        let product = rep % 2 == 0 ? SampleCatalog.monthly : random.pick(SampleCatalog.nonConsumables)
        let tx = newTransaction(product, at: slot(length: 5 * SampleClock.day))
        let grantedAt = grantedPurchase(tx, user, device)
        revoke(at: grantedAt + random.seconds(SampleClock.day...4 * SampleClock.day), rep % 4 == 1 ? nil : user, ids: [tx.id])
        expect(.droppedOrder, "revoked_while_paid", tx, confirmed: true)
    }

    /// Benign (rule 19): a weekly subscription revoked after its period ended, and a replayed grant taken
    /// back from a second account while the payer keeps it (its duplicate is still reported).
    func plantRevokeAfterExpiry(_ rep: Int) {
        planted("benign: revoke after expiry / of a replayed grant")
        let (user, device) = newUser()
        if rep % 2 == 0 {
            let tx = newTransaction(SampleCatalog.weekly, at: slot(length: 9 * SampleClock.day))
            grantedPurchase(tx, user, device)
            revoke(at: tx.expiresAt! + random.seconds(60...SampleClock.day), user, ids: [tx.id])
        } else {
            let (other, otherDevice) = newUser()
            let tx = newTransaction(consumable(), at: slot(length: 2 * SampleClock.day))
            let at = grantedPurchase(tx, user, device) + random.seconds(SampleClock.hour...SampleClock.day)
            verifyProduction(at: at, other, otherDevice, [tx])
            revoke(at: at + random.seconds(60...3600), other, ids: [tx.id])
            expect(.duplicateCredit, "cross_account", tx)
        }
    }

    /// `dropped_order/under_credited` (rule 20): Apple says 3 units (`quantity`), the app credited 1:
    /// `credited_quantity` logged as a number, as `{"T": 1}`, or not logged with the client reporting 1.
    func plantUnderCredited(_ rep: Int) {
        planted("dropped_order/under_credited")
        let (user, device) = newUser()
        var tx = newTransaction(SampleCatalog.energyRefill, at: slot())
        tx.quantity = 3
        report(tx, user, device, "purchased", at: tx.purchasedAt + 2, quantity: rep % 3 == 2 ? 1 : (rep % 2 == 0 ? 3 : nil))
        let credited: SampleJSON? =
            switch rep % 3 {
            case 0: .int(1)
            case 1: SampleJSON.object([(tx.id, .int(1))])
            default: nil
            }
        let at = tx.purchasedAt + 4
        verify(
            at: at, user, device, ids: [tx.id], answers: [ok(user, [tx], at: at)], status: 0, environment: "Production", granted: true,
            creditedQuantity: credited)
        expect(.droppedOrder, "under_credited", tx, confirmed: true)
    }

    /// Benign (rule 20): Apple says 3 units and 3 were credited (logged, or reported by the client).
    func plantQuantityCredited(_ rep: Int) {
        planted("benign: quantity 3 credited 3")
        let (user, device) = newUser()
        var tx = newTransaction(SampleCatalog.energyRefill, at: slot())
        tx.quantity = 3
        report(tx, user, device, "purchased", at: tx.purchasedAt + 2, quantity: 3)
        let at = tx.purchasedAt + 4
        verify(
            at: at, user, device, ids: [tx.id], answers: [ok(user, [tx], at: at)], status: 0, environment: "Production", granted: true,
            creditedQuantity: rep % 2 == 0 ? .int(3) : nil)
    }

    /// `dropped_order/stale_receipt` (rule 21): the app sent a copy of its receipt made days before the
    /// purchase; Apple verified that copy (status 0) and it cannot list the purchase.
    func plantStaleReceipt(_ rep: Int) {
        planted("dropped_order/stale_receipt")
        let (user, device) = newUser()
        let earlier = newTransaction(consumable(), at: slot(length: 8 * SampleClock.day))
        grantedPurchase(earlier, user, device)
        let tx = newTransaction(consumable(), at: earlier.purchasedAt + random.seconds(3 * SampleClock.day...7 * SampleClock.day))
        report(tx, user, device, "purchased", at: tx.purchasedAt + 2)
        let at = tx.purchasedAt + 4
        verify(
            at: at, user, device, ids: [tx.id], answers: [ok(user, [earlier], at: at, createdAt: earlier.purchasedAt + 5)], status: 0,
            environment: "Production", granted: false)
        expect(.droppedOrder, "stale_receipt", tx, confirmed: false)
    }

    /// Info `refund_superseded/later_purchase` (rule 23): a non-consumable refunded and never revoked,
    /// bought again by the same user (a new original id) and credited: the user paid for what they hold.
    func plantRefundSuperseded(_ rep: Int) {
        planted("refund_superseded/later_purchase")
        let (user, device) = newUser()
        let first = grantedNonConsumable(rep, user, device)
        let refundedAt = first.purchasedAt + random.seconds(SampleClock.hour...2 * SampleClock.day)
        let again = newTransaction(first.productId, at: refundedAt + random.seconds(SampleClock.hour...2 * SampleClock.day))
        grantedPurchase(again, user, device, extraItems: [first.cancelled(at: refundedAt, reason: "0")])
        expect(.refundSuperseded, "later_purchase", first)
    }

    /// Rule 24: an answer that says `environment: Production` with a `receipt_type` of ProductionSandbox,
    /// or a Production monthly plan that renews every 5 minutes (sandbox speed). Credited →
    /// `sandbox_leak/environment_conflict`; refused → info `sandbox_refused/environment_conflict`.
    func plantEnvironmentConflict(_ rep: Int, granted: Bool) {
        planted(granted ? "sandbox_leak/environment_conflict" : "sandbox_refused/environment_conflict")
        let (user, device) = newUser()
        var tx = newTransaction(rep % 2 == 0 ? consumable() : SampleCatalog.monthly, at: slot())
        report(tx, user, device, "purchased", at: tx.purchasedAt + 2)
        let style: ReceiptStyle
        if rep % 2 == 0 {
            style = ReceiptStyle(environment: "Production", receiptType: "ProductionSandbox")
        } else {
            tx.expiresAt = tx.purchasedAt + 5 * 60
            style = .production
        }
        let at = tx.purchasedAt + 4
        verify(
            at: at, user, device, ids: [tx.id], answers: [ok(user, [tx], at: at, style)], status: 0, environment: "Production",
            granted: granted)
        expect(granted ? .sandboxLeak : .sandboxRefused, "environment_conflict", tx)
    }
}
