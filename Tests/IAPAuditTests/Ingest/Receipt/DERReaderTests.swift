import Foundation
import XCTest

@testable import IAPAuditCLI
@testable import IAPAuditCrypto
@testable import IAPAuditIngest
@testable import IAPAuditModel
@testable import IAPAuditPipeline
@testable import IAPAuditReconcile
@testable import IAPAuditReport
@testable import IAPAuditSample
@testable import IAPAuditStore

/// The ASN.1 reader on invented input, hostile input included: every malformed case must throw, never trap.
final class DERReaderTests: XCTestCase {
    private func first(_ bytes: [UInt8], _ mode: DERReader.Mode = .der) throws -> DERElement {
        var reader = DERReader(bytes, mode: mode)
        return try XCTUnwrap(try reader.next())
    }

    private func assertThrows(_ bytes: [UInt8], _ mode: DERReader.Mode = .der, _ message: String, line: UInt = #line) {
        XCTAssertThrowsError(try Self.walk(bytes, mode), line: line) { XCTAssertEqual("\($0)", message, line: line) }
    }

    /// Reads every element at every level, decoding primitives as the receipt code would.
    private static func walk(_ bytes: [UInt8], _ mode: DERReader.Mode) throws {
        func level(_ reader: inout DERReader) throws {
            while let element = try reader.next() {
                if element.isConstructed {
                    var inner = try reader.children(of: element)
                    try level(&inner)
                }
            }
        }
        var top = DERReader(bytes, mode: mode)
        try level(&top)
    }

    func testSequenceOfPrimitives() throws {
        let bytes = DERTestEncoding.sequence(
            DERTestEncoding.integer(5), DERTestEncoding.tlv(0x04, [0x61, 0x62]), DERTestEncoding.utf8("é"))
        var top = DERReader(bytes)
        let sequence = try XCTUnwrap(try top.next())
        XCTAssertEqual(sequence.tagName, "SEQUENCE")
        XCTAssertNil(try top.next())
        var children = try top.children(of: sequence)
        XCTAssertEqual(try children.required("int").int64(in: bytes), 5)
        XCTAssertEqual(try children.octetString(children.required("octets")), [0x61, 0x62])
        XCTAssertEqual(try children.required("text").utf8String(in: bytes), "é")
        XCTAssertThrowsError(try children.required("more")) { XCTAssertEqual("\($0)", "receipt DER: missing more at byte 13") }
    }

    func testIntegers() throws {
        XCTAssertEqual(try first([0x02, 0x02, 0x00, 0x80]).int64(in: [0x02, 0x02, 0x00, 0x80]), 128)
        XCTAssertEqual(try first([0x02, 0x01, 0xFF]).int64(in: [0x02, 0x01, 0xFF]), -1)
        let max: [UInt8] = [0x02, 0x08, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        XCTAssertEqual(try first(max).int64(in: max), Int64.max)
        let twoTo64: [UInt8] = [0x02, 0x09, 0x01, 0, 0, 0, 0, 0, 0, 0, 0]
        XCTAssertThrowsError(try first(twoTo64).int64(in: twoTo64)) {
            XCTAssertEqual("\($0)", "receipt DER: INTEGER of 9 bytes does not fit in 64 bits at byte 0")
        }
        XCTAssertEqual(try first(twoTo64).integerDigits(in: twoTo64), "18446744073709551616")
        let minusTwoTo64: [UInt8] = [0x02, 0x09, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0]
        XCTAssertEqual(try first(minusTwoTo64).integerDigits(in: minusTwoTo64), "-18446744073709551616")
        XCTAssertEqual(try first([0x02, 0x01, 0x2A]).integerDigits(in: [0x02, 0x01, 0x2A]), "42")
        XCTAssertThrowsError(try first([0x02, 0x02, 0x00, 0x05]).int64(in: [0x02, 0x02, 0x00, 0x05])) {
            XCTAssertEqual("\($0)", "receipt DER: INTEGER not minimally encoded at byte 0")
        }
        XCTAssertThrowsError(try first([0x02, 0x00]).int64(in: [0x02, 0x00])) {
            XCTAssertEqual("\($0)", "receipt DER: empty INTEGER at byte 0")
        }
        XCTAssertThrowsError(try first([0x0C, 0x01, 0x41]).int64(in: [0x0C, 0x01, 0x41])) {
            XCTAssertEqual("\($0)", "receipt DER: expected INTEGER, found UTF8String at byte 0")
        }
    }

    func testObjectIdentifiersAndStrings() throws {
        let oid = DERTestEncoding.signedDataOID
        XCTAssertEqual(try first(oid).objectIdentifier(in: oid), "1.2.840.113549.1.7.2")
        XCTAssertThrowsError(try first([0x06, 0x02, 0x2A, 0x86]).objectIdentifier(in: [0x06, 0x02, 0x2A, 0x86])) {
            XCTAssertEqual("\($0)", "receipt DER: truncated OBJECT IDENTIFIER at byte 0")
        }
        let longArc: [UInt8] = [0x06, 0x0B, 0x2A] + [UInt8](repeating: 0xFF, count: 9) + [0x7F]
        XCTAssertThrowsError(try first(longArc).objectIdentifier(in: longArc)) {
            XCTAssertEqual("\($0)", "receipt DER: OBJECT IDENTIFIER arc exceeds 64 bits at byte 0")
        }
        XCTAssertThrowsError(try first([0x16, 0x01, 0xC3]).ia5String(in: [0x16, 0x01, 0xC3])) {
            XCTAssertEqual("\($0)", "receipt DER: IA5String holds a non-ASCII byte at byte 0")
        }
        XCTAssertThrowsError(try first([0x0C, 0x01, 0xFF]).utf8String(in: [0x0C, 0x01, 0xFF])) {
            XCTAssertEqual("\($0)", "receipt DER: UTF8String is not valid UTF-8 at byte 0")
        }
        let highTag: [UInt8] = [0x9F, 0x81, 0x00, 0x00]
        XCTAssertEqual(try first(highTag).tagName, "[128]")
    }

    func testTruncatedAndOverlongLengthsThrow() {
        assertThrows([0x30], .der, "receipt DER: truncated length at byte 0")
        assertThrows([0x30, 0x05, 0x02], .der, "receipt DER: length 5 runs past the end of the data (1 byte left) at byte 0")
        assertThrows(
            [0x30, 0x84, 0xFF, 0xFF, 0xFF, 0xFF], .ber,
            "receipt DER: length 4294967295 runs past the end of the data (0 bytes left) at byte 0")
        assertThrows([0x30, 0x88, 1, 2, 3, 4, 5, 6, 7, 8], .ber, "receipt DER: length of 8 bytes is too large at byte 0")
        assertThrows([0x30, 0xFF], .ber, "receipt DER: length of 127 bytes is too large at byte 0")
        assertThrows([0x30, 0x82, 0x01], .der, "receipt DER: truncated length at byte 0")
        assertThrows([0x30, 0x81, 0x03, 0x02, 0x01, 0x05], .der, "receipt DER: length 3 not minimally encoded at byte 0")
        assertThrows([0x30, 0x03, 0x02, 0x05, 0x05], .der, "receipt DER: length 5 runs past the end of the data (1 byte left) at byte 2")
        assertThrows([0x1F], .der, "receipt DER: truncated tag number at byte 0")
        assertThrows([0x1F, 0x81, 0x81, 0x81, 0x81, 0x01, 0x00], .der, "receipt DER: tag number longer than 4 bytes at byte 0")
        XCTAssertNoThrow(try Self.walk([0x30, 0x81, 0x03, 0x02, 0x01, 0x05], .ber), "BER allows a non-minimal length")
    }

    func testIndefiniteLengths() throws {
        let bytes: [UInt8] = [0x30, 0x80, 0x02, 0x01, 0x05, 0x24, 0x80, 0x04, 0x01, 0x61, 0x04, 0x01, 0x62, 0x00, 0x00, 0x00, 0x00]
        assertThrows(bytes, .der, "receipt DER: indefinite length in DER at byte 0")
        var top = DERReader(bytes, mode: .ber)
        let sequence = try XCTUnwrap(try top.next())
        XCTAssertTrue(sequence.isIndefiniteLength)
        XCTAssertTrue(top.isAtEnd)
        var children = try top.children(of: sequence)
        XCTAssertEqual(try children.required("int").int64(in: bytes), 5)
        XCTAssertEqual(try children.octetString(children.required("octets")), Array("ab".utf8), "constructed OCTET STRING chunks joined")
        XCTAssertNil(try children.next())
        assertThrows([0x30, 0x80, 0x02, 0x01, 0x05], .ber, "receipt DER: indefinite length without end-of-contents at byte 2")
        assertThrows([0x30, 0x80, 0x00, 0x01], .ber, "receipt DER: malformed end-of-contents at byte 2")
        assertThrows([0x04, 0x80, 0x00, 0x00], .ber, "receipt DER: indefinite length on a primitive element at byte 0")
    }

    func testDeepNestingThrowsInsteadOfExhaustingTheStack() {
        let indefinite = [UInt8](repeating: 0, count: 40_000).enumerated().map { $0.offset % 2 == 0 ? 0x30 : 0x80 } as [UInt8]
        assertThrows(indefinite, .ber, "receipt DER: nesting deeper than 32 levels at byte 64")
        var definite: [UInt8] = [0x05, 0x00]
        for _ in 0..<100 { definite = DERTestEncoding.sequence(definite) }
        XCTAssertThrowsError(try Self.walk(definite, .der)) { XCTAssertTrue("\($0)".contains("nesting deeper than 32 levels"), "\($0)") }
    }

    func testPKCS7EnvelopeErrors() throws {
        let payload = DERTestEncoding.set([])
        XCTAssertEqual(try PKCS7Envelope(der: DERTestEncoding.envelope(payload)).content, payload)
        let dataOnly = DERTestEncoding.sequence(DERTestEncoding.dataOID, DERTestEncoding.tlv(0xA0, DERTestEncoding.tlv(0x04, [])))
        XCTAssertThrowsError(try PKCS7Envelope(der: dataOnly)) {
            XCTAssertEqual("\($0)", "not a PKCS#7 signed-data receipt: content type 1.2.840.113549.1.7.1, expected 1.2.840.113549.1.7.2")
        }
        XCTAssertThrowsError(try PKCS7Envelope(der: DERTestEncoding.sequence(DERTestEncoding.integer(1)))) {
            XCTAssertEqual("\($0)", "not a PKCS#7 signed-data receipt: ContentInfo starts with INTEGER, not an OID")
        }
        XCTAssertThrowsError(try PKCS7Envelope(der: DERTestEncoding.integer(1))) {
            XCTAssertEqual("\($0)", "not a PKCS#7 signed-data receipt: expected ContentInfo SEQUENCE, found INTEGER at byte 0")
        }
        let detached = DERTestEncoding.sequence(
            DERTestEncoding.signedDataOID,
            DERTestEncoding.tlv(
                0xA0,
                DERTestEncoding.sequence(
                    DERTestEncoding.integer(1), DERTestEncoding.set([]), DERTestEncoding.sequence(DERTestEncoding.dataOID))))
        XCTAssertThrowsError(try PKCS7Envelope(der: detached)) {
            XCTAssertEqual("\($0)", "PKCS#7 signed data has no attached content (detached signature): no receipt inside")
        }
        XCTAssertThrowsError(try PKCS7Envelope(der: DERTestEncoding.envelope(payload) + [0x00])) {
            XCTAssertEqual("\($0)", "receipt DER: 1 unexpected byte after the PKCS#7 ContentInfo at byte 43")
        }
    }

    /// Every truncation and many byte corruptions of a real receipt throw or decode; none traps.
    func testMutatedRealReceiptsNeverTrap() throws {
        let text = try ReceiptFixtures.data("apple__app-store-server-library-swift/xcode-app-receipt-with-transaction")
        let der = [UInt8](try XCTUnwrap(Data(base64Encoded: text)))
        let checker = NoSignatureChecking()
        func attempt(_ bytes: [UInt8]) -> Bool {
            (try? AppReceiptReader.read(
                Data(bytes), at: SourceLocation(file: "m", line: 1), requestId: nil, receivedAtMs: nil, checker: checker)) != nil
        }
        XCTAssertTrue(attempt(der))
        var truncatedOK = 0
        for length in 2..<der.count where attempt(Array(der.prefix(length))) { truncatedOK += 1 }
        XCTAssertEqual(truncatedOK, 0, "no truncation of the receipt decodes")
        var generator = SplitMix64(seed: 1719)
        var decoded = 0
        for _ in 0..<3000 {
            var bytes = der
            for _ in 0..<Int(generator.next() % 3 + 1) {
                bytes[Int(generator.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: generator.next())
            }
            if attempt(bytes) { decoded += 1 }
        }
        XCTAssertGreaterThan(decoded, 0, "corruptions inside certificates or signatures still decode")
    }
}

/// A small deterministic random generator for the corruption test.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
