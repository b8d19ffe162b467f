import Foundation

/// Whether a record's signature was checked offline, and what the check found.
///
/// Stored as text in `apple_record.signature` and `apple_transaction.signature`:
/// `verified`, `invalid:<reason>`, `untrusted_root` or `not_checked`.
public enum SignatureStatus: Hashable, Sendable {
    /// The signature is valid and its chain ends at a configured trust anchor, every certificate
    /// valid at the check time (the payload's `signedDate`, or the receipt's creation date).
    case verified
    /// The signature, the chain or Apple's marker OIDs failed; the text says why
    /// (e.g. `missing_x5c`, `bad_signature`, `certificate_expired`, `intermediate_oid_missing`).
    case invalid(String)
    /// The signature and chain are sound, but the root is none of the configured trust anchors
    /// (Apple's test CA, Xcode's StoreKit testing certificate, or no anchor configured).
    case untrustedRoot
    /// Nothing to check: an unsigned source (verifyReceipt, Notifications V1, decoded payload JSON).
    case notChecked

    /// The stored form: `verified`, `invalid:<reason>`, `untrusted_root`, `not_checked`.
    public var text: String {
        switch self {
        case .verified: return "verified"
        case .invalid(let reason): return "invalid:\(reason)"
        case .untrustedRoot: return "untrusted_root"
        case .notChecked: return "not_checked"
        }
    }

    /// Parses the stored form; nil for anything else.
    public init?(text: String) {
        switch text {
        case "verified": self = .verified
        case "untrusted_root": self = .untrustedRoot
        case "not_checked": self = .notChecked
        default:
            guard text.hasPrefix("invalid:") else { return nil }
            self = .invalid(String(text.dropFirst("invalid:".count)))
        }
    }

    /// True when a signature was checked and failed (invalid or untrusted root): the payload is no
    /// proof of anything (`invalid_credit` reason `signature_invalid`).
    public var failed: Bool {
        switch self {
        case .invalid, .untrustedRoot: return true
        case .verified, .notChecked: return false
        }
    }

    /// The worse of two statuses (failed > not checked > verified), for a record made of several
    /// signed parts (a notification and its nested transaction).
    public func combined(with other: SignatureStatus) -> SignatureStatus {
        func rank(_ s: SignatureStatus) -> Int {
            switch s {
            case .verified: return 0
            case .notChecked: return 1
            case .untrustedRoot: return 2
            case .invalid: return 3
            }
        }
        return rank(other) > rank(self) ? other : self
    }
}

/// Checks signatures offline. Implemented by `SignatureVerifier` (OpenSSL); tests may stub it.
public protocol SignatureChecking: Sendable {
    /// Checks a compact JWS signed with ES256 by the leaf of its `x5c` chain.
    ///
    /// - Parameters:
    ///   - signingInput: the ASCII bytes `BASE64URL(header) "." BASE64URL(payload)`.
    ///   - signature: the decoded JWS signature (64 bytes `r || s` for ES256).
    ///   - algorithm: the header's `alg` (only `ES256` is accepted), nil when absent.
    ///   - certificateChain: the header's `x5c`, base64-decoded DER, leaf first; nil when the header
    ///     has no `x5c` (→ `invalid:missing_x5c`).
    ///   - atMs: the time the chain must be valid at, milliseconds since 1970 UTC (the payload's
    ///     `signedDate`); nil means the current time.
    func checkJWS(signingInput: Data, signature: Data, algorithm: String?, certificateChain: [Data]?, atMs: Int64?) -> SignatureStatus

    /// Checks a PKCS#7 signed-data app receipt (DER) and its chain, valid at `atMs` (the receipt's
    /// creation date, milliseconds since 1970 UTC; nil means now).
    func checkPKCS7(der: Data, atMs: Int64?) -> SignatureStatus
}

/// A checker that checks nothing: every signed record gets `not_checked`.
public struct NoSignatureChecking: SignatureChecking {
    public init() {}
    public func checkJWS(signingInput: Data, signature: Data, algorithm: String?, certificateChain: [Data]?, atMs: Int64?)
        -> SignatureStatus
    { .notChecked }
    public func checkPKCS7(der: Data, atMs: Int64?) -> SignatureStatus { .notChecked }
}
