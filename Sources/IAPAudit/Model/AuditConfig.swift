/// Product types as App Store Connect names them.
public enum ProductType: String, Sendable, CaseIterable {
    case consumable, nonConsumable = "non_consumable", autoRenewable = "auto_renewable",
        nonRenewing = "non_renewing"
}

/// The `--config` file: `{"bundle_ids": [...], "sandbox_allowlist": [...], "products": {id: type}}`.
public struct AuditConfig: Sendable, Equatable {
    /// Bundle ids that are ours; empty skips the bundle check.
    public var bundleIds: Set<String> = []
    /// Users (App Review, testers) whose sandbox credits are expected.
    public var sandboxAllowlist: Set<String> = []
    /// Product id → type; unknown products are treated as consumables for duplicates.
    public var products: [String: ProductType] = [:]

    public init(bundleIds: Set<String> = [], sandboxAllowlist: Set<String> = [], products: [String: ProductType] = [:]) {
        self.bundleIds = bundleIds
        self.sandboxAllowlist = sandboxAllowlist
        self.products = products
    }
}
