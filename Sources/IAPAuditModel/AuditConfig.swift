/// Product types as App Store Connect names them.
public enum ProductType: String, Sendable, CaseIterable {
    case consumable, nonConsumable = "non_consumable", autoRenewable = "auto_renewable",
        nonRenewing = "non_renewing"
}

/// The `--config` file: `{"bundle_ids": [...], "sandbox_allowlist": [...], "products": {id: type},
/// "jws_trust_anchors": [path], "receipt_trust_anchors": [path], "signatures_checked_at": "signed_date" | "now" | time}`.
public struct AuditConfig: Sendable, Equatable {
    /// Bundle ids that are ours; empty skips the bundle check.
    public var bundleIds: Set<String> = []
    /// Users (App Review, testers) whose sandbox credits are expected.
    public var sandboxAllowlist: Set<String> = []
    /// Product id → type; unknown products are treated as consumables for duplicates.
    public var products: [String: ProductType] = [:]

    /// Certificate files (DER or PEM) trusted as roots of JWS `x5c` chains; empty = the default
    /// `certs/AppleRootCA-G3.cer` when that file exists (Apple Root CA - G3).
    public var jwsTrustAnchors: [String] = []
    /// Certificate files trusted as roots of PKCS#7 app receipts; empty = the default
    /// `certs/AppleIncRootCertificate.cer` when that file exists (Apple Inc. Root Certificate).
    public var receiptTrustAnchors: [String] = []
    /// The instant every certificate chain is checked at, ms since 1970 UTC; nil (the default) checks
    /// each payload at its own `signedDate` (a receipt at its creation date).
    public var signaturesCheckedAtMs: Int64?

    public init(bundleIds: Set<String> = [], sandboxAllowlist: Set<String> = [], products: [String: ProductType] = [:]) {
        self.bundleIds = bundleIds
        self.sandboxAllowlist = sandboxAllowlist
        self.products = products
    }
}
