import Foundation
import IAPAuditModel

/// Field readers for Apple's JWS-era payloads (camelCase keys, dates as numbers).
///
/// Source: Apple, "App Store Server API" data types (`JWSTransactionDecodedPayload`,
/// `JWSRenewalInfoDecodedPayload`, `AppTransaction`, `responseBodyV2DecodedPayload`): every date is
/// a number of milliseconds since 1970 UTC. Xcode's StoreKit testing writes fractional
/// milliseconds (`1697679936049.7297`), kept as the whole part.
enum SignedFields {
    /// A date in milliseconds since 1970 UTC, fraction truncated; nil when absent or null.
    ///
    /// - Throws: `IngestError.badField` (named `path.key`) for text that is no number, or an instant
    ///   outside `Timestamp.validRange` (1900–2200).
    static func date(_ o: [String: Any], _ key: String, path: String) throws -> Int64? {
        let field = name(path, key)
        guard let ms = try JSONField.integer(o[key], field: field, allowFraction: true) else { return nil }
        guard Timestamp.validRange.contains(ms) else {
            throw IngestError.badField(field, "epoch milliseconds \(ms) outside 1900–2200")
        }
        return ms
    }

    /// Exact text of a scalar (ids as every digit), nil when absent, null or empty.
    static func id(_ o: [String: Any], _ key: String, path: String) throws -> String? {
        try JSONField.id(o[key], field: name(path, key))
    }

    /// Text as sent (enum values stay raw, so values Apple adds later still decode).
    static func text(_ o: [String: Any], _ key: String, path: String) throws -> String? {
        try JSONField.text(o[key], field: name(path, key))
    }

    /// A whole number sent as a number or numeric text.
    static func integer(_ o: [String: Any], _ key: String, path: String) throws -> Int64? {
        try JSONField.integer(o[key], field: name(path, key))
    }

    /// `environment` (or AppTransaction `receiptType`) in Apple's spelling: `Production`, `Sandbox`,
    /// `Xcode`, `LocalTesting`; unknown values (Apple's `LocalTestingxxx` sample) kept raw.
    static func environment(_ o: [String: Any], _ key: String = "environment", path: String) throws -> String? {
        try text(o, key, path: path).flatMap { $0.isEmpty ? nil : Environment.normalized($0) }
    }

    /// An object field, nil when absent or null.
    /// - Throws: `IngestError.badField` when present but not an object.
    static func object(_ o: [String: Any], _ key: String, path: String) throws -> [String: Any]? {
        switch o[key] {
        case nil, is NSNull: return nil
        case let object as [String: Any]: return object
        case let other?: throw IngestError.badField(name(path, key), "expected an object, found \(JSONField.typeName(other))")
        }
    }

    /// An array field, nil when absent or null.
    /// - Throws: `IngestError.badField` when present but not an array.
    static func array(_ o: [String: Any], _ key: String, path: String) throws -> [Any]? {
        switch o[key] {
        case nil, is NSNull: return nil
        case let array as [Any]: return array
        case let other?: throw IngestError.badField(name(path, key), "expected an array, found \(JSONField.typeName(other))")
        }
    }

    /// `path.key`, or `key` at the top level.
    static func name(_ path: String, _ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }
}
