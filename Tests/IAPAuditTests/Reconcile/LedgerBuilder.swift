import Foundation
import XCTest

@testable import IAPAuditCLI
@testable import IAPAuditCrypto
@testable import IAPAuditIngest
@testable import IAPAuditModel
@testable import IAPAuditPipeline
@testable import IAPAuditReconcile
@testable import IAPAuditReport
@testable import IAPAuditSample
@testable import IAPAuditStore

/// The records of a scenario, as values.
struct Ledger {
    var clientReports: [ClientReport] = []
    var serverRequests: [ServerRequest] = []
    var appleRecords: [AppleRecord] = []
}

/// Builds small reconciliation scenarios in code (semantics.md rules 1–16), reconciled through the
/// production path: the records are stored as rows by the store (`RecordWriter`, the facts of
/// `FactEncoder`) in a scratch ledger and reconciled from its facts (`Reconciler`, `StoreFactSource`).
///
/// Every record gets a distinct `file:line` so evidence can be checked: client reports live in
/// `client.jsonl`, server-log records in `server.jsonl`, verify responses in `verify.jsonl`,
/// each numbered from 1 in the order added (the order the ledger loader would give).
/// Times are ISO 8601 (`2026-10-01T10:00:00Z`) or the shorthand `HH:MM` for 2026-10-01 UTC.
final class LedgerBuilder {
    /// An as-of far after every record of a day-1 scenario: whatever is unresolved is overdue.
    static let muchLater = "2026-10-10T00:00:00Z"

    var config: AuditConfig
    private(set) var ledger = Ledger()
    private var clientLine = 0
    private var serverLine = 0
    private var verifyLine = 0

    init(config: AuditConfig = AuditConfig()) { self.config = config }

    /// Milliseconds since 1970 UTC of an ISO 8601 time or `HH:MM` on 2026-10-01.
    static func ms(_ time: String) -> Int64 {
        let full = time.count == 5 ? "2026-10-01T\(time):00Z" : time
        guard let value = Timestamp.parseMs(full) else { preconditionFailure("bad test time \(time)") }
        return value
    }

    /// A client report (`client.jsonl`); a nil id is a failed or deferred transaction.
    @discardableResult
    func client(
        _ id: String?, _ state: ClientState = .purchased, user: String? = "u1", product: String? = nil,
        original: String? = nil, at time: String = "09:00"
    ) -> SourceLocation {
        clientLine += 1
        let location = SourceLocation(file: "client.jsonl", line: clientLine)
        ledger.clientReports.append(
            ClientReport(
                location: location, tsMs: Self.ms(time), userId: user, deviceId: user.map { "dev-\($0)" }, transactionId: id,
                originalTransactionId: original, productId: product, state: state, errorCode: nil, quantity: 1))
        return location
    }

    /// A verification request (`server.jsonl`); `status`/`env` are what the server logged (never proof).
    @discardableResult
    func request(
        _ requestId: String, ids: [String], user: String? = "u1", granted: Bool = false,
        credited: [String]? = nil, restore: Bool = false, status: Int? = nil, env: String? = nil,
        at time: String
    ) -> SourceLocation {
        serverRecord(
            requestId, event: .verify, ids: ids, user: user, granted: granted, credited: credited,
            restore: restore, status: status, env: env, at: time)
    }

    /// A revoke record (`server.jsonl`, `event: revoke`); the other fields are there to be ignored.
    @discardableResult
    func revoke(
        _ requestId: String, ids: [String], user: String?, granted: Bool = false, credited: [String]? = nil,
        status: Int? = nil, at time: String
    ) -> SourceLocation {
        serverRecord(
            requestId, event: .revoke, ids: ids, user: user, granted: granted, credited: credited,
            restore: false, status: status, env: nil, at: time)
    }

    private func serverRecord(
        _ requestId: String, event: ServerEvent, ids: [String], user: String?, granted: Bool,
        credited: [String]?, restore: Bool, status: Int?, env: String?, at time: String
    ) -> SourceLocation {
        serverLine += 1
        let location = SourceLocation(file: "server.jsonl", line: serverLine)
        ledger.serverRequests.append(
            ServerRequest(
                location: location, tsMs: Self.ms(time), requestId: requestId, event: event, userId: user,
                deviceId: user.map { "dev-\($0)" }, transactionIds: ids, creditedTransactionIds: credited, restore: restore,
                receiptSha256: nil, verifyStatus: status, environment: env, granted: granted, latencyMs: 120))
        return location
    }

    /// A verify response (`verify.jsonl`): linked to `requestId`, or bare when nil. `items` are plain
    /// `in_app` ids; `receipt` takes detailed items made with `item(…)`.
    @discardableResult
    func response(
        for requestId: String?, status: Int = 0, env: String? = "Production", receiptType: String? = nil,
        bundle: String? = nil, retryable: Bool? = nil, items: [String] = [], receipt: [AppleTransaction] = [],
        at time: String?
    ) -> SourceLocation {
        verifyLine += 1
        let location = SourceLocation(file: "verify.jsonl", line: verifyLine)
        ledger.appleRecords.append(
            AppleRecord(
                location: location, requestId: requestId, receivedAtMs: time.map(Self.ms), status: status, environment: env,
                isRetryable: retryable, bundleId: bundle, receiptType: receiptType,
                items: items.map { LedgerBuilder.item($0) } + receipt, rawJSON: "{}"))
        return location
    }

    /// The ledger's Apple records, for tests that shape one by hand.
    var ledgerResponses: [AppleRecord] {
        get { ledger.appleRecords }
        set { ledger.appleRecords = newValue }
    }

    /// A signed-format record (`apple.jsonl`): a JWS transaction, notification or receipt as a reader
    /// would make it, linked to `requestId` or bare.
    @discardableResult
    func signed(
        _ source: EvidenceSource, for requestId: String? = nil, signature: SignatureStatus = .verified,
        env: String? = "Production", items: [AppleTransaction], notification: String? = nil, uuid: String? = nil,
        signed time: String = "12:00", at received: String? = nil
    ) -> SourceLocation {
        verifyLine += 1
        let location = SourceLocation(file: "apple.jsonl", line: verifyLine)
        var response = AppleRecord(
            location: location, requestId: requestId, receivedAtMs: received.map(Self.ms), status: 0, environment: env,
            isRetryable: nil, bundleId: nil, receiptType: nil,
            items: items.map {
                var item = $0
                item.signature = signature
                return item
            }, rawJSON: "{}")
        response.source = source
        response.signature = signature
        response.signedDateMs = Self.ms(time)
        if let notification {
            response.notification = NotificationInfo(notificationUUID: uuid, notificationType: notification, subtype: nil)
        }
        ledger.appleRecords.append(response)
        return location
    }

    /// A verify response built by the real parser from Apple's JSON body (rule 7's shapes).
    @discardableResult
    func parsedResponse(for requestId: String?, json: String, at time: String?) throws -> SourceLocation {
        verifyLine += 1
        let location = SourceLocation(file: "verify.jsonl", line: verifyLine)
        let body = try JSONField.parseObject(Data(json.utf8))
        ledger.appleRecords.append(
            try VerifyResponseParser.parse(
                body, at: location, requestId: requestId, receivedAtMs: time.map(Self.ms), raw: json))
        return location
    }

    /// One receipt item.
    static func item(
        _ id: String, original: String? = nil, product: String? = nil, purchased: String? = nil,
        cancelled: String? = nil, ownership: String? = nil, sections: [String] = ["in_app"]
    ) -> AppleTransaction {
        var item = AppleTransaction(transactionId: id, sections: sections)
        item.originalTransactionId = original
        item.productId = product
        item.quantity = 1
        item.purchaseDateMs = purchased.map(ms)
        item.cancellationDateMs = cancelled.map(ms)
        item.cancellationReason = cancelled == nil ? nil : "0"
        item.inAppOwnershipType = ownership
        return item
    }

    /// Runs the reconciler. `asOf: nil` lets it default (rule 15).
    func run(asOf: String? = LedgerBuilder.muchLater, graceHours: Double = 24) -> (findings: [Finding], asOfMs: Int64?) {
        // A scratch ledger cannot fail to be written or read: a failure is the test's.
        let outcome = try! reconcile(asOf: asOf, graceHours: graceHours)
        return (try! outcome.findings.all(), outcome.asOfMs)
    }

    /// Stores the records in a scratch ledger (one file per input file, its records in the order
    /// added) and reconciles it; `spillDirectory`/`spillBudget` as `Reconciler.run` takes them.
    func reconcile(asOf: String?, graceHours: Double = 24, spillDirectory: String? = nil, spillBudget: Int = 64 << 20) throws
        -> Reconciler.Outcome
    {
        let store = try AuditStore(path: TestPaths.scratch() + "/audit.sqlite")
        var batches: [String: RecordBatch] = [:]
        for r in ledger.clientReports { batches[r.location.file, default: RecordBatch()].append(r) }
        for r in ledger.serverRequests { batches[r.location.file, default: RecordBatch()].append(r) }
        for r in ledger.appleRecords { batches[r.location.file, default: RecordBatch()].append(r, keepRaw: true) }
        try Self.importFiles(batches.sorted(by: { $0.key < $1.key }).map { (path: $0.key, batch: $0.value) }, into: store)
        return try Reconciler.run(
            try store.factReader(), config: config, asOfMs: asOf.map(Self.ms), graceMs: Int64(graceHours * 3_600_000),
            spillDirectory: spillDirectory, spillBudget: spillBudget)
    }

    /// Imports each batch as one file of `path` (its records in the order added), in the order given.
    static func importFiles(_ files: [(path: String, batch: RecordBatch)], into store: AuditStore) throws {
        for (path, batch) in files {
            _ = try store.importStreaming(
                path: path,
                read: { sink in
                    var file = ImportedFile(
                        path: path, sha256: "", bytes: 0, kind: .other, format: .jsonLines, status: .imported, note: "",
                        recordsIn: batch.recordCount)
                    file.count(batch)
                    try sink.write(batch)
                    return file
                }, keep: { _ in false })
        }
    }

    /// The findings as sorted `kind/reason/transaction_id` strings.
    func findings(asOf: String? = LedgerBuilder.muchLater, graceHours: Double = 24) -> [String] {
        run(asOf: asOf, graceHours: graceHours).findings.map { "\($0.kind.rawValue)/\($0.reason)/\($0.transactionId)" }.sorted()
    }

    /// The one finding of `kind` about `id` (fails the test when there is not exactly one).
    func finding(
        _ kind: FindingKind, _ id: String, asOf: String? = LedgerBuilder.muchLater, graceHours: Double = 24,
        file: StaticString = #filePath, line: UInt = #line
    ) -> Finding? {
        let matches = run(asOf: asOf, graceHours: graceHours).findings.filter { $0.kind == kind && $0.transactionId == id }
        XCTAssertEqual(matches.count, 1, "findings of \(kind.rawValue) about \(id)", file: file, line: line)
        return matches.first
    }

    /// `file:line` strings of a finding's evidence, sorted.
    static func evidence(_ finding: Finding?) -> [String] {
        (finding?.evidence ?? []).map(\.description).sorted()
    }
}
