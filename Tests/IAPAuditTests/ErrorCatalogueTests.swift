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

/// The catalogue of rejection messages (hledger's `test/errors/`): every file in `Fixtures/errors/`
/// is a small input a user could have, and `<file>.expected` beside it holds the exact
/// `file:line: error: reason` lines `iap-audit run <file>` prints on stderr for it, the path
/// written as the fixture's name. `Fixtures/errors/README.md` says how to add one;
/// `IAP_AUDIT_RECORD_ERRORS=1` writes the expected file of a fixture that has none (read it before
/// committing it: the file is the specification of the message).
final class ErrorCatalogueTests: XCTestCase {
    static var folder: String { TestPaths.repoRoot + "/Tests/IAPAuditTests/Fixtures/errors" }
    static let expectedSuffix = ".expected"
    static let notFixtures: Set<String> = ["README.md"]

    static func names() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).filter { !$0.hasPrefix(".") && !notFixtures.contains($0) }.sorted()
    }

    static func fixtures() throws -> [String] { try names().filter { !$0.hasSuffix(expectedSuffix) } }

    /// The `: error: ` lines `iap-audit run <fixture>` prints, the fixture's path shown as its name.
    static func diagnostics(_ fixture: String) -> (status: Int32, lines: [String]) {
        let out = TestPaths.scratch("errors-\(fixture)")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let run = CLIRun(["run", folder + "/" + fixture, "--out", out])
        let lines = run.err.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter {
            $0.contains(": error: ")
        }
        return (run.status, lines.map { $0.hasPrefix(folder + "/") ? String($0.dropFirst(folder.count + 1)) : $0 })
    }

    func testEveryFixturePrintsExactlyItsExpectedDiagnostics() throws {
        let record = ProcessInfo.processInfo.environment["IAP_AUDIT_RECORD_ERRORS"] == "1"
        let fixtures = try Self.fixtures()
        XCTAssertFalse(fixtures.isEmpty, "no fixture in \(Self.folder)")
        for fixture in fixtures {
            let (status, lines) = Self.diagnostics(fixture)
            XCTAssertEqual(status, 0, "\(fixture): a rejected record must not stop the run")
            XCTAssertFalse(lines.isEmpty, "\(fixture): no diagnostic printed (every fixture shows at least one rejection)")
            let expectedPath = Self.folder + "/" + fixture + Self.expectedSuffix
            guard let data = FileManager.default.contents(atPath: expectedPath) else {
                if record {
                    try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: expectedPath))
                    XCTFail("\(fixture): recorded \(fixture)\(Self.expectedSuffix); read every message before committing it")
                }
                continue  // testEveryFixtureHasAnExpectedFile names it
            }
            let expected = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
            // Compared byte for byte: Swift's `==` would call canonically equivalent texts equal.
            if expected.map({ Array($0.utf8) }) != lines.map({ Array($0.utf8) }) {
                XCTFail(
                    "\(fixture): the diagnostics differ from \(fixture)\(Self.expectedSuffix)\n  expected:\n"
                        + expected.map { "    " + $0 }.joined(separator: "\n") + "\n  printed:\n"
                        + lines.map { "    " + $0 }.joined(separator: "\n"))
            }
        }
    }

    /// Every fixture has its expected file, and every expected file its fixture.
    func testEveryFixtureHasAnExpectedFileAndEveryExpectedFileAFixture() throws {
        let names = Set(try Self.names())
        for fixture in try Self.fixtures() where !names.contains(fixture + Self.expectedSuffix) {
            XCTFail("\(fixture) has no \(fixture)\(Self.expectedSuffix) (IAP_AUDIT_RECORD_ERRORS=1 records it from this build)")
        }
        for name in names where name.hasSuffix(Self.expectedSuffix) && !names.contains(String(name.dropLast(Self.expectedSuffix.count))) {
            XCTFail("\(name) has no fixture \(name.dropLast(Self.expectedSuffix.count))")
        }
    }
}
