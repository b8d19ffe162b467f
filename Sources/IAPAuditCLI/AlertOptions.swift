import Foundation
import IAPAuditModel
import IAPAuditPipeline

/// `run --fail-on new|any|KIND[,KIND…]`, `--fail-on-stale HOURS`, `--fail-on-stale-runs N` and `--fail-on-rejected`, read
/// into `AlertRules` (usage errors: 64).
enum AlertOptions {
    static func rules(_ args: ArgumentReader, usage: String) throws -> AlertRules {
        var rules = AlertRules()
        if let text = args.value("--fail-on") { rules.failOn = try failOn(text, usage: usage) }
        rules.failOnRejected = args.has("--fail-on-rejected")
        if let text = args.value("--fail-on-stale") {
            // Decimal digits only, as for --grace.
            let decimal = text.range(of: #"^[0-9]+(\.[0-9]+)?$"#, options: .regularExpression) != nil
            guard decimal, let hours = Double(text), hours > 0, hours <= 87_600 else {
                throw UsageError(
                    message: "--fail-on-stale: not a number of hours above 0 and at most 87600: '\(text)'", usage: usage, command: "run")
            }
            rules.staleHours = hours
        }
        if let text = args.value("--fail-on-stale-runs") {
            guard text.range(of: #"^[0-9]{1,4}$"#, options: .regularExpression) != nil, let runs = Int(text), runs >= 1 else {
                throw UsageError(
                    message: "--fail-on-stale-runs: not a number of runs from 1 to 9999: '\(text)'", usage: usage, command: "run")
            }
            rules.staleRuns = runs
        }
        return rules
    }

    static func failOn(_ text: String, usage: String) throws -> AlertRules.FailOn {
        let fail = { (why: String) in UsageError(message: "--fail-on: \(why): '\(text)'", usage: usage, command: "run") }
        switch text {
        case "new": return .new
        case "any": return .any
        default: break
        }
        let problems = FindingKind.problems.map(\.rawValue).joined(separator: ", ")
        var kinds: [FindingKind] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
            if item == "new" || item == "any" { throw fail("new and any stand alone, not in a list of kinds") }
            guard let kind = FindingKind(rawValue: item) else {
                // A near kind (dropped_orders, dropped) is suggested; the value is said once.
                let near = FindingKind.problems.first { !item.isEmpty && (item.hasPrefix($0.rawValue) || $0.rawValue.hasPrefix(item)) }
                let why =
                    "expected new, any, or finding kinds separated by commas (\(problems))" + (item == text ? "" : "; '\(item)' is none")
                throw UsageError(
                    message: "--fail-on: \(why): '\(text)'" + (near.map { " (did you mean \($0.rawValue)?)" } ?? ""), usage: usage,
                    command: "run")
            }
            if kind.isInfo { throw fail("\(item) is an info kind: info findings never alert (problem kinds: \(problems))") }
            if !kinds.contains(kind) { kinds.append(kind) }
        }
        return .kinds(kinds)
    }

    /// The verdict in the text summary: nothing when no rule was given.
    static func text(_ verdict: RunVerdict, _ rules: AlertRules) -> [String] {
        guard rules.failOn != nil || rules.staleHours != nil || rules.staleRuns != nil || rules.failOnRejected else { return [] }
        guard verdict.exit != 0 else { return ["", "Verdict: ok, exit 0: nothing alerts"] }
        return ["", "Verdict: alert, exit \(verdict.exit):"] + verdict.reasons.map { "  " + RunSummary.printable($0) }
    }
}
