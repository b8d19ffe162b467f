@testable import IAPAuditCLI
@testable import IAPAuditCrypto
@testable import IAPAuditIngest
@testable import IAPAuditModel
@testable import IAPAuditPipeline
@testable import IAPAuditReconcile
@testable import IAPAuditReport
@testable import IAPAuditSample
@testable import IAPAuditStore

/// Builds small DER structures for tests (definite lengths, minimal encoding).
enum DERTestEncoding {
    static func tlv(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        let count = content.count
        let length: [UInt8]
        if count < 0x80 {
            length = [UInt8(count)]
        } else {
            var bytes: [UInt8] = []
            var rest = count
            while rest > 0 {
                bytes.insert(UInt8(rest & 0xFF), at: 0)
                rest >>= 8
            }
            length = [0x80 | UInt8(bytes.count)] + bytes
        }
        return [tag] + length + content
    }

    static func sequence(_ parts: [UInt8]...) -> [UInt8] { tlv(0x30, parts.flatMap { $0 }) }
    static func set(_ parts: [[UInt8]]) -> [UInt8] { tlv(0x31, parts.flatMap { $0 }) }
    static func integer(_ value: Int64) -> [UInt8] {
        var bytes = withUnsafeBytes(of: value.bigEndian, Array.init)
        while bytes.count > 1, (bytes[0] == 0 && bytes[1] < 0x80) || (bytes[0] == 0xFF && bytes[1] >= 0x80) { bytes.removeFirst() }
        return tlv(0x02, bytes)
    }
    static func utf8(_ text: String) -> [UInt8] { tlv(0x0C, Array(text.utf8)) }
    static func ia5(_ text: String) -> [UInt8] { tlv(0x16, Array(text.utf8)) }
    static let signedDataOID: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02]
    static let dataOID: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x01]

    /// One receipt field `SEQUENCE { type, version 1, OCTET STRING value }`.
    static func field(_ type: Int64, _ value: [UInt8]) -> [UInt8] { sequence(integer(type), integer(1), tlv(0x04, value)) }

    /// A ContentInfo(signedData) with `payload` attached (no certificates or signer infos).
    static func envelope(_ payload: [UInt8]) -> [UInt8] {
        let encap = sequence(dataOID, tlv(0xA0, tlv(0x04, payload)))
        let signedData = sequence(integer(1), set([]), encap, set([]))
        return sequence(signedDataOID, tlv(0xA0, signedData))
    }
}
