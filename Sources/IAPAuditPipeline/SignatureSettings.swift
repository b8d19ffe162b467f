import Foundation
import IAPAuditCrypto
import IAPAuditIngest
import IAPAuditModel
import IAPAuditReconcile
import IAPAuditReport
import IAPAuditStore

/// The trust anchors and check time of a run, made into the checker the readers use.
///
/// Apple's certificates are not shipped with iap-audit: by default it looks for
/// `certs/AppleRootCA-G3.cer` (JWS) and `certs/AppleIncRootCertificate.cer` (PKCS#7 receipts) in the
/// current folder (README: where to download them). Without an anchor every signed record is
/// `untrusted_root`, and the run says so in a warning.
struct SignatureSettings {
    static let defaultJWSAnchor = "certs/AppleRootCA-G3.cer"
    static let defaultReceiptAnchor = "certs/AppleIncRootCertificate.cer"

    let checker: any SignatureChecking
    /// SHA-256 of every anchor's bytes and the check time: stored signature states were computed
    /// under these settings, so a change makes every file be read again.
    let fingerprint: String
    /// The anchor files used, for `run_parameter` (`jws_trust_anchors`, `receipt_trust_anchors`).
    let jwsAnchorPaths: [String]
    let receiptAnchorPaths: [String]
    /// What to say when a run holds a JWS, or a PKCS#7 receipt, and has no anchor for it (nil: it has one).
    private var jwsWarning: RunWarning? = nil
    private var receiptWarning: RunWarning? = nil

    /// Throws `AuditError.trustAnchor` when a certificate file cannot be read or decoded.
    init(_ config: AuditConfig) throws {
        let jwsPaths = config.jwsTrustAnchors.isEmpty ? Self.existing(Self.defaultJWSAnchor) : config.jwsTrustAnchors
        let receiptPaths = config.receiptTrustAnchors.isEmpty ? Self.existing(Self.defaultReceiptAnchor) : config.receiptTrustAnchors
        let jws: TrustAnchors
        let receipts: TrustAnchors
        do {
            jws = try TrustAnchors.load(paths: jwsPaths)
            receipts = try TrustAnchors.load(paths: receiptPaths)
        } catch CryptoError.unreadableCertificate(let path, let reason) {
            throw AuditError.trustAnchor(path, reason)
        }
        checker = SignatureVerifier(jwsAnchors: jws, receiptAnchors: receipts, checkAtMs: config.signaturesCheckedAtMs)
        var bytes = Data()
        for path in jwsPaths + ["|"] + receiptPaths {
            bytes.append(FileManager.default.contents(atPath: path) ?? Data(path.utf8))
        }
        bytes.append(Data("|\(config.signaturesCheckedAtMs.map(String.init) ?? "signed_date")".utf8))
        fingerprint = Digest.sha256Hex(bytes)
        jwsAnchorPaths = jwsPaths
        receiptAnchorPaths = receiptPaths
        if jwsPaths.isEmpty {
            jwsWarning =
                RunWarning(
                    .noTrustAnchor,
                    "no JWS trust anchor: every signed transaction and notification is untrusted_root; put Apple Root CA - G3 at "
                        + "\(Self.defaultJWSAnchor) or name it in jws_trust_anchors (README: Trust anchors)")
        }
        if receiptPaths.isEmpty {
            receiptWarning =
                RunWarning(
                    .noTrustAnchor,
                    "no receipt trust anchor: every PKCS#7 app receipt is untrusted_root; put the Apple Inc. Root Certificate at "
                        + "\(Self.defaultReceiptAnchor) or name it in receipt_trust_anchors (README: Trust anchors)")
        }
    }

    /// The warnings that apply to the signed records a run holds: the JWS one when it holds a JWS
    /// (signed transaction, renewal info, app transaction, notification V2, Server API page), the receipt
    /// one when it holds a PKCS#7 app receipt.
    func warnings(forSources sources: Set<EvidenceSource>) -> [RunWarning] {
        let jws: Set<EvidenceSource> = [.signedTransaction, .signedRenewalInfo, .appTransaction, .notificationV2, .serverAPI]
        return (sources.isDisjoint(with: jws) ? [] : [jwsWarning].compactMap { $0 })
            + (sources.contains(.appReceipt) ? [receiptWarning].compactMap { $0 } : [])
    }

    private static func existing(_ path: String) -> [String] {
        FileManager.default.fileExists(atPath: path) ? [path] : []
    }
}
