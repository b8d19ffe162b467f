import Foundation
import IAPAuditModel
import IAPAuditPipeline

/// `iap-audit close`: the monthly close (docs/close.md).
enum CloseCommand: Subcommand {
    static let name = "close", help = HelpText.close
    static let usage =
        "iap-audit close --period PERIOD [--calendar gregorian|apple-fiscal] [--tz ZONE] [--prices FILE] [--out DIR] [--json] "
        + "[PATH ...] (and run's options)"
    /// The options `close` takes a value for, and its flags (`--forget-missing` is read to be refused: exit 64).
    static let valuedOptions: Set<String> = [
        "--period", "--calendar", "--tz", "--prices", "--out", "--ledger", "--as-of", "--grace", "--config", "--jws-root",
        "--receipt-root", "--signatures-at", "--redact-key", "--limit",
    ]
    static let flags: Set<String> = ["--json", "--forget-missing", "-h", "--help", "--redact", "--redact-ledger"]
    static var repeatable: Set<String> { RunCommand.repeatable }

    static func execute(_ arguments: [String], out: (String) -> Void, err: (String) -> Void) throws -> Int32 {
        guard let args = try read(arguments, out: out) else { return 0 }
        guard let periodText = args.value("--period") else {
            throw UsageError(message: "--period is required (e.g. --period 2026-10)", usage: usage, command: "close")
        }
        let period: AccountingPeriod
        do {
            let calendar = try PeriodCalendar(parsing: args.value("--calendar") ?? "gregorian")
            let zone = try PeriodTimeZone(parsing: args.value("--tz") ?? "UTC")
            period = try AccountingPeriod.parse(periodText, calendar: calendar, timeZone: zone)
        } catch {
            throw UsageError(message: "\(error)", usage: usage, command: "close")
        }
        let audit = try RunCommand.auditOptions(args, usage: usage, command: "close", err: err)
        // Dropping files from the ledger is the nightly run's decision: a close's would be the next run's change, unsaid
        // by it (helper-37: 427 findings new to the night, from a close's --forget-missing).
        if audit.forgetMissing {
            throw UsageError(
                message: "--forget-missing is for run, not close (the close would drop files from the ledger the nightly run keeps)",
                usage: usage, command: "close")
        }
        let result = try ClosePipeline.run(CloseOptions(audit: audit, period: period, pricesPath: args.value("--prices")))
        RunCommand.printDiagnostics(result.warnings, result.audit, err: err)
        for rejection in result.priceRejections.prefix(RunCommand.printedRejections) {
            err(RunSummary.printable("\(rejection.location): error: \(rejection.reason)"))
        }
        out(args.has("--json") ? CloseSummary.json(result) : CloseSummary.text(result))
        return 0
    }
}
