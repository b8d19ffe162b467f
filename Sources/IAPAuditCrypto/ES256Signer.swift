import COpenSSL
import Foundation
import IAPAuditModel

/// Signs ES256 (ECDSA over P-256 with SHA-256) JWS deterministically: the nonce `k` comes from the
/// private key and the message by RFC 6979 §3.2 (HMAC-SHA256), so the same input signs to the same
/// bytes. OpenSSL 3.0 has no deterministic ECDSA (3.2 does), so `k` is computed here and the signature
/// with OpenSSL's big-number and curve arithmetic: r = x(k·G) mod n, s = k⁻¹(h + r·d) mod n.
///
/// For test data only (`iap-audit sample` signs its synthetic transactions with a committed test key):
/// the arithmetic is not constant-time.
public struct ES256Signer: Sendable {
    /// The private scalar d, 32 big-endian bytes.
    let privateKey: [UInt8]

    /// - Parameter privateKeyPEM: a P-256 private key (`-----BEGIN PRIVATE KEY-----` or `EC PRIVATE KEY`).
    /// - Throws: `CryptoError.unreadablePrivateKey` when it is not one.
    public init(privateKeyPEM: String) throws {
        defer { ERR_clear_error() }
        let bytes = Array(privateKeyPEM.utf8)
        let key: OpaquePointer? = bytes.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        guard let key else { throw CryptoError.unreadablePrivateKey(reason: "no PEM private key") }
        defer { EVP_PKEY_free(key) }
        guard EVP_PKEY_get_base_id(key) == EVP_PKEY_EC, EVP_PKEY_get_bits(key) == 256 else {
            throw CryptoError.unreadablePrivateKey(reason: "not a P-256 key")
        }
        var scalar: OpaquePointer? = nil
        guard EVP_PKEY_get_bn_param(key, "priv", &scalar) == 1, let scalar else {
            throw CryptoError.unreadablePrivateKey(reason: "no private scalar")
        }
        defer { BN_clear_free(scalar) }
        var d = [UInt8](repeating: 0, count: 32)
        guard BN_bn2binpad(scalar, &d, 32) == 32 else { throw CryptoError.unreadablePrivateKey(reason: "scalar longer than 32 bytes") }
        privateKey = d
    }

    /// A signer for the scalar d (32 big-endian bytes): the RFC 6979 test vectors.
    init(scalar: [UInt8]) {
        privateKey = scalar
    }

    /// The JWS signature of `signingInput` (`header.payload` in base64url): `r || s`, 32 bytes each.
    public func sign(_ signingInput: Data) -> Data {
        let signature = sign(digest: Self.sha256(Array(signingInput)))
        return Data(signature.r + signature.s)
    }

    /// The compact JWS `header.payload.signature` of two JSON texts, each base64url-encoded as given.
    public func compactJWS(headerJSON: String, payloadJSON: String) -> String {
        let input = Self.base64URL(Data(headerJSON.utf8)) + "." + Self.base64URL(Data(payloadJSON.utf8))
        return input + "." + Self.base64URL(sign(Data(input.utf8)))
    }

    /// Base64url without padding (RFC 7515 §2).
    public static func base64URL(_ data: Data) -> String {
        var bytes: [UInt8] = []
        for byte in data.base64EncodedString().utf8 where byte != UInt8(ascii: "=") {
            bytes.append(byte == UInt8(ascii: "+") ? UInt8(ascii: "-") : byte == UInt8(ascii: "/") ? UInt8(ascii: "_") : byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The signature of a SHA-256 digest: r and s, 32 big-endian bytes each, and the nonce k used.
    func sign(digest: [UInt8]) -> (r: [UInt8], s: [UInt8], k: [UInt8]) {
        let context = BN_CTX_new()!
        defer { BN_CTX_free(context) }
        let group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1)!
        defer { EC_GROUP_free(group) }
        let n = EC_GROUP_get0_order(group)!
        let d = BN_bin2bn(privateKey, 32, nil)!
        defer { BN_clear_free(d) }
        // h = bits2int(digest) mod n (a 256-bit digest and a 256-bit order: one subtraction at most).
        let h = BN_bin2bn(digest, Int32(digest.count), nil)!
        defer { BN_free(h) }
        BN_nnmod(h, h, n, context)
        var nonces = Nonces(key: privateKey, digest: Self.bytes(h))
        let (k, r, s, x, point) = (BN_new()!, BN_new()!, BN_new()!, BN_new()!, EC_POINT_new(group)!)
        defer {
            BN_clear_free(k)
            [r, s, x].forEach { BN_free($0) }
            EC_POINT_free(point)
        }
        while true {
            let candidate = nonces.next()
            BN_bin2bn(candidate, 32, k)
            guard BN_is_zero(k) == 0, BN_cmp(k, n) < 0 else { continue }
            EC_POINT_mul(group, point, k, nil, nil, context)
            EC_POINT_get_affine_coordinates(group, point, x, nil, context)
            BN_nnmod(r, x, n, context)
            guard BN_is_zero(r) == 0 else { continue }
            // s = k⁻¹ (h + r·d) mod n
            let inverse = BN_mod_inverse(nil, k, n, context)!
            defer { BN_clear_free(inverse) }
            BN_mod_mul(s, r, d, n, context)
            BN_mod_add(s, s, h, n, context)
            BN_mod_mul(s, s, inverse, n, context)
            guard BN_is_zero(s) == 0 else { continue }
            return (Self.bytes(r), Self.bytes(s), candidate)
        }
    }

    /// RFC 6979 §3.2 steps b–h for a 256-bit order and HMAC-SHA256: candidate nonces in order.
    struct Nonces {
        private var v = [UInt8](repeating: 1, count: 32)
        private var k = [UInt8](repeating: 0, count: 32)
        private var started = false

        /// - Parameters: key: int2octets(d); digest: bits2octets(h1) (the digest reduced mod n).
        init(key: [UInt8], digest: [UInt8]) {
            k = ES256Signer.hmac(k, v + [0] + key + digest)
            v = ES256Signer.hmac(k, v)
            k = ES256Signer.hmac(k, v + [1] + key + digest)
            v = ES256Signer.hmac(k, v)
        }

        /// The next candidate k (the caller checks 1 ≤ k < n and that r and s are not zero).
        mutating func next() -> [UInt8] {
            if started {
                k = ES256Signer.hmac(k, v + [0])
                v = ES256Signer.hmac(k, v)
            }
            started = true
            v = ES256Signer.hmac(k, v)
            return v
        }
    }

    static func hmac(_ key: [UInt8], _ data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        _ = HMAC(EVP_sha256(), key, Int32(key.count), data, data.count, &out, &length)
        return out
    }

    static func sha256(_ data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        _ = EVP_Digest(data, data.count, &out, &length, EVP_sha256(), nil)
        return out
    }

    /// A non-negative big number as 32 big-endian bytes.
    private static func bytes(_ value: OpaquePointer) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        _ = BN_bn2binpad(value, &out, 32)
        return out
    }
}
