import Foundation
import IAPAuditModel
import IAPAuditPipeline
import IAPAuditSample

/// `iap-audit run`.
enum RunCommand: Subcommand {
    static let name = "run", help = HelpText.run
    static let usage =
        "iap-audit run [PATH ...] [--out DIR] [--ledger FILE] [--forget-missing] [--reread FILE] [--json] [--as-of TIME] [--from TIME|DATE] [--to TIME|DATE] [--grace HOURS] "
        + "[--config FILE] [--jws-root FILE] "
        + "[--receipt-root FILE] [--signatures-at signed_date|now|TIME] [--fail-on new|any|KIND[,KIND...]] [--fail-on-stale HOURS] [--fail-on-stale-runs N] [--fail-on-rejected] "
        + "[--redact [--redact-key FILE] [--redact-ledger]] [--limit NAME=VALUE ...]"
    /// The options `run` takes a value for, and its flags.
    static let valuedOptions: Set<String> = [
        "--out", "--ledger", "--reread", "--as-of", "--from", "--to", "--grace", "--config", "--jws-root", "--receipt-root",
        "--signatures-at",
        "--fail-on", "--fail-on-stale", "--fail-on-stale-runs", "--redact-key", "--limit",
    ]
    /// The options `run` and `close` take more than once.
    static let repeatable: Set<String> = ["--limit"]
    static let flags: Set<String> = [
        "--json", "--forget-missing", "-h", "--help", "--redact", "--redact-ledger", "--fail-on-rejected",
    ]
    static let defaultInput = "sample-data"
    static let defaultOutput = "reports"
    /// At most this many rejections are printed to stderr; all are in the database.
    static let printedRejections = 50

    static func execute(_ arguments: [String], out: (String) -> Void, err: (String) -> Void) throws -> Int32 {
        guard let args = try read(arguments, out: out) else { return 0 }
        if args.value("--out") == "" || args.value("--ledger") == "" || args.positionals.contains("") {
            throw UsageError(message: "an empty path (\"\") names no file or folder", usage: usage, command: "run")
        }
        let rules = try AlertOptions.rules(args, usage: usage)
        let options = try auditOptions(args, usage: usage, command: "run", err: err)
        let result = try AuditPipeline.run(options)
        // The verdict (exit 3 when a rule alerts) once the run is complete, by the machine's clock.
        let verdict = try RunAlerts.verdict(result, rules: rules, nowMs: Int64(Date().timeIntervalSince1970 * 1000))
        printDiagnostics(result.warnings, result, err: err)
        for reason in verdict.reasons { err("iap-audit: alert: \(RunSummary.printable(reason))") }
        out(
            args.has("--json")
                ? try RunSummary.json(result, verdict: verdict)
                : RunSummary.text(result, verdict: AlertOptions.text(verdict, rules)))
        return verdict.exit
    }

    /// The run's options from the command line (`run` and `close` share them). Throws `UsageError` for a
    /// bad value; a config found in an input folder is said on `err`.
    static func auditOptions(_ args: ArgumentReader, usage: String, command: String, err: (String) -> Void) throws -> AuditOptions {
        var options = AuditOptions(
            paths: args.positionals.isEmpty ? [defaultInput] : args.positionals,
            outputDirectory: args.value("--out") ?? defaultOutput)
        options.ledgerPath = args.value("--ledger")
        options.forgetMissing = args.has("--forget-missing")
        options.reread = args.value("--reread")
        if let text = args.value("--as-of") {
            options.asOfMs = try Self.asOf(text)
        }
        if let text = args.value("--from") { options.fromMs = try Self.bound(text, "--from", endOfDay: false) }
        if let text = args.value("--to") { options.toMs = try Self.bound(text, "--to", endOfDay: true) }
        if let from = options.fromMs, let to = options.toMs, from > to {
            throw UsageError(
                message: "--from \(Timestamp.iso(from)) is after --to \(Timestamp.iso(to)): the audit window is empty", usage: usage,
                command: "run")
        }
        if let text = args.value("--grace") {
            // Decimal digits only: Swift's Double also reads "0x10" (hex), "1e2" and "inf".
            let decimal = text.range(of: #"^[0-9]+(\.[0-9]+)?$"#, options: .regularExpression) != nil
            guard decimal, let hours = Double(text), hours <= 87_600 else {
                throw UsageError(message: "--grace: not a number of hours from 0 to 87600: '\(text)'", usage: usage, command: command)
            }
            options.graceMs = Int64(hours * 3_600_000)
        }
        let defaultConfig = defaultInput + "/config.json"
        if let path = args.value("--config") {
            options.config = try ConfigLoader.load(path: path)
            (options.configFile, options.configSource) = (path, "--config \(path)")
        } else if args.positionals.isEmpty && FileManager.default.fileExists(atPath: defaultConfig) {
            options.config = try ConfigLoader.load(path: defaultConfig)
            (options.configFile, options.configSource) = (defaultConfig, "\(defaultConfig) (default)")
        } else if !args.positionals.isEmpty {
            // A config kept beside the logs is used when it is the only one, and said so.
            let found = ConfigDiscovery.configs(in: args.positionals)
            if found.count == 1 {
                err("iap-audit: using \(RunSummary.printable(found[0])) as --config (found in the input folder)")
                options.config = try ConfigLoader.load(path: found[0])
                (options.configFile, options.configSource) = (found[0], "\(found[0]) (found in the input folder)")
            } else if found.count > 1 {
                options.warnings.append(ConfigDiscovery.severalFound(found))
            }
        }
        if let path = args.value("--jws-root") { options.config.jwsTrustAnchors = [path] }
        if let path = args.value("--receipt-root") { options.config.receiptTrustAnchors = [path] }
        if let text = args.value("--signatures-at") {
            do {
                options.config.signaturesCheckedAtMs = try ConfigLoader.signatureTime(text, source: "--signatures-at", path: "command line")
            } catch {
                throw UsageError(
                    message: "--signatures-at: expected signed_date, now, or a time (ISO 8601 or epoch ms): '\(text)'", usage: usage,
                    command: "run")
            }
        }
        options.redaction = try redaction(args, usage: usage, command: command)
        options.limits = try limits(args, usage: usage, command: command)
        return options
    }

    /// `--limit NAME=VALUE` (repeatable; `NAME=VALUE,NAME=VALUE` too): the limits raised (or lowered) from their
    /// defaults. Throws `UsageError` for an unknown name or a value that is not a positive number.
    static func limits(_ args: ArgumentReader, usage: String, command: String) throws -> InputLimits {
        var limits = InputLimits()
        for given in args.values("--limit") {
            for item in given.split(separator: ",", omittingEmptySubsequences: false) {
                let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                guard parts.count == 2 else {
                    throw UsageError(
                        message: "--limit: expected NAME=VALUE (e.g. --limit line-bytes=32MiB): '\(item)'", usage: usage, command: command)
                }
                do {
                    try limits.set(parts[0], parts[1])
                } catch {
                    throw UsageError(message: error.message, usage: usage, command: command)
                }
            }
        }
        return limits
    }

    /// `--redact`, `--redact-ledger` (which implies it) and the key: `--redact-key FILE`, else the environment
    /// variable `IAP_AUDIT_REDACT_KEY`. A key without `--redact`, or `--redact` without a usable key, is a usage
    /// error; no message holds the key.
    static func redaction(_ args: ArgumentReader, usage: String, command: String) throws -> Redaction? {
        guard args.has("--redact") || args.has("--redact-ledger") else {
            if args.value("--redact-key") != nil {
                throw UsageError(message: "--redact-key is given without --redact", usage: usage, command: command)
            }
            return nil
        }
        do {
            return try Redaction(
                keyFile: args.value("--redact-key"), environment: ProcessInfo.processInfo.environment, ledger: args.has("--redact-ledger"))
        } catch let error as Redaction.KeyError {
            throw UsageError(message: error.description, usage: usage, command: command)
        }
    }

    /// Warnings and the first rejections on stderr (all of them are in the database): those of the lines this run
    /// read (a grown log's new ones), not those earlier runs read and printed already (a nightly mail listed the same
    /// old 50 every night, and tonight's new one was not among them).
    static func printDiagnostics(_ warnings: [RunWarning], _ result: AuditResult, err: (String) -> Void) {
        for warning in warnings { err("iap-audit: warning: \(RunSummary.printable(warning.message))") }
        let rejections = result.snapshot.rejections
        var printed = 0
        try? rejections.forEach { rejection in
            guard result.readThisRun(rejection.location) else { return }
            guard printed < printedRejections else { throw StopPrinting() }
            printed += 1
            let reason = result.redaction == nil ? rejection.reason : IdRedactor.reason(rejection.reason)
            err(RunSummary.printable("\(rejection.location): error: \(reason)"))
        }
        if rejections.count > printed {
            let earlier = max(0, Int64(rejections.count) - max(result.rejectedThisRun, Int64(printed)))
            let more = Int64(rejections.count - printed)
            err(
                "iap-audit: \(CountText.grouped(more)) more rejected records"
                    + (earlier > 0 ? " (\(CountText.grouped(earlier)) of them read by earlier runs)" : "")
                    + ": see table rejection in \(result.databasePath), and the Rejected sheet")
        }
    }

    private struct StopPrinting: Error {}

    /// `--from` / `--to` (semantics.md rule 17): an instant (ISO 8601 or epoch milliseconds), or a date
    /// (`2026-10-31`), which means its whole UTC day — its first millisecond for `--from`, its last for
    /// `--to` (both bounds inclusive).
    static func bound(_ text: String, _ option: String, endOfDay: Bool) throws -> Int64 {
        if text.range(of: #"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"#, options: .regularExpression) != nil,
            let start = Timestamp.parseMs(text + "T00:00:00Z")
        {
            return endOfDay ? start + 86_400_000 - 1 : start
        }
        guard let ms = Timestamp.parseMs(text), !(ms >= 0 && ms < Timestamp.earliestLogEpochMs && Int64(text) != nil) else {
            throw UsageError(
                message:
                    "\(option): not a date or time: expected 2026-10-01, ISO 8601 (2026-10-01T08:00:00Z) or epoch milliseconds: '\(text)'",
                usage: usage, command: "run")
        }
        return ms
    }

    /// `--as-of`: an instant (ISO 8601 or epoch milliseconds, 1900–2200). A date alone is refused (the
    /// start or the end of that day?), and so are epoch seconds.
    static func asOf(_ text: String) throws -> Int64 {
        let fail = { (why: String) in UsageError(message: "--as-of: \(why): '\(text)'", usage: usage, command: "run") }
        if text.range(of: #"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"#, options: .regularExpression) != nil {
            throw fail("a date alone is not an instant (its start or its end?); give one, e.g. \(text)T00:00:00Z for its start")
        }
        guard let ms = Timestamp.parseMs(text) else {
            throw fail("not a time: expected ISO 8601 with a time of day (2026-11-01T00:00:00Z) or epoch milliseconds, 1900 to 2200")
        }
        if ms >= 0 && ms < Timestamp.earliestLogEpochMs && Int64(text) != nil {
            throw fail("epoch milliseconds before 1973 (epoch seconds?); give milliseconds or ISO 8601")
        }
        return ms
    }
}
