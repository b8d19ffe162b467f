import Foundation
import IAPAuditModel

/// A JSON Web Signature in compact serialization (RFC 7515 §7.1):
/// `BASE64URL(header) "." BASE64URL(payload) "." BASE64URL(signature)`.
///
/// Source: Apple, "JWSTransaction", "JWSRenewalInfo", "AppTransaction" (StoreKit) and
/// "signedPayload" (App Store Server Notifications V2): every signed value Apple sends is one of
/// these, signed with ES256 by the leaf of the header's `x5c` chain. This type only decodes; the
/// signature is checked by a `SignatureChecking`.
///
/// Not `Sendable`: `header` and `payload` are views of their JSON tapes.
struct CompactJWS {
    /// The decoded JOSE header (`alg`, `kid`, `x5c`, `typ`…).
    let header: JSONRef
    /// The decoded payload: a transaction, renewal info, app transaction or notification.
    let payload: JSONRef
    /// The ASCII bytes `BASE64URL(header) "." BASE64URL(payload)` the signature covers.
    let signingInput: Data
    /// The decoded signature (64 bytes `r || s` for ES256).
    let signature: Data
    /// The header's `x5c`, each entry base64-decoded (standard alphabet) to DER, leaf first;
    /// nil when the header has no `x5c` (Apple's `missingX5CHeaderClaim` sample).
    let certificateChain: [Data]?

    /// The header's `alg` (Apple signs with `ES256`), nil when absent.
    var algorithm: String? { header.string("alg") }
    /// The header's `crit` (RFC 7515 §4.1.11: extensions the recipient must understand), its names as given (a value
    /// that is not a string, an empty, null or malformed `crit` as `?`); nil when the header has none.
    var critical: [String]? {
        guard let value = header.field("crit") else { return nil }
        guard case .array(let entries) = value, !entries.isEmpty else { return ["?"] }
        return entries.map { entry in
            if case .string(let name) = entry { return name }
            return "?"
        }
    }
    /// The header's `kid` (Xcode's StoreKit testing signs with `Apple_Xcode_Key`), nil when absent.
    var keyId: String? { header.string("kid") }

    /// Decodes `text` after trimming surrounding whitespace.
    ///
    /// - Throws: `IngestError.other` starting with "not a compact JWS" when `text` is not three
    ///   base64url parts whose first two are JSON objects (e.g. the placeholder
    ///   `signed_transaction_value` in Apple's model samples), or "compact JWS header" when `x5c`
    ///   is not an array of base64 strings.
    static func parse(_ text: String) throws -> CompactJWS {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = trimmed.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            if parts.count == 1 {
                throw IngestError.other("not a compact JWS (\"\(trimmed.prefix(40))\")")
            }
            throw IngestError.other("not a compact JWS: \(parts.count) dot-separated parts, expected 3")
        }
        let header = try object(parts[0], name: "header")
        let payload = try object(parts[1], name: "payload")
        guard let signature = base64URLDecoded(parts[2]) else {
            throw IngestError.other("not a compact JWS: the signature is not base64url")
        }
        return CompactJWS(
            header: header, payload: payload, signingInput: Data("\(parts[0]).\(parts[1])".utf8), signature: signature,
            certificateChain: try chain(header.field("x5c")))
    }

    private static func object(_ part: Substring, name: String) throws -> JSONRef {
        guard let data = base64URLDecoded(part), !data.isEmpty else {
            throw IngestError.other("not a compact JWS: the \(name) is not base64url")
        }
        do {
            return try JSONField.parseObject([UInt8](data))
        } catch {
            throw IngestError.other("not a compact JWS: the \(name) is not a JSON object (\(error))")
        }
    }

    private static func chain(_ value: FieldValue?) throws -> [Data]? {
        guard let value, !value.isNull else { return nil }
        guard case .array(let entries) = value else { throw IngestError.other("compact JWS header: x5c is not an array") }
        return try entries.enumerated().map { index, entry in
            guard case .string(let text) = entry, let der = Data(base64Encoded: text), !der.isEmpty else {
                throw IngestError.other("compact JWS header: x5c[\(index)] is not a base64 certificate")
            }
            return der
        }
    }

    /// Base64url (RFC 4648 §5) without padding, as JWS uses; trailing `=` are tolerated.
    /// Nil for any character outside the alphabet.
    static func base64URLDecoded(_ part: Substring) -> Data? {
        var text = String(part)
        while text.hasSuffix("=") { text.removeLast() }
        guard text.utf8.allSatisfy({ isBase64URL($0) }) else { return nil }
        text = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.utf8.count % 4) % 4)
        return Data(base64Encoded: text)
    }

    private static func isBase64URL(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "-"), UInt8(ascii: "_"): return true
        default: return false
        }
    }
}
