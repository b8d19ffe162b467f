import IAPAuditModel

/// The state of one generation run and the small steps every case is made of: new ids, users,
/// client reports, server requests with Apple's answers, revokes, and expected findings.
final class SampleBuilder {
    var random: SampleRandom
    var log = SampleLog()
    var key = AnswerKey()
    /// The money of the sample as the generator knows it (what the close must find).
    var book = SampleBook()
    /// Distinct transaction ids created so far (every id any file lists as a `transaction_id`).
    private(set) var transactionCount = 0
    /// Cases planted so far, by name.
    private(set) var scenarioCounts: [String: Int] = [:]
    /// Ordinary customers are `u1` … `u<normalUserCount>`; each planted case gets fresh users after them.
    let normalUserCount: Int
    private var lastTransactionNumber: UInt64
    private var bigIdsUsed: UInt64 = 0
    private var lastUserNumber: Int
    private var devices: [String: [String]] = [:]
    private var installs: [String: (installedAt: Int64, downloadId: Int64)] = [:]

    init(seed: UInt64, normalUserCount: Int) {
        random = SampleRandom(seed: seed)
        self.normalUserCount = normalUserCount
        lastUserNumber = normalUserCount
        lastTransactionNumber = 2_000_000_400_000_000
        lastTransactionNumber += UInt64(random.below(1 << 20))
    }

    // MARK: Ids, users, products, times

    /// The next 16-digit transaction id, without a gap (draws nothing from `random`: for a case planted after
    /// the ordinary traffic, which must leave every other record as it was).
    func nextTransactionId() -> String {
        lastTransactionNumber += 1
        transactionCount += 1
        return String(lastTransactionNumber)
    }

    /// A new 16-digit transaction id: mostly consecutive, with gaps.
    func newTransactionId() -> String {
        lastTransactionNumber += 1 + (random.below(16) == 0 ? UInt64(random.below(64)) : 0)
        transactionCount += 1
        return String(lastTransactionNumber)
    }

    /// A new 19-digit id above 2^53 (9223372036854775001, …003, …): only exact text keeps it.
    func newBigTransactionId() -> String {
        bigIdsUsed += 1
        transactionCount += 1
        return String(9_223_372_036_854_775_001 as UInt64 + 2 * (bigIdsUsed - 1))
    }

    /// A transaction of `product` bought at `t`; a renewal or restore of `original` when given.
    func newTransaction(_ product: String, at t: Int64, renewing original: SampleTransaction? = nil, big: Bool = false)
        -> SampleTransaction
    {
        let id = big ? newBigTransactionId() : newTransactionId()
        var tx = SampleTransaction(
            id: id, originalId: original?.originalId ?? id, productId: product, purchasedAt: t,
            originalPurchasedAt: original?.originalPurchasedAt ?? t, idsAsNumbers: big)
        tx.storefront = original?.storefront ?? SamplePrices.legacyStorefront(SamplePrices.legacyCurrency[product]!, &random)
        if product == SampleCatalog.weekly || product == SampleCatalog.monthly {
            tx.expiresAt = t + (product == SampleCatalog.weekly ? 7 : 30) * SampleClock.day
            tx.webOrderLineItemId = "2000000" + String(100_000_000 + random.below(900_000_000))
        }
        return tx
    }

    /// A restore of a non-consumable bought before the sample's month: a new id, an old original id
    /// (`1000000…`) that no file lists as a transaction.
    func restoredTransaction(_ product: String, at t: Int64) -> SampleTransaction {
        let boughtAt = SampleClock.start - random.seconds(20 * SampleClock.day...300 * SampleClock.day)
        let oldId = "1000000" + String(100_000_000 + random.below(900_000_000))
        var old = SampleTransaction(
            id: oldId, originalId: oldId, productId: product, purchasedAt: boughtAt,
            originalPurchasedAt: boughtAt)
        old.storefront = SamplePrices.legacyStorefront(SamplePrices.legacyCurrency[product]!, &random)
        return newTransaction(product, at: t, renewing: old)
    }

    /// A fresh user (never used by ordinary traffic or another case) and a device of theirs.
    func newUser() -> (user: String, device: String) {
        lastUserNumber += 1
        let user = "u\(lastUserNumber)"
        return (user, device(of: user))
    }

    /// One of the user's one or two devices (`identifierForVendor`).
    func device(of user: String) -> String {
        if let known = devices[user] { return random.pick(known) }
        let list = (0..<(random.chance(0.7) ? 1 : 2)).map { _ in random.uuid() }
        devices[user] = list
        return list[0]
    }

    /// A consumable by popularity.
    /// A new user's consumable purchase in a fresh slot, reported `purchased` by the client 2 s later.
    func reportedPurchase() -> (tx: SampleTransaction, user: String, device: String) {
        let (user, device) = newUser()
        let tx = newTransaction(consumable(), at: slot())
        report(tx, user, device, "purchased", at: tx.purchasedAt + 2)
        return (tx, user, device)
    }

    func consumable() -> String { random.weighted(SampleCatalog.consumables) }

    /// A start time for a case that must be older than the 24 h grace at as-of: between
    /// `start + 2 h` and `end - 3 days - length`.
    func slot(length: Int64 = 0) -> Int64 {
        random.seconds((SampleClock.start + 2 * SampleClock.hour)...(SampleClock.end - 3 * SampleClock.day - length))
    }

    /// A start time well inside the grace: 2–12 h before as-of.
    func recentSlot() -> Int64 {
        random.seconds((SampleClock.end - 12 * SampleClock.hour)...(SampleClock.end - 2 * SampleClock.hour))
    }

    /// Counts one planted case.
    func planted(_ scenario: String) {
        scenarioCounts[scenario, default: 0] += 1
    }

    /// Records an expected finding; a dropped order says whether Apple confirms it (rule 22).
    func expect(_ kind: FindingKind, _ reason: String, _ tx: SampleTransaction, confirmed: Bool? = nil) {
        precondition((kind == .droppedOrder) == (confirmed != nil), "a dropped order, and only one, says whether Apple confirms it")
        key.expect(kind, reason, tx.id, confirmation: confirmed.map { $0 ? .confirmed : .claimed })
    }

    // MARK: Records

    /// A client report of `tx` in `state` at `at`; a `purchasing` line first when asked.
    func report(
        _ tx: SampleTransaction, _ user: String, _ device: String, _ state: String, at: Int64,
        purchasingFirst: Bool = false, quantity: Int? = nil
    ) {
        if purchasingFirst {
            log.addClient(
                SampleClientLine(
                    at: at - random.seconds(3...40), userId: user, deviceId: device,
                    transactionId: nil, originalTransactionId: nil, productId: tx.productId,
                    state: "purchasing"))
        }
        let line = SampleClientLine(
            at: at, userId: user, deviceId: device, transactionId: tx.id, originalTransactionId: tx.originalId, productId: tx.productId,
            state: state, quantity: quantity)
        log.addClient(line)
        book.clientReported(line)
    }

    /// A status-0 answer listing `items` in the receipt of `user`'s device, made at `at` (or at
    /// `createdAt`: a stale copy of the receipt).
    func ok(
        _ user: String, _ items: [SampleTransaction], at: Int64, _ style: ReceiptStyle = .production, createdAt: Int64? = nil
    ) -> SampleJSON {
        let install: (installedAt: Int64, downloadId: Int64)
        if let known = installs[user] {
            install = known
        } else {
            install = (
                SampleClock.start - random.seconds(SampleClock.day...400 * SampleClock.day),
                50_000_000_000 + Int64(random.below(900_000_000))
            )
            installs[user] = install
        }
        book.list(receipt: items, style: style)
        return SampleApple.receiptResponse(
            items: items, installedAt: install.installedAt, downloadId: install.downloadId,
            createdAt: createdAt ?? at, style: style)
    }

    /// An iOS 6 style answer (flat `receipt`, no web order line item) listing `tx`.
    func ios6(_ tx: SampleTransaction, bundleId: String = SampleCatalog.bundleId, status: Int) -> SampleJSON {
        book.list(
            SampleBook.Listing(
                tx: tx, proof: bundleId == SampleCatalog.bundleId && (status == 0 || status == 21006) ? .proves : .unproven,
                lineItemShown: false))
        return SampleApple.ios6Response(tx, bundleId: bundleId, status: status)
    }

    /// A request Apple answered in production with status 0 and a receipt listing `transactions`.
    @discardableResult
    func verifyProduction(
        at: Int64, _ user: String, _ device: String, _ transactions: [SampleTransaction], granted: Bool = true, restore: Bool = false,
        credited: [String]? = nil, sha: String? = nil, loggedTwice: Bool = false
    ) -> String {
        verify(
            at: at, user, device, ids: transactions.map(\.id), answers: [ok(user, transactions, at: at)], status: 0,
            environment: "Production", granted: granted, restore: restore, credited: credited, sha: sha, loggedTwice: loggedTwice)
    }

    /// One verification request logged by the server at `at`, and Apple's `answers` to it in order
    /// (none: Apple never answered and the server logged a 30 s timeout; with `answerLater` the
    /// caller writes the answer itself, 5 s later). Returns the `request_id`.
    @discardableResult
    func verify(
        at: Int64, _ user: String, _ device: String, ids: [String], answers: [SampleJSON], status: Int?,
        environment: String?, granted: Bool, restore: Bool = false, credited: [String]? = nil, sha: String? = nil,
        loggedTwice: Bool = false, textBooleans: Bool = false, answerLater: Bool = false, creditedQuantity: SampleJSON? = nil,
        signed: String? = nil
    ) -> String {
        let requestId = "r" + random.hex(16)
        var latency = answers.isEmpty && signed == nil ? (answerLater ? 5000 : 30_000) : 0
        var received = at
        for answer in answers.map({ Optional($0) }) + (signed == nil ? [] : [nil]) {
            let ms = 120 + random.below(700) + (random.chance(0.1) ? random.below(4000) : 0)
            latency += ms
            received += max(1, Int64((ms + 999) / 1000))
            if let answer {
                log.addVerify(requestId: requestId, receivedAt: received, answer)
            } else {
                log.addSigned(requestId: requestId, receivedAt: received, signed!)
            }
        }
        var o = SampleObject()
        o.add("ts", .string(SampleClock.iso(at)))
        o.add("request_id", .string(requestId))
        o.add("user_id", .string(user))
        o.add("device_id", .string(device))
        o.add("transaction_ids", .array(ids.map { .string($0) }))
        o.add("restore", textBooleans ? .string(restore ? "1" : "0") : .bool(restore))
        o.add("receipt_sha256", .string(sha ?? random.hex(64)))
        o.add("verify_status", .integer(status))
        o.add("environment", .text(environment))
        o.add("granted", textBooleans ? .string(granted ? "true" : "false") : .bool(granted))
        o.add("latency_ms", .int(Int64(latency)))
        o.add("credited_transaction_ids", ifPresent: credited.map { .array($0.map { .string($0) }) })
        o.add("credited_quantity", ifPresent: creditedQuantity)
        log.addServer(at: at, o.json)
        if loggedTwice { log.addServer(at: at, o.json) }
        return requestId
    }

    /// The server taking an entitlement back (`event: revoke`); `user` nil when it logged none.
    func revoke(at: Int64, _ user: String?, ids: [String]) {
        var o = SampleObject()
        o.add("ts", .string(SampleClock.iso(at)))
        o.add("request_id", .string("v" + random.hex(16)))
        o.add("user_id", .text(user))
        o.add("device_id", .null)
        o.add("transaction_ids", .array(ids.map { .string($0) }))
        o.add("restore", .bool(false))
        o.add("receipt_sha256", .null)
        o.add("verify_status", .null)
        o.add("environment", .null)
        o.add("granted", .bool(false))
        o.add("latency_ms", .null)
        o.add("event", .string("revoke"))
        log.addServer(at: at, o.json)
    }

    /// The non-consumable of repetition `rep` (the catalogue's in turn), bought in a slot of six days by `user` on `device`,
    /// reported, verified and credited (`grantedPurchase`).
    func grantedNonConsumable(_ rep: Int, _ user: String, _ device: String) -> SampleTransaction {
        let bought = newTransaction(
            SampleCatalog.nonConsumables[rep % SampleCatalog.nonConsumables.count], at: slot(length: 6 * SampleClock.day))
        grantedPurchase(bought, user, device)
        return bought
    }

    /// The everyday flow: the client reports `tx` purchased, the server verifies it in production
    /// and credits it. Returns the request's time.
    @discardableResult
    func grantedPurchase(
        _ tx: SampleTransaction, _ user: String, _ device: String, extraItems: [SampleTransaction] = [],
        style: ReceiptStyle = .production
    ) -> Int64 {
        let reportedAt = tx.purchasedAt + random.seconds(1...4)
        report(tx, user, device, "purchased", at: reportedAt, purchasingFirst: random.chance(0.3))
        let requestAt = reportedAt + random.seconds(1...3)
        verify(
            at: requestAt, user, device, ids: [tx.id], answers: [ok(user, extraItems + [tx], at: requestAt, style)],
            status: 0, environment: style.environment ?? "Production", granted: true)
        return requestAt
    }
}
