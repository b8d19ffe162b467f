import Foundation
import LedgerCodeGenerator
import XCTest

@testable import IAPAuditModel
@testable import IAPAuditStore

/// The code made from Sources/LedgerDeclarations is checked in: it must be what the declarations make
/// now, and the fact layout it encodes must be the one pinned to the ledger's reader version.
final class GeneratedCodeTests: XCTestCase {
    func testGeneratedFilesAreCurrent() throws {
        for file in LedgerCode.files() {
            let current = try? String(contentsOfFile: TestPaths.repoRoot + "/" + file.path, encoding: .utf8)
            XCTAssertTrue(current == file.contents, "\(file.path) is stale: run `swift run generate-ledger-code`")
        }
    }

    /// Each reader version's fact layout (`FactLayout.fingerprint`). A layout change makes stored facts
    /// unreadable: it must come with a `Schema.readerVersion` bump (the next run reads every file again),
    /// and the new pair is added here.
    /// 9: the same layout as 8 (App Store Connect's reports are imported, with no fact).
    /// 10: the same layout as 9 (a JWS header with `crit` is invalid; a listing below the trust level the rules need
    /// makes no `purchase` fact: docs/security.md).
    /// 11: the same layout as 10 (the transaction of a notification-history entry carries its entry's signature too).
    /// 12: the `lookup` fact (an Apple answer kept with the id asked, rule 25).
    static let pinnedLayouts: [Int: UInt64] = [
        7: 0xCE39_E162_4DF1_E374, 8: 0x8CF4_4A55_E568_EC17, 9: 0x8CF4_4A55_E568_EC17, 10: 0x8CF4_4A55_E568_EC17,
        11: 0x8CF4_4A55_E568_EC17, 12: 0x7D1F_68A3_DE90_E39A,
    ]

    func testTheFactLayoutIsPinnedToTheReaderVersion() {
        XCTAssertEqual(
            FactLayout.fingerprint, Self.pinnedLayouts[Schema.readerVersion],
            "the fact layout changed (0x\(String(FactLayout.fingerprint, radix: 16, uppercase: true))) without a Schema.readerVersion bump")
    }

    /// One fact of every kind encoded with fixed values gives exactly the bytes recorded for this reader
    /// version (Fixtures/fact-layout/v<readerVersion>.hex; IAP_AUDIT_RECORD_GOLDEN=1 writes it anew).
    func testEveryFactKindEncodesToItsGoldenBytes() throws {
        let path = TestPaths.repoRoot + "/Tests/IAPAuditTests/Fixtures/fact-layout/v\(Schema.readerVersion).hex"
        let encoded =
            FactSamples.all().map { "\($0.kind) \($0.bytes.map { String(format: "%02x", $0) }.joined())" }.joined(separator: "\n") + "\n"
        if ProcessInfo.processInfo.environment["IAP_AUDIT_RECORD_GOLDEN"] == "1" {
            try encoded.write(toFile: path, atomically: true, encoding: .utf8)
        }
        let golden = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertEqual(encoded, golden)
        XCTAssertEqual(golden.split(separator: "\n").count, FactKind.allCases.count)
    }

    /// A sample of each kind reads back as written (the generated reader and writer agree).
    func testEveryFactKindReadsBackItsKindByte() {
        for (kind, bytes) in FactSamples.all() {
            XCTAssertEqual(FactKind(rawValue: bytes[0]).map { "\($0)" }, kind)
        }
    }
}
