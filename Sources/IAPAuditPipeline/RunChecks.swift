import Foundation
import IAPAuditCrypto
import IAPAuditIngest
import IAPAuditModel
import IAPAuditReconcile
import IAPAuditReport
import IAPAuditStore

/// The warnings of a run (`RunWarning`): conditions that do not stop it but make its result doubtful,
/// shown in every output (stderr, `--json`, table `run_warning`, the Summary sheet).
enum RunChecks {
    static func beforeImport(_ store: AuditStore, _ options: AuditOptions, databasePath: String) throws -> [RunWarning] {
        var warnings: [RunWarning] = []
        if try store.runParameter("run_status") == "incomplete" {
            warnings.append(
                RunWarning(
                    .previousRunIncomplete, "the previous run into \(options.outputDirectory) did not complete; this run completes it",
                    file: databasePath))
        }
        let c = options.config
        if c.products.isEmpty && c.bundleIds.isEmpty && c.sandboxAllowlist.isEmpty {
            warnings.append(
                RunWarning(
                    .noConfig,
                    "no products, bundle_ids or sandbox_allowlist configured (--config): product types are unknown "
                        + "(a second grant counts as a consumable's same_user duplicate), bundle ids are not checked, "
                        + "and no user is on the sandbox allowlist"))
        }
        return warnings
    }

    static func afterReconcile(_ outcome: Reconciler.Outcome, _ options: AuditOptions) -> [RunWarning] {
        var warnings: [RunWarning] = []
        if outcome.recordCount == 0 {
            warnings.append(
                RunWarning(
                    .nothingImported,
                    "no transaction evidence (client report, server-log or Apple record) was imported from "
                        + "\(options.paths.joined(separator: ", ")): nothing was audited"))
        }
        if options.asOfMs == nil, let newest = outcome.newestRecord, newest.ms > Int64(Date().timeIntervalSince1970 * 1000) + 86_400_000 {
            warnings.append(
                RunWarning(
                    .asOfInFuture,
                    "\(newest.location): as-of \(Timestamp.iso(newest.ms)) comes from a record dated in the future; "
                        + "pass --as-of to audit as of another time", file: newest.location.file))
        }
        // One of the three sources missing (a log not exported, a hidden file, a failed mount) makes
        // the findings about it meaningless in bulk: say so.
        if outcome.serverRecordCount == 0 && outcome.recordCount > 0 {
            warnings.append(
                RunWarning(
                    .noServerLog,
                    "no server-log record was imported: nothing the server credited is known, so every purchase the client reported "
                        + "or Apple listed shows as never credited (dropped_order); pass the server's transaction log too"))
        }
        if outcome.appleRecordCount == 0 && outcome.serverRecordCount > 0 {
            warnings.append(
                RunWarning(
                    .noAppleRecord,
                    "no Apple record (verify response, signed transaction, notification, receipt) was imported: no grant can be proven "
                        + "and every verification shows as unanswered; pass Apple's responses too"))
        }
        if outcome.serverRecordCount > 0, let first = outcome.unlinked.first {
            warnings.append(
                RunWarning(
                    .unlinkedResponses,
                    "\(first.location): \(outcome.unlinked.count) verify response(s) name a request_id that is not in the server log "
                        + "(first: \(first.requestId)); they prove nothing for any grant", file: first.location.file))
        }
        // Rule 24: records whose environment signals disagree prove no production payment; answers naming no
        // environment anywhere are read as production.
        for file in outcome.environmentCounts where file.conflicts > 0 {
            warnings.append(
                RunWarning(
                    .environmentConflict,
                    "\(file.file): \(file.conflicts) Apple record(s) labelled Production or naming no environment have a sandbox "
                        + "receipt_type or subscription periods of an hour or less: read as sandbox (no production payment, no dropped order)",
                    file: file.file))
        }
        for file in outcome.environmentCounts where file.unknown > 0 {
            warnings.append(
                RunWarning(
                    .environmentUnknown,
                    "\(file.file): \(file.unknown) Apple answer(s) name no environment (no environment, receipt_type or transaction "
                        + "environment): read as production (environment unknown)", file: file.file))
        }
        return warnings
    }
}
