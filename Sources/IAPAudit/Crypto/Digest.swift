import COpenSSL
import Foundation

/// Message digests from OpenSSL's libcrypto.
enum Digest {
    /// SHA-256 of `data` as 64 lowercase hex digits (keys an input file's import by its bytes).
    static func sha256Hex(_ data: Data) -> String {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        data.withUnsafeBytes { raw in
            _ = SHA256(raw.bindMemory(to: UInt8.self).baseAddress, raw.count, &digest)
        }
        return digest.map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}
