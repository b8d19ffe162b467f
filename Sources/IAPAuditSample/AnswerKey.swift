import IAPAuditModel

/// The findings a correct reconciler must report for one sample, recorded case by case as the
/// cases are planted (never re-derived from the files).
struct AnswerKey {
    /// One expected finding row.
    struct Entry: Hashable, Comparable {
        var kind: String
        var reason: String
        var transactionId: String
        /// `dropped_order` only: `confirmed` or `claimed` (semantics.md rule 22).
        var appleConfirmation: String?

        static func < (a: Entry, b: Entry) -> Bool {
            (a.kind, a.reason, a.transactionId) < (b.kind, b.reason, b.transactionId)
        }

        /// `kind/reason`, the key of the `planted` counts.
        var label: String { "\(kind)/\(reason)" }
    }

    /// Reasons of the info kinds (docs/semantics.md names only the pending ones).
    enum InfoReason {
        /// `sandbox_allowlisted`: the credited user is on `sandbox_allowlist`.
        static let allowlisted = "allowlisted_user"
        /// `sandbox_refused`: every answer came from the sandbox and nothing was granted.
        static let sandboxReceipt = "sandbox_receipt"
        // `regranted` takes the product type as its reason: `non_consumable`, `auto_renewable`.
    }

    private(set) var entries: Set<Entry> = []
    /// `label transaction_id` of every entry: a planting bug is found in one lookup, not a scan.
    private var labelled: Set<String> = []

    /// Records one expected finding; the same (kind, reason, transaction) twice is a planting bug.
    mutating func expect(_ kind: FindingKind, _ reason: String, _ transactionId: String, confirmation: AppleConfirmation? = nil) {
        let entry = Entry(kind: kind.rawValue, reason: reason, transactionId: transactionId, appleConfirmation: confirmation?.rawValue)
        precondition(labelled.insert(entry.label + " " + transactionId).inserted, "planted twice: \(entry.label) \(transactionId)")
        entries.insert(entry)
    }

    /// Every expected finding sorted by (kind, reason, transaction id), as byte-wise text.
    var sorted: [Entry] { entries.sorted() }

    /// Expected findings per `kind/reason`, sorted by label.
    var planted: [(label: String, count: Int)] {
        var counts: [String: Int] = [:]
        for entry in entries { counts[entry.label, default: 0] += 1 }
        return counts.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// `answer-key.json`: one member per line, one finding per line.
    func render(
        seed: UInt64, transactions: Int, asOf: Int64, files: SampleFiles, scenarios: [(String, Int)], close: String
    ) -> String {
        func q(_ s: String) -> String { SampleJSON.string(s).rendered }
        func block(_ pairs: [(String, Int)]) -> String {
            pairs.isEmpty ? "{}" : "{\n" + pairs.map { "    \(q($0.0)): \($0.1)" }.joined(separator: ",\n") + "\n  }"
        }
        let counts: [(String, Int)] = [
            ("client_lines", files.clientJSONLines + files.clientCSVRows),
            ("client_jsonl_lines", files.clientJSONLines),
            ("client_csv_lines", files.clientCSVRows),
            ("server_lines", files.serverLines),
            ("verify_lines", files.verifyLines),
            ("signed_lines", files.lines["signed.jsonl"] ?? 0),
            ("history_lines", files.lines["history.jsonl"] ?? 0),
            ("notification_lines", files.lines["notifications.jsonl"] ?? 0),
            ("order_lookup_lines", files.lines["order-lookup.jsonl"] ?? 0),
        ]
        let findings = sorted.map { entry in
            "    "
                + SampleJSON.object(
                    [
                        ("kind", .string(entry.kind)), ("reason", .string(entry.reason)),
                        ("transaction_id", .string(entry.transactionId)),
                    ] + (entry.appleConfirmation.map { [("apple_confirmation", SampleJSON.string($0))] } ?? [])
                ).rendered
        }
        var out = "{\n"
        out += "  \"seed\": \(seed),\n"
        out += "  \"transactions\": \(transactions),\n"
        out += "  \"as_of\": \(q(SampleClock.iso(asOf))),\n"
        out += "  \"grace_hours\": 24,\n"
        out += "  \"counts\": \(block(counts)),\n"
        out += "  \"planted\": \(block(planted.map { ($0.label, $0.count) })),\n"
        out += "  \"scenarios\": \(block(scenarios)),\n"
        out += "  \"findings\": [\n" + findings.joined(separator: ",\n") + "\n  ],\n"
        out += "  \"close\": \(close)\n"
        out += "}\n"
        return out
    }
}
