import COpenSSL
import Foundation
import IAPAuditModel

/// Builds and checks a certificate chain with OpenSSL's `X509_verify_cert`, from a leaf through
/// untrusted intermediates to one of a fixed set of trust anchors.
///
/// The anchors are parsed once; each call builds its own `X509_STORE` and `X509_STORE_CTX` from them
/// (cheap: no parsing), so calls from several threads share nothing mutable.
///
/// What OpenSSL is asked to check (and not):
/// - no purpose and no trust setting: Apple's receipt and JWS certificates lack S/MIME or TLS purpose
///   bits, and a verification without an SSL context applies no security level (`auth_level` -1), so
///   old SHA1withRSA receipt chains are accepted;
/// - trusted-first (OpenSSL's default): an issuer found among the anchors wins over a copy sent in the
///   chain (Apple's test-CA JWS carry an older self-signed copy of the test root, same key);
/// - every certificate must be valid at the check time, the anchor included; no CRL or OCSP (offline).
struct ChainValidator {
    /// What a chain check found.
    enum Outcome {
        /// The chain, leaf first, ends at an anchor and every certificate is valid at the check time.
        case trusted(chain: [X509Certificate])
        /// `.untrustedRoot` or `.invalid(<reason>)`.
        case failed(SignatureStatus)
    }

    let anchors: [X509Certificate]

    /// - Parameter anchors: DER trust anchors; bytes that do not decode are skipped.
    init(anchors: TrustAnchors) {
        self.anchors = anchors.certificates.compactMap { X509Certificate(der: $0) }
    }

    /// Checks the chain of `leaf` at `atMs` (milliseconds since 1970 UTC; nil means now).
    ///
    /// - Parameter untrusted: certificates that may serve as intermediates (the rest of an `x5c`, or
    ///   the certificates embedded in a PKCS#7); order does not matter.
    func validate(leaf: X509Certificate, untrusted: [X509Certificate], atMs: Int64?) -> Outcome {
        guard let store = X509_STORE_new() else { return .failed(.invalid("chain:out_of_memory")) }
        defer { X509_STORE_free(store) }
        for anchor in anchors where X509_STORE_add_cert(store, anchor.pointer) != 1 {
            ERR_clear_error()  // a duplicate anchor: already in the store
        }
        guard let intermediates = iap_sk_X509_new_null() else { return .failed(.invalid("chain:out_of_memory")) }
        defer { iap_sk_X509_free(intermediates) }
        for certificate in untrusted { _ = iap_sk_X509_push(intermediates, certificate.pointer) }
        guard let context = X509_STORE_CTX_new() else { return .failed(.invalid("chain:out_of_memory")) }
        defer { X509_STORE_CTX_free(context) }
        guard X509_STORE_CTX_init(context, store, leaf.pointer, intermediates) == 1 else {
            ERR_clear_error()
            return .failed(.invalid("chain:context_setup_failed"))
        }
        if let atMs, let parameters = X509_STORE_CTX_get0_param(context) {
            X509_VERIFY_PARAM_set_time(parameters, time_t(atMs.floorDividedBy(1000)))
        }
        let result = X509_verify_cert(context)
        defer { ERR_clear_error() }
        guard result == 1 else {
            return .failed(ChainValidator.status(forError: X509_STORE_CTX_get_error(context)))
        }
        guard let built = X509_STORE_CTX_get0_chain(context) else { return .failed(.invalid("chain:no_chain")) }
        let chain = (0..<iap_sk_X509_num(built)).compactMap { index in
            iap_sk_X509_value(built, index).map { X509Certificate(retaining: $0) }
        }
        return .trusted(chain: chain)
    }

    /// Maps an `X509_V_ERR_*` code to a status: expired and not-yet-valid get short reasons; a root
    /// that is no configured anchor is `.untrustedRoot`; anything else is
    /// `chain:<OpenSSL's message, lowercased, spaces as underscores>`.
    static func status(forError code: Int32) -> SignatureStatus {
        switch code {
        case X509_V_ERR_CERT_HAS_EXPIRED: return .invalid("certificate_expired")
        case X509_V_ERR_CERT_NOT_YET_VALID: return .invalid("certificate_not_yet_valid")
        case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN,
            X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
            return .untrustedRoot
        default:
            let message = X509_verify_cert_error_string(Int(code)).map { String(cString: $0) } ?? "error \(code)"
            return .invalid("chain:" + message.lowercased().replacingOccurrences(of: " ", with: "_"))
        }
    }
}

extension Int64 {
    /// Division rounding toward negative infinity (a time before 1970 stays in the right second).
    fileprivate func floorDividedBy(_ divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
