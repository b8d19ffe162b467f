import IAPAuditModel

/// The sample app: its bundle id, products, App Review accounts, and the `config.json` built
/// from them.
enum SampleCatalog {
    static let bundleId = "com.example.app"
    /// Bundle ids of other apps whose receipts get replayed to our server.
    static let foreignBundleIds = ["com.example.otherapp", "com.other.game"]
    static let adamId: Int64 = 1_234_567_890

    /// Consumables with their relative popularity.
    static let consumables: [(String, Int)] = [
        ("com.example.gems60", 30), ("com.example.gems300", 25), ("com.example.gems980", 15),
        ("com.example.gems1980", 8), ("com.example.gems3280", 5), ("com.example.gems6480", 3),
        ("com.example.coins.small", 10), ("com.example.energy.refill", 4),
    ]
    /// Bought three at a time in the quantity cases (semantics.md rule 20).
    static let energyRefill = "com.example.energy.refill"
    static let nonConsumables = ["com.example.premium", "com.example.removeads", "com.example.pack.halloween"]
    static let monthly = "com.example.pro.monthly"
    /// A weekly plan, so renewals fall inside the sample's month.
    static let weekly = "com.example.pro.weekly"
    static let seasonPass = "com.example.season.pass"
    /// Sold by an old app version and left out of `config.json`: its type is unknown.
    static let unknownProduct = "com.example.legacy.coins"

    /// App Review and QA accounts whose sandbox purchases are expected.
    static let reviewers = ["u-reviewer-1", "u-reviewer-2", "u-reviewer-3"]

    /// Product id → type as `config.json` lists it (not `unknownProduct`).
    static var productTypes: [(String, String)] {
        consumables.map { ($0.0, "consumable") } + nonConsumables.map { ($0, "non_consumable") }
            + [(monthly, "auto_renewable"), (weekly, "auto_renewable"), (seasonPass, "non_renewing")]
    }

    /// The App Store `item_id` of a product (iOS 6 receipts): a stable number per product.
    static func itemId(_ productId: String) -> Int64 {
        var h: Int64 = 0
        for byte in productId.utf8 { h = (h &* 31 &+ Int64(byte)) % 100_000_000 }
        return 1_400_000_000 + h
    }

    /// `config.json`, pretty-printed with keys in a fixed order.
    static var configText: String {
        var lines = ["{"]
        lines.append("  \"bundle_ids\": [\(quoted(bundleId))],")
        lines.append("  \"sandbox_allowlist\": [\(reviewers.map(quoted).joined(separator: ", "))],")
        lines.append("  \"jws_trust_anchors\": [\(quoted("test-ca/" + SampleTestCA.rootFile))],")
        lines.append("  \"products\": {")
        let products = productTypes
        for (index, (id, type)) in products.enumerated() {
            lines.append("    \(quoted(id)): \(quoted(type))" + (index < products.count - 1 ? "," : ""))
        }
        lines.append("  }")
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    private static func quoted(_ s: String) -> String { SampleJSON.string(s).rendered }
}
