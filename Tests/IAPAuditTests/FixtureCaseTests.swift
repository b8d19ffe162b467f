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

/// Scenarios as data (DuckDB's `test/sql/**/*.test`, SQLite's `test/*.test`): every folder under
/// `Fixtures/cases/` holds a scenario's input files as a user would have them, optionally
/// `config.json` (`--config`), and `expected.json` (the exact findings, the as-of, the record
/// counts and rejections). Each case runs through the production pipeline (`AuditPipeline.run`)
/// on a copy of its inputs; the findings stored are compared with `expected.json`.
/// `Fixtures/cases/README.md` says how to add a case. `IAP_AUDIT_CASE=<name>` runs one case only.
final class FixtureCaseTests: XCTestCase {
    static var casesFolder: String { TestPaths.repoRoot + "/Tests/IAPAuditTests/Fixtures/cases" }

    /// Files of a case folder that are not inputs.
    static let notInputs: Set<String> = ["expected.json", "config.json"]

    /// Keys `expected.json` may hold, and those of each finding. `rules` (the docs/semantics.md rule numbers the case
    /// tests) is not run: `SemanticsDocTests` checks it against the doc.
    static let expectedKeys: Set<String> = [
        "description", "rules", "as_of", "from", "to", "grace_hours", "findings", "records_in", "imported", "rejected", "rejections",
    ]
    static let findingKeys: Set<String> = [
        "kind", "reason", "transaction_id", "user_ids", "severity", "environment", "first_seen", "evidence", "detail",
        "apple_confirmation",
    ]

    struct CaseError: Error, CustomStringConvertible {
        let description: String
    }

    static func caseNames() throws -> [String] {
        let names = try FileManager.default.contentsOfDirectory(atPath: casesFolder).filter {
            var folder: ObjCBool = false
            return !$0.hasPrefix(".") && FileManager.default.fileExists(atPath: casesFolder + "/" + $0, isDirectory: &folder)
                && folder.boolValue
        }
        return names.sorted()
    }

    func testEveryCase() throws {
        let only = ProcessInfo.processInfo.environment["IAP_AUDIT_CASE"].flatMap { $0.isEmpty ? nil : $0 }
        let names = try Self.caseNames().filter { only == nil || $0 == only }
        XCTAssertFalse(names.isEmpty, "no case folder under \(Self.casesFolder)" + (only.map { " named \($0)" } ?? ""))
        for name in names {
            do {
                let problems = try Self.check(name)
                if !problems.isEmpty {
                    XCTFail("case \(name) (Fixtures/cases/\(name)):\n" + problems.joined(separator: "\n"))
                }
            } catch {
                XCTFail("case \(name) (Fixtures/cases/\(name)): \(error)")
            }
        }
    }

    /// Each case folder holds its expectations and at least one input.
    func testEveryCaseHasInputsAndExpectations() throws {
        for name in try Self.caseNames() {
            let files = try FileManager.default.contentsOfDirectory(atPath: Self.casesFolder + "/" + name)
            XCTAssertTrue(files.contains("expected.json"), "case \(name) has no expected.json")
            XCTAssertFalse(files.filter { !Self.notInputs.contains($0) }.isEmpty, "case \(name) has no input file")
        }
    }

    /// Runs one case; returns what differs from its `expected.json` (empty when it passes).
    static func check(_ name: String) throws -> [String] {
        let scratch = TestPaths.scratch("case-\(name)")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let (result, expected, inputs) = try run(name, in: scratch)
        let relative = { (path: String) in path.hasPrefix(inputs + "/") ? String(path.dropFirst(inputs.count + 1)) : path }

        var problems: [String] = []
        for file in result.snapshot.files where file.status != "imported" {
            problems.append("  input \(relative(file.path)) was \(file.status), not imported: \(file.note)")
        }
        let totals = result.snapshot.files.reduce(into: (0 as Int64, 0 as Int64, 0 as Int64)) {
            $0 = ($0.0 + $1.recordsIn, $0.1 + $1.recordsImported, $0.2 + $1.recordsRejected)
        }
        for (key, value) in [("records_in", totals.0), ("imported", totals.1), ("rejected", totals.2)] {
            if let want = expected[key], (want as? Int).map(Int64.init) != value {
                problems.append("  \(key): expected \(want), found \(value)")
            }
        }
        // A case without "rejections" expects none: a typo in an input must not go unseen.
        let rejections = try result.snapshot.rejections.all().map { "\(relative($0.location.file)):\($0.location.line): \($0.reason)" }
        let wantRejections = expected["rejections"] as? [String] ?? []
        if !sameBytes(rejections, wantRejections) {
            problems.append("  rejections differ:\n    expected \(json(wantRejections))\n    found    \(json(rejections))")
        }
        let findings = try result.snapshot.findings.all()
        problems += compareFindings(expected["findings"] as? [[String: Any]] ?? [], findings, relative: relative)
        return problems
    }

    /// Runs case `name` through the production pipeline on a copy of its inputs (`scratch/inputs`), its ledger and
    /// workbook in `scratch/out`, with the options its `expected.json` names; returns the result, the expectations and
    /// the inputs' folder.
    static func run(_ name: String, in scratch: String) throws -> (AuditResult, expected: [String: Any], inputs: String) {
        let folder = casesFolder + "/" + name
        let expected = try readExpected(folder + "/expected.json")
        var config = AuditConfig()
        if FileManager.default.fileExists(atPath: folder + "/config.json") {
            config = try ConfigLoader.load(path: folder + "/config.json")
        }
        // The inputs alone, copied: expected.json and config.json are not evidence.
        let inputs = scratch + "/inputs"
        try FileManager.default.createDirectory(atPath: inputs, withIntermediateDirectories: true)
        let inputNames = try FileManager.default.contentsOfDirectory(atPath: folder).filter { !notInputs.contains($0) }.sorted()
        for file in inputNames {
            try FileManager.default.copyItem(atPath: folder + "/" + file, toPath: inputs + "/" + file)
        }
        var options = AuditOptions(paths: [inputs], outputDirectory: scratch + "/out", config: config)
        if let asOf = expected["as_of"] {
            guard let text = asOf as? String else { throw CaseError(description: "expected.json: as_of must be text") }
            options.asOfMs = try RunCommand.asOf(text)
        }
        for (key, endOfDay) in [("from", false), ("to", true)] {
            guard let value = expected[key] else { continue }
            guard let text = value as? String else { throw CaseError(description: "expected.json: \(key) must be text") }
            let ms = try RunCommand.bound(text, "--" + key, endOfDay: endOfDay)
            if endOfDay { options.toMs = ms } else { options.fromMs = ms }
        }
        if let grace = expected["grace_hours"] {
            guard let hours = grace as? Double else { throw CaseError(description: "expected.json: grace_hours must be a number") }
            options.graceMs = Int64(hours * 3_600_000)
        }
        let result = try AuditPipeline.run(options)
        return (result, expected, inputs)
    }

    static func readExpected(_ path: String) throws -> [String: Any] {
        guard let data = FileManager.default.contents(atPath: path) else { throw CaseError(description: "no expected.json") }
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw CaseError(description: "expected.json is not a JSON object")
        }
        let unknown = Set(object.keys).subtracting(expectedKeys)
        if !unknown.isEmpty {
            throw CaseError(description: "expected.json: unknown keys \(unknown.sorted()) (known: \(expectedKeys.sorted()))")
        }
        guard object["description"] is String else {
            throw CaseError(description: "expected.json: no \"description\" saying what the case shows")
        }
        guard let findings = object["findings"] as? [[String: Any]] else {
            throw CaseError(description: "expected.json: \"findings\" must be a list of objects (empty when none)")
        }
        for finding in findings {
            let unknown = Set(finding.keys).subtracting(findingKeys)
            let missing = ["kind", "reason", "transaction_id", "user_ids"].filter { finding[$0] == nil }
            if !unknown.isEmpty || !missing.isEmpty {
                throw CaseError(
                    description: "expected.json: finding \(json(finding)): unknown keys \(unknown.sorted()), missing \(missing)")
            }
        }
        return object
    }

    /// The four keys of a finding, as `expected.json` writes them.
    static func key(_ finding: Finding) -> [String: Any] {
        ["kind": finding.kind.rawValue, "reason": finding.reason, "transaction_id": finding.transactionId, "user_ids": finding.userIds]
    }

    /// Findings in the finding table's order; where an expected finding names `environment`,
    /// `evidence` (file:line relative to the case) or `detail`, those are compared too.
    static func compareFindings(_ expected: [[String: Any]], _ found: [Finding], relative: (String) -> String) -> [String] {
        let core = ["kind", "reason", "transaction_id", "user_ids"]
        let wantKeys = expected.map { object in json(object.filter { core.contains($0.key) }) }
        let foundKeys = found.map { json(key($0)) }
        var problems: [String] = []
        if !sameBytes(wantKeys, foundKeys) {
            let missing = wantKeys.filter { want in !foundKeys.contains { sameBytes([$0], [want]) } }
            let extra = foundKeys.filter { found in !wantKeys.contains { sameBytes([$0], [found]) } }
            problems.append("  findings differ:")
            for line in missing { problems.append("    expected, not found: \(visible(line))") }
            for line in extra { problems.append("    found, not expected: \(visible(line))") }
            if missing.isEmpty && extra.isEmpty {
                problems.append(
                    "    the same findings in another order: list them as the finding table does (kind, reason, transaction_id, user_ids)")
            }
            problems.append("    found, as expected.json lists them:\n" + found.map { "      " + json(key($0)) }.joined(separator: ",\n"))
            return problems
        }
        for (want, finding) in zip(expected, found) {
            let label = "  \(finding.kind.rawValue)/\(finding.reason)/\(finding.transactionId)"
            var actual: [String: Any] = [
                "severity": finding.severity.rawValue, "environment": finding.environment ?? NSNull(),
                "first_seen": finding.firstSeenMs.map(Timestamp.iso) ?? NSNull(),
                "evidence": finding.evidence.map { "\(relative($0.file)):\($0.line)" }, "detail": finding.detail,
                "apple_confirmation": finding.appleConfirmation?.rawValue ?? NSNull(),
            ]
            actual = actual.filter { want[$0.key] != nil }
            let wanted = want.filter { actual[$0.key] != nil }
            for key in actual.keys.sorted() where !sameBytes([json(wanted[key]!)], [json(actual[key]!)]) {
                problems.append("\(label): \(key) expected \(json(wanted[key]!)), found \(json(actual[key]!))")
            }
        }
        return problems
    }

    /// Texts compared byte for byte (Swift's `==` would call "é" and "e" + U+0301 equal).
    static func sameBytes(_ a: [String], _ b: [String]) -> Bool { a.map { Array($0.utf8) } == b.map { Array($0.utf8) } }

    /// Non-ASCII characters as `\u{…}`, so texts that differ only in their bytes look different.
    static func visible(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { !$0.isASCII }) else { return text }
        return text.unicodeScalars.map { $0.isASCII ? String($0) : "\\u{\(String($0.value, radix: 16))}" }.joined()
    }

    static func json(_ value: Any) -> String {
        guard
            let data = try? JSONSerialization.data(
                withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])
        else { return "\(value)" }
        return String(decoding: data, as: UTF8.self)
    }
}
