import IAPAuditModel

/// Purchases answered by Apple's signed transactions (App Store Server API: price, currency,
/// storefront), and the cases planted for the monthly close (docs/close.md): one known difference in
/// every bridge bucket, and two that no bucket explains.
extension SampleBuilder {
    /// A transaction priced in `storefront` (alpha-3): Apple's price there × quantity.
    func priced(_ tx: SampleTransaction, in storefront: String) -> (SampleTransaction, SampleJWSDetails) {
        var tx = tx
        tx.storefront = storefront
        let currency = SamplePrices.storefront(storefront).currency
        return (tx, SampleJWSDetails(price: SamplePrices.customerPrice(tx.productId, currency) * Int64(tx.quantity), currency: currency))
    }

    /// Books a signed listing of `tx` (a verified JWS: priced, with its storefront).
    func listSigned(_ tx: SampleTransaction, _ d: SampleJWSDetails) {
        let proves = d.environment == "Production" && !tx.familyShared
        book.list(
            SampleBook.Listing(
                tx: tx, proof: proves ? .proves : .excluded, price: d.price, currency: d.currency, storefront: tx.storefront,
                revocationPercentage: d.revocationPercentage))
    }

    /// The app server asks Apple for `tx` (App Store Server API) and gets its signed transaction, signed at
    /// the request's time. Returns the request id.
    @discardableResult
    func verifySigned(at: Int64, _ user: String, _ device: String, _ tx: SampleTransaction, _ d: SampleJWSDetails, granted: Bool = true)
        -> String
    {
        listSigned(tx, d)
        return verify(
            at: at, user, device, ids: [tx.id], answers: [], status: 0, environment: d.environment, granted: granted,
            signed: SampleSigner.transaction(tx, d, signedAt: at))
    }

    /// The everyday flow with a signed answer: reported `purchased`, verified, credited. Returns the request time.
    @discardableResult
    func signedPurchase(_ tx: SampleTransaction, _ d: SampleJWSDetails, _ user: String, _ device: String) -> Int64 {
        let reportedAt = tx.purchasedAt + random.seconds(1...4)
        report(tx, user, device, "purchased", at: reportedAt, purchasingFirst: random.chance(0.3))
        let at = reportedAt + random.seconds(1...3)
        verifySigned(at: at, user, device, tx, d)
        return at
    }

    /// Transactions only Apple's records show: a Get Transaction History page fetched for the close on
    /// 2026-11-02 (bare: no request, no as-of).
    func historyPage(_ listed: [(SampleTransaction, SampleJWSDetails)], environment: String = "Production") {
        let fetched = SampleClock.start + 32 * SampleClock.day + 9 * SampleClock.hour
        for (tx, d) in listed { listSigned(tx, d) }
        let signed = listed.map { SampleSigner.transaction($0.0, $0.1, signedAt: fetched) }
        log.addHistory(at: fetched, SampleSigner.historyPage(signed, environment: environment, revision: random.hex(24)))
    }

    /// A notification of `type` for `tx`, signed at `at` (a REFUND when Apple refunded it, a
    /// ONE_TIME_CHARGE when it was bought): bare, so it sets no as-of.
    func notification(_ type: String, _ tx: SampleTransaction, _ d: SampleJWSDetails, at: Int64) {
        listSigned(tx, d)
        log.addNotification(at: at, SampleSigner.notification(type, tx, d, at: at, uuid: random.uuid().lowercased()))
    }

    /// Every case planted for the close, once each, at fixed times (the month's edges matter).
    func plantCloseCases() {
        let day = SampleClock.day, hour = SampleClock.hour
        // timing_timezone −: bought 2026-10-01T05:00Z, 2026-09-30 in Los Angeles (Apple's Summary Sales day).
        planted("close timing_timezone: bought in October UTC, September in Pacific time")
        let (u1, d1) = newUser()
        let (edge, edgeD) = priced(newTransaction("com.example.gems980", at: SampleClock.start + 5 * hour), in: "JPN")
        signedPurchase(edge, edgeD, u1, d1)

        // timing_timezone + and timing_fiscal +: bought 2026-11-01T02:30Z, October 31 in Pacific time; the
        // logs end before it (a ONE_TIME_CHARGE notification shows it): the server log may still credit it, so it is
        // pending evidence of the run (rule 26; it would be rule 9's dropped order), outside the close's window.
        planted("close timing_timezone/timing_fiscal: bought in November UTC, October in Pacific time (Apple only)")
        let (late, lateD) = priced(newTransaction("com.example.gems300", at: SampleClock.periodEnd + 2 * hour + 1800), in: "USA")
        notification("ONE_TIME_CHARGE", late, lateD, at: late.purchasedAt)
        expect(.pendingEvidence, "awaiting_server_log", late)

        // timing_fiscal +: bought 2026-09-28, in fiscal October (from 2026-09-27) but not in the month.
        planted("close timing_fiscal: bought 2026-09-28, fiscal October (Apple only)")
        let (early, earlyD) = priced(newTransaction("com.example.gems60", at: SampleClock.start - 3 * day + 15 * hour), in: "GBR")
        notification("ONE_TIME_CHARGE", early, earlyD, at: early.purchasedAt)
        expect(.outsideWindow, "before_window", early)

        // refunds: a September purchase refunded on 2026-10-12 (a REFUND notification).
        planted("close refunds: a September purchase refunded in October (REFUND notification)")
        var september = newTransaction("com.example.gems3280", at: SampleClock.start - 16 * day + 10 * hour)
        september = september.cancelled(at: SampleClock.start + 11 * day + 14 * hour, reason: "0")
        let (refunded, refundedD) = priced(september, in: "DEU")
        notification("REFUND", refunded, refundedD, at: refunded.cancelledAt!)
        expect(.outsideWindow, "before_window", refunded)

        // refunds, prorated: a monthly plan bought 2026-10-08 in Japan, half refunded 2026-10-20, then revoked.
        planted("close refunds: a prorated (50 %) refund of an October subscription")
        let (u2, d2) = newUser()
        let (monthly, monthlyD) = priced(newTransaction(SampleCatalog.monthly, at: SampleClock.start + 7 * day + 11 * hour), in: "JPN")
        signedPurchase(monthly, monthlyD, u2, d2)
        var half = monthlyD
        half.revocationPercentage = 50_000
        let refundedAt = SampleClock.start + 19 * day + 9 * hour
        notification("REFUND", monthly.cancelled(at: refundedAt, reason: "1"), half, at: refundedAt)
        revoke(at: SampleClock.start + 19 * day + 10 * hour, u2, ids: [monthly.id])

        plantCloseOffers()
        plantCloseUnexplained()
    }

    /// Trials, a $0 offer code, a family purchase shared with a family member, a sandbox purchase.
    private func plantCloseOffers() {
        let day = SampleClock.day, hour = SampleClock.hour
        planted("close trials: a free trial (JWS FREE_TRIAL) and an is_trial_period receipt item")
        let (u1, d1) = newUser()
        let (trial, trialD) = priced(newTransaction(SampleCatalog.monthly, at: SampleClock.start + 4 * day + 16 * hour), in: "USA")
        var free = trialD
        (free.price, free.offer) = (0, (1, nil, "FREE_TRIAL"))
        var flagged = trial
        flagged.trial = true
        signedPurchase(flagged, free, u1, d1)
        let (u2, d2) = newUser()
        var weekly = newTransaction(SampleCatalog.weekly, at: SampleClock.start + 9 * day + 20 * hour)
        weekly.trial = true
        grantedPurchase(weekly, u2, d2)

        planted("close $0 offer: an offer code redeemed for premium at 0 (JWS offerType 3)")
        let (u3, d3) = newUser()
        let (premium, premiumD) = priced(newTransaction("com.example.premium", at: SampleClock.start + 13 * day + 8 * hour), in: "FRA")
        var code = premiumD
        (code.price, code.offer) = (0, (3, "FREEPREMIUM", nil))
        signedPurchase(premium, code, u3, d3)

        planted("close excluded: a family member's FAMILY_SHARED copy of a purchase, a sandbox purchase")
        let (u4, d4) = newUser()
        let (bought, boughtD) = priced(
            newTransaction("com.example.pack.halloween", at: SampleClock.start + 16 * day + 19 * hour), in: "USA")
        signedPurchase(bought, boughtD, u4, d4)
        var shared = newTransaction(bought.productId, at: bought.purchasedAt)
        shared.familyShared = true
        historyPage([priced(shared, in: "USA")])
        var sandboxD: SampleJWSDetails
        let sandbox: SampleTransaction
        (sandbox, sandboxD) = priced(newTransaction("com.example.gems6480", at: SampleClock.start + 21 * day + 3 * hour), in: "USA")
        sandboxD.environment = "Sandbox"
        historyPage([(sandbox, sandboxD)], environment: "Sandbox")
    }

    /// A renewal of a September subscription (dated by its own purchase, docs/close.md), a paid purchase
    /// Apple's reports leave out, and a sale Apple reports that the ledger never saw.
    private func plantCloseUnexplained() {
        let day = SampleClock.day, hour = SampleClock.hour
        planted("close renewal in October of a subscription bought in September")
        let (u1, d1) = newUser()
        let first = newTransaction(SampleCatalog.monthly, at: SampleClock.start - 13 * day + 12 * hour)
        let (renewal, renewalD) = priced(
            newTransaction(SampleCatalog.monthly, at: first.purchasedAt + 30 * day, renewing: first), in: "GBR")
        var renewed = renewalD
        renewed.reason = "RENEWAL"
        signedPurchase(renewal, renewed, u1, d1)

        planted("close unexplained: a paid purchase Apple's reports leave out")
        let (u2, d2) = newUser()
        let (omitted, omittedD) = priced(newTransaction("com.example.removeads", at: SampleClock.start + 17 * day + 6 * hour), in: "JPN")
        signedPurchase(omitted, omittedD, u2, d2)
        book.omitted.insert(omitted.originalId)

        planted("close unexplained: a sale Apple reports that no record shows")
        book.appleOnly.append(
            SampleAppleSale(
                productId: "com.example.pack.halloween", storefront: "GBR",
                unitPrice: SamplePrices.customerPrice("com.example.pack.halloween", "GBP"), at: SampleClock.start + 21 * day + 18 * hour))
    }
}
