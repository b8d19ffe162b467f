import COpenSSL
import Foundation
import IAPAuditModel

/// Checks Apple's signatures offline with OpenSSL 3: ES256 JWS with an `x5c` chain (App Store Server
/// API, Notifications V2, StoreKit 2) and PKCS#7 app receipts.
///
/// Failures are values, never errors. Reasons in `.invalid(<reason>)`, in the order checked (the first
/// failing check decides, so each broken input gets its own reason):
///
/// JWS: `unsupported_alg:<alg>` (or `missing_alg`) → `missing_x5c` (absent or empty) →
/// `malformed_certificate` → `bad_signature_encoding` (not 64 bytes) → `leaf_key_not_p256` →
/// `bad_signature` → the chain (`certificate_expired`, `certificate_not_yet_valid`, `.untrustedRoot`,
/// `chain:<openssl message>`) → Apple's marker OIDs (`leaf_oid_missing`, `intermediate_oid_missing`).
/// The signature comes before the chain, so a forged payload says `bad_signature` even on an expired
/// chain; the chain comes before the OIDs, so Xcode's self-signed StoreKit certificate (no OIDs) is
/// `.untrustedRoot`. The OIDs are read from the chain OpenSSL built: the leaf always, the leaf's issuer
/// when the chain has three or more certificates (a leaf signed directly by the root has no
/// intermediate). When the leaf is itself a configured anchor (Xcode's certificate added on purpose),
/// the OIDs are not required.
///
/// PKCS#7: `malformed_pkcs7` → `not_signed_data` → `detached_content` → `signer_certificate_missing`
/// → `bad_signature` → the chain of each signer, with the embedded certificates as intermediates.
/// Receipts are not checked for marker OIDs.
///
/// Thread-safe, and so `Sendable` by hand (OpenSSL's certificate pointers are not): anchors are parsed
/// once and never changed; every call builds its own OpenSSL store and context (see `ChainValidator`).
public final class SignatureVerifier: SignatureChecking, @unchecked Sendable {
    /// Apple's marker on the JWS signing (leaf) certificate: "Mac App Store and iTunes Store Receipt Signing".
    static let leafMarkerOID = "1.2.840.113635.100.6.11.1"
    /// Apple's marker on the Apple Worldwide Developer Relations intermediate.
    static let intermediateMarkerOID = "1.2.840.113635.100.6.2.1"

    let jwsChains: ChainValidator
    let receiptChains: ChainValidator
    /// When set, every chain is checked at this time (milliseconds since 1970 UTC) instead of the
    /// `atMs` passed per call.
    public let checkAtMs: Int64?

    /// - Parameters:
    ///   - jwsAnchors: roots for JWS chains (Apple Root CA - G3 in production).
    ///   - receiptAnchors: roots for PKCS#7 receipts (Apple Root CA, the 2006 one).
    ///   - checkAtMs: a fixed check time, milliseconds since 1970 UTC, overriding each call's `atMs`
    ///     ("is this still valid today?"); nil uses each call's `atMs` (the payload's `signedDate`
    ///     or the receipt's creation date).
    public init(jwsAnchors: TrustAnchors, receiptAnchors: TrustAnchors, checkAtMs: Int64? = nil) {
        self.jwsChains = ChainValidator(anchors: jwsAnchors)
        self.receiptChains = ChainValidator(anchors: receiptAnchors)
        self.checkAtMs = checkAtMs
    }

    /// Checks a compact JWS; see the type's documentation for the order of checks and the reasons.
    /// `atMs` (milliseconds since 1970 UTC, nil = now) is ignored when `checkAtMs` is set.
    public func checkJWS(signingInput: Data, signature: Data, algorithm: String?, certificateChain: [Data]?, atMs: Int64?)
        -> SignatureStatus
    {
        guard let algorithm else { return .invalid("missing_alg") }
        guard algorithm == "ES256" else { return .invalid("unsupported_alg:\(algorithm)") }
        let (parsed, failure) = parse(certificateChain)
        if let failure { return failure }
        // Apple sends leaf, intermediate, root: anything longer is not an App Store chain.
        guard parsed.count <= 3 else { return .invalid("x5c_length:\(parsed.count)") }
        guard let rawSignature = ES256Signature(raw: signature) else { return .invalid("bad_signature_encoding") }
        guard ES256Signature.hasP256Key(parsed[0]) else { return .invalid("leaf_key_not_p256") }
        guard rawSignature.verifies(signingInput, with: parsed[0]) else { return .invalid("bad_signature") }
        return checkChain(parsed, atMs: atMs)
    }

    /// Checks a DER PKCS#7 signed-data app receipt with its embedded content; see the type's
    /// documentation. `atMs` (the receipt's creation date, milliseconds since 1970 UTC, nil = now) is
    /// ignored when `checkAtMs` is set.
    public func checkPKCS7(der: Data, atMs: Int64?) -> SignatureStatus {
        defer { ERR_clear_error() }
        let parsed: UnsafeMutablePointer<PKCS7>? = der.withUnsafeBytes { raw in
            var cursor = raw.bindMemory(to: UInt8.self).baseAddress
            return raw.isEmpty ? nil : d2i_PKCS7(nil, &cursor, raw.count)
        }
        guard let pkcs7 = parsed else { return .invalid("malformed_pkcs7") }
        defer { PKCS7_free(pkcs7) }
        guard iap_PKCS7_type_is_signed(pkcs7) == 1 else { return .invalid("not_signed_data") }
        guard iap_PKCS7_get_detached(pkcs7) == 0 else { return .invalid("detached_content") }
        guard let signerStack = PKCS7_get0_signers(pkcs7, nil, 0) else { return .invalid("signer_certificate_missing") }
        let signers = (0..<iap_sk_X509_num(signerStack)).compactMap { iap_sk_X509_value(signerStack, $0) }
            .map { X509Certificate(retaining: $0) }
        iap_sk_X509_free(signerStack)
        guard !signers.isEmpty else { return .invalid("signer_certificate_missing") }
        // Signatures only (PKCS7_NOVERIFY): the chains are checked below with our own time and mapping.
        guard PKCS7_verify(pkcs7, nil, nil, nil, nil, Int32(PKCS7_NOVERIFY)) == 1 else { return .invalid("bad_signature") }
        var embedded: [X509Certificate] = []
        if let stack = iap_PKCS7_certificates(pkcs7) {
            embedded = (0..<iap_sk_X509_num(stack)).compactMap { iap_sk_X509_value(stack, $0) }.map { X509Certificate(retaining: $0) }
        }
        for signer in signers {
            if case .failed(let status) = receiptChains.validate(leaf: signer, untrusted: embedded, atMs: checkAtMs ?? atMs) {
                return status
            }
        }
        return .verified
    }

    /// The chain and marker-OID part of `checkJWS` alone (no signature): `certificates` is an `x5c`
    /// as DER, leaf first; `atMs` as in `checkJWS`.
    func checkChain(_ certificates: [Data]?, atMs: Int64?) -> SignatureStatus {
        let (parsed, failure) = parse(certificates)
        return failure ?? checkChain(parsed, atMs: atMs)
    }

    private func checkChain(_ parsed: [X509Certificate], atMs: Int64?) -> SignatureStatus {
        let chain: [X509Certificate]
        switch jwsChains.validate(leaf: parsed[0], untrusted: Array(parsed.dropFirst()), atMs: checkAtMs ?? atMs) {
        case .failed(let status): return status
        case .trusted(let built): chain = built
        }
        if chain.count == 1 { return .verified }  // the leaf is itself an anchor
        // Exactly leaf → intermediate → anchor, as Apple's own library requires.
        guard chain.count == 3 else { return .invalid("chain_length:\(chain.count)") }
        guard chain[0].hasExtension(oid: Self.leafMarkerOID) else { return .invalid("leaf_oid_missing") }
        guard chain[1].hasExtension(oid: Self.intermediateMarkerOID) else { return .invalid("intermediate_oid_missing") }
        return .verified
    }

    /// Parses an `x5c` (at least one certificate when `failure` is nil); the failure is `missing_x5c`
    /// when nil or empty, `malformed_certificate` when any element is not one DER certificate.
    private func parse(_ certificates: [Data]?) -> (parsed: [X509Certificate], failure: SignatureStatus?) {
        guard let certificates, !certificates.isEmpty else { return ([], .invalid("missing_x5c")) }
        var parsed: [X509Certificate] = []
        for der in certificates {
            guard let certificate = X509Certificate(der: der) else { return ([], .invalid("malformed_certificate")) }
            parsed.append(certificate)
        }
        return (parsed, nil)
    }
}
