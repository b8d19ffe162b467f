import Foundation
import IAPAuditModel
import IAPAuditPipeline
import IAPAuditSample

/// `iap-audit ack ID --note TEXT [--by NAME] [--out DIR] [--ledger FILE] [--json]`: marks a finding known (docs/operations.md).
enum AckCommand: Subcommand {
    static let name = "ack", help = HelpText.ack
    static let usage = "iap-audit ack ID --note TEXT [--by NAME] [--out DIR] [--ledger FILE] [--json]"
    /// The options `ack` takes a value for, and its flags.
    static let valuedOptions: Set<String> = ["--note", "--by", "--out", "--ledger"]
    static let flags: Set<String> = ["--json", "-h", "--help"]

    static func execute(_ arguments: [String], out: (String) -> Void, err: (String) -> Void) throws -> Int32 {
        guard let args = try read(arguments, out: out) else { return 0 }
        guard args.positionals.count == 1, let id = args.positionals.first, !id.isEmpty else {
            let message = args.positionals.isEmpty ? "missing the finding's ID (e.g. dropped_order:2000000400594083)" : "one ID at a time"
            throw UsageError(message: message, usage: usage, command: "ack")
        }
        guard let note = args.value("--note"), !note.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw UsageError(message: "--note TEXT is required: say why the finding is known", usage: usage, command: "ack")
        }
        let folder = args.value("--out") ?? RunCommand.defaultOutput
        if folder.isEmpty || args.value("--ledger") == "" {
            throw UsageError(message: "an empty path (\"\") names no folder", usage: usage, command: "ack")
        }
        // Who: --by, else the login name (USER, LOGNAME); nil when neither says.
        let environment = ProcessInfo.processInfo.environment
        let by = [args.value("--by"), environment["USER"], environment["LOGNAME"]].lazy.compactMap { $0 }
            .first { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
        let outcome = try FindingAcknowledgement.acknowledge(
            id, note: note, by: by, outputDirectory: folder, ledger: args.value("--ledger"),
            nowMs: Int64(Date().timeIntervalSince1970 * 1000))
        if args.has("--json") {
            out(
                RunSummary.encoded([
                    "finding_id": outcome.id, "status": "acknowledged", "note": outcome.note, "by": by.map { $0 as Any } ?? NSNull(),
                    "acknowledged_at": Timestamp.iso(outcome.acknowledgedAtMs), "run": outcome.run, "first_seen_run": outcome.firstSeenRun,
                    "ledger": outcome.databasePath, "previous_note": outcome.previousNote.map { $0 as Any } ?? NSNull(),
                    "previous_acknowledged_at": outcome.previousAcknowledgedAtMs.map { Timestamp.iso($0) as Any } ?? NSNull(),
                ]))
        } else {
            out(
                "acknowledged \(RunSummary.printable(outcome.id)) (open since run \(outcome.firstSeenRun)) in \(RunSummary.printable(outcome.databasePath)): "
                    + "it stays in the reports and out of --fail-on alerts until it is resolved")
            if let previous = outcome.previousNote {
                let at = outcome.previousAcknowledgedAtMs.map { " on \(Timestamp.iso($0))" } ?? ""
                out(
                    "it was acknowledged already\(at) with the note \"\(RunSummary.printable(previous))\": the new note replaces it "
                        + "(finding_history keeps both)")
            }
        }
        return 0
    }
}
