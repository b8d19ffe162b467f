import Foundation
import IAPAuditModel

/// A failure to set up signature checking (reading trust anchors). Failed signatures are not errors:
/// they are `SignatureStatus` values.
public enum CryptoError: Error, CustomStringConvertible, Equatable {
    /// A trust-anchor file could not be read, or holds no certificate that OpenSSL can decode
    /// (neither one DER certificate nor PEM `CERTIFICATE` blocks).
    case unreadableCertificate(path: String, reason: String)
    /// A signing key (`ES256Signer`) that is not a PEM P-256 private key.
    case unreadablePrivateKey(reason: String)

    /// One line: `cannot read certificate <path>: <reason>`.
    public var description: String {
        switch self {
        case .unreadableCertificate(let path, let reason): return "cannot read certificate \(path): \(reason)"
        case .unreadablePrivateKey(let reason): return "cannot read the signing key: \(reason)"
        }
    }
}
