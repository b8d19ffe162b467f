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

/// A `SignatureChecking` that records every `checkJWS` call and answers a configured status:
/// `byAtMs[atMs]` when set, else `status`.
final class StubSignatureChecker: SignatureChecking, @unchecked Sendable {
    struct Call: Equatable {
        let signingInput: Data
        let signature: Data
        let algorithm: String?
        /// How many `x5c` certificates were passed; nil when the chain was nil.
        let chainCount: Int?
        let atMs: Int64?
    }

    private let lock = NSLock()
    private var recorded: [Call] = []
    let status: SignatureStatus
    let byAtMs: [Int64: SignatureStatus]

    init(status: SignatureStatus = .verified, byAtMs: [Int64: SignatureStatus] = [:]) {
        self.status = status
        self.byAtMs = byAtMs
    }

    var calls: [Call] { lock.withLock { recorded } }

    func checkJWS(signingInput: Data, signature: Data, algorithm: String?, certificateChain: [Data]?, atMs: Int64?) -> SignatureStatus {
        lock.withLock {
            recorded.append(
                Call(
                    signingInput: signingInput, signature: signature, algorithm: algorithm, chainCount: certificateChain?.count,
                    atMs: atMs))
        }
        return atMs.flatMap { byAtMs[$0] } ?? status
    }

    func checkPKCS7(der: Data, atMs: Int64?) -> SignatureStatus { .notChecked }
}
