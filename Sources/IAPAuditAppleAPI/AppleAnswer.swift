import Foundation
import IAPAuditModel

/// Apple's App Store Server API environments, as the evidence file and Apple's payloads name them.
public enum AppleEnvironment: String, Sendable, CaseIterable {
    case production = "Production", sandbox = "Sandbox"
}

/// The endpoints `ask-apple` calls, named as the evidence file's `endpoint` says.
public enum AppleEndpoint: String, Sendable {
    /// Get Transaction Info: `GET /inApps/v1/transactions/{transactionId}`.
    case getTransactionInfo = "get_transaction_info"
    /// Look Up Order ID: `GET /inApps/v1/lookup/{orderId}` (the id on the customer's invoice; production only).
    case lookUpOrderId = "look_up_order_id"

    /// The path under a base URL for `id`, the id percent-encoded (ASCII letters and digits kept).
    func path(_ id: String) -> String {
        let encoded = id.addingPercentEncoding(withAllowedCharacters: Self.unreserved) ?? ""
        switch self {
        case .getTransactionInfo: return "/inApps/v1/transactions/" + encoded
        case .lookUpOrderId: return "/inApps/v1/lookup/" + encoded
        }
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

    /// The evidence file's key for the id asked about.
    var idKey: String { self == .getTransactionInfo ? "transaction_id" : "order_id" }
}

/// One answer of Apple's: a JSON object body, with the HTTP status it came with. What the evidence file keeps
/// (`evidenceLine`); a reply with no such body (a 401, a proxy's HTML page) is no answer (`AppleAPIFailure`).
public struct AppleAnswer: Sendable {
    public let endpoint: AppleEndpoint
    /// The transaction id or order id asked about.
    public let id: String
    public let environment: AppleEnvironment
    /// When the answer arrived, milliseconds since 1970 UTC.
    public let receivedAtMs: Int64
    public let httpStatus: Int
    /// Apple's body as sent, less the white space between JSON tokens (none in Apple's answers): one line.
    public let body: String
    /// Apple's `errorCode` (4040010 TransactionIdNotFoundError, 4000006 InvalidTransactionIdError, …); nil in a success.
    public let errorCode: Int?
    /// Look Up Order ID's `status` (0 valid, 1 invalid) and how many `signedTransactions` it lists.
    public let orderStatus: Int?
    public let signedTransactionCount: Int

    /// nil when `data` is no JSON object.
    init?(endpoint: AppleEndpoint, id: String, environment: AppleEnvironment, receivedAtMs: Int64, httpStatus: Int, data: Data) {
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
            let compact = Self.compacted(data)
        else { return nil }
        (self.endpoint, self.id, self.environment, self.receivedAtMs, self.httpStatus) = (
            endpoint, id, environment, receivedAtMs, httpStatus
        )
        body = compact
        errorCode = (object["errorCode"] as? NSNumber)?.intValue
        orderStatus = (object["status"] as? NSNumber)?.intValue
        signedTransactionCount = (object["signedTransactions"] as? [Any])?.count ?? (object["signedTransactionInfo"] is String ? 1 : 0)
    }

    /// The evidence file's line (no newline): `{"transaction_id"|"order_id":…,"received_at":ISO ms UTC,"environment":…,
    /// "endpoint":…,"http_status":N,"response":Apple's body}`.
    public var evidenceLine: String {
        var line = "{"
        JSONString.append(endpoint.idKey, to: &line)
        line += ":"
        JSONString.append(id, to: &line)
        line += ",\"received_at\":\"\(Timestamp.iso(receivedAtMs))\",\"environment\":\"\(environment.rawValue)\""
        line += ",\"endpoint\":\"\(endpoint.rawValue)\",\"http_status\":\(httpStatus),\"response\":\(body)}"
        return line
    }

    /// JSON text without white space between tokens (strings kept byte for byte); nil when it is no UTF-8.
    static func compacted(_ data: Data) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(data.count)
        var inString = false, escaped = false
        for byte in data {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
            } else if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\t") {
                continue
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            }
            out.append(byte)
        }
        return String(validating: out, as: UTF8.self)
    }
}

/// No answer of Apple's for one request: why (`HTTP 500 after 3 retries`, `no answer from …: timed out`, `HTTP 401: …`).
public struct AppleAPIFailure: Error, Sendable, CustomStringConvertible {
    public let description: String
}
