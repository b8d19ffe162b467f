import Foundation

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

    static func afterReconcile(_ ledger: Ledger, _ options: AuditOptions) -> [String] {
        var warnings: [String] = []
        if ledger.clientReports.isEmpty && ledger.serverRequests.isEmpty && ledger.verifyResponses.isEmpty {
            warnings.append("no record was imported from \(options.paths.joined(separator: ", ")): nothing was audited")
        }
        if options.asOfMs == nil, let newest = Reconciler.newestRecord(ledger),
            newest.ms > Int64(Date().timeIntervalSince1970 * 1000) + 86_400_000
        {
            warnings.append(
                "\(newest.location): as-of \(Timestamp.iso(newest.ms)) comes from a record dated in the future; "
                    + "pass --as-of to audit as of another time")
        }
        if !ledger.serverRequests.isEmpty {
            // Counted in place: a month holds about a million responses.
            let requestIds = Set(ledger.serverRequests.lazy.map(\.requestId))
            var unlinked = 0
            var first: (location: SourceLocation, requestId: String)? = nil
            for response in ledger.verifyResponses {
                guard let id = response.requestId, !requestIds.contains(id) else { continue }
                unlinked += 1
                if first == nil { first = (response.location, id) }
            }
            if let first {
                warnings.append(
                    "\(first.location): \(unlinked) verify response(s) name a request_id that is not in the server log "
                        + "(first: \(first.requestId)); they prove nothing for any grant")
            }
        }
        return warnings
    }
}
