import COpenSSL
import Foundation
import IAPAuditModel

/// One X.509 certificate parsed by OpenSSL; owns one reference to the `X509` and drops it on deinit.
///
/// Immutable after parsing: OpenSSL caches decoded extensions under its own lock, so one instance may
/// be read from several threads.
final class X509Certificate {
    /// The OpenSSL `X509 *`.
    let pointer: OpaquePointer

    /// Parses DER; nil when the bytes are not exactly one certificate (trailing bytes are refused).
    init?(der: Data) {
        guard !der.isEmpty else { return nil }
        let parsed: OpaquePointer? = der.withUnsafeBytes { raw in
            let start = raw.bindMemory(to: UInt8.self).baseAddress
            var cursor = start
            guard let certificate = d2i_X509(nil, &cursor, raw.count) else { return nil }
            guard let start, let cursor, cursor - start == raw.count else {
                X509_free(certificate)
                return nil
            }
            return certificate
        }
        guard let parsed else {
            ERR_clear_error()
            return nil
        }
        pointer = parsed
    }

    /// Takes a new reference to a certificate owned elsewhere (a stack, a PKCS#7).
    init(retaining pointer: OpaquePointer) {
        X509_up_ref(pointer)
        self.pointer = pointer
    }

    deinit { X509_free(pointer) }

    /// The DER encoding.
    var der: Data {
        let length = i2d_X509(pointer, nil)
        guard length > 0 else { return Data() }
        var bytes = [UInt8](repeating: 0, count: Int(length))
        bytes.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            _ = i2d_X509(pointer, &cursor)
        }
        return Data(bytes)
    }

    /// True when the certificate carries an extension with this dotted OID (critical or not),
    /// e.g. Apple's receipt-signing marker `1.2.840.113635.100.6.11.1`.
    func hasExtension(oid: String) -> Bool {
        guard let object = OBJ_txt2obj(oid, 1) else {
            ERR_clear_error()
            return false
        }
        defer { ASN1_OBJECT_free(object) }
        return X509_get_ext_by_OBJ(pointer, object, -1) >= 0
    }
}
