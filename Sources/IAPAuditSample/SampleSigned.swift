import IAPAuditCrypto
import IAPAuditModel

/// What an App Store Server API transaction (JWS) says beyond a receipt item.
struct SampleJWSDetails {
    /// `price`: the transaction's total in milliunits of `currency` (offer and quantity included).
    var price: Int64
    var currency: String
    var environment = "Production"
    /// `PURCHASE` or `RENEWAL`.
    var reason = "PURCHASE"
    /// `offerType` (1 introductory, 3 offer code), `offerIdentifier`, `offerDiscountType`.
    var offer: (type: Int64, id: String?, discount: String?)? = nil
    var revocationPercentage: Int64? = nil
}

/// Compact JWS signed by the sample's test CA (`SampleCA`), byte-identical for the same input (RFC 6979).
enum SampleSigner {
    static let signer = try! ES256Signer(privateKeyPEM: SampleCA.leafKey)

    /// `{"alg":"ES256","x5c":[leaf, intermediate, root]}`: the chain as base64 DER.
    static let header: String = {
        let chain = [SampleCA.leafCertificate, SampleCA.intermediateCertificate, SampleCA.rootCertificate].map {
            SampleJSON.string($0.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined())
        }
        return SampleJSON.object([("alg", .string("ES256")), ("x5c", .array(chain))]).rendered
    }()

    static func sign(_ payload: SampleJSON) -> String { signer.compactJWS(headerJSON: header, payloadJSON: payload.rendered) }

    /// Apple's `storefrontId` of a storefront.
    static let storefrontIds = ["USA": "143441", "DEU": "143443", "FRA": "143442", "GBR": "143444", "JPN": "143462"]

    /// A signed transaction (JWSTransactionDecodedPayload, Apple's field names), signed at `signedAt`.
    static func transaction(_ tx: SampleTransaction, _ d: SampleJWSDetails, signedAt: Int64) -> String {
        var o = SampleObject()
        o.add("transactionId", .string(tx.id))
        o.add("originalTransactionId", .string(tx.originalId))
        o.add("webOrderLineItemId", ifPresent: tx.webOrderLineItemId.map { .string($0) })
        o.add("bundleId", .string(SampleCatalog.bundleId))
        o.add("productId", .string(tx.productId))
        if tx.expiresAt != nil { o.add("subscriptionGroupIdentifier", .string("21000001")) }
        o.add("purchaseDate", .int(tx.purchasedAt * 1000))
        o.add("originalPurchaseDate", .int(tx.originalPurchasedAt * 1000))
        o.add("expiresDate", ifPresent: tx.expiresAt.map { .int($0 * 1000) })
        o.add("quantity", .int(Int64(tx.quantity)))
        o.add("type", .string(jwsType(tx.productId)))
        o.add("inAppOwnershipType", .string(tx.familyShared ? "FAMILY_SHARED" : "PURCHASED"))
        o.add("signedDate", .int(signedAt * 1000))
        if let revoked = tx.cancelledAt {
            o.add("revocationReason", .int(tx.cancellationReason == "1" ? 1 : 0))
            o.add("revocationDate", .int(revoked * 1000))
            o.add("revocationType", .string(d.revocationPercentage == nil ? "REFUND_FULL" : "REFUND_PRORATED"))
            o.add("revocationPercentage", ifPresent: d.revocationPercentage.map { .int($0) })
        }
        if let offer = d.offer {
            o.add("offerType", .int(offer.type))
            o.add("offerIdentifier", ifPresent: offer.id.map { .string($0) })
            o.add("offerDiscountType", ifPresent: offer.discount.map { .string($0) })
        }
        o.add("environment", .string(d.environment))
        o.add("transactionReason", .string(d.reason))
        o.add("storefront", .string(tx.storefront))
        o.add("storefrontId", .string(storefrontIds[tx.storefront]!))
        o.add("price", .int(d.price))
        o.add("currency", .string(d.currency))
        return sign(o.json)
    }

    /// A notification (App Store Server Notifications V2: `REFUND`, `ONE_TIME_CHARGE`…) carrying `tx`,
    /// signed at `at`.
    static func notification(_ type: String, _ tx: SampleTransaction, _ d: SampleJWSDetails, at: Int64, uuid: String) -> SampleJSON {
        var data = SampleObject()
        data.add("appAppleId", .int(SampleCatalog.adamId))
        data.add("bundleId", .string(SampleCatalog.bundleId))
        data.add("bundleVersion", .string("412"))
        data.add("environment", .string(d.environment))
        data.add("signedTransactionInfo", .string(transaction(tx, d, signedAt: at)))
        var o = SampleObject()
        o.add("notificationType", .string(type))
        o.add("notificationUUID", .string(uuid))
        o.add("data", data.json)
        o.add("version", .string("2.0"))
        o.add("signedDate", .int(at * 1000))
        return .object([("signedPayload", .string(sign(o.json)))])
    }

    /// A Get Transaction History page (App Store Server API) listing `signed` transactions.
    static func historyPage(_ signed: [String], environment: String, revision: String) -> SampleJSON {
        .object([
            ("revision", .string(revision)), ("bundleId", .string(SampleCatalog.bundleId)), ("appAppleId", .int(SampleCatalog.adamId)),
            ("environment", .string(environment)), ("hasMore", .bool(false)), ("signedTransactions", .array(signed.map { .string($0) })),
        ])
    }

    /// A Look Up Order ID answer (`OrderLookupResponse`): `status` 0 and the order's signed transactions.
    static func orderLookup(_ signed: [String]) -> SampleJSON {
        .object([("status", .int(0)), ("signedTransactions", .array(signed.map { .string($0) }))])
    }

    /// The JWS `type` of a product (by the config's type; the legacy coins are sold as consumables).
    static func jwsType(_ product: String) -> String {
        switch SampleBook.productTypes[product] {
        case "non_consumable": return "Non-Consumable"
        case "auto_renewable": return "Auto-Renewable Subscription"
        case "non_renewing": return "Non-Renewing Subscription"
        default: return "Consumable"
        }
    }
}
