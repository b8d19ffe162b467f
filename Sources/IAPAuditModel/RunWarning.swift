/// A condition that does not stop a run but makes its result doubtful (no server log among the inputs,
/// no trust anchor, an input file that vanished since the last run…).
///
/// Every warning of a run is printed on stderr (`iap-audit: warning: <message>`), listed in `--json`
/// (`{"code", "message", "file"}`), stored in table `run_warning` with the findings it qualifies, and
/// shown at the top of the workbook's Summary sheet: what a run knows reaches every output.
public struct RunWarning: Sendable, Hashable {
    /// The kind of warning: a stable identifier a scheduler can act on.
    public var code: Code
    /// What happened and what to do about it, in one line.
    public var message: String
    /// The file the warning is about (an input file, the file of a record, the ledger), or nil.
    public var file: String?

    /// A warning of kind `code`, saying `message`, about `file` (nil: about no one file).
    public init(_ code: Code, _ message: String, file: String? = nil) {
        (self.code, self.message, self.file) = (code, message, file)
    }

    /// A warning kind, as snake_case text (`no_server_log`). Raw and typed: a code this version does not
    /// know (read from a ledger another version wrote) is kept as its text.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String

        /// The code spelled `rawValue` (one of the constants below, or one another version gave).
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The snake_case text.
        public var description: String { rawValue }

        /// The last run into the output folder was killed or failed: this run completes it.
        public static let previousRunIncomplete = Code(rawValue: "previous_run_incomplete")
        /// No products, bundle ids or sandbox allowlist configured (`--config`).
        public static let noConfig = Code(rawValue: "no_config")
        /// More than one iap-audit config in an input folder: none was used.
        public static let severalConfigs = Code(rawValue: "several_configs")
        /// No transaction evidence was imported from the paths given (App Store Connect's reports are not):
        /// nothing was audited.
        public static let nothingImported = Code(rawValue: "nothing_imported")
        /// The as-of was set by a record dated more than a day after the clock of the machine.
        public static let asOfInFuture = Code(rawValue: "as_of_in_future")
        /// `--as-of` is before the newest record the ledger holds: records after it are judged as of an instant before
        /// they were written.
        public static let recordsAfterAsOf = Code(rawValue: "records_after_as_of")
        /// No server-log record among the inputs: every purchase shows as never credited.
        public static let noServerLog = Code(rawValue: "no_server_log")
        /// No Apple record among the inputs: no grant can be proven.
        public static let noAppleRecord = Code(rawValue: "no_apple_record")
        /// A file of which a tenth or more of the records were rejected.
        public static let mostlyRejected = Code(rawValue: "mostly_rejected")
        /// The client reports and the server log cover different days.
        public static let logCoverage = Code(rawValue: "log_coverage")
        /// Verify responses name request ids the server log does not hold.
        public static let unlinkedResponses = Code(rawValue: "unlinked_responses")
        /// No JWS or no receipt trust anchor: the signed records of that kind are `untrusted_root`.
        public static let noTrustAnchor = Code(rawValue: "no_trust_anchor")
        /// A file imported by the last run into the output folder was not given this run: its records
        /// were removed from the ledger.
        public static let inputVanished = Code(rawValue: "input_vanished")
        /// A file the ledger held under another path was given under this one (the same file: size, modification
        /// time and inode as stored, or its old path naming the same device and inode now): renamed in the ledger.
        public static let inputRenamed = Code(rawValue: "input_renamed")
        /// Files rotated under numbered names (`server.jsonl` → `server.jsonl.1` → `server.jsonl.2.gz`): the records read
        /// from them stay under `path@<sha8>`, the files holding their content now are their copies.
        public static let inputRotated = Code(rawValue: "input_rotated")
        /// A file the ledger held records from holds none now (rewritten empty: a failed export?): its records were
        /// removed with its old content.
        public static let inputEmptied = Code(rawValue: "input_emptied")
        /// A path the ledger holds records from was given but could not be read (a dangling symbolic link where the
        /// file was, a loop, a FIFO): its records are kept as an earlier run read them.
        public static let inputUnreadable = Code(rawValue: "input_unreadable")
        /// A file this run brought whose client reports or server-log records all lack `user_id` (an export that
        /// renamed or dropped the field): read without error, its findings name no user.
        public static let userIdMissing = Code(rawValue: "user_id_missing")
        /// The trust anchors or `--signatures-at` differ from the last run's: every input file was read again.
        public static let signatureSettingsChanged = Code(rawValue: "signature_settings_changed")
        /// Lines of the close's price list (`--prices`) were rejected.
        public static let priceListRejected = Code(rawValue: "price_list_rejected")
        /// No App Store Connect report of the closed period among the inputs: Apple's figures are absent.
        public static let noAppleReports = Code(rawValue: "no_apple_reports")
        /// App Store Connect's reports cover only part of the closed period (days, fiscal months).
        public static let reportCoverage = Code(rawValue: "report_coverage")
        /// A report given twice (counted once), or two different reports of the same day or month.
        public static let duplicateReport = Code(rawValue: "duplicate_report")
        /// Lines of an App Store Connect report were rejected: Apple's figures from it are incomplete.
        public static let reportLinesRejected = Code(rawValue: "report_lines_rejected")
        /// The closed period ends after what the ledger can judge (its as-of less the grace): the close is
        /// provisional.
        public static let periodOpen = Code(rawValue: "period_open")
        /// The period was closed before in this ledger with other totals: this close restates them.
        public static let closeRestated = Code(rawValue: "close_restated")
        /// Purchases of the closed period have no price (no verified JWS price, no price-list entry).
        public static let unpricedPurchases = Code(rawValue: "unpriced_purchases")
        /// Apple records whose environment signals disagree (semantics.md rule 24): read as sandbox.
        public static let environmentConflict = Code(rawValue: "environment_conflict")
        /// Apple answers naming no environment anywhere (rule 24): read as production.
        public static let environmentUnknown = Code(rawValue: "environment_unknown")
        /// Apple listings whose signature failed (invalid, `alg` not ES256, an unknown `crit`, a chain to no configured
        /// anchor): they prove nothing and change no finding (docs/security.md, "Trust levels"). Alerts under
        /// `--fail-on-rejected` for a file the run brought.
        public static let signatureFailed = Code(rawValue: "signature_failed")
        /// Apple listings of a signed format given unsigned (decoded JWS payloads as plain JSON, iOS 6 receipts): they
        /// prove nothing and change no finding.
        public static let unprovenRecords = Code(rawValue: "unproven_records")
        /// The ledger was made by another version of iap-audit: migrated in place, or rebuilt (its records read again).
        public static let ledgerUpgraded = Code(rawValue: "ledger_upgraded")

        /// The codes only a close gives (stored in `run_warning` beside its run's, replaced by the next close).
        public static let closeOnly: Set<Code> = [
            .priceListRejected, .unpricedPurchases, .noAppleReports, .reportCoverage, .duplicateReport, .reportLinesRejected, .periodOpen,
            .closeRestated,
        ]

        /// Every code this version gives, in the order a run may give them.
        public static let all: [Code] = [
            .previousRunIncomplete, .ledgerUpgraded, .noConfig, .severalConfigs, .inputVanished, .inputRenamed, .inputRotated,
            .inputEmptied,
            .inputUnreadable,
            .userIdMissing,
            .signatureSettingsChanged, .nothingImported,
            .asOfInFuture, .recordsAfterAsOf,
            .noServerLog,
            .noAppleRecord,
            .mostlyRejected, .logCoverage, .unlinkedResponses, .environmentConflict, .environmentUnknown, .signatureFailed,
            .unprovenRecords,
            .noTrustAnchor,
            .priceListRejected, .unpricedPurchases, .noAppleReports, .reportCoverage, .duplicateReport, .reportLinesRejected,
            .periodOpen, .closeRestated,
        ]
    }
}

/// Whole numbers as a reader writes them in a sentence: `5,254`, `1,000,000`.
public enum CountText {
    /// `count` with a comma between each group of three digits.
    public static func grouped(_ count: Int64) -> String {
        let digits = String(count.magnitude)
        var result = ""
        for (i, digit) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return count < 0 ? "-" + result : result
    }

    /// `1 record`, `5,254 records`.
    public static func counted(_ count: Int64, _ noun: String) -> String { "\(grouped(count)) \(noun)\(count == 1 ? "" : "s")" }
}
