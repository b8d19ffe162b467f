import COpenSSL
import IAPAuditModel

/// HMAC-SHA256 (RFC 2104) from OpenSSL's libcrypto: keys the tokens of `--redact` (`IdRedactor`).
package enum HMACSHA256 {
    /// The 32-byte MAC of `message` under `key`.
    package static func mac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let done = key.withUnsafeBufferPointer { k in
            message.withUnsafeBufferPointer { m in
                HMAC(EVP_sha256(), k.baseAddress, Int32(k.count), m.baseAddress, m.count, &out, &length)
            }
        }
        precondition(done != nil && length == 32, "HMAC-SHA256 failed in libcrypto")
        return Array(out.prefix(Int(length)))
    }

    /// An `IdRedactor` keyed with `key` (the key's bytes stay inside the MAC closure: never printed).
    package static func redactor(key: [UInt8]) -> IdRedactor {
        IdRedactor(mac: { mac(key: key, message: $0) })
    }
}
