import Foundation
import IAPAuditModel
import IAPAuditPipeline
import IAPAuditSample

/// The `iap-audit` command line: parse → validate → run; exit status decided at the end
/// (0 completed, 1 could not complete, 3 a completed run alerts (`run --fail-on`), 64 usage error, 75 another run, close
/// or `ack` holds the folder: try again later).
public enum CommandLineInterface {
    public static let version = ToolVersion.current

    /// The options of `iap-audit` itself, before any command (`help` is `--help` as a word).
    static let mainOptions: Set<String> = ["-h", "--help", "--version"]

    /// Each command `main` runs: its name, every option it accepts and its `--help` text (docs/reference.md
    /// documents each under its heading, `ReferenceDocTests`).
    static let commands: [(name: String, options: Set<String>, help: String)] = subcommands.map { ($0.name, $0.options, $0.help) }
    private static let subcommands: [any Subcommand.Type] = [
        RunCommand.self, CloseCommand.self, TraceCommand.self, AckCommand.self, ResolveCommand.self, AskAppleCommand.self,
        SampleCommand.self,
    ]

    /// Runs one command line; `out` and `err` receive standard output and error text. A command that fails
    /// says why on stderr; asked for `--json` (or `--format json`), it also prints `{"error": "<why>", "exit": 1}` (64 for a usage
    /// error, 75 for a folder another run holds) on stdout, so a scheduler reading stdout sees the failure.
    ///
    /// Every text printed goes through `String.printableLines` here (control characters, line separators and
    /// bidi controls escaped: `\u{85}`), but JSON on stdout, whose strings `JSONString` escapes as JSON does.
    public static func main(arguments: [String], out: (String) -> Void = Console.out, err: (String) -> Void = Console.err) -> Int32 {
        let json =
            arguments.contains("--json") || arguments.contains("--format=json")
            || zip(arguments, arguments.dropFirst()).contains { $0 == "--format" && $1 == "json" }
        return run(arguments, json: json, out: { json ? out($0) : out($0.printableLines) }, err: { err($0.printableLines) })
    }

    private static func run(_ arguments: [String], json: Bool, out: (String) -> Void, err: (String) -> Void) -> Int32 {
        if json {
            AuditPipeline.alsoPrintWhenAnInputIsCut { RunSummary.failure("\($0): " + AuditPipeline.inputCutMessage, exit: 1) + "\n" }
        }
        do {
            guard let command = arguments.first else {
                out(HelpText.main)
                return 0
            }
            let rest = Array(arguments.dropFirst())
            switch command {
            case "-h", "--help", "help":
                out(HelpText.main)
                return 0
            case "--version":
                out("iap-audit \(version)")
                return 0
            default:
                guard let subcommand = subcommands.first(where: { $0.name == command }) else {
                    throw UsageError(message: "unknown command '\(command)'", usage: "iap-audit <command> [options]", command: "")
                }
                return try subcommand.execute(rest, out: out, err: err)
            }
        } catch let usage as UsageError {
            err("Error: \(RunSummary.printable(usage.message))")
            err("Usage: \(usage.usage)")
            err("  See 'iap-audit \(usage.command.isEmpty ? "" : usage.command + " ")--help'.")
            if json { out(RunSummary.failure(usage.message, exit: 64)) }
            return 64
        } catch {
            // Refused by the folder's lock: nothing failed, a scheduler retries (EX_TEMPFAIL).
            let status = error is FolderBusy ? FolderBusy.exitStatus : 1
            err("iap-audit: \(RunSummary.printable("\(error)"))")
            if json { out(RunSummary.failure("\(error)", exit: status)) }
            return status
        }
    }
}

/// Standard output and error, line by line (`StandardStreams`: a stream that cannot be written loses
/// the text, never the run).
public enum Console {
    public static func out(_ text: String) { StandardStreams.out(text + "\n") }
    public static func err(_ text: String) { StandardStreams.err(text + "\n") }

    /// The exit status once output is written: a completed command whose standard output could not be
    /// written (a full disk, a closed pipe) could not complete what it was asked: 1.
    public static func exitStatus(_ status: Int32) -> Int32 { status == 0 && StandardStreams.outputFailed ? 1 : status }
}
