import Foundation

/// Reads the `--config` JSON file.
///
/// Shape: `{"bundle_ids": [String], "sandbox_allowlist": [String], "products": {product_id: type}}`,
/// types `consumable`, `non_consumable`, `auto_renewable`, `non_renewing`. Every key is optional.
public enum ConfigLoader {
    /// Throws `AuditError.badConfig` naming the file and the offending key or value.
    public static func load(path: String) throws -> AuditConfig {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw AuditError.badConfig(path, "cannot read the file")
        }
        return try parse(InputFile.utf8(data), path: path)
    }

    public static func parse(_ data: Data, path: String) throws -> AuditConfig {
        let object: [String: Any]
        do { object = try JSONField.parseObject(data) } catch { throw AuditError.badConfig(path, "\(error)") }
        var config = AuditConfig()
        for (key, value) in object.sorted(by: { $0.key < $1.key }) {
            switch key {
            case "bundle_ids": config.bundleIds = Set(try strings(value, key: key, path: path))
            case "sandbox_allowlist": config.sandboxAllowlist = Set(try strings(value, key: key, path: path))
            case "products":
                guard let products = value as? [String: Any] else {
                    throw AuditError.badConfig(path, "'products' must be an object of product id → type")
                }
                for (product, type) in products {
                    guard let name = type as? String, let parsed = ProductType(rawValue: name) else {
                        throw AuditError.badConfig(
                            path,
                            "product '\(product)': unknown type \(type) (expected "
                                + ProductType.allCases.map(\.rawValue).joined(separator: ", ") + ")")
                    }
                    config.products[product] = parsed
                }
            default:
                throw AuditError.badConfig(path, "unknown key '\(key)' (known: bundle_ids, sandbox_allowlist, products)")
            }
        }
        return config
    }

    private static func strings(_ value: Any, key: String, path: String) throws -> [String] {
        guard let array = value as? [Any], let strings = array as? [String] else {
            throw AuditError.badConfig(path, "'\(key)' must be an array of strings")
        }
        return strings
    }

    /// The config as canonical JSON (sorted keys), stored in `run_parameter`.
    public static func canonicalJSON(_ config: AuditConfig) -> String {
        JSONField.serialize(
            [
                "bundle_ids": config.bundleIds.sorted(), "sandbox_allowlist": config.sandboxAllowlist.sorted(),
                "products": config.products.mapValues(\.rawValue),
            ] as [String: Any])
    }
}
