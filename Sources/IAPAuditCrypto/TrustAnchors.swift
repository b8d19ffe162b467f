import COpenSSL
import Foundation
import IAPAuditModel

/// The root certificates a signature chain must end at, as DER.
///
/// Apple's JWS (App Store Server API, Notifications V2, StoreKit 2) chain to Apple Root CA - G3;
/// app receipts (PKCS#7) chain to the older Apple Root CA. Tests add Apple's throw-away test CA or
/// Xcode's StoreKit testing certificate.
public struct TrustAnchors: Sendable, Equatable {
    /// DER certificates, in the order given. Bytes that do not decode as a certificate are kept here
    /// but ignored by `SignatureVerifier`; `load(paths:)` refuses them.
    public let certificates: [Data]

    /// - Parameter certificates: DER-encoded X.509 certificates.
    public init(certificates: [Data]) {
        self.certificates = certificates
    }

    /// No anchors: every chain is `untrusted_root` at best.
    public static let none = TrustAnchors(certificates: [])

    /// Reads trust anchors from files, in order.
    ///
    /// A file holds one DER certificate (`.cer`, `.der`) or PEM text with one or more
    /// `-----BEGIN CERTIFICATE-----` blocks (other PEM blocks are skipped).
    /// - Throws: `CryptoError.unreadableCertificate` for the first file that cannot be read or holds no
    ///   decodable certificate.
    public static func load(paths: [String]) throws -> TrustAnchors {
        var certificates: [Data] = []
        for path in paths {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                throw CryptoError.unreadableCertificate(path: path, reason: "no such file")
            }
            if isFolder.boolValue { throw CryptoError.unreadableCertificate(path: path, reason: "a folder, not a certificate file") }
            guard let data = FileManager.default.contents(atPath: path) else {
                throw CryptoError.unreadableCertificate(path: path, reason: "cannot read the file")
            }
            certificates += try decode(data, path: path)
        }
        return TrustAnchors(certificates: certificates)
    }

    /// The DER certificates in one file's bytes.
    static func decode(_ data: Data, path: String) throws -> [Data] {
        if data.isEmpty {
            throw CryptoError.unreadableCertificate(path: path, reason: "the file is empty")
        }
        if data.range(of: Data("-----BEGIN".utf8)) != nil {
            let found = pemCertificates(data)
            if found.isEmpty {
                throw CryptoError.unreadableCertificate(path: path, reason: "no decodable PEM CERTIFICATE block")
            }
            return found
        }
        guard let certificate = X509Certificate(der: data) else {
            throw CryptoError.unreadableCertificate(path: path, reason: "not a DER or PEM X.509 certificate")
        }
        return [certificate.der]
    }

    /// Every PEM `CERTIFICATE` block OpenSSL can decode, as DER.
    static func pemCertificates(_ data: Data) -> [Data] {
        var found: [Data] = []
        data.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return }
            defer { BIO_free(bio) }
            while let certificate = PEM_read_bio_X509(bio, nil, nil, nil) {
                found.append(X509Certificate(retaining: certificate).der)
                X509_free(certificate)
            }
        }
        ERR_clear_error()  // the loop ends on "no start line": not an error
        return found
    }
}
