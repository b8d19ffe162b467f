/// Records read from one stretch of an input file, as rows ready for the store: every text in one
/// arena (`TextArena`), every row a flat value. The fast JSON Lines readers fill it directly; records
/// read as Swift values (`ClientReport`, `ServerRequest`, `VerifyResponse`) are appended with
/// `append(_:)`. Rows keep their input order; `line` is 1-based within the file.
struct RecordBatch: Sendable {
    var arena = TextArena()
    var clients: [ClientRow] = []
    var servers: [ServerRow] = []
    var responses: [ResponseRow] = []
    var items: [ItemRow] = []
    var renewals: [RenewalRow] = []
    /// Ids of `ServerRow.transactionIds` / `creditedTransactionIds`.
    var ids: [TextRef] = []
    var rejections: [Rejection] = []
    /// The reconciliation facts of these rows, once encoded (`FactEncoder`); nil until then.
    var facts: FactSet? = nil

    init() {}

    /// Encodes the facts of these rows (where the work is spread: the parsing threads).
    mutating func encodeFacts() {
        var set = FactSet()
        FactEncoder.add(self, to: &set)
        facts = set
    }

    /// Records imported (rejections not counted).
    var recordCount: Int { clients.count + servers.count + responses.count }

    var isEmpty: Bool { recordCount == 0 && rejections.isEmpty }

    func text(_ ref: TextRef) -> String? { arena.string(ref) }

    /// Appends every record of `other`, after this batch's (its refs and ranges moved).
    mutating func append(_ other: RecordBatch) {
        let offset = arena.append(arena: other.arena)
        let idBase = Int32(ids.count)
        let itemBase = Int32(items.count)
        let renewalBase = Int32(renewals.count)
        ids += other.ids.map { $0.moved(by: offset) }
        clients += other.clients.map { $0.moved(by: offset) }
        servers += other.servers.map { $0.moved(by: offset, ids: idBase) }
        items += other.items.map { $0.moved(by: offset) }
        renewals += other.renewals.map { $0.moved(by: offset) }
        responses += other.responses.map { $0.moved(by: offset, items: itemBase, renewals: renewalBase) }
        rejections += other.rejections
        facts = nil
    }
}

extension ClientRow {
    func moved(by o: UInt32) -> ClientRow {
        var r = self
        r.userId = userId.moved(by: o)
        r.deviceId = deviceId.moved(by: o)
        r.transactionId = transactionId.moved(by: o)
        r.originalTransactionId = originalTransactionId.moved(by: o)
        r.productId = productId.moved(by: o)
        return r
    }
}

extension ServerRow {
    func moved(by o: UInt32, ids base: Int32) -> ServerRow {
        var r = self
        r.requestId = requestId.moved(by: o)
        r.userId = userId.moved(by: o)
        r.deviceId = deviceId.moved(by: o)
        r.transactionIds = (transactionIds.lowerBound + base)..<(transactionIds.upperBound + base)
        r.transactionIdsJSON = transactionIdsJSON.moved(by: o)
        r.creditedTransactionIds = creditedTransactionIds.map { ($0.lowerBound + base)..<($0.upperBound + base) }
        r.creditedTransactionIdsJSON = creditedTransactionIdsJSON.moved(by: o)
        r.receiptSha256 = receiptSha256.moved(by: o)
        r.environment = environment.moved(by: o)
        return r
    }
}

extension ResponseRow {
    func moved(by o: UInt32, items itemBase: Int32, renewals renewalBase: Int32) -> ResponseRow {
        var r = self
        r.requestId = requestId.moved(by: o)
        r.environment = environment.moved(by: o)
        r.bundleId = bundleId.moved(by: o)
        r.receiptType = receiptType.moved(by: o)
        r.rawJSON = rawJSON.moved(by: o)
        r.signature = signature.moved(by: o)
        r.errorMessage = errorMessage.moved(by: o)
        r.notificationUUID = notificationUUID.moved(by: o)
        r.notificationType = notificationType.moved(by: o)
        r.notificationSubtype = notificationSubtype.moved(by: o)
        r.notificationVersion = notificationVersion.moved(by: o)
        r.notes = notes.moved(by: o)
        r.items = (items.lowerBound + itemBase)..<(items.upperBound + itemBase)
        r.renewals = (renewals.lowerBound + renewalBase)..<(renewals.upperBound + renewalBase)
        return r
    }
}

extension ItemRow {
    func moved(by o: UInt32) -> ItemRow {
        var r = self
        r.transactionId = transactionId.moved(by: o)
        r.originalTransactionId = originalTransactionId.moved(by: o)
        r.productId = productId.moved(by: o)
        r.cancellationReason = cancellationReason.moved(by: o)
        r.webOrderLineItemId = webOrderLineItemId.moved(by: o)
        r.inAppOwnershipType = inAppOwnershipType.moved(by: o)
        r.sections = sections.moved(by: o)
        r.bundleId = bundleId.moved(by: o)
        r.environment = environment.moved(by: o)
        r.type = type.moved(by: o)
        r.revocationType = revocationType.moved(by: o)
        r.currency = currency.moved(by: o)
        r.storefront = storefront.moved(by: o)
        r.appAccountToken = appAccountToken.moved(by: o)
        r.transactionReason = transactionReason.moved(by: o)
        r.signature = signature.moved(by: o)
        return r
    }
}

extension RenewalRow {
    func moved(by o: UInt32) -> RenewalRow {
        var r = self
        r.originalTransactionId = originalTransactionId.moved(by: o)
        r.productId = productId.moved(by: o)
        r.autoRenewProductId = autoRenewProductId.moved(by: o)
        return r
    }
}
