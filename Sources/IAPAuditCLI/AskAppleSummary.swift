import Foundation
import IAPAuditAppleAPI
import IAPAuditModel

/// What `ask-apple` prints: a line per id as it is answered, then the counts, the evidence file and the next step
/// (or all of it as one JSON object, `--json`).
enum AskAppleSummary {
    /// `2000000400072794  transaction  Production, Sandbox  found in sandbox` (tab-free, two spaces apart).
    static func line(_ r: AskAppleResult) -> String {
        var words = r.outcome.rawValue
        if let detail = r.detail { words += " (\(detail))" }
        if let failure = r.failure { words += r.outcome == .failed ? ": \(failure)" : " (the sandbox: \(failure))" }
        let findings = r.item.findingIds.isEmpty ? "" : "  for " + r.item.findingIds.joined(separator: ", ")
        return "\(RunSummary.printable(r.item.id))  \(kind(r.item))  \(r.environments.map(\.rawValue).joined(separator: ", "))  \(words)"
            + RunSummary.printable(findings)
    }

    /// The closing lines: the counts, the file, the next step.
    static func closing(_ results: [AskAppleResult], evidence: String?, folder: String) -> [String] {
        var lines = [counts(results)]
        if let evidence {
            let answers = results.reduce(0) { $0 + $1.answers.count }
            lines.append("Apple's answers (\(RunSummary.plural(answers, "answer"))) saved in \(RunSummary.printable(evidence))")
            lines.append(next(folder))
        } else {
            lines.append("no answer of Apple's to save: nothing written")
        }
        return lines
    }

    /// `asked Apple about 4 ids: 1 found, 1 found in sandbox, 1 not found, 1 failed` (outcomes with none left out).
    static func counts(_ results: [AskAppleResult]) -> String {
        let parts = AskAppleOutcome.allCases.compactMap { outcome -> String? in
            let n = results.filter { $0.outcome == outcome }.count
            return n == 0 ? nil : "\(n) \(outcome.rawValue)"
        }
        return "asked Apple about \(RunSummary.plural(results.count, "id")): " + parts.joined(separator: ", ")
    }

    static func next(_ folder: String) -> String {
        "next: run again with the evidence folder among the inputs (iap-audit run … \(RunSummary.printable(folder)) --out DIR)"
    }

    /// `{"asked": [{"id", "kind", "finding_ids", "environments", "outcome", "http_statuses", "detail", "failure"}],
    /// "counts": {outcome: n}, "answers": n, "evidence": path|null, "next": text|null, "summary": text, "exit": 0|1}`.
    static func json(_ results: [AskAppleResult], evidence: String?, folder: String, exit: Int32) -> String {
        let asked: [[String: Any]] = results.map { r in
            [
                "id": r.item.id, "kind": kind(r.item), "finding_ids": r.item.findingIds, "environments": r.environments.map(\.rawValue),
                "outcome": r.outcome.rawValue, "http_statuses": r.answers.map(\.httpStatus),
                "detail": r.detail.map { $0 as Any } ?? NSNull(), "failure": r.failure.map { $0 as Any } ?? NSNull(),
            ]
        }
        var counts: [String: Any] = [:]
        for outcome in AskAppleOutcome.allCases { counts[outcome.rawValue] = results.filter { $0.outcome == outcome }.count }
        return RunSummary.encoded([
            "asked": asked, "counts": counts, "answers": results.reduce(0) { $0 + $1.answers.count },
            "evidence": evidence.map { $0 as Any } ?? NSNull(), "next": evidence.map { _ in next(folder) as Any } ?? NSNull(),
            "summary": self.counts(results), "exit": Int(exit),
        ])
    }

    private static func kind(_ item: AskAppleItem) -> String { item.endpoint == .getTransactionInfo ? "transaction" : "order" }
}
