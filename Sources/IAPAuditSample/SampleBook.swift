import IAPAuditModel

/// The generator's own account of the money in the sample, kept as the sample is made (never read back
/// from the files): every transaction an Apple record lists and how that record stands behind it, every
/// purchase the client reported, and what Apple's reports leave out or add. `sales()` makes the ledger's
/// purchases of docs/close.md from it.
struct SampleBook {
    /// How an Apple record stands behind a transaction it lists (docs/close.md's classes; semantics.md rules
    /// 22 and 24).
    enum Proof {
        /// A production record of our app, status 0 or 21006 (or a verified JWS), not a family member's.
        case proves
        /// Sandbox, an environment conflict, or FAMILY_SHARED: never a sale in Apple's reports.
        case excluded
        /// Proves nothing: another app's receipt.
        case unproven
    }

    /// One transaction as one Apple record lists it.
    struct Listing {
        var tx: SampleTransaction
        var proof: Proof
        /// A verified JWS's `price` (the transaction's total, milliunits) and `currency`.
        var price: Int64? = nil
        var currency: String? = nil
        /// The JWS `storefront`; nil for verifyReceipt items.
        var storefront: String? = nil
        /// The record shows the `web_order_line_item_id` (iOS 6 receipts do not).
        var lineItemShown = true
        /// JWS `revocationPercentage` (thousandths of a percent).
        var revocationPercentage: Int64? = nil
    }

    /// A client report `purchased` with a transaction id.
    struct ClientPurchase {
        var transactionId: String
        var originalTransactionId: String?
        var productId: String
        var at: Int64
    }

    private(set) var listings: [Listing] = []
    private(set) var clientPurchases: [ClientPurchase] = []
    /// Purchase keys of paid purchases Apple's reports leave out (an unexplained difference).
    var omitted: Set<String> = []
    /// Sales Apple reports that no record of the ledger shows (an unexplained difference).
    var appleOnly: [SampleAppleSale] = []

    mutating func list(_ listing: Listing) { listings.append(listing) }

    /// Every item of a verifyReceipt answer shaped by `style` (status, environment, receipt type, bundle).
    mutating func list(receipt items: [SampleTransaction], style: ReceiptStyle) {
        let sandbox = style.environment.map { $0 == "Sandbox" } ?? style.receiptType.hasSuffix("Sandbox")
        // Rule 24: Production with a sandbox receipt type, or a subscription period of an hour or less.
        let conflict =
            (style.environment == "Production" && style.receiptType.hasSuffix("Sandbox"))
            || (!sandbox && items.contains { tx in tx.expiresAt.map { $0 - tx.purchasedAt <= 3600 } ?? false })
        for tx in Dictionary(items.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a }).values.sorted(by: { $0.id < $1.id }) {
            let proof: Proof
            if tx.familyShared || sandbox || conflict {
                proof = .excluded
            } else if style.bundleId != SampleCatalog.bundleId || (style.status != 0 && style.status != 21006) {
                proof = .unproven
            } else {
                proof = .proves
            }
            list(Listing(tx: tx, proof: proof))
        }
    }

    mutating func clientReported(_ line: SampleClientLine) {
        guard line.state == "purchased", let id = line.transactionId else { return }
        clientPurchases.append(
            ClientPurchase(transactionId: id, originalTransactionId: line.originalTransactionId, productId: line.productId, at: line.at))
    }

    /// The product types `config.json` lists (the legacy coins are not there: unknown).
    static let productTypes = Dictionary(uniqueKeysWithValues: SampleCatalog.productTypes)

    /// The purchase a listing belongs to (semantics.md rule 18): a consumable's id, a non-consumable's or
    /// non-renewing purchase's original id, a subscription period's original id and web order line item.
    static func key(_ l: Listing) -> String {
        switch productTypes[l.tx.productId] {
        case "consumable": return l.tx.id
        case "non_consumable", "non_renewing": return l.tx.originalId
        default:
            if l.lineItemShown, let line = l.tx.webOrderLineItemId, line != "0" { return l.tx.originalId + "/" + line }
            return l.tx.originalId
        }
    }
}

/// A sale Apple's reports show that the ledger has no record of.
struct SampleAppleSale {
    var productId: String
    var storefront: String
    var unitPrice: Int64
    var at: Int64
}
