import IAPAuditModel

/// Benign look-alikes: flows a careless reconciler would flag, that must produce no finding.
extension SampleBuilder {
    /// A weekly subscription renewing twice; every renewal shares the first one's
    /// `original_transaction_id`, and each receipt lists the whole chain in `in_app` and again in
    /// `latest_receipt_info`.
    func plantRenewals(_ rep: Int) {
        plantWeeklyRenewals(rep, seedFlow: false)
    }

    /// The seed flow (semantics.md rule 6): the app posts the ORIGINAL transaction id of a renewal; the
    /// answer lists only the renewals, so the posted id stands for the newest renewal, which the
    /// server credits (odd variants log `credited_transaction_ids` with the renewal's id).
    func plantSeedFlow(_ rep: Int) {
        plantWeeklyRenewals(rep, seedFlow: true)
    }

    /// A weekly subscription credited, then renewing twice, each renewal reported and verified: the renewal's id posted and
    /// the whole chain answered, or in the seed flow the original id posted and the renewals alone answered.
    private func plantWeeklyRenewals(_ rep: Int, seedFlow: Bool) {
        planted(
            seedFlow
                ? "benign: original id posted for a renewal (seed flow)"
                : "benign: subscription renewals sharing an original_transaction_id")
        let (user, device) = newUser()
        let style = ReceiptStyle(latest: .array)
        let first = newTransaction(SampleCatalog.weekly, at: slot(length: 15 * SampleClock.day))
        grantedPurchase(first, user, device, style: style)
        var answered = seedFlow ? [] : [first]
        for week in 1...2 {
            let (renewal, reportedAt) = reportedRenewal(of: first, week: week, user, device)
            answered.append(renewal)
            verify(
                at: reportedAt + 2, user, device, ids: [seedFlow ? first.id : renewal.id],
                answers: [ok(user, answered, at: reportedAt + 2, style)], status: 0, environment: "Production",
                granted: true, credited: seedFlow && rep % 2 == 1 ? [renewal.id] : nil)
        }
    }

    /// The `week`th weekly renewal of `first`, reported by the client a minute to two hours after it: the renewal and the
    /// instant of its report (UTC seconds).
    func reportedRenewal(of first: SampleTransaction, week: Int, _ user: String, _ device: String) -> (SampleTransaction, Int64) {
        let renewal = newTransaction(
            SampleCatalog.weekly, at: first.purchasedAt + Int64(week) * 7 * SampleClock.day,
            renewing: first)
        let reportedAt = renewal.purchasedAt + random.seconds(60...7200)
        report(renewal, user, device, "purchased", at: reportedAt)
        return (renewal, reportedAt)
    }

    /// A weekly purchase in a slot of three days, and the same period listed under a second `transaction_id` (same
    /// original id, web order line item id and purchase date).
    func reissuedWeekly() -> (first: SampleTransaction, reissued: SampleTransaction) {
        let first = newTransaction(SampleCatalog.weekly, at: slot(length: 3 * SampleClock.day))
        var reissued = newTransaction(SampleCatalog.weekly, at: first.purchasedAt, renewing: first)
        reissued.webOrderLineItemId = first.webOrderLineItemId
        return (first, reissued)
    }

    /// A non-consumable restored on a new device: a new `transaction_id` whose
    /// `original_transaction_id` is the purchase credited days before. One purchase (rule 18): the
    /// restore credited to the same user is info `regranted/non_consumable`, never a dropped order.
    func plantRestoreNewId(_ rep: Int) {
        planted("regranted/non_consumable: restore with a new transaction_id")
        let (user, device) = newUser()
        let bought = grantedNonConsumable(rep, user, device)
        let restored = newTransaction(
            bought.productId, at: bought.purchasedAt + random.seconds(SampleClock.day...5 * SampleClock.day),
            renewing: bought)
        let newDevice = random.uuid()
        report(restored, user, newDevice, "restored", at: restored.purchasedAt + 1)
        let at = restored.purchasedAt + 3
        verifyProduction(at: at, user, newDevice, [restored], restore: true)
        expect(.regranted, "non_consumable", bought)
    }

    /// A failed verification (retryable status or a timeout) followed by a successful retry: a new
    /// request, a later `ts`, the same receipt.
    func plantRetrySucceeded(_ rep: Int) {
        planted("benign: failed verify, then a successful retry")
        let (tx, user, device) = reportedPurchase()
        let sha = random.hex(64)
        let first = tx.purchasedAt + 4
        let failures: [(Int, Bool?)?] = [(21005, nil), nil, (21002, nil), (21100, true)]
        if let failure = failures[rep % failures.count] {
            let (status, retryable) = failure
            verify(
                at: first, user, device, ids: [tx.id], answers: [SampleApple.errorResponse(status, retryable: retryable)],
                status: status, environment: nil, granted: false, sha: sha)
        } else {
            verify(at: first, user, device, ids: [tx.id], answers: [], status: nil, environment: nil, granted: false, sha: sha)
        }
        let retry = first + random.seconds(40...600)
        verifyProduction(at: retry, user, device, [tx], sha: sha)
    }

    /// The app re-posts its queue: the request carries an already credited purchase and a new one,
    /// and `credited_transaction_ids` names only the new one.
    func plantPartialCredit(_ rep: Int) {
        planted("benign: credited_transaction_ids smaller than transaction_ids")
        let (user, device) = newUser()
        let first = newTransaction(consumable(), at: slot())
        grantedPurchase(first, user, device)
        let second = newTransaction(consumable(), at: first.purchasedAt + random.seconds(300...7200))
        report(second, user, device, "purchased", at: second.purchasedAt + 2)
        let at = second.purchasedAt + 4
        verifyProduction(at: at, user, device, [first, second], credited: [second.id])
    }

    /// The same request logged twice (same `request_id`): one request, one grant.
    func plantLoggedTwice(_ rep: Int) {
        planted("benign: a request logged twice")
        let (tx, user, device) = reportedPurchase()
        let at = tx.purchasedAt + 4
        verifyProduction(at: at, user, device, [tx], loggedTwice: true)
    }

    /// A `FAMILY_SHARED` item (a family member's purchase) in a verified receipt: never reported,
    /// never credited, and no dropped order.
    func plantFamilyShared(_ rep: Int) {
        planted("benign: FAMILY_SHARED item in a receipt")
        let (user, device) = newUser()
        let t = slot()
        let product = rep % 2 == 0 ? random.pick(SampleCatalog.nonConsumables) : SampleCatalog.monthly
        // Bought by the family organizer before the month (Apple's October reports do not have it).
        var shared = newTransaction(product, at: SampleClock.start - random.seconds(30 * SampleClock.day...120 * SampleClock.day))
        shared.familyShared = true
        grantedPurchase(newTransaction(consumable(), at: t), user, device, extraItems: [shared])
    }

    /// The purchase listed in `in_app` and again in `latest_receipt_info` (an array, or a single
    /// object); even variants send `"status": "0"` as text.
    func plantLatestReceiptInfo(_ rep: Int) {
        planted("benign: same transaction in in_app and latest_receipt_info")
        let (user, device) = newUser()
        let tx = newTransaction(consumable(), at: slot())
        grantedPurchase(tx, user, device, style: ReceiptStyle(statusAsText: rep % 2 == 0, latest: rep % 2 == 0 ? .array : .object))
    }

    /// An iOS 6 style answer (flat `receipt` with `bid`, `bvrs`, `item_id`) proving the purchase: status 0,
    /// or (odd variants) 21006, a valid receipt of an expired subscription, which proves what it lists
    /// (rule 7).
    func plantIOS6Receipt(_ rep: Int) {
        let status = rep % 2 == 0 ? 0 : 21006
        planted("benign: iOS 6 style receipt, status \(status)")
        let (tx, user, device) = reportedPurchase()
        verify(
            at: tx.purchasedAt + 4, user, device, ids: [tx.id],
            answers: [ios6(tx, status: status)], status: status,
            environment: "Production", granted: true)
    }
}

extension SampleBuilder {
    /// Info `id_reissued`: the receipt that proves a subscription purchase also lists it under a second
    /// `transaction_id` (same original id, web order line item id and purchase date). One billing event:
    /// the second id is not a dropped order.
    func plantReissuedId(_ rep: Int) {
        planted("info id_reissued: one purchase under two transaction ids")
        let (user, device) = newUser()
        let (first, reissued) = reissuedWeekly()
        grantedPurchase(first, user, device, extraItems: [reissued], style: ReceiptStyle(latest: .array))
        let key = [first, reissued].min { ($0.id.count, $0.id) < ($1.id.count, $1.id) }!
        expect(.idReissued, "same_billing_event", key)
    }
}
