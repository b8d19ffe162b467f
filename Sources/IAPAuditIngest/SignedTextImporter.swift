import Foundation
import IAPAuditModel

/// Reads the non-JSON evidence formats: compact JWS (one per line), base64 app receipts and iOS 6
/// transaction receipts (one per line, or one line-wrapped blob), and raw DER PKCS#7 receipts.
/// Every record is imported or rejected with `file:line`.
enum SignedTextImporter {
    /// nil when the content is none of these formats. Records go to `sink`; rethrows its errors.
    static func read(_ file: InputFile, _ lines: [(number: Int, text: String)], checker: any SignatureChecking, sink: RecordSink) throws
        -> ImportedFile?
    {
        if isDERReceipt(file.data) {
            var result = ImportedFile(
                file: file, kind: .appReceipt, format: .binary, status: .imported, note: "PKCS#7 app receipt (DER)", recordsIn: 1)
            let location = file.location(1)
            var batch = RecordBatch()
            do {
                batch.append(
                    try AppReceiptReader.read(file.data, at: location, requestId: nil, receivedAtMs: nil, checker: checker), keepRaw: true)
            } catch {
                batch.rejections.append(Rejection(location: location, reason: "\(error)", rawText: "(\(file.bytes) bytes of DER)"))
            }
            result.count(batch)
            try sink.write(batch)
            return result
        }
        let texts = lines.map { (number: $0.number, text: $0.text.trimmingCharacters(in: .whitespaces)) }
        guard let first = texts.first else { return nil }
        // The first line decides the format; a later line that is not of it is rejected on its own
        // (a stray line or a record cut off mid-write must not hide the good ones).
        if looksLikeJWS(first.text) || first.text.hasPrefix("eyJ") && texts.count > 1 {
            return try readRecords(file, texts, note: "compact JWS, one per line", kind: .signedTransaction, sink: sink) { text, location in
                try SignedRecordReader.read(jws: text, at: location, requestId: nil, receivedAtMs: nil, checker: checker)
            }
        }
        guard first.text.hasPrefix("MI") || first.text.hasPrefix("ew"), isBase64(first.text) else { return nil }
        // A line-wrapped blob: every line base64, every line but the last of the same length.
        let wrapped =
            texts.count > 1 && texts.allSatisfy({ isBase64($0.text) }) && Set(texts.dropLast().map(\.text.count)).count == 1
            && texts.last!.text.count <= texts[0].text.count
        let records = wrapped ? [(number: first.number, text: texts.map(\.text).joined())] : texts
        let note = wrapped ? "base64 app receipt, line-wrapped" : "base64 app receipts, one per line"
        return try readRecords(file, records, note: note, kind: .appReceipt, sink: sink) { text, location in
            try AppReceiptReader.read(Data(text.utf8), at: location, requestId: nil, receivedAtMs: nil, checker: checker)
        }
    }

    private static func readRecords(
        _ file: InputFile, _ records: [(number: Int, text: String)], note: String, kind: SourceKind, sink: RecordSink,
        parse: (String, SourceLocation) throws -> AppleRecord
    ) throws -> ImportedFile {
        var result = ImportedFile(file: file, kind: kind, format: .text, status: .imported, note: note, recordsIn: records.count)
        var batch = RecordBatch()
        var firstSource: EvidenceSource? = nil
        for record in records {
            let location = file.location(record.number)
            do {
                let parsed = try parse(record.text, location)
                firstSource = firstSource ?? parsed.source
                batch.append(parsed, keepRaw: true)
            } catch {
                batch.rejections.append(Rejection(location: location, reason: "\(error)", rawText: record.text))
            }
        }
        if let firstSource { result.kind = Self.kind(of: firstSource) }
        result.count(batch)
        try sink.write(batch)
        return result
    }

    /// The file kind for a record source.
    static func kind(of source: EvidenceSource?) -> SourceKind {
        switch source {
        case .notificationV2: return .notificationV2
        case .signedTransaction, .signedRenewalInfo, .appTransaction: return .signedTransaction
        case .serverAPI: return .serverAPIResponse
        case .notificationV1: return .notificationV1
        default: return .appReceipt
        }
    }

    /// `eyJ…` (base64url of `{"`) with exactly two dots.
    static func looksLikeJWS(_ text: String) -> Bool {
        text.hasPrefix("eyJ") && text.utf8.lazy.filter { $0 == UInt8(ascii: ".") }.count == 2
    }

    private static func isBase64(_ text: String) -> Bool {
        text.utf8.allSatisfy { c in
            (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c == 43 || c == 47 || c == 61
        }
    }

    /// DER whose first bytes hold the PKCS#7 signed-data OID (1.2.840.113549.1.7.2).
    static func isDERReceipt(_ data: Data) -> Bool {
        guard data.first == 0x30 else { return false }
        let oid: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02]
        return data.prefix(32).range(of: Data(oid)) != nil
    }
}
