import Foundation
import XCTest

@testable import IAPAuditCLI
@testable import IAPAuditModel

/// What docs/reference.md and docs/inputs.md say of the command line is what it does (found by a user: a
/// usage line without `--from`/`--to`, warning codes missing, `--prices`/`--tz` documented as if `run`
/// took them).
final class DocumentationTests: XCTestCase {
    func text(_ path: String) throws -> String { try String(contentsOfFile: TestPaths.repoRoot + "/" + path, encoding: .utf8) }

    /// Words separated by single spaces (a wrapped line read as one).
    func words(_ text: some StringProtocol) -> String { text.split(whereSeparator: \.isWhitespace).joined(separator: " ") }

    /// The usage lines at the top of docs/reference.md (the README's moved there) and under its `run` heading.
    func testTheReferenceUsageOfRunIsTheCommandsUsage() throws {
        let reference = try text("docs/reference.md")
        let start = try XCTUnwrap(reference.range(of: "iap-audit run ["))
        let end = try XCTUnwrap(reference.range(of: "\niap-audit ", range: start.upperBound..<reference.endIndex))
        XCTAssertEqual(words(reference[start.lowerBound..<end.lowerBound]), words(RunCommand.usage))
        let section = try XCTUnwrap(reference.range(of: "## `iap-audit run`\n\n```\n"))
        let block = try XCTUnwrap(reference.range(of: "\n```", range: section.upperBound..<reference.endIndex))
        XCTAssertEqual(words(reference[section.upperBound..<block.lowerBound]), words(RunCommand.usage))
    }

    /// An option docs/inputs.md names that `run` does not take is said to belong to `close`, which
    /// docs/close.md documents, and `run` refuses it as a usage error.
    func testOptionsInInputsThatRunDoesNotTakeAreSaidToBeClosesOptions() throws {
        let inputs = try text("docs/inputs.md"), close = try text("docs/close.md")
        let named = Set(inputs.matches(of: /--[a-z][a-z-]*/).map { String($0.output) })
        let notRun = named.subtracting(RunCommand.valuedOptions.union(RunCommand.flags)).sorted()
        XCTAssertEqual(notRun, ["--prices", "--tz"])
        XCTAssertTrue(
            words(inputs).contains(
                "`--prices` and `--tz` are options of `iap-audit close` (docs/close.md), not of `run` (a usage error, exit 64)"),
            "docs/inputs.md")
        let closeUsage = try XCTUnwrap(close.components(separatedBy: "```").dropFirst().first)
        for option in notRun {
            XCTAssertTrue(closeUsage.contains(option), "docs/close.md's usage names \(option)")
            XCTAssertEqual(CLIRun(["run", option, "x"]).status, 64, option)
        }
    }

    /// The README is a guide a new user reads in five minutes: at most 1,500 words (`wc -w`), opening with the two
    /// commands; the reference is docs/reference.md.
    func testTheReadmeIsAShortGuide() throws {
        let readme = try String(contentsOfFile: TestPaths.repoRoot + "/README.md", encoding: .utf8)
        let count = readme.split(whereSeparator: \.isWhitespace).count
        XCTAssertLessThanOrEqual(count, 1500, "README.md has \(count) words: move the reference to docs/reference.md")
        XCTAssertGreaterThan(count, 500, "the README still guides each job")
        XCTAssertTrue(readme.contains("```sh\nscripts/setup.sh && swift run -c release iap-audit run"), "the first command leads")
    }
}
