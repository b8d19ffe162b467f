/// Records as Swift values ↔ rows: the readers that build `ClientReport`, `ServerRequest` and
/// `AppleRecord` values (CSV, documents, signed formats, the strict line reader) store through
/// rows too, and `ImportedFile` callers that want values get them back from rows.
extension RecordBatch {
    package mutating func append(_ r: ClientReport) {
        clients.append(
            ClientRow(
                line: UInt32(r.location.line), tsMs: r.tsMs, userId: arena.append(r.userId), deviceId: arena.append(r.deviceId),
                transactionId: arena.append(r.transactionId), originalTransactionId: arena.append(r.originalTransactionId),
                productId: arena.append(r.productId), state: r.state, errorCode: r.errorCode.map(Int64.init),
                quantity: r.quantity.map(Int64.init)))
    }

    package mutating func append(_ r: ServerRequest) {
        let ids = appendIds(r.transactionIds)
        let credited = r.creditedTransactionIds.map { appendIds($0) }
        servers.append(
            ServerRow(
                line: UInt32(r.location.line), tsMs: r.tsMs, requestId: arena.append(r.requestId), event: r.event,
                userId: arena.append(r.userId), deviceId: arena.append(r.deviceId), transactionIds: ids,
                transactionIdsJSON: arena.append(IdList.encode(r.transactionIds)), creditedTransactionIds: credited,
                creditedTransactionIdsJSON: arena.append(r.creditedTransactionIds.map(IdList.encode)), restore: r.restore,
                receiptSha256: arena.append(r.receiptSha256), verifyStatus: r.verifyStatus.map(Int64.init),
                environment: arena.append(r.environment), granted: r.granted, latencyMs: r.latencyMs))
    }

    private mutating func appendIds(_ values: [String]) -> Range<Int32> {
        let start = Int32(ids.count)
        for id in values { ids.append(arena.append(id)) }
        return start..<Int32(ids.count)
    }

    /// - Parameter keepRaw: store `rawJSON` (false for JSON Lines, whose raw text is the input line).
    package mutating func append(_ r: AppleRecord, keepRaw: Bool) {
        let itemStart = Int32(items.count)
        for i in r.items {
            var row = AppleTransactionRow(transactionId: arena.append(i.transactionId))
            row.originalTransactionId = arena.append(i.originalTransactionId)
            row.productId = arena.append(i.productId)
            row.quantity = i.quantity.map(Int64.init)
            row.purchaseDateMs = i.purchaseDateMs
            row.originalPurchaseDateMs = i.originalPurchaseDateMs
            row.expiresDateMs = i.expiresDateMs
            row.cancellationDateMs = i.cancellationDateMs
            row.cancellationReason = arena.append(i.cancellationReason)
            row.webOrderLineItemId = arena.append(i.webOrderLineItemId)
            row.inAppOwnershipType = arena.append(i.inAppOwnershipType)
            row.isTrialPeriod = i.isTrialPeriod
            row.sections = arena.append(i.sections.joined(separator: ","))
            row.isInIntroOfferPeriod = i.isInIntroOfferPeriod
            row.bundleId = arena.append(i.bundleId)
            row.environment = arena.append(i.environment)
            row.type = arena.append(i.type)
            row.revocationType = arena.append(i.revocationType)
            row.revocationPercentage = i.revocationPercentage.map(Int64.init)
            row.priceMilliunits = i.priceMilliunits
            row.currency = arena.append(i.currency)
            row.storefront = arena.append(i.storefront)
            row.appAccountToken = arena.append(i.appAccountToken)
            row.transactionReason = arena.append(i.transactionReason)
            row.signedDateMs = i.signedDateMs
            row.signature = arena.append(i.signature.text)
            items.append(row)
        }
        let renewalStart = Int32(renewals.count)
        for p in r.pendingRenewals {
            renewals.append(
                PendingRenewalRow(
                    originalTransactionId: arena.append(p.originalTransactionId), productId: arena.append(p.productId),
                    autoRenewProductId: arena.append(p.autoRenewProductId), autoRenewStatus: p.autoRenewStatus.map(Int64.init),
                    expirationIntent: p.expirationIntent.map(Int64.init), isInBillingRetryPeriod: p.isInBillingRetryPeriod,
                    gracePeriodExpiresDateMs: p.gracePeriodExpiresDateMs))
        }
        responses.append(
            AppleRecordRow(
                line: UInt32(r.location.line), requestId: arena.append(r.requestId), receivedAtMs: r.receivedAtMs,
                status: Int64(r.status), environment: arena.append(r.environment), isRetryable: r.isRetryable,
                bundleId: arena.append(r.bundleId), receiptType: arena.append(r.receiptType),
                rawJSON: arena.append(keepRaw ? r.rawJSON : ""), rawRange: nil, source: r.source,
                signature: arena.append(r.signature.text), signedDateMs: r.signedDateMs, errorMessage: arena.append(r.errorMessage),
                notificationUUID: arena.append(r.notification?.notificationUUID),
                notificationType: arena.append(r.notification?.notificationType),
                notificationSubtype: arena.append(r.notification?.subtype),
                notificationVersion: arena.append(r.notification?.version),
                notificationStatus: r.notification?.status.map(Int64.init), notes: arena.append(IdList.encode(r.notes)),
                items: itemStart..<Int32(items.count), renewals: renewalStart..<Int32(renewals.count)))
    }

    // MARK: Back to values

    package func clientReport(_ r: ClientRow, file: String) -> ClientReport {
        ClientReport(
            location: SourceLocation(file: file, line: Int(r.line)), tsMs: r.tsMs, userId: text(r.userId),
            deviceId: text(r.deviceId), transactionId: text(r.transactionId),
            originalTransactionId: text(r.originalTransactionId), productId: text(r.productId), state: r.state,
            errorCode: r.errorCode.map { Int($0) }, quantity: r.quantity.map { Int($0) })
    }

    package func idList(_ range: Range<Int32>) -> [String] { range.map { text(ids[Int($0)]) ?? "" } }

    package func serverRequest(_ r: ServerRow, file: String) -> ServerRequest {
        ServerRequest(
            location: SourceLocation(file: file, line: Int(r.line)), tsMs: r.tsMs, requestId: text(r.requestId) ?? "",
            event: r.event, userId: text(r.userId), deviceId: text(r.deviceId), transactionIds: idList(r.transactionIds),
            creditedTransactionIds: r.creditedTransactionIds.map(idList), restore: r.restore, receiptSha256: text(r.receiptSha256),
            verifyStatus: r.verifyStatus.map { Int($0) }, environment: text(r.environment), granted: r.granted,
            latencyMs: r.latencyMs)
    }

    /// - Parameter raw: the record's text when it is not stored (`rawJSON` empty: a JSON Lines line).
    package func verifyResponse(_ r: AppleRecordRow, file: String, raw: String?) -> AppleRecord {
        var response = AppleRecord(
            location: SourceLocation(file: file, line: Int(r.line)), requestId: text(r.requestId), receivedAtMs: r.receivedAtMs,
            status: Int(r.status), environment: text(r.environment), isRetryable: r.isRetryable, bundleId: text(r.bundleId),
            receiptType: text(r.receiptType), items: r.items.map { receiptItem(items[Int($0)]) },
            rawJSON: raw ?? text(r.rawJSON) ?? "")
        response.source = r.source
        response.signature = text(r.signature).flatMap(SignatureStatus.init(text:)) ?? .notChecked
        response.signedDateMs = r.signedDateMs
        response.errorMessage = text(r.errorMessage)
        if let type = text(r.notificationType) {
            var info = NotificationInfo(
                notificationUUID: text(r.notificationUUID), notificationType: type, subtype: text(r.notificationSubtype),
                version: text(r.notificationVersion))
            info.status = r.notificationStatus.map { Int($0) }
            response.notification = info
        }
        response.notes = text(r.notes).map(IdList.decode) ?? []
        response.pendingRenewals = r.renewals.map { i in
            let p = renewals[Int(i)]
            var info = PendingRenewal()
            info.originalTransactionId = text(p.originalTransactionId)
            info.productId = text(p.productId)
            info.autoRenewProductId = text(p.autoRenewProductId)
            info.autoRenewStatus = p.autoRenewStatus.map { Int($0) }
            info.expirationIntent = p.expirationIntent.map { Int($0) }
            info.isInBillingRetryPeriod = p.isInBillingRetryPeriod
            info.gracePeriodExpiresDateMs = p.gracePeriodExpiresDateMs
            return info
        }
        return response
    }

    package func receiptItem(_ i: AppleTransactionRow) -> AppleTransaction {
        var item = AppleTransaction(
            transactionId: text(i.transactionId) ?? "", sections: (text(i.sections) ?? "").split(separator: ",").map(String.init))
        item.originalTransactionId = text(i.originalTransactionId)
        item.productId = text(i.productId)
        item.quantity = i.quantity.map { Int($0) }
        item.purchaseDateMs = i.purchaseDateMs
        item.originalPurchaseDateMs = i.originalPurchaseDateMs
        item.expiresDateMs = i.expiresDateMs
        item.cancellationDateMs = i.cancellationDateMs
        item.cancellationReason = text(i.cancellationReason)
        item.webOrderLineItemId = text(i.webOrderLineItemId)
        item.inAppOwnershipType = text(i.inAppOwnershipType)
        item.isTrialPeriod = i.isTrialPeriod
        item.isInIntroOfferPeriod = i.isInIntroOfferPeriod
        item.bundleId = text(i.bundleId)
        item.environment = text(i.environment)
        item.type = text(i.type)
        item.revocationType = text(i.revocationType)
        item.revocationPercentage = i.revocationPercentage.map { Int($0) }
        item.priceMilliunits = i.priceMilliunits
        item.currency = text(i.currency)
        item.storefront = text(i.storefront)
        item.appAccountToken = text(i.appAccountToken)
        item.transactionReason = text(i.transactionReason)
        item.signedDateMs = i.signedDateMs
        item.signature = text(i.signature).flatMap(SignatureStatus.init(text:)) ?? .notChecked
        return item
    }
}
