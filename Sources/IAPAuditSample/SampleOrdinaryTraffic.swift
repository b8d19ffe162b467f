import IAPAuditModel

/// Ordinary traffic: customers buying, verified and credited once, with the everyday noise
/// (cancelled and deferred payments, `purchasing` lines, batched requests, restores, receipt
/// history, `"status": "0"` as text, booleans as text). None of it is a finding.
extension SampleBuilder {
    /// Adds ordinary purchases until `target` transactions exist, spread over the month, and a last
    /// purchase whose answer arrives exactly at `SampleClock.end` (the sample's as-of).
    /// Three of them have 19-digit ids written as JSON numbers in Apple's items.
    func addOrdinaryTraffic(upTo target: Int) {
        let budget = max(0, target - transactionCount - 1)
        let span = SampleClock.end - SampleClock.start - 30 * 60
        let bigAt = budget >= 12 ? [budget / 4, budget / 2, 3 * budget / 4] : []
        var nextBig = 0
        var history: [String: [SampleTransaction]] = [:]
        var used = 0
        while used < budget {
            let t = SampleClock.start + 60 + span * Int64(used) / Int64(budget) + random.seconds(0...59)
            let u = random.unit()
            let user = "u\(1 + min(normalUserCount - 1, Int(Double(normalUserCount) * u * u)))"
            let device = self.device(of: user)
            if nextBig < bigAt.count && used >= bigAt[nextBig] {
                nextBig += 1
                let tx = newTransaction(consumable(), at: t, big: true)
                ordinaryRequest(user, device, [tx], history: &history)
                used += 1
                continue
            }
            let roll = random.unit()
            if roll < 0.05 {
                unpaidAttempt(user, device, at: t)
            } else if roll < 0.08 {
                let tx = restoredTransaction(random.pick(SampleCatalog.nonConsumables), at: t)
                report(tx, user, device, "restored", at: t + 1)
                ordinaryRequest(user, device, [tx], restore: true, history: &history)
                used += 1
            } else {
                let count = min(random.chance(0.95) ? 1 : random.int(2...3), budget - used)
                var txs: [SampleTransaction] = []
                var at = t
                for _ in 0..<count {
                    let tx = newTransaction(ordinaryProduct(), at: at)
                    report(
                        tx, user, device, "purchased", at: at + 1, purchasingFirst: random.chance(0.3),
                        quantity: random.chance(0.2) ? 1 : nil)
                    txs.append(tx)
                    at += random.seconds(2...20)
                }
                if txs.count > 1 && random.chance(0.8) {
                    ordinaryRequest(user, device, txs, history: &history)
                } else {
                    for tx in txs { ordinaryRequest(user, device, [tx], history: &history) }
                }
                used += count
            }
        }
        closingPurchase()
    }

    /// Mostly consumables; now and then a non-consumable, a subscription, a season pass, or the
    /// product the config does not list.
    private func ordinaryProduct() -> String {
        let roll = random.unit()
        if roll < 0.90 { return consumable() }
        if roll < 0.95 { return random.pick(SampleCatalog.nonConsumables) }
        if roll < 0.97 { return SampleCatalog.monthly }
        if roll < 0.99 { return SampleCatalog.seasonPass }
        return SampleCatalog.unknownProduct
    }

    /// A payment that never happened: `purchasing`, then `failed` (mostly SKError 2, cancelled)
    /// or `deferred` (Ask to Buy). StoreKit gives no transaction id.
    private func unpaidAttempt(_ user: String, _ device: String, at t: Int64) {
        let product = consumable()
        log.addClient(
            SampleClientLine(
                at: t, userId: user, deviceId: device, transactionId: nil,
                originalTransactionId: nil, productId: product, state: "purchasing"))
        let failed = random.chance(0.8)
        let code: Int? = failed ? random.weighted([(2, 7), (0, 1), (4, 1)]) : nil
        log.addClient(
            SampleClientLine(
                at: t + random.seconds(3...60), userId: user, deviceId: device, transactionId: nil,
                originalTransactionId: nil, productId: product,
                state: failed ? "failed" : "deferred", errorCode: random.chance(0.9) ? code : nil))
    }

    /// One request for `txs`, answered status 0 in production with the transactions and some of the
    /// user's earlier credited purchases, and credited.
    private func ordinaryRequest(
        _ user: String, _ device: String, _ txs: [SampleTransaction], restore: Bool = false,
        history: inout [String: [SampleTransaction]]
    ) {
        let at = (txs.map(\.purchasedAt).max() ?? 0) + random.seconds(2...5)
        let ids = txs.map(\.id)
        // About a third of single consumable purchases are checked with the App Store Server API: a signed
        // transaction with its price, currency and storefront.
        if txs.count == 1 && !restore && !txs[0].idsAsNumbers && SampleBook.productTypes[txs[0].productId] == "consumable"
            && random.chance(0.3)
        {
            let (tx, details) = priced(txs[0], in: random.weighted(SamplePrices.jwsStorefronts))
            verifySigned(at: at, user, device, tx, details)
            history[user, default: []].append(tx)
            return
        }
        let answer: SampleJSON
        if txs.count == 1 && !restore && !txs[0].idsAsNumbers && random.chance(0.005) {
            answer = ios6(txs[0], status: 0)
        } else {
            let earlier = Array((history[user] ?? []).suffix(random.weighted([(0, 30), (1, 30), (2, 25), (3, 15)])))
            var style = ReceiptStyle.production
            style.statusAsText = random.chance(0.05)
            style.latest = random.weighted([(ReceiptStyle.LatestReceiptInfo.omitted, 90), (.array, 8), (.object, 2)])
            answer = ok(user, earlier + txs, at: at, style)
        }
        verify(
            at: at, user, device, ids: ids, answers: [answer], status: 0, environment: "Production", granted: true,
            restore: restore, credited: random.chance(0.25) ? ids : nil, textBooleans: random.chance(0.01))
        history[user, default: []].append(contentsOf: txs)
        if history[user]!.count > 4 { history[user]!.removeFirst(history[user]!.count - 4) }
    }

    /// The month's last purchase: reported, verified and credited, Apple's answer received exactly
    /// at `SampleClock.end`, the newest record of the sample.
    private func closingPurchase() {
        let user = "u1"
        let device = self.device(of: user)
        let tx = newTransaction(consumable(), at: SampleClock.end - 9)
        report(tx, user, device, "purchased", at: SampleClock.end - 7)
        let requestId = verify(
            at: SampleClock.end - 5, user, device, ids: [tx.id], answers: [], status: 0,
            environment: "Production", granted: true, answerLater: true)
        log.addVerify(requestId: requestId, receivedAt: SampleClock.end, ok(user, [tx], at: SampleClock.end - 5))
    }
}
