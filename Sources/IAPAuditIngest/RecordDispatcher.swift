import Foundation
import IAPAuditModel

/// Reads one record of a file's shape into a batch; a record of another shape or with bad fields
/// becomes a rejection with its `file:line`.
enum RecordDispatcher {
    /// - Parameters:
    ///   - o: the record: a JSON object read by the strict tape, or a CSV row.
    ///   - keepRaw: store an Apple record's text (`raw_json`): not for a JSON Lines line, whose text
    ///     is its `file:line`.
    static func add(
        _ o: any RecordObject, shape: RecordShape, raw: String, at location: SourceLocation, _ checker: any SignatureChecking,
        keepRaw: Bool, into batch: inout RecordBatch
    ) {
        func apple(_ r: AppleRecord) { batch.append(r, keepRaw: keepRaw) }
        do {
            switch shape {
            case .clientReport:
                batch.append(try ClientReportParser.parse(o, at: location))
            case .serverRequest:
                batch.append(try ServerRequestParser.parse(o, at: location))
            case .wrappedVerifyResponse:
                guard case .object(let body)? = o.field("response") else {
                    throw IngestError.badField("response", "expected Apple's response object")
                }
                let requestId = try o.requiredId("request_id")
                let received = try o.logTimestamp("received_at")
                // A verifyReceipt body by `RecordShape`'s rule; anything else is asked of
                // `SignedRecordReader.kind(of:)`.
                if !RecordShape.isVerifyReceiptBody(has: { body.has($0) }), SignedRecordReader.kind(of: body) != nil {
                    apple(
                        try SignedRecordReader.read(
                            object: body, at: location, requestId: requestId, receivedAtMs: received, raw: raw, checker: checker))
                } else {
                    apple(
                        try VerifyResponseParser.parse(body, at: location, requestId: requestId, receivedAtMs: received, raw: raw))
                }
            case .wrappedSignedTransaction:
                guard case .string(let jws)? = o.field("signed_transaction") else {
                    throw IngestError.badField("signed_transaction", "expected a compact JWS string")
                }
                var response = try SignedRecordReader.read(
                    jws: jws, at: location, requestId: try o.requiredId("request_id"),
                    receivedAtMs: try o.logTimestamp("received_at"), checker: checker)
                response.rawJSON = raw
                batch.append(response, keepRaw: keepRaw)
            case .wrappedOrderLookup:
                apple(try ServerAPIResponseReader.readOrderLookup(o, at: location, raw: raw, checker: checker))
            case .wrappedTransactionLookup:
                apple(try ServerAPIResponseReader.readTransactionLookup(o, at: location, raw: raw, checker: checker))
            case .postedReceipt:
                apple(try AppReceiptReader.readWrapped(o, at: location, checker: checker))
            case .signed:
                apple(
                    try SignedRecordReader.read(
                        object: o, at: location, requestId: nil, receivedAtMs: nil, raw: raw, checker: checker))
            case .bareVerifyResponse:
                if o.has("request_id") || o.has("transaction_ids") || o.has("state") {
                    let kind = RecordShape.of(o).kind.rawValue
                    throw IngestError.other("a \(kind) record in a file of verifyReceipt responses")
                }
                apple(
                    try VerifyResponseParser.parse(o, at: location, requestId: nil, receivedAtMs: nil, raw: raw))
            default:
                throw IngestError.other("unsupported record")
            }
        } catch {
            batch.rejections.append(Rejection(location: location, reason: "\(error)", rawText: raw))
        }
    }
}
