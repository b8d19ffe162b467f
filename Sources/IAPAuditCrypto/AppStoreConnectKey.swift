import COpenSSL
import Foundation
import IAPAuditModel

/// An App Store Connect API key (the `.p8` file App Store Connect gives once: a PKCS#8 PEM EC P-256 private key), and
/// the JSON Web Tokens it signs for the App Store Server API (Apple's "Generating JSON Web Tokens for API requests"):
/// header `{"alg":"ES256","kid":KEY_ID,"typ":"JWT"}`, payload `{"iss":ISSUER_ID,"iat":s,"exp":s,"aud":"appstoreconnect-v1",
/// "bid":BUNDLE_ID}` (times in seconds since 1970 UTC; `exp` at most 60 minutes after `iat`).
///
/// Signed by OpenSSL's `EVP_DigestSign` (a random nonce, OpenSSL's constant-time code), unlike `ES256Signer` (test data).
/// The key stays in OpenSSL's memory; nothing here prints or keeps its bytes, and `description` names no secret.
public final class AppStoreConnectKey: CustomStringConvertible, @unchecked Sendable {
    /// The EVP_PKEY, owned (freed on deinit). Used from one thread at a time.
    private let key: OpaquePointer

    /// The longest lifetime Apple accepts for a token, in seconds.
    public static let maximumLifetimeSeconds: Int64 = 3600

    /// - Parameter pem: the `.p8` file's bytes (`-----BEGIN PRIVATE KEY-----`).
    /// - Throws: `CryptoError.unreadablePrivateKey` when it is no P-256 private key (the reason never quotes the file).
    public init(pem: Data) throws {
        defer { ERR_clear_error() }
        let read: OpaquePointer? = pem.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        guard let read else { throw CryptoError.unreadablePrivateKey(reason: "no PEM private key (an App Store Connect .p8 file)") }
        guard EVP_PKEY_get_base_id(read) == EVP_PKEY_EC, EVP_PKEY_get_bits(read) == 256 else {
            EVP_PKEY_free(read)
            throw CryptoError.unreadablePrivateKey(reason: "not an EC P-256 key")
        }
        key = read
    }

    deinit { EVP_PKEY_free(key) }

    public var description: String { "AppStoreConnectKey(P-256)" }

    /// A token for the App Store Server API: the compact JWS `header.payload.signature`.
    /// - Parameters:
    ///   - issuedAt: `iat`, seconds since 1970 UTC; lifetime: `exp − iat`, seconds, 1 to 3600.
    /// - Throws: `CryptoError.unreadablePrivateKey` when OpenSSL cannot sign with the key.
    public func token(keyId: String, issuerId: String, bundleId: String, issuedAt: Int64, lifetime: Int64 = 1200) throws -> String {
        let lifetime = min(max(lifetime, 1), Self.maximumLifetimeSeconds)
        var header = "{\"alg\":\"ES256\",\"kid\":"
        JSONString.append(keyId, to: &header)
        header += ",\"typ\":\"JWT\"}"
        var payload = "{\"iss\":"
        JSONString.append(issuerId, to: &payload)
        payload += ",\"iat\":\(issuedAt),\"exp\":\(issuedAt + lifetime),\"aud\":\"appstoreconnect-v1\",\"bid\":"
        JSONString.append(bundleId, to: &payload)
        payload += "}"
        let input = ES256Signer.base64URL(Data(header.utf8)) + "." + ES256Signer.base64URL(Data(payload.utf8))
        return input + "." + ES256Signer.base64URL(try sign(Data(input.utf8)))
    }

    /// The ES256 signature of `input` as a JWS carries it: `r || s`, 32 big-endian bytes each (RFC 7518 §3.4).
    func sign(_ input: Data) throws -> Data {
        defer { ERR_clear_error() }
        guard let context = EVP_MD_CTX_new() else { throw CryptoError.unreadablePrivateKey(reason: "OpenSSL has no memory") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else {
            throw CryptoError.unreadablePrivateKey(reason: "OpenSSL cannot sign with it")
        }
        var length = 0
        var der = [UInt8](repeating: 0, count: 80)
        let signed = input.withUnsafeBytes { raw in
            length = der.count
            return EVP_DigestSign(context, &der, &length, raw.bindMemory(to: UInt8.self).baseAddress, raw.count)
        }
        guard signed == 1, let raw = Self.raw(fromDER: Array(der[0..<length])) else {
            throw CryptoError.unreadablePrivateKey(reason: "OpenSSL cannot sign with it")
        }
        return raw
    }

    /// `r || s` of a DER `ECDSA-Sig-Value`; nil when it is none.
    static func raw(fromDER der: [UInt8]) -> Data? {
        let signature: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let signature else { return nil }
        defer { ECDSA_SIG_free(signature) }
        var r = [UInt8](repeating: 0, count: 32), s = [UInt8](repeating: 0, count: 32)
        guard let bigR = ECDSA_SIG_get0_r(signature), let bigS = ECDSA_SIG_get0_s(signature),
            BN_bn2binpad(bigR, &r, 32) == 32, BN_bn2binpad(bigS, &s, 32) == 32
        else { return nil }
        return Data(r + s)
    }
}
