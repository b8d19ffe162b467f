import COpenSSL
import Foundation
import IAPAuditModel

/// An ES256 (ECDSA over P-256 with SHA-256) JWS signature, checked with OpenSSL's `EVP_DigestVerify`.
///
/// A JWS carries the signature as raw `r || s`, 32 big-endian bytes each (RFC 7518 §3.4); OpenSSL
/// wants the DER `ECDSA-Sig-Value` SEQUENCE of two INTEGERs, so the raw form is converted.
struct ES256Signature {
    /// The DER `ECDSA-Sig-Value`.
    let der: Data

    /// - Parameter raw: `r || s`; nil unless exactly 64 bytes.
    init?(raw: Data) {
        guard raw.count == 64 else { return nil }
        let bytes = [UInt8](raw)
        guard let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let r = BN_bin2bn(bytes, 32, nil)
        let s = bytes.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress! + 32, 32, nil) }
        guard let r, let s, ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        let length = i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else { return nil }
        var encoded = [UInt8](repeating: 0, count: Int(length))
        encoded.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            _ = i2d_ECDSA_SIG(signature, &cursor)
        }
        der = Data(encoded)
    }

    /// True when the certificate's public key is an EC key on a 256-bit curve (P-256 for ES256).
    static func hasP256Key(_ certificate: X509Certificate) -> Bool {
        guard let key = X509_get0_pubkey(certificate.pointer) else {
            ERR_clear_error()
            return false
        }
        return EVP_PKEY_get_base_id(key) == EVP_PKEY_EC && EVP_PKEY_get_bits(key) == 256
    }

    /// True when this signature over SHA-256 of `signingInput` verifies with the certificate's key.
    func verifies(_ signingInput: Data, with certificate: X509Certificate) -> Bool {
        defer { ERR_clear_error() }
        guard let key = X509_get0_pubkey(certificate.pointer), let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { return false }
        let result = der.withUnsafeBytes { signature in
            signingInput.withUnsafeBytes { input in
                EVP_DigestVerify(
                    context, signature.bindMemory(to: UInt8.self).baseAddress, signature.count,
                    input.bindMemory(to: UInt8.self).baseAddress, input.count)
            }
        }
        return result == 1
    }
}
