import Foundation
import XCTest

/// docs/operations.md's crontab line and systemd units run as written: taken from the page, `/srv/iap-audit`
/// pointed at a scratch folder holding the built binary and `sample-data/` as `exports/`, the command they hold
/// run, its exit status checked (3: on a ledger's first run every finding is new).
final class OperationsDocTests: XCTestCase {
    static let documentedHome = "/srv/iap-audit"

    /// The fenced blocks of the page: (info string, lines).
    static func blocks() throws -> [(info: String, lines: [String])] {
        let text = try String(contentsOfFile: TestPaths.repoRoot + "/docs/operations.md", encoding: .utf8)
        var blocks: [(String, [String])] = []
        var open: (String, [String])?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("```") {
                if let block = open {
                    blocks.append(block)
                    open = nil
                } else {
                    open = (String(line.dropFirst(3)), [])
                }
            } else if open != nil {
                open!.1.append(line)
            }
        }
        return blocks
    }

    /// A scratch `/srv/iap-audit`: bin/iap-audit (the built binary), exports/ (the sample, its config at the top), log/.
    static func scratchHome() throws -> String {
        let root = TestPaths.scratch("srv")
        for folder in ["bin", "log"] {
            try FileManager.default.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: true)
        }
        try FileManager.default.createSymbolicLink(atPath: root + "/bin/iap-audit", withDestinationPath: BuiltBinary.path)
        try FileManager.default.copyItem(atPath: TestPaths.repoRoot + "/sample-data", toPath: root + "/exports")
        try FileManager.default.createDirectory(atPath: root + "/etc", withIntermediateDirectories: true)
        for name in ["config.json", "test-ca"] {
            try FileManager.default.moveItem(atPath: root + "/exports/" + name, toPath: root + "/etc/" + name)
        }
        return root
    }

    func testTheCrontabLineRunsAsWritten() throws {
        let block = try XCTUnwrap(try Self.blocks().first { $0.info == "crontab" })
        let entries = block.lines.filter { $0.range(of: #"^[0-9*]"#, options: .regularExpression) != nil }
        XCTAssertEqual(entries.count, 1, "one schedule line: \(block.lines)")
        let fields = entries[0].split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true).map(String.init)
        XCTAssertEqual(fields.count, 6)
        XCTAssertEqual(Array(fields.prefix(5)), ["30", "6", "*", "*", "*"], "every day at 06:30")
        XCTAssertTrue(block.lines.contains("MAILTO=oncall@example.com"))
        let root = try Self.scratchHome()
        addTeardownBlock { try? FileManager.default.removeItem(atPath: root) }
        let command = fields[5].trimmingCharacters(in: .whitespaces).replacingOccurrences(of: Self.documentedHome, with: root)
        // cron runs the command with /bin/sh.
        let first = try BuiltBinary.run(["-c", command], executable: "/bin/sh")
        XCTAssertEqual(first.status, 3, first.err)
        // Mailed: the summary, its verdict first; stderr (warnings, alerts) kept apart in log/last-run.err.
        XCTAssertTrue(
            first.out.hasPrefix("Verdict: alert, exit 3:\n  111 new problem finding(s): dropped_order:2000000400594083"), first.out)
        XCTAssertTrue(first.out.contains("\n\nChanges: run 1, the ledger's first run (every finding is new):\n"), first.out)
        XCTAssertFalse(first.out.contains("iap-audit: "), "nothing of stderr in the mail: \(first.out)")
        XCTAssertEqual(first.err, "")
        XCTAssertTrue(FileManager.default.fileExists(atPath: root + "/ledger/audit.sqlite"))
        XCTAssertEqual(try String(contentsOfFile: root + "/log/last-run.txt", encoding: .utf8), first.out)
        let err = try String(contentsOfFile: root + "/log/last-run.err", encoding: .utf8)
        XCTAssertTrue(err.contains("\niap-audit: alert: 111 new problem finding(s): dropped_order:2000000400594083"), err)
        // A run that could not complete prints no summary: the mail is its stderr, which says why.
        try FileManager.default.removeItem(atPath: root + "/etc/config.json")
        let failed = try BuiltBinary.run(["-c", command], executable: "/bin/sh")
        XCTAssertEqual(failed.status, 1, failed.err)
        XCTAssertTrue(failed.out.hasPrefix("iap-audit: etc/config.json: error: "), failed.out)
    }

    func testTheSystemdUnitsRunAsWritten() throws {
        let blocks = try Self.blocks().filter { $0.info == "ini" }
        let service = try XCTUnwrap(blocks.first { $0.lines.first == "# /etc/systemd/system/iap-audit.service" })
        let timer = try XCTUnwrap(blocks.first { $0.lines.first == "# /etc/systemd/system/iap-audit.timer" })
        let root = try Self.scratchHome(), units = TestPaths.scratch("units")
        addTeardownBlock { for folder in [root, units] { try? FileManager.default.removeItem(atPath: folder) } }
        for (name, block) in [("iap-audit.service", service), ("iap-audit.timer", timer)] {
            TestPaths.write(
                block.lines.joined(separator: "\n").replacingOccurrences(of: Self.documentedHome, with: root) + "\n", to: units + "/" + name
            )
        }
        XCTAssertTrue(timer.lines.contains("OnCalendar=*-*-* 06:30:00 UTC"))
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze") {
            let verify = try BuiltBinary.run(
                ["verify", "--man=no", units + "/iap-audit.service", units + "/iap-audit.timer"], executable: "/usr/bin/systemd-analyze")
            XCTAssertEqual(verify.status, 0, verify.out + verify.err)
        }
        // What systemd does: ExecStart's words (no shell) in WorkingDirectory.
        let value = { (key: String) in service.lines.first { $0.hasPrefix(key + "=") }.map { String($0.dropFirst(key.count + 1)) } }
        let directory = try XCTUnwrap(value("WorkingDirectory")).replacingOccurrences(of: Self.documentedHome, with: root)
        let words = try XCTUnwrap(value("ExecStart")).replacingOccurrences(of: Self.documentedHome, with: root).split(separator: " ").map(
            String.init)
        XCTAssertEqual(value("Type"), "exec")
        XCTAssertEqual(value("RestartForceExitStatus"), "75", "75: the folder was held, run again later")
        let run = try BuiltBinary.run(Array(words.dropFirst()), executable: words[0], in: directory)
        XCTAssertEqual(run.status, 3, run.err)
        XCTAssertTrue(run.err.contains("iap-audit: alert: 111 new problem finding(s)"), run.err)
        XCTAssertTrue(FileManager.default.fileExists(atPath: root + "/ledger/audit.xlsx"))
    }
}
