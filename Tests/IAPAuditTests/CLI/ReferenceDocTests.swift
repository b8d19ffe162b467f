import Foundation
import XCTest

@testable import IAPAuditCLI
@testable import IAPAuditModel

/// docs/reference.md, the help texts and the code say the same: each command's options (the sets its parser
/// accepts) are the ones the page lists under the command's heading and its `--help` names; the warning codes
/// the page lists are `RunWarning.Code.all`; the exit statuses it lists are the main help's, and each command's
/// are its help's.
final class ReferenceDocTests: XCTestCase {
    static func reference() throws -> String {
        try String(contentsOfFile: TestPaths.repoRoot + "/docs/reference.md", encoding: .utf8)
    }

    /// The lines of the section under `## <title>` (up to the next `## ` heading); nil when the page has none.
    static func section(_ title: String, of text: String) -> [Substring]? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0 == "## " + title }) else { return nil }
        let rest = lines[(start + 1)...]
        return Array(rest.prefix { !$0.hasPrefix("## ") })
    }

    /// The options a section documents: one entry per option, a list item opening with the option in backticks
    /// (`` - `--out DIR`: … ``; aliases side by side: `` - `-h`, `--help`: … ``), its first word the option.
    static func documentedOptions(_ lines: [Substring]) -> [String] {
        lines.flatMap { line -> [String] in
            guard let entry = line.wholeMatch(of: /- ((?:`-[^`]+`(?:, )?)+): .*/) else { return [] }
            return entry.output.1.matches(of: /`(-[^` ]+)[^`]*`/).map { String($0.output.1) }
        }
    }

    /// Whether `text` names `option` as a word of its own (`--redact` not found in `--redact-key`).
    static func names(_ text: String, _ option: String) -> Bool {
        text.firstMatch(of: try! Regex("(^|[^A-Za-z0-9-])" + NSRegularExpression.escapedPattern(for: option) + "($|[^A-Za-z0-9-])"))
            != nil
    }

    /// The statuses of an `Exit status:` paragraph (`0 completed, 1 could not …; 2 …, 64 usage error`): each number
    /// that opens a clause. Nil when `text` has no such paragraph.
    static func exitStatuses(_ text: String) -> Set<Int>? {
        let flat = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard let start = flat.range(of: "Exit status: ") else { return nil }
        let paragraph = flat[start.lowerBound...]
        // The paragraph ends at its last status ("64 usage error", then 75 where a folder's lock may refuse), or at the end
        // of the text.
        let end =
            paragraph.range(of: "64 usage error").map { usage in
                paragraph[..<(paragraph[usage.upperBound...].prefixMatch(of: /[,;] 75 [a-z]+/)?.range.upperBound ?? usage.upperBound)]
            } ?? paragraph
        return Set(end.matches(of: /(?:: |, |; )([0-9]+) [a-z]/).compactMap { Int($0.output.1) })
    }

    func testEachCommandsOptionsAreTheDocumentedOnesAndItsHelpNamesThem() throws {
        let page = try Self.reference()
        let sections =
            [("iap-audit", CommandLineInterface.mainOptions, HelpText.main)]
            + CommandLineInterface.commands.map {
                ("iap-audit \($0.name)", $0.options, $0.help)
            }
        XCTAssertEqual(CommandLineInterface.commands.map(\.name), ["run", "close", "trace", "ack", "resolve", "ask-apple", "sample"])
        for (command, options, help) in sections {
            let lines = try XCTUnwrap(Self.section("`\(command)`", of: page), "docs/reference.md has no section ## `\(command)`")
            let documented = Self.documentedOptions(lines)
            XCTAssertEqual(documented.count, Set(documented).count, "\(command): an option documented twice: \(documented)")
            XCTAssertEqual(Set(documented), options, "\(command): docs/reference.md's entries against the options the code accepts")
            for option in options.sorted() {
                XCTAssertTrue(Self.names(help, option), "\(command) --help does not name \(option)")
            }
        }
    }

    /// The declared sets are what the command line accepts: each command's help is what `--help` prints, every
    /// declared option is taken (no "unknown option"), one not declared is a usage error.
    func testTheDeclaredOptionsAreWhatTheCommandLineAccepts() {
        for option in CommandLineInterface.mainOptions.sorted() {
            XCTAssertEqual(CLIRun([option]).status, 0, option)
        }
        for (name, options, help) in CommandLineInterface.commands {
            let shown = CLIRun([name, "--help"])
            XCTAssertEqual(shown.status, 0, name)
            XCTAssertEqual(shown.out, help, name)
            for option in options.sorted() where option != "-h" && option != "--help" {
                // With --help after it, an accepted option prints the help; an unknown one is a usage error first.
                let run = CLIRun([name, option, "x", "--help"])
                XCTAssertFalse(run.err.contains("unknown option '\(option)'"), "\(name) \(option): \(run.err)")
            }
            let unknown = CLIRun([name, "--not-an-option", "--help"])
            XCTAssertEqual(unknown.status, 64, name)
            XCTAssertTrue(unknown.err.contains("unknown option '--not-an-option'"), unknown.err)
        }
    }

    func testTheWarningCodesAreTheDocumentedOnes() throws {
        let lines = try XCTUnwrap(Self.section("Warnings", of: try Self.reference()), "docs/reference.md has no ## Warnings")
        let documented = lines.compactMap { $0.firstMatch(of: /^\| `([a-z_]+)` \|/).map { String($0.output.1) } }
        XCTAssertEqual(documented.count, Set(documented).count, "a code documented twice: \(documented)")
        let known = RunWarning.Code.all.map(\.rawValue)
        XCTAssertEqual(Set(known).subtracting(documented).sorted(), [], "codes the page does not list")
        XCTAssertEqual(Set(documented).subtracting(known).sorted(), [], "codes the page lists that the code does not give")
        // The rows marked (`close`) are the codes only a close gives.
        let closeRows = lines.compactMap { $0.firstMatch(of: /^\| `([a-z_]+)` \| \(`close`\)/).map { String($0.output.1) } }
        XCTAssertEqual(Set(closeRows), Set(RunWarning.Code.closeOnly.map(\.rawValue)))
    }

    func testTheExitStatusesAreTheHelpTexts() throws {
        let page = try Self.reference()
        let table = try XCTUnwrap(Self.section("Exit status", of: page), "docs/reference.md has no ## Exit status")
        let documented = table.compactMap { $0.firstMatch(of: /^\| ([0-9]+) \|/).flatMap { Int($0.output.1) } }
        XCTAssertEqual(documented.count, Set(documented).count, "a status documented twice: \(documented)")
        let main = try XCTUnwrap(Self.exitStatuses(HelpText.main), "the main help's Exit status")
        XCTAssertEqual(main, [0, 1, 2, 3, 4, 64, 75])
        XCTAssertEqual(Set(documented), main, "docs/reference.md's ## Exit status against the main help")
        // Each command's section (and the main one's) says its statuses as its help does.
        let commands = [("", HelpText.main)] + CommandLineInterface.commands.map { (" " + $0.name, $0.help) }
        for (name, help) in commands {
            let lines = try XCTUnwrap(Self.section("`iap-audit\(name)`", of: page))
            let section = try XCTUnwrap(Self.exitStatuses(lines.joined(separator: "\n")), "\(name): its section's Exit status")
            XCTAssertEqual(section, try XCTUnwrap(Self.exitStatuses(help), "\(name) --help's Exit status"), name)
            XCTAssertTrue(section.isSubset(of: main), name)
        }
    }
}
