import Foundation

/// Turns rows into reconciliation facts (`FactStream`, `FactKind`): what every rule reads of a record,
/// keyed for the partition it is reconciled in. Runs on the parsing threads, beside the rows it reads.
package enum FactEncoder {
    package static func add(_ batch: RecordBatch, to set: inout FactSet) {
        batch.arena.bytes.withUnsafeBufferPointer { arena in
            let encoder = Encoding(arena: arena)
            for r in batch.clients { encoder.client(r, &set) }
            for r in batch.servers { encoder.server(r, batch, &set) }
            for r in batch.responses { encoder.response(r, batch, &set) }
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
            guard let id = bytes(r.transactionId) else { return }  // failed, deferred: nothing to reconcile (rule 1)
            var w = FactWriter()
            w.u8(FactKind.client.rawValue)
            w.u32(0)
            w.u32(r.line)
            w.i64(r.tsMs)
            w.id(id)
            w.u8(UInt8(ClientState.allCases.firstIndex(of: r.state)!))
            w.text(bytes(r.userId))
            w.text(bytes(r.productId))
            w.text(bytes(r.originalTransactionId))
            set.append(.transactions, FactKey.partition(id: id), w)
        }

        func server(_ r: ServerRow, _ batch: RecordBatch, _ set: inout FactSet) {
            set.summary.serverRecords += 1
            set.summary.newestServer = FileFacts.newer(set.summary.newestServer, (r.tsMs, r.line))
            if r.event == .verify, let latency = r.latencyMs { set.summary.latencyCounts[latency, default: 0] += 1 }
            let ids = r.transactionIds.map { bytes(batch.ids[Int($0)])! }
            var w = FactWriter()
            w.u8(FactKind.requestLine.rawValue)
            w.u32(0)
            w.u32(r.line)
            w.i64(r.tsMs)
            w.u8(r.event == .revoke ? 1 : 0)
            w.u8((r.restore ? 1 : 0) | (r.granted ? 2 : 0))
            w.optional(r.verifyStatus)
            w.text(bytes(r.requestId))
            w.text(bytes(r.userId))
            w.text(bytes(r.environment))
            w.varint(ids.count)
            for id in ids { w.id(id) }
            if let credited = r.creditedTransactionIds {
                w.u8(1)
                w.varint(credited.count)
                for i in credited { w.id(bytes(batch.ids[Int(i)])) }
            } else {
                w.u8(0)
            }
            set.append(.requests, FactKey.partition(text: bytes(r.requestId)!), w)
            guard r.event == .revoke else { return }
            // A revoke ends entitlements of each transaction it names (rule 12), once per transaction.
            for (k, id) in ids.enumerated() where !ids[..<k].contains(where: { $0.elementsEqual(id) }) {
                var v = FactWriter()
                v.u8(FactKind.revoke.rawValue)
                v.u32(0)
                v.u32(r.line)
                v.i64(r.tsMs)
                v.id(id)
                v.text(bytes(r.userId))
                set.append(.transactions, FactKey.partition(id: id), v)
            }
        }

        func response(_ r: AppleRecordRow, _ batch: RecordBatch, _ set: inout FactSet) {
            set.summary.appleRecords += 1
            if r.source.isSigned { set.summary.signedAppleRecords += 1 }
            if r.source == .verifyReceipt { set.summary.statusCounts[r.status, default: 0] += 1 }
            set.summary.appleItems += Int64(r.items.count)
            if let received = r.receivedAtMs {
                set.summary.newestReceived = FileFacts.newer(set.summary.newestReceived, (received, r.line))
            }
            let signature = bytes(r.signature)
            let failed = signature.map { SignatureCode($0).failed } ?? false
            if let uuid = bytes(r.notificationUUID) {
                var w = FactWriter()
                w.u8(FactKind.notification.rawValue)
                w.u32(0)
                w.u32(r.line)
                w.text(uuid)
                w.u8(failed ? 1 : 0)
                set.append(.notifications, FactKey.partition(text: uuid), w)
            }
            let environment = EnvironmentCode.effective(
                status: r.status, environment: bytes(r.environment), receiptType: bytes(r.receiptType))
            let refundReversed = bytes(r.notificationType)?.elementsEqual("REFUND_REVERSED".utf8) ?? false
            for i in r.items {
                let item = batch.items[Int(i)]
                let id = bytes(item.transactionId)!
                let familyShared = bytes(item.inAppOwnershipType)?.elementsEqual("FAMILY_SHARED".utf8) ?? false
                let itemSignature = bytes(item.signature)
                if let original = bytes(item.originalTransactionId), let line = bytes(item.webOrderLineItemId),
                    !line.elementsEqual("0".utf8), !familyShared, !(itemSignature.map { SignatureCode($0).failed } ?? false)
                {
                    var w = FactWriter()
                    w.u8(FactKind.billing.rawValue)
                    w.u32(0)
                    w.u32(r.line)
                    w.id(original)
                    w.text(line)
                    w.id(id)
                    set.append(.billing, FactKey.partition(id: original), w)
                }
                var w = FactWriter()
                w.u8(FactKind.listing.rawValue)
                w.id(id)
                w.u32(0)
                w.u32(r.line)
                w.optional(r.receivedAtMs)
                w.zigzag(r.status)
                w.environment(environment)
                w.text(bytes(r.bundleId))
                w.u8(UInt8(EvidenceSource.allCases.firstIndex(of: r.source)!))
                w.signature(signature)
                w.optional(r.signedDateMs)
                w.u8((refundReversed ? 1 : 0) | (familyShared ? 2 : 0))
                w.text(bytes(item.productId))
                w.id(bytes(item.originalTransactionId))
                w.optional(item.purchaseDateMs)
                w.optional(item.cancellationDateMs)
                w.text(bytes(item.cancellationReason))
                w.text(bytes(item.revocationType))
                w.optional(item.revocationPercentage)
                let itemEnvironment = bytes(item.environment).map { e -> (EnvironmentCode, UnsafeBufferPointer<UInt8>?) in
                    let code = EnvironmentCode.normalizing(e)
                    return (code, code == .other ? e : nil)
                }
                w.environment(itemEnvironment ?? (.none, nil))
                w.text(bytes(item.bundleId))
                w.signature(itemSignature)
                w.optional(item.signedDateMs)
                set.append(.transactions, FactKey.partition(id: id), w)
            }
            guard let requestId = bytes(r.requestId) else { return }
            // What the request stage reads of an answer: its status and environment, and its purchases'
            // ids, original ids, dates, signatures and bundles (proof and rule 6).
            var w = FactWriter()
            w.u8(FactKind.linkedResponse.rawValue)
            w.text(requestId)
            w.u32(0)
            w.u32(r.line)
            w.optional(r.receivedAtMs)
            w.zigzag(r.status)
            w.environment(environment)
            w.optional(r.isRetryable)
            w.text(bytes(r.bundleId))
            w.u8(failed ? 1 : 0)
            w.varint(r.items.count)
            for i in r.items {
                let item = batch.items[Int(i)]
                w.id(bytes(item.transactionId))
                w.id(bytes(item.originalTransactionId))
                w.optional(item.purchaseDateMs)
                w.u8(bytes(item.signature).map { SignatureCode($0).failed } ?? false ? 1 : 0)
                w.text(bytes(item.bundleId))
            }
            set.append(.requests, FactKey.partition(text: requestId), w)
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
