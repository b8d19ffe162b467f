import Foundation
import IAPAuditModel

/// What a client posted as receipt data: raw DER, or base64 text of a PKCS#7 app receipt or of an
/// iOS 6 transaction-receipt plist. Detection and base64 decoding only; no field is read here.
///
/// Base64 is the standard alphabet (RFC 4648 §4); line breaks, tabs and surrounding spaces are
/// ignored (clients and files wrap it), missing `=` padding is tolerated, any other character
/// (interior spaces included) makes the text "not base64".
enum ReceiptInput {
    case pkcs7(der: [UInt8])
    case transactionReceipt(plist: [UInt8])

    /// Classifies `data`.
    /// - Throws: `ReceiptDecodingError` naming what was found when it is neither, e.g.
    ///   `not a receipt: found the text "NOT A RECEIPT" (expected base64 or DER of a PKCS#7 app receipt or an iOS 6 transaction receipt)`.
    static func classify(_ data: Data) throws -> ReceiptInput {
        let bytes = [UInt8](data)
        if bytes.count >= 2, bytes[0] == 0x30, bytes[1] >= 0x80 { return .pkcs7(der: bytes) }
        let trimmed = trimmingSpaces(bytes[...])
        guard !trimmed.isEmpty else { throw ReceiptDecodingError("not a receipt: the receipt data is empty") }
        if trimmed.first == UInt8(ascii: "{") { return .transactionReceipt(plist: Array(trimmed)) }
        guard let decoded = base64Decode(bytes: Array(trimmed)) else {
            if bytes.first == 0x30 { return .pkcs7(der: bytes) }  // a short DER SEQUENCE (its length byte below 0x80)
            throw ReceiptDecodingError("not a receipt: found \(describe(trimmed)) (\(expected))")
        }
        if decoded.first == 0x30 { return .pkcs7(der: decoded) }
        if decoded.drop(while: isSpace).first == UInt8(ascii: "{") { return .transactionReceipt(plist: decoded) }
        throw ReceiptDecodingError("not a receipt: base64 text decoding to \(describe(decoded[...])) (\(expected))")
    }

    private static let expected = "expected base64 or DER of a PKCS#7 app receipt or an iOS 6 transaction receipt"

    /// Decodes base64 text; nil when it is not base64.
    static func base64Decode(_ text: String) -> [UInt8]? { base64Decode(bytes: Array(text.utf8)) }

    /// Decodes base64 bytes, ignoring CR, LF, tabs and surrounding spaces; nil when not base64.
    static func base64Decode(bytes: [UInt8]) -> [UInt8]? {
        let trimmed = trimmingSpaces(bytes[...])
        var text: [UInt8] = []
        text.reserveCapacity(trimmed.count)
        var padding = 0
        for byte in trimmed {
            switch byte {
            case 0x0A, 0x0D, 0x09: continue
            case UInt8(ascii: "="): padding += 1
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "+"), UInt8(ascii: "/"):
                guard padding == 0 else { return nil }  // data after '='
            default: return nil
            }
            text.append(byte)
        }
        guard !text.isEmpty, padding <= 2 else { return nil }
        switch text.count % 4 {
        case 0: break
        case 1: return nil
        default:
            guard padding == 0 else { return nil }
            text += [UInt8](repeating: UInt8(ascii: "="), count: 4 - text.count % 4)
        }
        guard let data = Data(base64Encoded: Data(text)) else { return nil }
        return [UInt8](data)
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }

    private static func trimmingSpaces(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes.drop(while: isSpace)
        while let last = slice.last, isSpace(last) { slice = slice.dropLast() }
        return slice
    }

    /// `the text "…"` (first 40 characters, controls escaped) or `N bytes of binary data starting 0x…`.
    static func describe(_ bytes: ArraySlice<UInt8>) -> String {
        if let text = String(validating: bytes, as: UTF8.self),
            !text.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\n" && $0 != "\r" && $0 != "\t" })
        {
            let escaped = String(text.prefix(40)).controlCharactersEscaped
            return "the text \"\(escaped)\(text.count > 40 ? "…" : "")\""
        }
        let head = bytes.prefix(8).map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
        return "\(bytes.count) bytes of binary data starting 0x\(head)"
    }
}
