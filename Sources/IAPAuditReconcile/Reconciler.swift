import Foundation
import IAPAuditModel

/// Runs every reconciliation rule over the ledger's facts, one partition at a time (memory is one
/// partition per core, whatever the ledger's size):
///
/// 1. re-delivered notifications and the purchases of several ids (rule 18), each from its own stream;
/// 2. the request stage (`RequestStage`): per `request_id`, Apple's final answer and what each
///    request carried and granted, handed on by transaction;
/// 3. per transaction partition, the rules (semantics.md rules 8–24); the ids of one purchase are
///    reconciled together in one extra partition;
/// 4. the findings that need another partition's facts (`CrossPartition`: rules 9 and 23).
public enum Reconciler {
    /// The rules, one unit each.
    static let rules: [@Sendable (ReconcileContext) -> [Finding]] = [
        DroppedOrderRule.findings, InReceiptNeverCreditedRule.findings, DuplicateCreditRule.findings,
        SandboxLeakRule.findings, RefundStillGrantedRule.findings, InvalidCreditRule.findings,
        VerificationBacklogRule.findings, RevokedWhilePaidRule.findings, UnderCreditedRule.findings, ManualActionRule.findings,
    ]

    /// What a reconciliation found, and what the run should say about its input.
    package struct Outcome {
        /// Read back sorted by kind, reason, transaction id, users.
        package var findings: FindingSpill
        /// The audit instant used (ms since 1970 UTC); nil when no record had a timestamp and none was given.
        package var asOfMs: Int64?
        /// The record that set the default as-of.
        package var newestRecord: (ms: Int64, location: SourceLocation)?
        /// The audit window used (rule 17).
        package var window: AuditWindow
        /// The spans of time the client reports and the server log cover (oldest and newest `ts`, UTC ms).
        package var clientSpan: ClosedRange<Int64>?
        package var serverSpan: ClosedRange<Int64>?
        /// The newest Apple `received_at` (UTC ms); nil when no Apple record has one.
        package var newestReceivedMs: Int64?
        /// Per file, Apple records whose environment signals disagree, and answers naming no environment (rule 24).
        package var environmentCounts: [(file: String, conflicts: Int64, unknown: Int64)]
        package var unlinked: RequestStage.Unlinked
        /// Per file, Apple listings below the trust level the rules need (failed signatures, signed formats given
        /// unsigned): they changed no finding (docs/security.md, "Trust levels").
        package var unproven: [(file: String, failed: UnprovenListings.Count?, unverified: UnprovenListings.Count?)]
        /// With a carry directory: whether the complete requests were carried or all computed (and why), and how many
        /// requests were computed.
        package var carry: (mode: RequestCarry.Mode, computed: Int)?
        package var recordCount: Int64
        var clientReportCount: Int64
        package var serverRecordCount: Int64
        package var appleRecordCount: Int64
        package var signedRecordCount: Int64
    }

    /// - Parameters:
    ///   - asOfMs: the audit instant, ms since 1970 UTC; nil = the newest record timestamp (rule 15).
    ///   - graceMs: how long an unanswered request may wait before it is a backlog (default 24 h).
    ///   - fromMs, toMs: `--from`/`--to`, UTC ms, inclusive (rule 17); nil = not given.
    ///   - spillDirectory: where facts over the memory budget wait between the stages (nil: memory only).
    ///   - spillBudget: bytes of facts held in memory between the stages before they go to `spillDirectory`.
    ///   - carry: where the request stage's results are kept for the next run, and the ledger's carry generation
    ///     (`RequestCarry`; nil: not kept).
    ///   - manual: what people did about purchases (`iap-audit resolve`, rule 25).
    ///   - edges: rule 26: a problem whose feed ends within the grace of its purchase is `pending_evidence` (a run's
    ///     reconciliation); false judges the records as if every feed were complete (the tests of the other rules).
    ///   - lap: told the name of each step as it ends (the benchmark's phase timings).
    /// - Throws: what reading the facts throws (`SQLiteError`), or a spill file that cannot be written.
    package static func run(
        _ source: FactSource, config: AuditConfig, asOfMs: Int64?, graceMs: Int64, fromMs: Int64? = nil, toMs: Int64? = nil,
        spillDirectory: String? = nil,
        spillBudget: Int = 64 << 20, carry kept: (directory: String, generation: RequestCarry.Generation)? = nil,
        manual: ManualActions = .none, edges: Bool = false, lap: (String) -> Void = { _ in }
    ) throws -> Outcome {
        let ranks = FileRanks(source.files)
        let summary = try Summary(source, ranks)
        let asOf = asOfMs ?? summary.newest?.ms
        let window = AuditWindow(fromMs: fromMs, toMs: toMs, logStartMs: summary.oldestLogMs, logEndMs: summary.newestLogMs)
        // No timestamped record: no request to age, any instant will do. The feed ends (rule 26) are known before any rule.
        let audit = AuditParameters(
            config: config, asOfMs: asOf ?? 0, graceMs: graceMs, window: window, feedEnds: summary.feedEnds(graceMs: edges ? graceMs : nil),
            manual: manual)
        let redeliveries = try NotificationDeliveries.redeliveries(source, ranks: ranks)
        let purchases = try Purchases(source, ranks: ranks, redeliveries: redeliveries, products: config.products)
        lap("reconcile_prepare")
        let spill = PartitionSpill(directory: spillDirectory, budget: spillBudget)
        defer { spill.removeAll() }
        var carry = try kept.map {
            try RequestCarry(
                directory: $0.directory, generation: $0.generation, source: source, bundleIds: config.bundleIds,
                redeliveries: redeliveries, budget: spillBudget / 2)
        }
        func requests() throws -> RequestStage.Done {
            try RequestStage(
                source: source, ranks: ranks, redeliveries: redeliveries, bundleIds: config.bundleIds, spill: spill, carry: carry
            ).run()
        }
        /// Every request again, the carry made again.
        func rebuild(_ reason: String) throws {
            spill.removeAll()
            carry = try RequestCarry(rebuilding: carry!.directory, generation: carry!.generation, reason: reason, budget: spillBudget / 2)
        }
        /// Both stages (the carry's state written meanwhile).
        func stages() throws -> (done: RequestStage.Done, findings: FindingSpill, unproven: UnprovenListings) {
            var done = try requests()
            if carry != nil, done.computed == nil {
                try rebuild("a new fact names a complete request")
                done = try requests()
            }
            let committing = try carry.map { carry in
                let flushed = try carry.flush()
                return Background { try carry.commit(flushed, source: source, bundleIds: config.bundleIds, redeliveries: redeliveries) }
            }
            lap("reconcile_requests")
            let findings = try FindingSpill(directory: spillDirectory)
            let cross = CrossPartition(directory: spillDirectory.map { $0 + "/cross" }, budget: spillBudget / 4)
            defer { cross.removeAll() }
            let unproven: UnprovenListings
            do {
                unproven = try TransactionStage(
                    source: source, spill: spill, carried: carry?.outputs, ranks: ranks, redeliveries: redeliveries,
                    purchases: purchases, audit: audit, cross: cross, findings: findings
                ).run()
                try cross.settle(into: findings, manual: manual, feedEnds: audit.feedEnds)
            } catch {
                try? committing?.wait()
                throw error
            }
            try committing?.wait()
            return (done, findings, unproven)
        }
        let (done, findings, unproven): (RequestStage.Done, FindingSpill, UnprovenListings)
        do {
            (done, findings, unproven) = try stages()
        } catch is CarryLog.Damaged {
            // A stretch of the carry's log is not what was written: nothing it holds is used.
            try rebuild("its log damaged")
            (done, findings, unproven) = try stages()
        }
        return Outcome(
            findings: findings, asOfMs: asOf, newestRecord: summary.newest, window: window, clientSpan: summary.clientSpan,
            serverSpan: summary.serverSpan, newestReceivedMs: summary.newestReceivedMs,
            environmentCounts: summary.environmentCounts, unlinked: done.unlinked,
            unproven: byFile(unproven, ranks),
            carry: carry.map { ($0.mode, done.computed ?? 0) },
            recordCount: summary.records, clientReportCount: summary.clientReports, serverRecordCount: summary.serverRecords,
            appleRecordCount: summary.appleRecords, signedRecordCount: summary.signedRecords)
    }

    /// The files holding listings below the trust level the rules need, in ledger order: per file, its path and counts.
    private static func byFile(_ unproven: UnprovenListings, _ ranks: FileRanks) -> [(
        file: String, failed: UnprovenListings.Count?, unverified: UnprovenListings.Count?
    )] {
        let files = Set(unproven.failed.keys).union(unproven.unverified.keys).sorted { ranks.order($0, 0) < ranks.order($1, 0) }
        return files.map { (ranks.location($0, 0).file, unproven.failed[$0], unproven.unverified[$0]) }
    }

    /// The files' summaries: record counts and the newest record (semantics.md rule 15: the newest client
    /// `ts`, server `ts` or Apple `received_at`, never dates inside receipts; ties: a client report
    /// before a server record before an Apple record, then ledger order).
    struct Summary {
        var newest: (ms: Int64, location: SourceLocation)?
        /// The earliest client-report or server-log `ts` (rule 17).
        var oldestLogMs: Int64? { [clientSpan?.lowerBound, serverSpan?.lowerBound].compactMap { $0 }.min() }
        /// The newest client-report or server-log `ts`.
        var newestLogMs: Int64? { [clientSpan?.upperBound, serverSpan?.upperBound].compactMap { $0 }.max() }
        var clientSpan: ClosedRange<Int64>?
        var serverSpan: ClosedRange<Int64>?
        var newestReceivedMs: Int64?
        var environmentCounts: [(file: String, conflicts: Int64, unknown: Int64)] = []
        var records: Int64 = 0
        var clientReports: Int64 = 0
        var serverRecords: Int64 = 0
        var appleRecords: Int64 = 0
        var signedRecords: Int64 = 0

        init(_ source: FactSource, _ ranks: FileRanks) throws {
            var files: [(order: UInt64, fileId: UInt32, facts: FileFacts)] = []
            try source.forEachChunk(.summary, part: 0) { fileId, raw in
                files.append((ranks.order(fileId, 0), fileId, try FileFacts(decoding: raw, fileId: fileId)))
            }
            files.sort { $0.order < $1.order }
            var kinds: [(ms: Int64, location: SourceLocation)?] = [nil, nil, nil]
            for file in files {
                records += file.facts.clientReports + file.facts.serverRecords + file.facts.appleRecords
                clientReports += file.facts.clientReports
                serverRecords += file.facts.serverRecords
                appleRecords += file.facts.appleRecords
                signedRecords += file.facts.signedAppleRecords
                if let oldest = file.facts.oldestClient, let newest = file.facts.newestClient {
                    clientSpan = Self.union(clientSpan, oldest.ms...newest.ms)
                }
                if let oldest = file.facts.oldestServer, let newest = file.facts.newestServer {
                    serverSpan = Self.union(serverSpan, oldest.ms...newest.ms)
                }
                if file.facts.environmentConflicts > 0 || file.facts.environmentUnknown > 0 {
                    environmentCounts.append(
                        (ranks.location(file.fileId, 0).file, file.facts.environmentConflicts, file.facts.environmentUnknown))
                }
                for (k, newest) in [file.facts.newestClient, file.facts.newestServer, file.facts.newestReceived].enumerated() {
                    guard let newest, kinds[k] == nil || newest.ms > kinds[k]!.ms else { continue }
                    kinds[k] = (newest.ms, ranks.location(file.fileId, newest.line))
                }
            }
            newest = kinds.compactMap { $0 }.max { $0.ms < $1.ms }
            newestReceivedMs = kinds[2]?.ms
        }

        /// Where the server log and Apple's answers end (rule 26); none without a grace (`edges` false).
        func feedEnds(graceMs: Int64?) -> PendingEvidenceRule.FeedEnds {
            guard let graceMs else { return PendingEvidenceRule.FeedEnds(serverLogMs: nil, appleAnswersMs: nil, graceMs: 0) }
            return PendingEvidenceRule.FeedEnds(serverLogMs: serverSpan?.upperBound, appleAnswersMs: newestReceivedMs, graceMs: graceMs)
        }

        static func union(_ a: ClosedRange<Int64>?, _ b: ClosedRange<Int64>) -> ClosedRange<Int64> {
            guard let a else { return b }
            return min(a.lowerBound, b.lowerBound)...max(a.upperBound, b.upperBound)
        }
    }
}
