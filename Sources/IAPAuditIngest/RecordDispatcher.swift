import Foundation
import IAPAuditModel

/// One parsed JSON record: the lazy field view the canonical readers use (client reports, server
/// log, verifyReceipt), and the Foundation object the signed-format readers take, made only when asked.
struct ParsedRecord {
    let fields: any RecordObject
    private let makeFoundation: () throws -> [String: Any]

    init(_ object: [String: Any]) {
        fields = FoundationObject(object)
        makeFoundation = { object }
    }

    init(csv row: CSVRow) {
        fields = row
        makeFoundation = { row.values }
    }

    /// One JSON Lines record, parsed strictly into a tape (`JSONTape`). Throws `IngestError.invalidJSON`.
    init(jsonLine text: String) throws {
        let root = try JSONTape(Array(text.utf8)).root
        guard root.kind == .object else {
            throw IngestError.invalidJSON("expected a JSON object, found \(root.value.typeName)")
        }
        fields = root
        makeFoundation = { try JSONField.parseObject(Data(text.utf8)) }
    }

    func foundation() throws -> [String: Any] { try makeFoundation() }
}

/// Reads one record of a file's shape into a batch; a record of another shape or with bad fields
/// becomes a rejection with its `file:line`.
enum RecordDispatcher {
    /// - Parameter keepRaw: store an Apple record's text (`raw_json`): not for a JSON Lines line, whose
    ///   text is its `file:line`.
    static func add(
        _ record: ParsedRecord, shape: RecordShape, raw: String, at location: SourceLocation, _ checker: any SignatureChecking,
        keepRaw: Bool, into batch: inout RecordBatch
    ) {
        let o = record.fields
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
            case .postedReceipt:
                apple(try AppReceiptReader.readWrapped(try record.foundation(), at: location, checker: checker))
            case .signed:
                apple(
                    try SignedRecordReader.read(
                        object: o, at: location, requestId: nil, receivedAtMs: nil, raw: raw, checker: checker))
            case .bareVerifyResponse:
                if o.has("request_id") || o.has("transaction_ids") || o.has("state") {
                    let kind = RecordShape.of(try record.foundation()).kind.rawValue
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
