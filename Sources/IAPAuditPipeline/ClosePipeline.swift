import Foundation
import IAPAuditIngest
import IAPAuditModel
import IAPAuditReconcile
import IAPAuditReport
import IAPAuditStore

/// What one `close` is asked to do (docs/close.md).
public struct CloseOptions: Sendable {
    /// The run it makes first; its audit window is set to the period.
    public var audit: AuditOptions
    public var period: AccountingPeriod
    /// `--prices`: the price list for records without a JWS price.
    public var pricesPath: String?

    public init(audit: AuditOptions, period: AccountingPeriod, pricesPath: String? = nil) {
        (self.audit, self.period, self.pricesPath) = (audit, period, pricesPath)
    }
}

/// What a close wrote.
public struct CloseResult: Sendable {
    /// The run it made (the ledger, the findings, `audit.xlsx`).
    public var audit: AuditResult
    /// `DIR/close-<period>.xlsx`.
    public var workbookPath: String
    package var report: CloseReport
    /// The price list's lines read and its rejections (`file:line`, reason).
    public var priceLines: Int
    public var priceRejections: [Rejection]
    /// The run's warnings and the close's own.
    public var warnings: [RunWarning]
}

/// run (window = the period) → the close's inputs from the ledger → `CloseBuilder` → close tables and
/// `close-<period>.xlsx`.
public enum ClosePipeline {
    public static func run(_ options: CloseOptions) throws -> CloseResult {
        let prices = try readPrices(options)
        // The run imports what the close is given and reconciles with the period as its window, for the close only: the
        // ledger's findings, audit.xlsx and lifecycle stay the last run's, of no window (a trace, the views and audit.xlsx
        // read them: after a close they showed the period's, and a purchase just after it, a dropped order, was "outside
        // the window": found by a support user test), and the next run judges what the close imported.
        var audit = options.audit
        audit.fromMs = options.period.startMs
        audit.toMs = options.period.endMs - 1
        audit.storesResults = false
        let (run, output) = try AuditPipeline.runHoldingFolder(audit)
        PhaseTimer.checkpoint("close_run")
        let findings = try run.snapshot.findings.all()
        var inputs: CloseInputs
        do {
            inputs = try CloseReader.read(path: output.databasePath, bundleIds: audit.config.bundleIds) {
                [products = audit.config.products] in
                CloseWindow.relevance(period: options.period, financial: $0, findings: findings, products: products)
            }
        } catch {
            throw DamagedLedger.reported(error, databasePath: output.databasePath, spillPath: output.spillPath)
        }
        inputs.findings = findings
        let report = CloseBuilder.build(inputs, period: options.period, products: audit.config.products, prices: prices?.priceList)
        var warnings = run.warnings + report.warnings
        warnings += closeWarnings(options, audit: audit, run: run, report: report, prices: prices)
        let store = try output.openStore()
        if let before = try store.closeTotals(period: options.period.closeName),
            let restated = CloseRestatement.warning(period: options.period.label, before: before, after: report)
        {
            warnings.append(restated)
        }
        let path = output.path + "/close-\(options.period.closeName).xlsx"
        try write(report, to: path, audit: audit, run: run, output: output, store: store, prices: prices, warnings: warnings)
        return CloseResult(
            audit: run, workbookPath: path, report: report, priceLines: prices?.linesRead ?? 0,
            priceRejections: prices?.rejections ?? [], warnings: warnings)
    }

    /// The `--prices` list, read first: an unreadable one stops the close before the ledger is touched. Nil: none given.
    private static func readPrices(_ options: CloseOptions) throws -> PriceListReader.Result? {
        var prices = try options.pricesPath.map { try PriceListReader.read(path: $0) }
        // Every line rejected: another file given for the price list (a finance user test closed with one, and the
        // period's totals were replaced by those of a close without prices, 1,482 purchases unpriced).
        if let read = prices, let path = options.pricesPath, read.rejections.count == read.linesRead {
            let why =
                read.linesRead == 0
                ? "it holds no price line, only its header"
                : "none of its \(read.linesRead) price lines could be read (first: \(read.rejections[0].location): "
                    + "\(read.rejections[0].reason))"
            throw AuditError.unreadablePath(
                path, why + ": not a price list (product_id,storefront_or_currency,price,valid_from)? Nothing was closed")
        }
        // Under --redact a rejected price line's reason hides the value it quotes, as a run's rejections do (a shifted
        // column may put an id there: found by a privacy retest).
        if options.audit.redaction != nil, var read = prices {
            read.rejections = read.rejections.map {
                var r = $0
                r.reason = IdRedactor.reason(IdRedactor.singleQuotedRedacted(r.reason))
                return r
            }
            prices = read
        }
        return prices
    }

    /// The close's own warnings: price lines rejected, a period the ledger cannot judge to its end yet, purchases unpriced.
    private static func closeWarnings(
        _ options: CloseOptions, audit: AuditOptions, run: AuditResult, report: CloseReport, prices: PriceListReader.Result?
    ) -> [RunWarning] {
        var warnings: [RunWarning] = []
        if let prices, !prices.rejections.isEmpty, let path = options.pricesPath {
            warnings.append(
                RunWarning(
                    .priceListRejected,
                    "\(path): \(prices.rejections.count) of its \(prices.linesRead) price lines were rejected (first: "
                        + "\(prices.rejections[0].location): \(prices.rejections[0].reason)): purchases they would price are estimated "
                        + "from other lines or unpriced", file: path))
        }
        // A purchase is judged (credited, or a dropped order) once the grace has passed after it: the ledger judges the
        // purchases up to its as-of less the grace. A period ending later holds purchases still pending (found by a finance
        // user test: the as-of plus the grace was taken instead, and a close at the period's end, then again a day later,
        // restated its losses).
        let judged = run.asOfMs.map { $0 - audit.graceMs }
        if options.period.endMs > judged ?? Int64.max - 1 || run.asOfMs == nil {
            let asOf = run.asOfMs.map(Timestamp.iso) ?? "none: no timestamped record"
            let upTo = judged.map { ", up to \(Timestamp.iso($0))" } ?? ""
            warnings.append(
                RunWarning(
                    .periodOpen,
                    "\(options.period.label) ends \(Timestamp.iso(options.period.endMs)), after what the ledger can judge (its as-of, "
                        + "\(asOf), less the grace of \(audit.graceMs / 3_600_000) h\(upTo)): the close is provisional — purchases "
                        + "of the period's last days are still pending, and their credits, refunds and dropped orders may still come; "
                        + "close it again once the logs reach \(Timestamp.iso(options.period.endMs + audit.graceMs))"))
        }
        if !report.unpriced.isEmpty {
            warnings.append(
                RunWarning(
                    .unpricedPurchases,
                    "\(report.unpriced.count) purchase(s) of \(options.period.label) have no price (no verified JWS price, no price-list "
                        + "entry): counted in units only; "
                        + (options.pricesPath.map { "add a line for their product to \($0)" } ?? "give --prices FILE")
                        + " (product_id,storefront_or_currency,price,valid_from)"))
        }
        return warnings
    }

    /// `close-<period>.xlsx` written at `path`, then the close's tables replaced.
    private static func write(
        _ report: CloseReport, to path: String, audit: AuditOptions, run: AuditResult, output: OutputFolder, store: AuditStore,
        prices: PriceListReader.Result?, warnings: [RunWarning]
    ) throws {
        // The workbook shows tokens under --redact (a redacted ledger's findings and config hold them already).
        var shown = (report: report, parameters: run.snapshot.parameters)
        if let redaction = audit.redaction, !redaction.ledger {
            shown.report.losses = report.losses.map {
                var loss = $0; loss.finding = redaction.redactor.finding(loss.finding); return loss
            }
            shown.parameters["config"] = ConfigLoader.canonicalJSON(redaction.redactor.config(audit.config))
        }
        let workbook = CloseWorkbook.build(
            shown.report, files: run.snapshot.files.filter { $0.path != prices?.file.path } + (prices.map { [$0.file] } ?? []),
            parameters: shown.parameters, warnings: warnings,
            priceRejections: prices?.rejections ?? [])
        do {
            try XLSXWriter.write(workbook, to: path + ".partial")
            if rename(path + ".partial", path) != 0 { throw AuditError.output(path, String(cString: strerror(errno))) }
        } catch {
            try? FileManager.default.removeItem(atPath: path + ".partial")
            throw DiskFull.reported(error, databasePath: output.databasePath, workbookPath: path, folder: output.path)
        }
        // The tables after the workbook: until they change, they hold the totals last reported, so a close that stopped
        // (killed, a full disk) and is made again says what it restates (helper-36: the tables went first, and a close
        // killed while writing its workbook left the old workbook beside the new totals; made again, it restated
        // nothing). A close killed between the two leaves the new workbook beside the old tables: made again, it says
        // so again and stores them.
        do {
            try store.replaceClose(report, priceList: prices?.file, warnings: warnings)
        } catch {
            try? FileManager.default.removeItem(atPath: path)
            throw DiskFull.reported(error, databasePath: output.databasePath, workbookPath: path, folder: output.path)
        }
    }
}
