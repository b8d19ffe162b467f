import Foundation
import IAPAuditCrypto
import IAPAuditIngest
import IAPAuditModel
import IAPAuditReconcile
import IAPAuditReport
import IAPAuditStore

/// Warnings an operator should see on stderr (and in `--json`): conditions that do not stop a
/// run but make its result doubtful.
enum RunChecks {
    static func beforeImport(_ store: AuditStore, _ options: AuditOptions) throws -> [String] {
        var warnings: [String] = []
        if try store.runParameter("run_status") == "incomplete" {
            warnings.append("the previous run into \(options.outputDirectory) did not complete; this run completes it")
        }
        let c = options.config
        if c.products.isEmpty && c.bundleIds.isEmpty && c.sandboxAllowlist.isEmpty {
            warnings.append(
                "no products, bundle_ids or sandbox_allowlist configured (--config): product types are unknown "
                    + "(a second grant counts as a consumable's same_user duplicate), bundle ids are not checked, "
                    + "and no user is on the sandbox allowlist")
        }
        return warnings
    }

    static func afterReconcile(_ outcome: Reconciler.Outcome, _ options: AuditOptions) -> [String] {
        var warnings: [String] = []
        if outcome.recordCount == 0 {
            warnings.append("no record was imported from \(options.paths.joined(separator: ", ")): nothing was audited")
        }
        if options.asOfMs == nil, let newest = outcome.newestRecord, newest.ms > Int64(Date().timeIntervalSince1970 * 1000) + 86_400_000 {
            warnings.append(
                "\(newest.location): as-of \(Timestamp.iso(newest.ms)) comes from a record dated in the future; "
                    + "pass --as-of to audit as of another time")
        }
        // One of the three sources missing (a log not exported, a hidden file, a failed mount) makes
        // the findings about it meaningless in bulk: say so.
        if outcome.serverRecordCount == 0 && outcome.recordCount > 0 {
            warnings.append(
                "no server-log record was imported: nothing the server credited is known, so every purchase the client reported "
                    + "or Apple listed shows as never credited (dropped_order); pass the server's transaction log too")
        }
        if outcome.appleRecordCount == 0 && outcome.serverRecordCount > 0 {
            warnings.append(
                "no Apple record (verify response, signed transaction, notification, receipt) was imported: no grant can be proven "
                    + "and every verification shows as unanswered; pass Apple's responses too")
        }
        if outcome.serverRecordCount > 0, let first = outcome.unlinked.first {
            warnings.append(
                "\(first.location): \(outcome.unlinked.count) verify response(s) name a request_id that is not in the server log "
                    + "(first: \(first.requestId)); they prove nothing for any grant")
        }
        // Rule 24: records whose environment signals disagree prove no production payment; answers naming no
        // environment anywhere are read as production.
        for file in outcome.environmentCounts where file.conflicts > 0 {
            warnings.append(
                "\(file.file): \(file.conflicts) Apple record(s) say Production but their receipt_type or subscription periods "
                    + "(an hour or less) are the sandbox's: read as sandbox (no production payment, no dropped order)")
        }
        for file in outcome.environmentCounts where file.unknown > 0 {
            warnings.append(
                "\(file.file): \(file.unknown) Apple answer(s) name no environment (no environment, receipt_type or transaction "
                    + "environment): read as production (environment unknown)")
        }
        return warnings
    }
}
