import Foundation
import IAPAuditModel

/// Writes a synthetic month of an app's In-App Purchase evidence (2026-10-01 to 2026-10-31 UTC)
/// with every finding kind and reason planted, and the exact answer key.
///
/// Files: `client.jsonl` and `client.csv` (client reports, about a tenth as CSV with epoch-ms
/// `ts`), `server.jsonl` (verification requests and revokes), `verify.jsonl` (Apple verifyReceipt
/// answers wrapped with `request_id` and `received_at`), `config.json`, `answer-key.json`.
/// The newest record is 2026-10-31T00:00:00Z, the as-of the key assumes (grace 24 h).
///
/// Every planted case uses fresh users and transaction ids, so the key is what was planted,
/// sorted by (kind, reason, transaction id). The same seed gives byte-identical files.
public struct SampleGenerator: Sendable {
    /// Distinct transaction ids to create. The planted cases need about 140 (each case three
    /// times, more from 2,000 on); below that the sample holds just the planted cases, so it has more.
    public var transactions: Int
    /// Seed of the SplitMix64 generator every random choice comes from.
    public var seed: UInt64

    public init(transactions: Int, seed: UInt64) {
        self.transactions = transactions
        self.seed = seed
    }

    /// The file names `write(to:)` creates (App Store Connect's reports in `app-store-connect/`, the
    /// test CA in `test-ca/`).
    public static let fileNames =
        [
            "client.jsonl", "client.csv", "server.jsonl", "verify.jsonl", "signed.jsonl", "history.jsonl", "notifications.jsonl",
            "order-lookup.jsonl", "prices.csv", "config.json", "answer-key.json",
        ]
        + SampleAppleReports.salesDays.map {
            "app-store-connect/S_D_\(SampleAppleReports.vendor)_\($0.replacingOccurrences(of: "-", with: "")).txt"
        }
        + SamplePrices.regions.map { "app-store-connect/\(SampleAppleReports.vendor)_1026_\($0.code).txt" }
        + ["app-store-connect/financial_report.csv"] + SampleTestCA.files.map { "test-ca/" + $0.name }

    /// Writes the six files into `directory`, creating it (and its parents) when missing and
    /// replacing files of the same names.
    /// - Throws: Foundation's file errors when the directory cannot be created or a file written.
    public func write(to directory: String) throws -> SampleSummary {
        let builder = SampleBuilder(seed: seed, normalUserCount: max(10, transactions / 8))
        let repeats = max(3, transactions / 500)
        for plant in SampleGenerator.cases {
            for rep in 0..<repeats { plant(builder)(rep) }
        }
        builder.plantCloseCases()
        builder.addOrdinaryTraffic(upTo: transactions)
        builder.plantSupportTicket()

        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let files = try builder.log.write(to: directory, csvShare: 0.1, random: &builder.random)
        let asOf = builder.log.newest
        let scenarios = builder.scenarioCounts.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        let sales = builder.book.sales()
        let reports = SampleAppleReports(sales: sales, omitted: builder.book.omitted, appleOnly: builder.book.appleOnly)
        let payments = SamplePayments(reports)
        let close = SampleCloseKey(sales: sales, book: builder.book, reports: reports, findings: builder.key.sorted)
        let key = builder.key.render(
            seed: seed, transactions: builder.transactionCount, asOf: asOf, files: files,
            scenarios: scenarios, close: close.render(payments: payments))
        var paths = files.paths
        var written: [(String, String)] = [("prices.csv", SamplePrices.priceListText), ("config.json", SampleCatalog.configText)]
        for folder in ["app-store-connect", "test-ca"] {
            try FileManager.default.createDirectory(atPath: directory + "/" + folder, withIntermediateDirectories: true)
        }
        written += reports.salesFiles.map { ("app-store-connect/" + $0.name, $0.text) }
        written += reports.financialFiles.map { ("app-store-connect/" + $0.name, $0.text) }
        written.append(("app-store-connect/financial_report.csv", payments.text))
        written += SampleTestCA.files.map { ("test-ca/" + $0.name, $0.text) }
        written.append(("answer-key.json", key))
        for (name, text) in written { paths.append(try SampleFileWriter.write(text, to: directory, name: name)) }
        return SampleSummary(
            files: paths, transactions: builder.transactionCount, plantedFindings: builder.key.entries.count,
            planted: Dictionary(uniqueKeysWithValues: builder.key.planted.map { ($0.label, $0.count) }),
            scenarios: builder.scenarioCounts, clientLines: files.clientJSONLines + files.clientCSVRows,
            clientCSVLines: files.clientCSVRows, serverLines: files.serverLines, verifyLines: files.verifyLines,
            asOf: SampleClock.iso(asOf))
    }

    /// Every planted case, in generation order; each runs `repeats` times with `rep` 0, 1, 2, …
    private static let cases: [@Sendable (SampleBuilder) -> (Int) -> Void] = [
        { $0.plantNeverSent }, { b in { b.plantNoAnswer($0, granted: false) } }, { b in { b.plantVerifyFailed($0, retryable: false) } },
        { b in { b.plantVerifyFailed($0, retryable: true) } }, { b in { b.plantNotInReceipt($0, granted: false) } },
        { $0.plantDroppedNotCredited },
        { $0.plantInReceiptNeverCredited }, { $0.plantDuplicateSameUser }, { $0.plantDuplicateCrossAccount },
        { $0.plantRestoreCreditedAsPurchase },
        { b in { b.plantSandboxCredit($0, reviewer: false) } }, { b in { b.plantSandboxCredit($0, reviewer: true) } },
        { $0.plantSandboxRefused },
        { b in { b.plantRefund($0, revoked: false) } }, { b in { b.plantRefund($0, revoked: true) } },
        { $0.plantInvalidNonzero }, { b in { b.plantNoAnswer($0, granted: true) } }, { b in { b.plantNotInReceipt($0, granted: true) } },
        { $0.plantInvalidBundle },
        { $0.plantBacklogNoAnswer }, { $0.plantBacklogRetryable },
        { b in { b.plantPending($0, retryable: false) } }, { b in { b.plantPending($0, retryable: true) } },
        { b in { b.plantRegranted($0, subscription: false) } }, { b in { b.plantRegranted($0, subscription: true) } },
        { $0.plantRenewals }, { $0.plantSeedFlow }, { $0.plantRestoreNewId }, { $0.plantRetrySucceeded },
        { $0.plantPartialCredit }, { $0.plantLoggedTwice }, { $0.plantFamilyShared }, { $0.plantLatestReceiptInfo },
        { $0.plantIOS6Receipt }, { $0.plantReissuedId },
        { $0.plantOlderHistory }, { $0.plantRestoredOntoAnotherAccount }, { $0.plantReissuedIdCredited },
        { $0.plantRevokedWhilePaid }, { $0.plantRevokeAfterExpiry }, { $0.plantUnderCredited }, { $0.plantQuantityCredited },
        { $0.plantStaleReceipt }, { $0.plantRefundSuperseded }, { b in { b.plantEnvironmentConflict($0, granted: true) } },
        { b in { b.plantEnvironmentConflict($0, granted: false) } },
    ]
}

/// What `SampleGenerator.write(to:)` wrote.
public struct SampleSummary: Sendable, Equatable {
    /// Paths of the files written, in `SampleGenerator.fileNames` order.
    public var files: [String]
    /// Distinct transaction ids in the sample.
    public var transactions: Int
    /// Rows of the answer key (problem and info findings).
    public var plantedFindings: Int
    /// Answer-key rows per `kind/reason`.
    public var planted: [String: Int]
    /// Planted cases per name (findings and benign look-alikes).
    public var scenarios: [String: Int]
    /// Client reports in `client.jsonl` and `client.csv` together.
    public var clientLines: Int
    /// Client reports in `client.csv` (rows after the header).
    public var clientCSVLines: Int
    public var serverLines: Int
    public var verifyLines: Int
    /// The newest record's time, ISO 8601 UTC: the as-of the key assumes.
    public var asOf: String
}
