import Foundation
import IAPAuditCrypto
import IAPAuditIngest
import IAPAuditModel
import IAPAuditReconcile
import IAPAuditReport
import IAPAuditStore

/// Reads the `--config` JSON file.
///
/// Shape: `{"bundle_ids": [String], "sandbox_allowlist": [String], "products": {product_id: type}}`,
/// types `consumable`, `non_consumable`, `auto_renewable`, `non_renewing`. Every key is optional.
public enum ConfigLoader {
    /// Throws `AuditError.badConfig` naming the file and the offending key or value.
    public static func load(path: String) throws -> AuditConfig {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw AuditError.badConfig(path, "is a folder, not a file (the config is one JSON file)")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw AuditError.badConfig(path, "cannot read the file")
        }
        return try parse(InputFile.utf8(data), path: path)
    }

    public static func parse(_ data: Data, path: String) throws -> AuditConfig {
        let object: [String: Any]
        do { object = try JSONField.parseDocument(data) } catch { throw AuditError.badConfig(path, "\(error)") }
        var config = AuditConfig()
        for (key, value) in object.sorted(by: { $0.key < $1.key }) {
            switch key {
            case "bundle_ids": config.bundleIds = Set(try strings(value, key: key, path: path))
            case "sandbox_allowlist": config.sandboxAllowlist = Set(try strings(value, key: key, path: path))
            case "jws_trust_anchors": config.jwsTrustAnchors = try anchorPaths(value, key: key, path: path)
            case "receipt_trust_anchors": config.receiptTrustAnchors = try anchorPaths(value, key: key, path: path)
            case "signatures_checked_at":
                guard let text = value as? String else {
                    throw AuditError.badConfig(path, "'signatures_checked_at' must be \"signed_date\", \"now\" or a time")
                }
                config.signaturesCheckedAtMs = try signatureTime(text, source: "'signatures_checked_at'", path: path)
            case "products":
                guard let products = value as? [String: Any] else {
                    throw AuditError.badConfig(path, "'products' must be an object of product id → type")
                }
                for (product, type) in products {
                    if product.isEmpty || JSONField.hasSpaceAtAnEnd(product) {
                        throw AuditError.badConfig(path, "product id '\(product)' is empty or has white space at its start or end")
                    }
                    guard let name = type as? String, let parsed = ProductType(rawValue: name) else {
                        throw AuditError.badConfig(
                            path,
                            "product '\(product)': unknown type \(type) (expected "
                                + ProductType.allCases.map(\.rawValue).joined(separator: ", ") + ")")
                    }
                    config.products[product] = parsed
                }
            default:
                throw AuditError.badConfig(
                    path,
                    "unknown key '\(key)' (known: bundle_ids, sandbox_allowlist, products, jws_trust_anchors, receipt_trust_anchors, signatures_checked_at)"
                )
            }
        }
        return config
    }

    private static func strings(_ value: Any, key: String, path: String) throws -> [String] {
        guard let array = value as? [Any], let strings = array as? [String] else {
            throw AuditError.badConfig(path, "'\(key)' must be an array of strings")
        }
        if let bad = strings.first(where: { $0.isEmpty || JSONField.hasSpaceAtAnEnd($0) }) {
            throw AuditError.badConfig(path, "'\(key)': '\(bad)' is empty or has white space at its start or end")
        }
        return strings
    }

    /// Certificate paths, relative ones taken from the config file's folder.
    private static func anchorPaths(_ value: Any, key: String, path: String) throws -> [String] {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        return try strings(value, key: key, path: path).map {
            $0.hasPrefix("/") ? $0 : folder.appendingPathComponent($0).standardizedFileURL.path
        }
    }

    /// `signed_date` → nil, `now` → the current time, else an ISO 8601 time or epoch milliseconds.
    /// Throws `AuditError.badConfig` naming `source`.
    public static func signatureTime(_ text: String, source: String, path: String) throws -> Int64? {
        switch text {
        case "signed_date": return nil
        case "now": return Int64(Date().timeIntervalSince1970 * 1000)
        default:
            guard let ms = Timestamp.parseMs(text) else {
                throw AuditError.badConfig(path, "\(source): expected signed_date, now, or a time (ISO 8601 or epoch ms), got '\(text)'")
            }
            return ms
        }
    }

    /// The config as canonical JSON (sorted keys), stored in `run_parameter`.
    public static func canonicalJSON(_ config: AuditConfig) -> String {
        JSONField.serialize(
            [
                "bundle_ids": config.bundleIds.sorted(), "sandbox_allowlist": config.sandboxAllowlist.sorted(),
                "products": config.products.mapValues(\.rawValue), "jws_trust_anchors": config.jwsTrustAnchors,
                "receipt_trust_anchors": config.receiptTrustAnchors,
                "signatures_checked_at": config.signaturesCheckedAtMs.map(Timestamp.iso) ?? "signed_date",
            ] as [String: Any])
    }
}
