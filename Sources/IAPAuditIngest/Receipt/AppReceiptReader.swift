import Foundation
import IAPAuditModel

/// Reads the receipts clients post, offline: PKCS#7 app receipts (iOS 7+) and iOS 6 transaction
/// receipts, bare or in the JSON wrappers clients use. The entry point of the file importer.
///
/// Sources: Apple, "Validating receipts on the device" and "Receipt Fields" (app receipts);
/// "Receipt Validation Programming Guide" (iOS 6 transaction receipts); Unity IAP's receipt JSON.
/// The result is a `AppleRecord` with `status` 0, `source` `.appReceipt` or `.transactionReceipt`,
/// items in section `app_receipt` / `transaction_receipt`, de-duplicated by transaction id.
enum AppReceiptReader {
    /// Decodes one receipt.
    ///
    /// - Parameters:
    ///   - data: raw DER, or base64 text (standard alphabet, line-wrapped or not) of a PKCS#7 app
    ///     receipt or of an iOS 6 transaction-receipt plist.
    ///   - requestId: the server-log request it is linked to (wrapper `request_id`), nil otherwise.
    ///   - receivedAtMs: when the server received it, milliseconds since 1970 UTC; nil when unknown.
    ///   - checker: checks the PKCS#7 signature at the receipt's creation date; iOS 6 signatures are not checked.
    /// - Returns: `environment` from the receipt type (`Production`, `Sandbox`, `Xcode`) or the iOS 6
    ///   `environment` entry, nil when unknown; `signedDateMs` is the creation date (iOS 6: the purchase date).
    /// - Throws: `ReceiptDecodingError` when the data is not a receipt (the message names what was
    ///   found), the DER or plist is malformed, or a purchase lacks its transaction id.
    static func read(
        _ data: Data, at location: SourceLocation, requestId: String?, receivedAtMs: Int64?, checker: any SignatureChecking
    ) throws -> AppleRecord {
        switch try ReceiptInput.classify(data) {
        case .pkcs7(let der):
            let payload = try AppReceiptPayload(der: try PKCS7Envelope(der: der).content)
            let creationMs = payload.creationDate?.ms
            let signature = checker.checkPKCS7(der: Data(der), atMs: creationMs)
            var response = AppleRecord(
                location: location, requestId: requestId, receivedAtMs: receivedAtMs, status: 0,
                environment: AppReceiptPayload.environment(receiptType: payload.receiptType), isRetryable: nil,
                bundleId: payload.bundleId, receiptType: payload.receiptType,
                items: deduplicated(payload.purchases.map { $0.item(section: "app_receipt", signature: signature) }),
                rawJSON: JSONField.serialize(payload.jsonObject))
            response.source = .appReceipt
            response.signature = signature
            response.signedDateMs = creationMs
            return response
        case .transactionReceipt(let plist):
            let receipt = try TransactionReceipt(plist: plist)
            var response = AppleRecord(
                location: location, requestId: requestId, receivedAtMs: receivedAtMs, status: 0,
                environment: receipt.environment.map(Environment.normalized), isRetryable: nil, bundleId: receipt.bundleId,
                receiptType: nil, items: [try receipt.item()], rawJSON: JSONField.serialize(receipt.jsonObject))
            response.source = .transactionReceipt
            response.signature = .notChecked
            response.signedDateMs = try receipt.purchaseDateMs()
            response.notes.append("iOS 6 transaction-receipt signatures are not checked")
            return response
        }
    }

    /// True for the JSON wrappers `readWrapped` reads: `receipt_data` (ours), Unity IAP
    /// (`Store` + `Payload`), or a client purchase object holding `transactionReceipt`.
    static func isWrapper(_ object: any RecordObject) -> Bool {
        object.has("receipt_data") || (object.has("Store") && object.has("Payload")) || object.has("transactionReceipt")
    }

    /// Decodes the receipt inside a JSON wrapper:
    /// - `{"request_id", "received_at", "receipt_data": "<base64>"}`: linked to a server-log request;
    ///   `received_at` is ISO 8601 or epoch milliseconds (required, like `request_id`).
    /// - Unity IAP `{"Store": "AppleAppStore" | "MacAppStore", "TransactionID": …, "Payload": "<base64>"}`.
    /// - A client purchase object `{"transactionReceipt": "<base64>", "transactionId" | "orderId": …}`.
    ///
    /// A Unity `TransactionID` or a purchase's `transactionId`/`orderId` that the receipt does not list
    /// becomes a `notes` entry.
    /// - Throws: `IngestError` for a missing or malformed wrapper field (a receipt that cannot be
    ///   decoded is reported under its field, e.g. `field 'Payload': not a receipt: …`), or when the
    ///   object is no wrapper or a Unity receipt of another store.
    static func readWrapped(_ object: any RecordObject, at location: SourceLocation, checker: any SignatureChecking) throws
        -> AppleRecord
    {
        if object.has("receipt_data") {
            let requestId = try object.requiredId("request_id")
            let receivedAt = try object.logTimestamp("received_at")
            return try decode(object, "receipt_data", location, requestId, receivedAt, checker)
        }
        if object.has("Store") && object.has("Payload") {
            let store = try object.text("Store") ?? ""
            guard store == "AppleAppStore" || store == "MacAppStore" else {
                throw IngestError.badField("Store", "a Unity receipt of store \"\(store.prefix(40))\", not AppleAppStore")
            }
            var response = try decode(object, "Payload", location, nil, nil, checker)
            try noteMissing(object, ["TransactionID"], what: "Unity receipt", in: &response)
            return response
        }
        if object.has("transactionReceipt") {
            var response = try decode(object, "transactionReceipt", location, nil, nil, checker)
            try noteMissing(object, ["transactionId", "orderId"], what: "client purchase", in: &response)
            return response
        }
        throw IngestError.other("not a receipt wrapper: expected receipt_data, Store/Payload or transactionReceipt")
    }

    private static func decode(
        _ object: any RecordObject, _ field: String, _ location: SourceLocation, _ requestId: String?, _ receivedAt: Int64?,
        _ checker: any SignatureChecking
    ) throws -> AppleRecord {
        guard let text = object.string(field) else {
            throw IngestError.badField(field, "expected base64 receipt text, found \((object.field(field) ?? .null).typeName)")
        }
        do {
            return try read(Data(text.utf8), at: location, requestId: requestId, receivedAtMs: receivedAt, checker: checker)
        } catch let error as ReceiptDecodingError {
            throw IngestError.badField(field, error.message)
        }
    }

    /// Adds a note when the first present id field of `keys` names no purchase of the receipt.
    private static func noteMissing(_ object: any RecordObject, _ keys: [String], what: String, in response: inout AppleRecord) throws {
        for key in keys {
            guard let id = try object.id(key) else { continue }
            if !response.items.contains(where: { $0.transactionId == id }) {
                response.notes.append("\(what) \(key) \(id) is not among the receipt's purchases")
            }
            return
        }
    }

    /// Items merged by transaction id, first-occurrence order.
    static func deduplicated(_ items: [AppleTransaction]) -> [AppleTransaction] {
        var result: [AppleTransaction] = []
        var index: [String: Int] = [:]
        for item in items {
            if let at = index[item.transactionId] {
                result[at].merge(item)
            } else {
                index[item.transactionId] = result.count
                result.append(item)
            }
        }
        return result
    }
}
