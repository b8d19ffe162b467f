import COpenSSL
import Foundation
import IAPAuditModel

/// Message digests from OpenSSL's libcrypto.
package enum Digest {
    /// SHA-256 of `data` as 64 lowercase hex digits (keys an input file's import by its bytes).
    /// Hashed in 64 MB chunks; `afterChunk` is told how many bytes are done (to release mapped pages).
    package static func sha256Hex(_ data: Data, afterChunk: ((Int) -> Void)? = nil) -> String {
        let context = EVP_MD_CTX_new()
        defer { EVP_MD_CTX_free(context) }
        EVP_DigestInit_ex(context, EVP_sha256(), nil)
        let chunk = 64 << 20
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < raw.count {
                let n = min(chunk, raw.count - offset)
                EVP_DigestUpdate(context, raw.baseAddress! + offset, n)
                offset += n
                afterChunk?(offset)
            }
        }
        return final(context)
    }

    /// The SHA-256s (hex) of the first `prefix` bytes of `data` and of all of it, in one pass: a file that grew
    /// is checked against the hash stored when it was `prefix` bytes long. `afterChunk` is told each offset hashed to
    /// (64 MB apart, and the prefix's end: the bytes before it may be handed back).
    package static func sha256Hex(_ data: Data, prefix: Int, afterChunk: ((Int) -> Void)? = nil) -> (prefix: String, whole: String) {
        let context = EVP_MD_CTX_new(), copy = EVP_MD_CTX_new()
        defer {
            EVP_MD_CTX_free(context)
            EVP_MD_CTX_free(copy)
        }
        EVP_DigestInit_ex(context, EVP_sha256(), nil)
        return data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            let cut = min(prefix, raw.count)
            func update(_ range: Range<Int>) {
                var offset = range.lowerBound
                while offset < range.upperBound {
                    let n = min(64 << 20, range.upperBound - offset)
                    EVP_DigestUpdate(context, raw.baseAddress! + offset, n)
                    offset += n
                    afterChunk?(offset)
                }
            }
            update(0..<cut)
            EVP_MD_CTX_copy_ex(copy, context)
            update(cut..<raw.count)
            return (final(copy), final(context))
        }
    }

    /// Ends `context`'s digest, as hex (the caller frees it).
    private static func final(_ context: OpaquePointer?) -> String {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &digest, &length)
        return digest.map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}
