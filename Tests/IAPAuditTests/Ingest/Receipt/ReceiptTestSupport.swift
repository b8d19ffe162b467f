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

/// A `SignatureChecking` stub: returns a fixed status and records the PKCS#7 checks asked of it.
final class StubReceiptChecker: SignatureChecking, @unchecked Sendable {
    let status: SignatureStatus
    private let lock = NSLock()
    private var calls: [(byteCount: Int, atMs: Int64?)] = []

    init(_ status: SignatureStatus = .verified) { self.status = status }

    var pkcs7Checks: [(byteCount: Int, atMs: Int64?)] { lock.withLock { calls } }

    func checkJWS(signingInput: Data, signature: Data, algorithm: String?, certificateChain: [Data]?, atMs: Int64?) -> SignatureStatus {
        XCTFail("receipts carry no JWS")
        return .notChecked
    }

    func checkPKCS7(der: Data, atMs: Int64?) -> SignatureStatus {
        lock.withLock { calls.append((der.count, atMs)) }
        return status
    }
}

enum ReceiptFixtures {
    static func data(_ relative: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: try TestPaths.realData(relative)))
    }

    /// A real JSON file as Foundation objects, to change before it is read (`RecordFixture.object`).
    static func json(_ relative: String) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: data(relative)) as? [String: Any])
    }

    /// A real JSON file as the importer reads it (the strict tape).
    static func record(_ relative: String) throws -> JSONRef { try JSONField.parseObject(data(relative)) }

    static func location(_ relative: String) -> SourceLocation { SourceLocation(file: relative, line: 1) }

    /// Reads a real receipt file (base64 text) with a stub checker.
    static func read(_ relative: String, checker: any SignatureChecking = StubReceiptChecker()) throws -> AppleRecord {
        try AppReceiptReader.read(data(relative), at: location(relative), requestId: nil, receivedAtMs: nil, checker: checker)
    }

    /// The decoded rawJSON object.
    static func raw(_ response: AppleRecord) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(response.rawJSON.utf8)) as? [String: Any])
    }
}
