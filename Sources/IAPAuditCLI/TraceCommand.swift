import Foundation
import IAPAuditModel
import IAPAuditPipeline
import IAPAuditReport

/// `iap-audit trace ID`: one id's timeline and verdict from the ledger a run left.
enum TraceCommand: Subcommand {
    static let name = "trace", help = HelpText.trace
    static let usage =
        "iap-audit trace ID [--out DIR | --ledger FILE] [--format text|json|xlsx] [--redact [--redact-key FILE]] [--exact]\n"
        + "       iap-audit trace --user USER [--product PRODUCT] [--at TIME [--within DURATION]] [--price AMOUNT] [--out DIR | …]"
    /// The options `trace` takes a value for, and its flags (`--redact-ledger` is read to be refused: exit 64).
    static let valuedOptions: Set<String> = [
        "--out", "--ledger", "--format", "--redact-key", "--user", "--product", "--at", "--within", "--price",
    ]
    static let flags: Set<String> = ["-h", "--help", "--redact", "--redact-ledger", "--exact"]

    static func execute(_ arguments: [String], out: (String) -> Void, err: (String) -> Void) throws -> Int32 {
        guard let args = try read(arguments, out: out) else { return 0 }
        if args.value("--user") != nil && args.positionals.isEmpty { return try TraceSearchCommand.execute(args, out: out, err: err) }
        for option in ["--product", "--at", "--within", "--price"] where args.value(option) != nil {
            throw UsageError(message: "\(option) narrows a search: give --user USER, not an ID", usage: usage, command: "trace")
        }
        guard args.positionals.count == 1, let id = args.positionals.first else {
            throw UsageError(
                message: args.positionals.isEmpty ? "missing ID (a transaction, order, user, device, request… id)" : "one ID at a time",
                usage: usage, command: "trace")
        }
        if id.isEmpty { throw UsageError(message: "an empty ID (\"\") names nothing", usage: usage, command: "trace") }
        let (format, ledger, folder) = try output(args)
        if args.has("--redact-ledger") {
            throw UsageError(
                message: "--redact-ledger is run's: trace never changes the ledger (a redacted ledger is traced as it is; give --redact "
                    + "and its key to trace an original id)", usage: usage, command: "trace")
        }
        // The same key, and the same usage errors, as run's (a redacted ledger is traced as it is: see TraceRedaction).
        let redaction = try RunCommand.redaction(args, usage: usage, command: "trace")
        let tail = TraceSearchCommand.tail(args)
        if !args.has("--exact"),
            let (answer, note) = try TracePipeline.mangled(
                id: id, userId: args.value("--user"), ledgerPath: ledger, redaction: redaction, onWait: { err("iap-audit: " + $0) })
        {
            if let note { err("iap-audit: " + RunSummary.printable(note)) }
            out(
                format == "json"
                    ? TraceMangledOutput.json(answer, tail: tail)
                    : TraceSearchCommand.printable(TraceMangledOutput.text(answer, tail: tail)))
            return mangledIdStatus
        }
        if args.value("--user") != nil {
            throw UsageError(
                message: "--user with an ID lists a spreadsheet-mangled id's candidates of that user first; \(id) does not look mangled "
                    + "(trace it alone, or search with --user USER alone)", usage: usage, command: "trace")
        }
        let outcome: TraceOutcome
        do {
            outcome = try TracePipeline.run(
                id: id, ledgerPath: ledger, workbookFolder: folder, redaction: redaction, tail: tail,
                onWait: { err("iap-audit: " + $0) })
        } catch let failed as TraceWorkbookError {
            // The trace is still worth reading; the missing workbook makes it exit 1.
            show(failed.outcome, format: format, out: out, err: err)
            throw failed.error
        }
        show(outcome, format: format, out: out, err: err)
        return outcome.result.matches.isEmpty ? unknownIdStatus : 0
    }

    /// The output `args` ask for, checked as `run` and `ack` check theirs: the format (text, json, xlsx), the ledger
    /// (`--ledger FILE`, else `--out DIR`'s, else reports/'s) and, for xlsx, the folder the workbook goes to.
    /// - Throws: `UsageError` for another format, an empty path (found by a support user test: `--out ""` looked for
    ///   /audit.sqlite, exit 1), both `--out` and `--ledger`, or an `--out` that is a file.
    static func output(_ args: ArgumentReader) throws -> (format: String, ledger: String, workbookFolder: String?) {
        let format = args.value("--format") ?? "text"
        guard ["text", "json", "xlsx"].contains(format) else {
            throw UsageError(message: "--format: expected text, json or xlsx, not '\(format)'", usage: usage, command: "trace")
        }
        if args.value("--out") == "" || args.value("--ledger") == "" {
            throw UsageError(message: "an empty path (\"\") names no file or folder", usage: usage, command: "trace")
        }
        if args.value("--out") != nil && args.value("--ledger") != nil {
            throw UsageError(message: "give --out DIR or --ledger FILE, not both", usage: usage, command: "trace")
        }
        if let out = args.value("--out"), FileManager.default.fileExists(atPath: out),
            (try? FileManager.default.attributesOfItem(atPath: out)[.type] as? FileAttributeType) == .typeRegular
        {
            throw UsageError(
                message: "--out \(out) is a file: --out names the folder a run wrote (--out DIR); a ledger file is --ledger FILE",
                usage: usage, command: "trace")
        }
        let ledger = args.value("--ledger") ?? OutputFolder.normalized(args.value("--out") ?? RunCommand.defaultOutput) + "/audit.sqlite"
        let folder = format == "xlsx" ? (ledger as NSString).deletingLastPathComponent : nil
        return (format, ledger, folder.map { $0.isEmpty ? "." : $0 })
    }

    /// The exit status of an id no record of the ledger holds (the output says what was searched).
    static let unknownIdStatus: Int32 = 2

    /// The exit status of an id that looks spreadsheet-mangled (`TraceMangledId`): not traced; its candidates listed.
    static let mangledIdStatus: Int32 = 4

    private static func show(_ outcome: TraceOutcome, format: String, out: (String) -> Void, err: (String) -> Void) {
        if let note = outcome.indexNote { err("iap-audit: " + RunSummary.printable(note)) }
        if format == "json" { return out(TraceOutput.json(outcome.result, workbookPath: outcome.workbookPath)) }
        let text = TraceOutput.text(outcome.result, workbookPath: outcome.workbookPath)
        out(TraceSearchCommand.printable(text))
    }
}
