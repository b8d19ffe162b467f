import Foundation
import XCTest

@testable import IAPAuditCLI
@testable import IAPAuditCrypto
@testable import IAPAuditIngest
@testable import IAPAuditModel
@testable import IAPAuditPipeline
@testable import IAPAuditReconcile
@testable import IAPAuditReport
@testable import IAPAuditSample
@testable import IAPAuditStore

/// A compact JWS split into the parts `SignatureChecking.checkJWS` takes, decoded here in the test
/// (base64url header and payload, standard base64 `x5c`) so the verifier is tested on its own.
struct TestJWS {
    let signingInput: Data
    let signature: Data
    let algorithm: String?
    /// The header's `x5c` as DER, leaf first; nil when the header has no `x5c`.
    let x5c: [Data]?
    let payload: [String: Any]

    /// The payload's `signedDate`, milliseconds since 1970 UTC (fractional milliseconds dropped).
    var signedDateMs: Int64? { (payload["signedDate"] as? NSNumber).map { Int64($0.doubleValue) } }

    /// - Parameter text: `header.payload.signature`, or a JSON object `{"signedPayload": "..."}`.
    init(_ text: String) throws {
        var compact = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if compact.hasPrefix("{") {
            let object = try JSONSerialization.jsonObject(with: Data(compact.utf8)) as? [String: Any]
            compact = try XCTUnwrap(object?["signedPayload"] as? String)
        }
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false)
        XCTAssertEqual(parts.count, 3, "a compact JWS has three parts")
        let header = try XCTUnwrap(
            JSONSerialization.jsonObject(with: try XCTUnwrap(Self.base64URLDecode(parts[0]))) as? [String: Any])
        payload = try XCTUnwrap(JSONSerialization.jsonObject(with: try XCTUnwrap(Self.base64URLDecode(parts[1]))) as? [String: Any])
        signature = try XCTUnwrap(Self.base64URLDecode(parts[2]))
        signingInput = Data("\(parts[0]).\(parts[1])".utf8)
        algorithm = header["alg"] as? String
        if let chain = header["x5c"] as? [String] {
            x5c = try chain.map { try XCTUnwrap(Data(base64Encoded: $0)) }
        } else {
            x5c = nil
        }
    }

    /// Reads a compact JWS (or `{"signedPayload": ...}`) from a file.
    init(path: String) throws {
        try self.init(try String(contentsOfFile: path, encoding: .utf8))
    }

    /// Runs the verifier on this JWS at `atMs` (default: the payload's `signedDate`).
    func check(_ verifier: SignatureVerifier, atMs: Int64? = nil) -> SignatureStatus {
        verifier.checkJWS(
            signingInput: signingInput, signature: signature, algorithm: algorithm, certificateChain: x5c,
            atMs: atMs ?? signedDateMs)
    }

    static func base64URLDecode(_ text: Substring) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }

    static func base64URLEncode(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
