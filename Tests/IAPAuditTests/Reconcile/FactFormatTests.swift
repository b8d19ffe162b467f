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

/// The fact format is stored (table `fact_chunk`): its primitives round-trip, ids keep their exact
/// text, and a key lands in the same partition in every run.
final class FactFormatTests: XCTestCase {
    func testPrimitivesRoundTrip() {
        var w = FactWriter()
        w.u8(7)
        w.u32(4_000_000_000)
        w.i64(-9_000_000_000_000)
        w.optional(Int64?.none)
        w.optional(Int64?.some(42))
        w.optional(Bool?.none)
        w.optional(Bool?.some(false))
        w.optional(Bool?.some(true))
        w.varint(300)
        for v: Int64 in [0, -1, 1, Int64.min, Int64.max, -21007] { w.zigzag(v) }
        w.text(nil as String?)
        w.text("")
        w.text("é🙂")
        for id in ["2000000400000001", "0", "00", "0123", "-1", "9223372036854775807", "9223372036854775808", "12a", "abc"] { w.id(id) }
        w.id(nil as String?)
        w.bytes.withUnsafeBufferPointer { b in
            var r = FactReader(b.baseAddress!, count: b.count)
            XCTAssertEqual(r.u8(), 7)
            XCTAssertEqual(r.u32(), 4_000_000_000)
            XCTAssertEqual(r.i64(), -9_000_000_000_000)
            XCTAssertNil(r.optionalInt())
            XCTAssertEqual(r.optionalInt(), 42)
            XCTAssertNil(r.optionalBool())
            XCTAssertEqual(r.optionalBool(), false)
            XCTAssertEqual(r.optionalBool(), true)
            XCTAssertEqual(r.varint(), 300)
            for v: Int64 in [0, -1, 1, Int64.min, Int64.max, -21007] { XCTAssertEqual(r.zigzag(), v) }
            XCTAssertNil(r.text())
            let bytes = PartitionBytes()
            bytes.append(UnsafeRawBufferPointer(b), fileId: 0)
            XCTAssertEqual(r.text().flatMap(bytes.string), "")
            XCTAssertEqual(r.text().flatMap(bytes.string), "é🙂")
            var ids: [String] = []
            for _ in 0..<9 { ids.append(GlobalId(r.id()!, in: bytes).text) }
            XCTAssertEqual(ids, ["2000000400000001", "0", "00", "0123", "-1", "9223372036854775807", "9223372036854775808", "12a", "abc"])
            XCTAssertNil(r.id())
            XCTAssertTrue(r.isAtEnd)
        }
    }

    func testOnlyCanonicalDecimalsAreNumbers() {
        func number(_ s: String) -> UInt64? {
            var s = s
            return s.withUTF8 { FactKey.canonicalNumber($0) }
        }
        XCTAssertEqual(number("2000000400000001"), 2_000_000_400_000_001)
        XCTAssertEqual(number("0"), 0)
        XCTAssertEqual(number("9223372036854775807"), 9_223_372_036_854_775_807)
        for text in ["", "00", "01", "-1", "+1", "1.0", "1e3", " 1", "9223372036854775808", "99999999999999999999", "١"] {
            XCTAssertNil(number(text), text)
        }
    }

    /// Changing these changes where stored facts are found: it needs `Schema.readerVersion` bumped
    /// (every file read again).
    func testPartitionsAreStable() {
        func part(_ s: String) -> Int {
            var s = s
            return s.withUTF8 { FactKey.partition(id: $0) }
        }
        func textPart(_ s: String) -> Int {
            var s = s
            return s.withUTF8 { FactKey.partition(text: $0) }
        }
        XCTAssertEqual(FactKey.partitions, 256)
        XCTAssertEqual(
            ["2000000400000001", "2000000400000002", "1000000001479608", "T1"].map(part), [112, 13, 64, 45])
        XCTAssertEqual(part("2000000400000001"), FactKey.partition(number: 2_000_000_400_000_001))
        XCTAssertEqual(["r0000000000000001", "uuid-1"].map(textPart), [128, 242])
    }

    /// The environment codes of facts are `AppleRecord.effectiveEnvironment` and `Environment.normalized`.
    func testEnvironmentCodesAreTheRecordsOwnReading() {
        let environments: [String?] = [nil, "Production", "Sandbox", "sandbox", "PROD", "Xcode", "localtesting", "LocalTestingxxx", ""]
        let receiptTypes: [String?] = [nil, "Production", "ProductionSandbox", "ProductionVPP", "ProductionVPPSandbox", "Xcode", "Weird"]
        for status in [0, 21007, 21002] {
            for environment in environments {
                for receiptType in receiptTypes {
                    let response = AppleRecord(
                        location: SourceLocation(file: "v", line: 1), requestId: nil, receivedAtMs: nil, status: status,
                        environment: environment, isRetryable: nil, bundleId: nil, receiptType: receiptType, items: [], rawJSON: "")
                    var e = environment ?? ""
                    var t = receiptType ?? ""
                    let (code, raw) = e.withUTF8 { eb in
                        t.withUTF8 { tb in
                            let (code, raw) = EnvironmentCode.effective(
                                status: Int64(status), environment: environment == nil ? nil : eb,
                                receiptType: receiptType == nil ? nil : tb)
                            return (code, raw.map { String(decoding: $0, as: UTF8.self) })
                        }
                    }
                    XCTAssertEqual(
                        code.name ?? raw, response.effectiveEnvironment, "\(status) \(environment ?? "nil") \(receiptType ?? "nil")")
                    XCTAssertEqual(code.isSandbox, response.isSandbox)
                }
            }
        }
    }
}
