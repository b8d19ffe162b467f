import Foundation
import IAPAuditModel

/// What one signed-format record collects while it is read: its purchases (de-duplicated by
/// `transactionId`), renewal infos, the combined signature of every JWS checked, and notes for
/// nested values that could not be read.
///
/// A nested JWS (a page's `signedTransactions[i]`, a notification's `data.signedTransactionInfo`…)
/// that cannot be read never rejects the record: it becomes a note naming its field, e.g.
/// `signedTransactions[0]: not a compact JWS ("signed_transaction_value")`.
struct SignedEvidence {
    let checker: any SignatureChecking
    private(set) var items: [AppleTransaction] = []
    private var index: [String: Int] = [:]
    var pendingRenewals: [PendingRenewal] = []
    var notes: [String] = []
    /// The worst status of the JWS checked so far (`SignatureStatus.combined(with:)`); nil when none was.
    private(set) var signature: SignatureStatus?

    init(checker: any SignatureChecking) {
        self.checker = checker
    }

    /// Adds a purchase, merging it into an earlier listing of the same `transactionId`.
    mutating func add(_ item: AppleTransaction) {
        if let at = index[item.transactionId] {
            items[at].merge(item)
        } else {
            index[item.transactionId] = items.count
            items.append(item)
        }
    }

    /// Checks `jws` with the chain valid at `atMs` (its payload's `signedDate`, milliseconds since
    /// 1970 UTC; nil = now), folds the result into `signature` and returns it.
    /// A header with a `crit` member is `invalid:unsupported_crit:<names>` whatever the checker: it names extensions
    /// the recipient must understand, and this reader understands none (RFC 7515 §4.1.11).
    mutating func check(_ jws: CompactJWS, atMs: Int64?) -> SignatureStatus {
        let status =
            jws.critical.map { .invalid("unsupported_crit:\($0.joined(separator: ","))") }
            ?? checker.checkJWS(
                signingInput: jws.signingInput, signature: jws.signature, algorithm: jws.algorithm,
                certificateChain: jws.certificateChain, atMs: atMs)
        signature = signature.map { $0.combined(with: status) } ?? status
        return status
    }

    /// Records that `field` could not be read, and why (errors inside a nested payload name its
    /// fields relative to the payload, e.g. `signedTransactions[0]: missing required field 'transactionId'`).
    mutating func note(_ field: String, _ error: Error) {
        notes.append("\(field): \(error)")
    }

    /// Decodes a nested compact JWS; nil without a note when the field is absent or null, nil with a
    /// note when it is not a compact JWS.
    mutating func nestedJWS(_ value: FieldValue?, field: String) -> CompactJWS? {
        switch value {
        case nil, .null?:
            return nil
        case .string(let text)?:
            do {
                return try CompactJWS.parse(text)
            } catch {
                note(field, error)
                return nil
            }
        case let other?:
            note(field, IngestError.other("expected a compact JWS string, found \(other.typeName)"))
            return nil
        }
    }

    /// Reads a nested `signedTransactionInfo`: its item (signature = its own JWS, checked at its own
    /// `signedDate`) is added under `section`; a note instead when it cannot be read.
    /// - Parameter notification: the notification that lists it (its type and subtype go on the item,
    ///   which is then never merged with another listing of the same transaction: each entry of a Get
    ///   Notification History page is a listing of its own, with its own type, dates and signature).
    ///   - envelope: the status of the notification JWS that nests it inside an unsigned page (a history entry): the
    ///     item's signature is the worse of the two, so its notification's type needs that entry's own signature.
    mutating func nestedTransaction(
        _ value: FieldValue?, field: String, section: String, notification: NotificationInfo? = nil, envelope: SignatureStatus? = nil
    ) {
        guard let jws = nestedJWS(value, field: field) else { return }
        do {
            var item = try TransactionPayload.item(jws.payload, section: section, path: "")
            let own = check(jws, atMs: item.signedDateMs)
            item.signature = envelope.map { $0.combined(with: own) } ?? own
            if let notification {
                item.notificationType = notification.notificationType
                item.notificationSubtype = notification.subtype
                items.append(item)
            } else {
                add(item)
            }
        } catch {
            note(field, error)
        }
    }

    /// Reads a nested `signedRenewalInfo` (checked at its own `signedDate`) into `pendingRenewals`;
    /// a note instead when it cannot be read.
    mutating func nestedRenewalInfo(_ value: FieldValue?, field: String) {
        guard let jws = nestedJWS(value, field: field) else { return }
        do {
            let renewal = try RenewalInfoPayload.pendingRenewal(jws.payload, path: "")
            _ = check(jws, atMs: try jws.payload.date("signedDate"))
            pendingRenewals.append(renewal)
        } catch {
            note(field, error)
        }
    }

    /// The record read: `own` is the record's own JWS status (`notChecked` for decoded payload JSON,
    /// nil for an unsigned Server API body); the result is combined with every nested JWS, and is
    /// `notChecked` when nothing was checked.
    func response(
        _ context: SignedRecordReader.Context, source: EvidenceSource, status: Int = 0, environment: String?, bundleId: String?,
        own: SignatureStatus?
    ) -> AppleRecord {
        var response = AppleRecord(
            location: context.location, requestId: context.requestId, receivedAtMs: context.receivedAtMs, status: status,
            environment: environment ?? items.lazy.compactMap(\.environment).first, isRetryable: nil,
            bundleId: bundleId ?? items.lazy.compactMap(\.bundleId).first, receiptType: nil, items: items, rawJSON: context.raw)
        response.source = source
        response.pendingRenewals = pendingRenewals
        response.notes = notes
        switch (own, signature) {
        case (let own?, let nested?): response.signature = own.combined(with: nested)
        case (let own?, nil): response.signature = own
        case (nil, let nested?): response.signature = nested
        case (nil, nil): response.signature = .notChecked
        }
        return response
    }
}
