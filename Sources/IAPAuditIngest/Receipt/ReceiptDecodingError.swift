import IAPAuditModel

/// Why a client-posted receipt could not be decoded: malformed ASN.1, a PKCS#7 envelope of the
/// wrong kind, a bad receipt field, an old-style plist syntax error, or input that is no receipt.
///
/// The description is the rejection reason stored for the record, e.g.
/// `receipt DER: length 4294967295 at byte 2 runs past the end of the data (1 byte left)`.
struct ReceiptDecodingError: Error, CustomStringConvertible, Equatable {
    /// What went wrong, in words for the rejection list.
    var message: String

    init(_ message: String) {
        self.message = message
    }

    /// An error found while reading ASN.1 at a byte offset of the decoded receipt.
    static func der(_ message: String, at offset: Int) -> ReceiptDecodingError {
        ReceiptDecodingError("receipt DER: \(message) at byte \(offset)")
    }

    var description: String { message }
}
