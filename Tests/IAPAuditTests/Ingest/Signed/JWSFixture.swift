import Foundation

@testable import IAPAuditCLI
@testable import IAPAuditCrypto
@testable import IAPAuditIngest
@testable import IAPAuditModel
@testable import IAPAuditPipeline
@testable import IAPAuditReconcile
@testable import IAPAuditReport
@testable import IAPAuditSample
@testable import IAPAuditStore

/// Invented compact JWS for tests: JSON header and payload built here, base64url-encoded, with a
/// fake 64-byte signature and a fake two-certificate `x5c` (checked by a stub, never by OpenSSL).
enum JWSFixture {
    static let signature = Data(repeating: 0xAB, count: 64)
    static let chain = [Data([0x30, 0x01, 0x01]).base64EncodedString(), Data([0x30, 0x01, 0x02]).base64EncodedString()]
    static var header: [String: Any] { ["alg": "ES256", "typ": "JWT", "x5c": chain] }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func json(_ object: [String: Any]) -> Data {
        try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    }

    /// `BASE64URL(header).BASE64URL(payload).BASE64URL(signature)`.
    static func make(_ payload: [String: Any], header: [String: Any] = JWSFixture.header) -> String {
        [base64URL(json(header)), base64URL(json(payload)), base64URL(signature)].joined(separator: ".")
    }

    /// A decoded transaction with every field the reader maps; `changes` replaces or adds fields
    /// (`NSNull()` removes one).
    static func transaction(_ id: String, _ changes: [String: Any] = [:]) -> [String: Any] {
        var payload: [String: Any] = [
            "transactionId": id, "originalTransactionId": "2000000100000000", "webOrderLineItemId": "2000000055000000",
            "bundleId": "com.example.app", "productId": "com.example.monthly", "subscriptionGroupIdentifier": "21000000",
            "purchaseDate": 1_700_000_000_000, "originalPurchaseDate": 1_699_000_000_000, "expiresDate": 1_702_592_000_000,
            "quantity": 1, "type": "Auto-Renewable Subscription", "inAppOwnershipType": "PURCHASED",
            "signedDate": 1_700_000_100_000, "environment": "Production", "transactionReason": "PURCHASE", "storefront": "USA",
            "storefrontId": "143441", "price": 4990, "currency": "USD",
        ]
        for (key, value) in changes {
            if value is NSNull { payload[key] = nil } else { payload[key] = value }
        }
        return payload
    }

    /// A decoded Notification V2 payload whose `data` holds `signedTransactionInfo` (a JWS of
    /// `transaction`) and, when given, `signedRenewalInfo`.
    static func notification(
        _ type: String, subtype: String? = nil, transaction: [String: Any]?, renewal: [String: Any]? = nil,
        environment: String = "Production", signedDate: Int = 1_700_000_200_000
    ) -> [String: Any] {
        var data: [String: Any] = [
            "appAppleId": 1_234_567_890, "bundleId": "com.example.app", "bundleVersion": "42", "environment": environment,
        ]
        if let transaction { data["signedTransactionInfo"] = make(transaction) }
        if let renewal { data["signedRenewalInfo"] = make(renewal) }
        var payload: [String: Any] = [
            "notificationType": type, "notificationUUID": "uuid-\(type.lowercased())", "version": "2.0", "signedDate": signedDate,
            "data": data,
        ]
        if let subtype { payload["subtype"] = subtype }
        return payload
    }

    /// The text of a file under `../shared/real-data` (never copied); `TestPaths.realData` throws XCTSkip (one line) when
    /// ../shared is absent.
    static func realText(_ relative: String) throws -> String {
        try String(contentsOfFile: try TestPaths.realData(relative), encoding: .utf8)
    }

    /// A real JSON document (parsed by the strict tape) and its text.
    static func realObject(_ relative: String) throws -> (object: JSONRef, raw: String) {
        let raw = try realText(relative)
        return (try JSONField.parseObject(Data(raw.utf8)), raw)
    }

    /// A real JSON document read by `SignedRecordReader.read(object:)` at `<relative>:1`.
    static func readObject(_ relative: String, checker: any SignatureChecking = StubSignatureChecker()) throws -> AppleRecord {
        let (object, raw) = try realObject(relative)
        return try SignedRecordReader.read(
            object: object, at: SourceLocation(file: relative, line: 1), requestId: nil, receivedAtMs: nil, raw: raw, checker: checker)
    }

    /// A real compact JWS file read by `SignedRecordReader.read(jws:)` at `<relative>:1`.
    static func readJWS(_ relative: String, checker: any SignatureChecking = StubSignatureChecker()) throws -> AppleRecord {
        try SignedRecordReader.read(
            jws: try realText(relative), at: SourceLocation(file: relative, line: 1), requestId: nil, receivedAtMs: nil, checker: checker)
    }
}
