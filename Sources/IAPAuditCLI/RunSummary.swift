import Foundation
import IAPAuditModel
import IAPAuditPipeline
import IAPAuditSample

/// The short summary `run` prints: as text for people, or one JSON object (`--json`).
enum RunSummary {
    /// `text` safe for a terminal and one line: control characters (a newline in a file name, an
    /// escape sequence in a record) shown as `\n`, `\t`, `\u{1B}`.
    static func printable(_ text: String) -> String { text.controlCharactersEscaped }

    /// The text summary, the night's verdict first (what a nightly mail is read for): the changes against the last run
    /// (problem findings new, reopened, resolved and still open, with their ids), then `verdict` (the alert's lines,
    /// `AlertOptions.text`), then the run's warnings once each (standing caveats, said every run while they hold), then the
    /// run's parameters, inputs and findings.
    static func text(_ result: AuditResult, verdict: [String] = []) -> String {
        let s = result.snapshot
        var lines: [String] = []
        // Said up front: what is pasted on from a redacted run must be seen to be one.
        if let redaction = s.parameters["redaction"] {
            lines += ["redacted (\(redaction)): user and device ids are tokens in the workbook, --json and this summary", ""]
        }
        // The verdict first (the mail's first lines say whether and why it pages), then the changes with their ids.
        if !verdict.isEmpty { lines += Array(verdict.drop { $0.isEmpty }) }
        if let changes = s.changes { lines += (lines.isEmpty ? [] : [""]) + ChangesSummary.text(changes) }
        lines += caveats(result.warnings)
        if !lines.isEmpty { lines.append("") }
        lines += [
            "iap-audit run: as of \(s.parameters["as_of"] ?? ""), grace \(s.parameters["grace_hours"] ?? "24") h",
            "audit window: \(s.parameters["audit_window"] ?? "")", "",
        ]
        lines += inputs(s)
        let problems = s.findings.problems
        lines.append("")
        lines.append("Findings: \(plural(problems, "problem")), \(s.findings.total - problems) info")
        // Rule 22, also when there is none (the JSON and the workbook say 0 too).
        lines.append(
            "  dropped orders: \(s.findings.confirmedDroppedOrders) Apple confirms, \(s.findings.refundedDroppedOrders) Apple refunded, "
                + "\(s.findings.claimedDroppedOrders) the client claims only")
        for (kind, reasons) in byKind(s.findings) {
            for (reason, count) in reasons {
                lines.append(
                    "  \(kind.rawValue.padding(toLength: 22, withPad: " ", startingAt: 0)) \(reason.padding(toLength: 30, withPad: " ", startingAt: 0)) \(count)\(kind.isInfo ? "  (info)" : "")"
                )
            }
        }
        lines.append("")
        lines.append("Wrote \(result.databasePath) and \(result.workbookPath)")
        return lines.joined(separator: "\n")
    }

    /// The run's warnings after the verdict, each message once (a caveat that holds is said every run: on stderr too, in
    /// the workbook's Summary and `--json`'s `warnings`); nothing when there is none.
    static func caveats(_ warnings: [RunWarning]) -> [String] {
        var seen: Set<String> = []
        let messages = warnings.map(\.message).filter { seen.insert($0).inserted }
        guard !messages.isEmpty else { return [] }
        return ["", "Caveats (\(messages.count); said every run while they hold):"] + messages.map { "  " + printable($0) }
    }

    /// The input files (after a ledger's first run, those this run brought) and the records' totals.
    static func inputs(_ s: AuditSnapshot) -> [String] {
        var lines: [String] = []
        // After a ledger's first run, the files this run brought: the others are as an earlier run read them (the
        // workbook's Summary and --json list every file). A nightly mail stays the night's length.
        var listed = s.files
        if let c = s.changes, let previous = c.previousRun ?? (c.repeated ? c.run : nil) {
            let brought = Set(c.newFiles)  // a re-run too: a copy delivered again (skipped) is told the night it comes
            listed = s.files.filter { brought.contains($0.path) }
            let since = c.repeated ? c.run : previous
            lines.append(
                "Inputs (\(plural(s.files.count, "file")); \(listed.count) new or changed since run \(since), listed; the other "
                    + "\(s.files.count - listed.count) as an earlier run read them: the workbook's Summary and --json list every file):")
        } else {
            lines.append("Inputs (\(plural(s.files.count, "file"))):")
        }
        let width = min(60, listed.map { printable($0.path).count }.max() ?? 0)
        for f in listed {
            let shown = printable(f.path)
            let path = shown.padding(toLength: max(width, shown.count), withPad: " ", startingAt: 0)
            if f.status == "imported" {
                lines.append("  \(path)  \(f.kind): \(f.recordsIn) in = \(f.recordsImported) imported + \(f.recordsRejected) rejected")
            } else {
                lines.append("  \(path)  \(f.status): \(printable(f.note))")
            }
        }
        let (total, imported, rejected) = totals(s)
        lines.append("Records: \(total) in = \(imported) imported + \(rejected) rejected")
        return lines
    }

    static func json(_ result: AuditResult, verdict: RunVerdict = RunVerdict(exit: 0, reasons: [])) throws -> String {
        let s = result.snapshot
        let (total, imported, rejected) = totals(s)
        var kinds: [String: [String: Int]] = [:]
        for (kind, reasons) in byKind(s.findings) {
            kinds[kind.rawValue] = Dictionary(uniqueKeysWithValues: reasons.map { ($0.0, $0.1) })
        }
        let problems = s.findings.problems
        let object: [String: Any] = [
            "as_of": s.parameters["as_of"] ?? "", "audit_window": s.parameters["audit_window"] ?? "",
            "files": s.files.map {
                [
                    "path": $0.path, "kind": $0.kind, "format": $0.format, "status": $0.status, "note": $0.note,
                    "records_in": $0.recordsIn, "imported": $0.recordsImported, "rejected": $0.recordsRejected,
                ] as [String: Any]
            },
            "records": ["in": total, "imported": imported, "rejected": rejected],
            "findings": [
                "problems": problems, "info": s.findings.total - problems, "by_kind": kinds,
                "dropped_orders": [
                    "apple_confirmed": s.findings.confirmedDroppedOrders, "apple_refunded": s.findings.refundedDroppedOrders,
                    "client_claimed": s.findings.claimedDroppedOrders,
                ],
            ] as [String: Any],
            "outputs": ["sqlite": result.databasePath, "xlsx": result.workbookPath],
            // `outputs, key k_…` or `ledger, key k_…` (the key's fingerprint); null for a run that shows ids as they are.
            "redaction": s.parameters["redaction"].map { $0 as Any } ?? NSNull(),
            "warnings": result.warnings.map {
                ["code": $0.code.rawValue, "message": $0.message, "file": $0.file.map { $0 as Any } ?? NSNull()] as [String: Any]
            },
            "changes": s.changes.map(ChangesSummary.json) ?? NSNull(),
            "actions": try actions(result),
            "alert": ["exit": Int(verdict.exit), "reasons": verdict.reasons] as [String: Any],
        ]
        return encoded(object)
    }

    /// The findings' actions (`FindingAction`, as table `finding_action` holds them): how many of each code, and each
    /// action of the findings this run found new or reopened, with its `finding_id` (the rest are in the ledger).
    static func actions(_ result: AuditResult) throws -> [String: Any] {
        let s = result.snapshot
        let statuses = s.changes?.listingById ?? [:]
        let new = Set((s.changes?.changes ?? []).filter { $0.event == .new || $0.event == .reopened }.map(\.state.id))
        let shown = result.redaction.flatMap { $0.ledger ? nil : $0.redactor }
        var counts: [String: Int] = [:]
        var listed: [[String: Any]] = []
        var ids = FindingIds()
        try s.findings.forEach { f in
            let id = ids.id(for: f)
            let priced = FindingAction.of(shown?.finding(f) ?? f, price: s.prices[f.transactionId])
            let action = statuses[id]?.joined(priced) ?? priced
            counts[action.code.rawValue, default: 0] += 1
            if new.contains(id) { listed.append(action.jsonObject.merging(["finding_id": id]) { a, _ in a }) }
        }
        return ["by_code": counts, "new": listed]
    }

    /// A failed command as one JSON object: `{"error": "<message>", "exit": <status>}`.
    static func failure(_ message: String, exit status: Int32) -> String { encoded(["error": message, "exit": Int(status)]) }

    /// One JSON object, keys sorted: the same run prints the same bytes.
    static func encoded(_ object: [String: Any]) -> String { JSONText.encode(object) }

    static func plural(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }

    static func totals(_ s: AuditSnapshot) -> (Int64, Int64, Int64) {
        (
            s.files.reduce(0) { $0 + $1.recordsIn }, s.files.reduce(0) { $0 + $1.recordsImported },
            s.files.reduce(0) { $0 + $1.recordsRejected }
        )
    }

    /// Findings counted by kind (in `FindingKind` order) and reason (sorted).
    static func byKind(_ findings: FindingStream) -> [(FindingKind, [(String, Int)])] {
        FindingKind.allCases.compactMap { kind in
            let reasons = findings.counts.filter { $0.kind == kind }.map { ($0.reason, $0.count) }
            return reasons.isEmpty ? nil : (kind, reasons)
        }
    }
}
