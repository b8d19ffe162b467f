import Foundation

/// Turns rows into reconciliation facts (`FactKind`; each fact's layout is generated from
/// Sources/LedgerDeclarations/Facts.swift): what every rule reads of a record, keyed for the partition
/// it is reconciled in. Runs on the parsing threads, beside the rows it reads. File ids are written as 0
/// (the chunk's own file: the store numbers the file after the facts are made).
package enum FactEncoder {
    package static func add(_ batch: RecordBatch, to set: inout FactSet) {
        batch.arena.bytes.withUnsafeBufferPointer { arena in
            let encoder = Encoding(arena: arena)
            for r in batch.clientReports { encoder.client(r, &set) }
            for r in batch.serverRequests { encoder.server(r, batch, &set) }
            for r in batch.appleRecords { encoder.appleRecord(r, batch, &set) }
        }
    }

    private struct Encoding {
        let arena: UnsafeBufferPointer<UInt8>

        @inline(__always) func bytes(_ ref: TextRef) -> UnsafeBufferPointer<UInt8>? {
            guard !ref.isNull else { return nil }
            return UnsafeBufferPointer(rebasing: arena[Int(ref.start)..<Int(ref.start + ref.count)])
        }

        func client(_ r: ClientRow, _ set: inout FactSet) {
            set.summary.clientReports += 1
            set.summary.newestClient = FileFacts.newer(set.summary.newestClient, (r.tsMs, r.line))
            set.summary.oldestClient = FileFacts.older(set.summary.oldestClient, (r.tsMs, r.line))
            guard let id = bytes(r.transactionId) else { return }  // failed, deferred: nothing to reconcile (rule 1)
            var w = FactWriter()
            ClientFact.write(
                &w, fileId: 0, line: r.line, tsMs: r.tsMs, id: .bytes(id), state: r.state, userId: bytes(r.userId),
                productId: bytes(r.productId), originalId: bytes(r.originalTransactionId), quantity: r.quantity)
            set.append(.transactions, FactKey.partition(id: id), w)
        }

        func server(_ r: ServerRow, _ batch: RecordBatch, _ set: inout FactSet) {
            set.summary.serverRecords += 1
            set.summary.newestServer = FileFacts.newer(set.summary.newestServer, (r.tsMs, r.line))
            set.summary.oldestServer = FileFacts.older(set.summary.oldestServer, (r.tsMs, r.line))
            if r.event == .verify, let latency = r.latencyMs { set.summary.latencyCounts[latency, default: 0] += 1 }
            let ids = r.transactionIds.map { bytes(batch.ids[Int($0)])! }
            let requestId = bytes(r.requestId)!
            var w = FactWriter()
            RequestLineFact.write(
                &w, fileId: 0, line: r.line, tsMs: r.tsMs, isRevoke: r.event == .revoke, restore: r.restore, granted: r.granted,
                verifyStatus: r.verifyStatus, requestId: requestId, userId: bytes(r.userId), environment: bytes(r.environment),
                posted: ids.map { .bytes($0) }, credited: r.creditedTransactionIds.map { $0.map { .of(bytes(batch.ids[Int($0)])) } },
                creditedQuantitiesCount: r.creditedQuantities?.count
            ) { w in
                for k in r.creditedQuantities ?? 0..<0 {
                    let q = batch.quantities[Int(k)]
                    RequestLineFact.Quantity.write(&w, id: .of(bytes(q.id)), quantity: q.quantity)
                }
            }
            set.append(.requests, FactKey.partition(text: requestId), w)
            guard r.event == .revoke else { return }
            // A revoke ends entitlements of each transaction it names (rule 12), once per transaction.
            for (k, id) in ids.enumerated() where !ids[..<k].contains(where: { $0.elementsEqual(id) }) {
                var v = FactWriter()
                RevokeFact.write(&v, fileId: 0, line: r.line, tsMs: r.tsMs, id: .bytes(id), userId: bytes(r.userId))
                set.append(.transactions, FactKey.partition(id: id), v)
            }
        }

        func appleRecord(_ r: AppleRecordRow, _ batch: RecordBatch, _ set: inout FactSet) {
            set.summary.appleRecords += 1
            if r.source.isSigned { set.summary.signedAppleRecords += 1 }
            if r.source == .verifyReceipt { set.summary.statusCounts[r.status, default: 0] += 1 }
            set.summary.appleItems += Int64(r.items.count)
            if let received = r.receivedAtMs {
                set.summary.newestReceived = FileFacts.newer(set.summary.newestReceived, (received, r.line))
            }
            let signature = bytes(r.signature)
            if let uuid = bytes(r.notificationUUID) {
                // A delivery below the trust level the rules need claims no UUID (docs/security.md): a forged or unsigned
                // copy must not make the genuine one a re-delivery.
                let unproven = !TrustLevel(source: r.source, signature: signature.map(SignatureCode.init) ?? .notChecked).counts
                var w = FactWriter()
                NotificationFact.write(&w, fileId: 0, line: r.line, uuid: uuid, signatureFailed: unproven)
                set.append(.notifications, FactKey.partition(text: uuid), w)
            }
            let environment = EnvironmentCode.effective(
                status: r.status, environment: bytes(r.environment), receiptType: bytes(r.receiptType))
            let conflict = environmentConflict(r, batch, environment: environment.0)
            if conflict { set.summary.environmentConflicts += 1 }
            // An answer that names no environment anywhere (no environment, receipt_type, or transaction's) is
            // read as production: counted, so the run can say so (rule 24).
            if !conflict, environment.0 == .none, r.status == 0 || r.status == 21006, !r.items.isEmpty,
                r.items.allSatisfy({ batch.appleTransactions[Int($0)].environment.isNull })
            {
                set.summary.environmentUnknown += 1
            }
            for i in r.items {
                listing(batch.appleTransactions[Int(i)], of: r, environment: environment, conflict: conflict, &set)
            }
            linkedResponse(r, batch, environment: environment, conflict: conflict, &set)
            if let asked = bytes(r.askedTransactionId) {
                // Keyed by the id asked (rule 25): Apple's "not found" names no transaction of its own.
                var w = FactWriter()
                LookupFact.write(
                    &w, id: .bytes(asked), fileId: 0, line: r.line, receivedAtMs: r.receivedAtMs, status: r.status,
                    environment: EnvironmentCode.effective(status: r.status, environment: bytes(r.environment), receiptType: nil))
                set.append(.transactions, FactKey.partition(id: asked), w)
            }
        }

        /// One transaction an Apple record lists: its `ListingFact`, and a `PurchaseFact` when it joins a purchase under
        /// several ids. `environment`: the record's effective environment; `conflict`: its signals disagree (rule 24).
        func listing(
            _ item: AppleTransactionRow, of r: AppleRecordRow, environment: (EnvironmentCode, UnsafeBufferPointer<UInt8>?),
            conflict: Bool, _ set: inout FactSet
        ) {
            let signature = bytes(r.signature)
            let recordType = bytes(r.notificationType)
            let id = bytes(item.transactionId)!
            // The notification that listed it (each entry of a notification-history page its own), else the record's.
            let refundReversed = (bytes(item.notificationType) ?? recordType)?.elementsEqual("REFUND_REVERSED".utf8) ?? false
            let familyShared = bytes(item.inAppOwnershipType)?.elementsEqual("FAMILY_SHARED".utf8) ?? false
            let itemSignature = bytes(item.signature)
            let lineItem = bytes(item.webOrderLineItemId).flatMap { $0.elementsEqual("0".utf8) ? nil : $0 }
            // One purchase under several ids (rule 18): a line item's period, or a second id of an original
            // (a restore, a renewal). A family member's own transaction, and a listing below the trust level the rules
            // need (a failed signature, a signed format given unsigned: docs/security.md), join nothing.
            if let original = bytes(item.originalTransactionId), lineItem != nil || !original.elementsEqual(id), !familyShared,
                TrustLevel(source: r.source, signature: itemSignature.map(SignatureCode.init) ?? .notChecked).counts
            {
                var w = FactWriter()
                PurchaseFact.write(
                    &w, fileId: 0, line: r.line, originalId: .bytes(original), lineItem: lineItem, id: .bytes(id),
                    productId: bytes(item.productId), type: bytes(item.type))
                set.append(.purchases, FactKey.partition(id: original), w)
            }
            let itemEnvironment = bytes(item.environment).map { e -> (EnvironmentCode, UnsafeBufferPointer<UInt8>?) in
                let code = EnvironmentCode.normalizing(e)
                return (code, code == .other ? e : nil)
            }
            var w = FactWriter()
            ListingFact.write(
                &w, id: .bytes(id), fileId: 0, line: r.line, receivedAtMs: r.receivedAtMs, status: r.status, environment: environment,
                bundleId: bytes(r.bundleId), source: r.source, signature: signature,
                issuedDateMs: r.signedDateMs ?? (item.expiresDateMs == nil ? nil : r.requestDateMs),
                refundReversed: refundReversed, familyShared: familyShared, environmentConflict: conflict,
                productId: bytes(item.productId),
                originalId: .of(bytes(item.originalTransactionId)), purchaseDateMs: item.purchaseDateMs,
                cancellationDateMs: item.cancellationDateMs, cancellationReason: bytes(item.cancellationReason),
                revocationType: bytes(item.revocationType), revocationPercentage: item.revocationPercentage,
                itemEnvironment: itemEnvironment ?? (.none, nil), itemBundleId: bytes(item.bundleId), itemSignature: itemSignature,
                itemSignedDateMs: item.signedDateMs, quantity: item.quantity, expiresDateMs: item.expiresDateMs,
                webOrderLineItemId: lineItem, type: bytes(item.type))
            set.append(.transactions, FactKey.partition(id: id), w)
        }

        /// The record as an answer to a verification request (`LinkedResponseFact`, keyed by its request id), if it names one.
        func linkedResponse(
            _ r: AppleRecordRow, _ batch: RecordBatch, environment: (EnvironmentCode, UnsafeBufferPointer<UInt8>?), conflict: Bool,
            _ set: inout FactSet
        ) {
            let failed = bytes(r.signature).map { SignatureCode($0).failed } ?? false
            guard let requestId = bytes(r.requestId) else { return }
            var w = FactWriter()
            LinkedResponseFact.write(
                &w, requestId: requestId, fileId: 0, line: r.line, receivedAtMs: r.receivedAtMs, status: r.status, environment: environment,
                // The envelope's own signature (a JWS, notification or receipt): a Server API page is unsigned, its items
                // judged one by one.
                isRetryable: r.isRetryable, bundleId: bytes(r.bundleId), signatureFailed: failed && r.source.isSigned,
                environmentConflict: conflict,
                receiptCreationDateMs: r.receiptCreationDateMs, itemsCount: r.items.count
            ) { w in
                for i in r.items {
                    let item = batch.appleTransactions[Int(i)]
                    LinkedResponseFact.Item.write(
                        &w, id: .of(bytes(item.transactionId)), originalId: .of(bytes(item.originalTransactionId)),
                        purchaseDateMs: item.purchaseDateMs,
                        signatureFailed: bytes(item.signature).map { SignatureCode($0).failed } ?? false,
                        bundleId: bytes(item.bundleId))
                }
            }
            set.append(.requests, FactKey.partition(text: requestId), w)
        }

        /// semantics.md rule 24 for the record (`PaymentEvidence.environmentConflict`).
        func environmentConflict(_ r: AppleRecordRow, _ batch: RecordBatch, environment: EnvironmentCode) -> Bool {
            PaymentEvidence.environmentConflict(
                environment: bytes(r.environment).map(EnvironmentCode.normalizing) ?? .none,
                receiptTypeIsSandbox: PaymentEvidence.isSandboxReceiptType(bytes(r.receiptType)),
                receiptEnvironment: bytes(r.receiptEnvironment).map(EnvironmentCode.normalizing) ?? .none, effective: environment,
                items: r.items.lazy.map { i in
                    let item = batch.appleTransactions[Int(i)]
                    return (bytes(item.environment).map(EnvironmentCode.normalizing) ?? .none, item.purchaseDateMs, item.expiresDateMs)
                })
        }
    }
}

/// A signature's stored text (`SignatureStatus.text`) as the rules read it.
package enum SignatureCode: UInt8 {
    case verified, notChecked, untrustedRoot, invalid

    package init(_ text: UnsafeBufferPointer<UInt8>) {
        @inline(__always) func equals(_ word: StaticString) -> Bool {
            text.count == word.utf8CodeUnitCount && memcmp(text.baseAddress!, word.utf8Start, text.count) == 0
        }
        switch text.count {
        case 8 where equals("verified"): self = .verified
        case 11 where equals("not_checked"): self = .notChecked
        case 14 where equals("untrusted_root"): self = .untrustedRoot
        default: self = .invalid
        }
    }

    /// `SignatureStatus.failed`: checked and failed.
    package var failed: Bool { self == .untrustedRoot || self == .invalid }
}
