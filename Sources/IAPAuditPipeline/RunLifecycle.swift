import Foundation
import IAPAuditCrypto
import IAPAuditModel
import IAPAuditReconcile
import IAPAuditStore

/// The findings' lifecycle across the runs into one ledger (docs/findings.md, Lifecycle): each run's findings
/// against the states the last recorded run left (`FindingLifecycle`), recorded with the findings in one
/// transaction. A run with the same identity as the last recorded one (`RunIdentity`) records nothing and
/// shows that run's changes again.
struct RunLifecycle {
    let identity: RunIdentity
    let last: (run: Int, fingerprint: String)?
    /// The findings open or acknowledged after the last recorded run.
    let previous: [FindingState]
    /// Files whose content the last recorded run did not have (new or changed): path by file id.
    let newFiles: [Int64: String]
    /// The files of this run the last recorded run did not have as they are (new, changed, grown; skipped ones
    /// too, a copy delivered again): what this run brought.
    let brought: [String]
    /// The files the last recorded run had that the ledger no longer holds (dropped by `--forget-missing`, or read by
    /// another version and not given), by path.
    let inputsGone: [String]
    /// What people did about purchases (`iap-audit resolve`): a finding it closed is resolved by it.
    let manual: ManualActions
    /// The first line this run read of each file it read (a grown log's, or a rotated one's continued: the lines before
    /// it arrived before, under this name or another, and resolve nothing), by path.
    let firstNewLine: [String: Int]

    /// The same inputs and parameters as the last recorded run.
    var repeated: Bool { last?.fingerprint == identity.fingerprint }

    /// Reads what the lifecycle needs from the store once the inputs are imported (on the run's connection,
    /// before reconciliation).
    /// - Parameter read: the files this run read (a file the ledger held as the last run left it, read again — a copy
    ///   imported once its original was forgotten — is brought too).
    init(
        _ store: AuditStore, _ options: AuditOptions, signatures: String, manual: ManualActions = .none,
        read: [String: LedgerImporter.FileRead] = [:]
    ) throws {
        let files = try store.ledgerFiles()
        identity = RunIdentity(files: files, options: options, signatures: signatures, manual: manual)
        self.manual = manual
        firstNewLine = read.mapValues(\.fromLine)
        last = try store.lastRun()
        previous = last == nil ? [] : try store.unresolvedFindings()
        let before = try store.runInputs()
        let isBrought = { (file: LedgerFile) in before[file.path] != file.sha256 || read[file.path] != nil }
        newFiles = Dictionary(
            files.filter { $0.status != "skipped" && isBrought($0) }.map { ($0.fileId, $0.path) }, uniquingKeysWith: { a, _ in a })
        brought = files.filter(isBrought).map(\.path).sorted()
        // Not one renamed, or whose content another path holds (the same records).
        let (paths, contents) = (Set(files.map(\.path)), Set(files.map(\.sha256)))
        // A skipped path (a link loop, an empty file) held nothing: its going changed nothing.
        let nothing = Digest.sha256Hex(Data())
        inputsGone = before.filter { !paths.contains($0.key) && !contents.contains($0.value) && $0.value != nothing }.keys
            .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// This run's changes, and what to record with its findings (nil for a repeated run; it has the files it
    /// brought recorded as the last run's, `runInputs`, when it brought any: a copy delivered again, skipped). Reads the
    /// ledger on a connection of its own (the run's may be building indexes meanwhile).
    /// - Parameters:
    ///   - asOfMs: the run's as-of (a finding resolved without a new record is resolved at it).
    ///   - nowMs: the machine's clock: when the run is recorded.
    func changes(_ findings: FindingSpill, databasePath: String, asOfMs: Int64?, nowMs: Int64) throws -> (
        RunChanges, LifecycleRecord?, runInputs: [(path: String, sha256: String)]?
    ) {
        let reader = try LifecycleReader(path: databasePath)
        if let last, repeated {
            let recordedAt = try reader.recordedAtMs(ofRun: last.run) ?? nowMs
            let previousRun = last.run > 1 ? last.run - 1 : nil
            var changes = RunChanges(
                run: last.run, previousRun: previousRun, repeated: true, fingerprint: identity.fingerprint, recordedAtMs: recordedAt,
                changes: try reader.changes(ofRun: last.run))
            changes.newFiles = brought
            return (changes, nil, brought.isEmpty ? nil : identity.given)
        }
        let run = (last?.run ?? 0) + 1
        var current: [FindingLifecycle.Current] = []
        var ids = FindingIds()
        try findings.forEachIdentity { kind, reason, transactionId in
            current.append(
                FindingLifecycle.Current(
                    id: ids.id(kind: kind, transactionId: transactionId, reason: reason), kind: kind, transactionId: transactionId,
                    reason: reason))
        }
        let changes = try FindingLifecycle.changes(
            run: run, current: current, previous: previous, earlier: { last == nil ? [:] : try reader.resolvedStates($0) },
            resolve: { try resolutions($0, reader) }, asOfMs: asOfMs, inputsGone: inputsGone)
        let record = LifecycleRecord(
            run: run, fingerprint: identity.fingerprint, parameters: identity.parameters, recordedAtMs: nowMs, asOfMs: asOfMs,
            inputs: identity.inputs, given: identity.given, findings: current.count, changes: changes)
        var runChanges = RunChanges(
            run: run, previousRun: last?.run, repeated: false, fingerprint: identity.fingerprint, recordedAtMs: nowMs, changes: changes)
        runChanges.newFiles = brought
        return (runChanges, record, nil)
    }

    /// What resolved each finding of `gone`: the records of its transaction in the files new to this run,
    /// but for those that were its evidence already (a file that grew is read whole again).
    /// A person's actions about the transaction (`iap-audit resolve`) come first, as `manual action #N (words)`.
    private func resolutions(_ gone: [FindingState], _ reader: LifecycleReader) throws -> [String: FindingLifecycle.Resolution] {
        var result: [String: FindingLifecycle.Resolution] = [:]
        for state in gone {
            let done = manual.about(state.transactionId)
            guard !done.isEmpty else { continue }
            result[state.id] = FindingLifecycle.Resolution(
                atMs: done.map(\.atMs).max(), evidence: done.map(\.named))
        }
        guard !newFiles.isEmpty else { return result }
        let records = try reader.records(about: try reader.originalIds(of: gone), in: newFiles)
        for state in gone where result[state.id] == nil {
            guard let found = records[state.transactionId] else { continue }
            // Each finding's evidence read as it comes, not all at once: as many as the ledger has findings, some nights.
            let known = Set(try reader.storedEvidence(state.id))
            let new = found.filter {
                $0.location.line >= firstNewLine[$0.location.file] ?? 1 && !known.contains($0.location.description)
            }
            guard !new.isEmpty else { continue }
            result[state.id] = FindingLifecycle.Resolution(
                atMs: new.compactMap(\.ms).min(), evidence: new.map(\.location.description))
        }
        return result
    }
}
