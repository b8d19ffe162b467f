import IAPAuditModel

/// Reads what the close needs from a ledger (`CloseInputs`, docs/close.md) on a read-only connection:
/// App Store Connect's report lines; every transaction Apple's records list — or, given a `CloseRelevance`, those
/// of the purchases the period can book — with what its record says about payment (`PaymentEvidence`: the
/// record's environment signals judged across all its transactions, rule 24); and every purchase the client
/// reported — or, given a relevance, those no record lists.
package enum CloseReader {
    /// - Parameters:
    ///   - bundleIds: the config's bundle ids (empty: not checked).
    ///   - relevance: which purchases to read, made from the Financial report lines (read first); nil: every one.
    package static func read(
        path: String, bundleIds: Set<String>, relevance: ((_ financial: [FinancialLine]) -> CloseRelevance)? = nil
    ) throws -> CloseInputs {
        let db = try SQLiteDatabase(path: path, readOnly: true)
        var inputs = CloseInputs()
        var shared = SharedTexts()
        try reports(db, &inputs)
        let relevance = relevance?(inputs.financial)
        let relevant = try relevance.flatMap { r in try relevantKeys(db, r).map { (keys: $0, key: r.key) } }
        inputs.listings = try listings(db, bundleIds: bundleIds, &shared, keep: relevant)
        // Reading only some purchases, only the client purchases no record lists (the others are no claimed sale). A listing
        // below the trust level the rules need lists nothing (docs/security.md, "Trust levels").
        let proven = ListingTrustSQL.counts(listing: "t", record: "r")
        let unlisted =
            relevance == nil
            ? ""
            : "AND NOT EXISTS (SELECT 1 FROM apple_transaction t JOIN apple_record r ON r.record_id = t.record_id "
                + "WHERE t.transaction_id = c.transaction_id AND \(proven))"
        let c = try db.prepare(
            """
            SELECT f.path, c.line, c.transaction_id, c.original_transaction_id, c.product_id, c.ts_ms
            FROM client_report c JOIN source_file f ON f.file_id = c.file_id
            WHERE c.state = 'purchased' AND c.transaction_id IS NOT NULL \(unlisted) ORDER BY c.record_id
            """)
        let listed = try db.prepare(
            "SELECT 1 FROM apple_transaction t JOIN apple_record r ON r.record_id = t.record_id WHERE t.transaction_id = ?1 AND \(proven) LIMIT 1"
        )
        while try c.step() {
            let original = c.optionalText(3)
            inputs.clientPurchases.append(
                ClientPurchase(
                    location: SourceLocation(file: shared(c.text(0)), line: Int(c.int64(1))), transactionId: c.text(2),
                    originalTransactionId: original, productId: c.optionalText(4).map { shared($0) }, tsMs: c.int64(5)))
            if relevance != nil, let original, !inputs.listedElsewhere.contains(original) {
                listed.bind([original])
                if try listed.step() { inputs.listedElsewhere.insert(original) }
                listed.reset()
            }
        }
        let files = try db.prepare(
            """
            SELECT f.path, f.kind, f.records_in, f.records_rejected,
                   (SELECT r.line FROM rejection r WHERE r.file_id = f.file_id ORDER BY r.line LIMIT 1),
                   (SELECT r.reason FROM rejection r WHERE r.file_id = f.file_id ORDER BY r.line LIMIT 1)
            FROM source_file f
            WHERE f.kind IN ('sales_report', 'subscription_report', 'subscription_event_report', 'subscriber_report',
                             'financial_report', 'payments_summary')
            ORDER BY f.path
            """)
        while try files.step() {
            let first = files.optionalInt64(4).map { (line: $0, reason: files.optionalText(5) ?? "") }
            inputs.reportFiles.append(
                ReportFile(
                    path: files.text(0), kind: files.text(1), recordsIn: files.int64(2), rejected: files.int64(3), firstRejection: first))
        }
        return inputs
    }

    /// App Store Connect's report lines (the tables of Sources/LedgerDeclarations/SalesReports.swift and
    /// FinanceReports.swift). Per-unit prices are taken as Apple's magnitudes; refunds are negative units.
    private static func reports(_ db: SQLiteDatabase, _ inputs: inout CloseInputs) throws {
        let s = try db.prepare(
            """
            SELECT f.path, l.line, l.sku, l.begin_date, l.end_date, l.country_code, l.units, l.customer_price_milliunits,
                   l.customer_currency, l.developer_proceeds_milliunits, l.proceeds_currency, l.record_id
            FROM sales_report_line l JOIN source_file f ON f.file_id = l.file_id
            WHERE l.layout = 'summary_sales' ORDER BY l.record_id
            """)
        while try s.step() {
            guard let begin = CalendarDate(iso: s.text(3)), let end = CalendarDate(iso: s.text(4)) else { continue }
            let currency = s.optionalText(8) ?? "—"
            inputs.sales.append(
                SalesLine(
                    location: SourceLocation(file: s.text(0), line: Int(s.int64(1))), productId: s.text(2), beginDate: begin, endDate: end,
                    countryCode: s.optionalText(5) ?? "", units: s.int64(6),
                    customerPrice: Money(milliunits: try magnitude(s, 7, "sales_report_line", row: 11), currency: currency),
                    proceeds: Money(milliunits: try magnitude(s, 9, "sales_report_line", row: 11), currency: s.optionalText(10) ?? currency)
                ))
        }
        let f = try db.prepare(
            """
            SELECT p.path, l.line, l.vendor_identifier, l.start_date, l.end_date, l.country_of_sale, l.quantity, l.partner_share_milliunits,
                   l.extended_partner_share_milliunits, l.partner_share_currency, l.customer_price_milliunits, l.customer_currency,
                   l.record_id
            FROM financial_report_line l JOIN source_file p ON p.file_id = l.file_id ORDER BY l.record_id
            """)
        while try f.step() {
            guard let start = CalendarDate(iso: f.text(3)), let end = CalendarDate(iso: f.text(4)) else { continue }
            let currency = f.text(9)
            inputs.financial.append(
                FinancialLine(
                    location: SourceLocation(file: f.text(0), line: Int(f.int64(1))), productId: f.text(2), startDate: start, endDate: end,
                    countryCode: f.optionalText(5) ?? "", quantity: f.int64(6),
                    partnerShare: Money(milliunits: try magnitude(f, 7, "financial_report_line", row: 12), currency: currency),
                    extendedPartnerShare: Money(milliunits: f.int64(8), currency: currency),
                    customerPrice: Money(
                        milliunits: try magnitude(f, 10, "financial_report_line", row: 12), currency: f.optionalText(11) ?? currency)))
        }
        let p = try db.prepare(
            """
            SELECT s.path, l.line, l.region, l.currency, l.units_sold, l.earned_milliunits, l.withholding_tax_milliunits,
                   l.exchange_rate, l.proceeds_milliunits, l.bank_currency, l.period
            FROM payment_summary_line l JOIN source_file s ON s.file_id = l.file_id WHERE l.kind = 'region' ORDER BY l.record_id
            """)
        while try p.step() {
            let currency = p.optionalText(3) ?? ""
            inputs.payments.append(
                PaymentLine(
                    location: SourceLocation(file: p.text(0), line: Int(p.int64(1))), period: p.optionalText(10) ?? "",
                    region: p.optionalText(2) ?? "",
                    units: p.optionalInt64(4) ?? 0, earned: Money(milliunits: p.optionalInt64(5) ?? 0, currency: currency),
                    withholdingTax: Money(milliunits: p.optionalInt64(6) ?? 0, currency: currency), exchangeRate: p.optionalText(7) ?? "",
                    proceeds: Money(milliunits: p.optionalInt64(8) ?? 0, currency: p.optionalText(9) ?? "")))
        }
    }

    /// The magnitude of the amount in `column` (NULL: 0). -2^63 has none in Int64: no reader stores it (amounts are
    /// parsed within ±(2^63 - 1)), so it is a damaged ledger (`LedgerDamage` naming the table and `row`'s record id).
    private static func magnitude(_ q: SQLiteStatement, _ column: Int32, _ table: String, row: Int32) throws -> Int64 {
        let value = q.optionalInt64(column) ?? 0
        guard value != Int64.min else {
            throw LedgerDamage(
                table: table, row: q.int64(row), fileId: q.int64(row) >> 32, path: q.text(0), why: "holds an amount out of range")
        }
        return abs(value)
    }

    /// The texts many rows repeat (a file's path, a product id, a currency), kept once: each row's copy is given up
    /// for the first one read (at 1M transactions, the close's listings held about 400 MB of copies).
    private struct SharedTexts {
        private var texts = Set<String>()

        mutating func callAsFunction(_ text: String) -> String { texts.insert(text).memberAfterInsert }
    }

    /// The purchase keys (their hash values: a collision reads one purchase more, never one less) of the listings
    /// `relevance` asks for; nil when every listing has a date in its window (all are read).
    private static func relevantKeys(_ db: SQLiteDatabase, _ relevance: CloseRelevance) throws -> Set<Int>? {
        let dated = ["purchase_date_ms", "original_purchase_date_ms", "cancellation_date_ms"].map { "coalesce(\($0) BETWEEN ?1 AND ?2, 0)" }
        let undated = try db.prepare("SELECT count(*) FROM apple_transaction WHERE NOT (\(dated.joined(separator: " OR ")))")
        undated.bind([relevance.windowMs.lowerBound, relevance.windowMs.upperBound])
        guard try undated.step(), undated.int64(0) > 0 else { return nil }
        let q = try db.prepare(
            """
            SELECT transaction_id, original_transaction_id, web_order_line_item_id, product_id, type, purchase_date_ms,
                   original_purchase_date_ms, cancellation_date_ms
            FROM apple_transaction
            """)
        var keys = Set<Int>()
        while try q.step() {
            let dated = [q.optionalInt64(5), q.optionalInt64(6), q.optionalInt64(7)].contains {
                $0.map(relevance.windowMs.contains) ?? false
            }
            let transactionId = q.text(0)
            guard dated || relevance.transactionIds.contains(transactionId) else { continue }
            var l = CloseListing(
                location: SourceLocation(file: "", line: 0), transactionId: transactionId, evidence: ListingEvidenceJudge<Int>.unjudged)
            (l.originalTransactionId, l.webOrderLineItemId, l.productId, l.type) = (
                q.optionalText(1), q.optionalText(2), q.optionalText(3), q.optionalText(4)
            )
            keys.insert(relevance.key(l).hashValue)
        }
        return keys
    }

    private static func listings(
        _ db: SQLiteDatabase, bundleIds: Set<String>, _ shared: inout SharedTexts,
        keep: (keys: Set<Int>, key: @Sendable (CloseListing) -> String)?
    ) throws -> [CloseListing] {
        let q = try db.prepare(
            """
            SELECT f.path, r.line, r.record_id, r.status, r.environment, r.receipt_type, r.source, r.bundle_id, r.signed_date_ms,
                   r.received_at_ms, r.notification_type, t.transaction_id, t.original_transaction_id, t.web_order_line_item_id,
                   t.product_id, t.purchase_date_ms, t.original_purchase_date_ms, t.expires_date_ms, t.cancellation_date_ms,
                   t.revocation_percentage, t.price_milliunits, t.currency, t.storefront, t.is_trial_period, t.type,
                   t.notification_type, t.signed_date_ms, t.signature, t.environment, t.in_app_ownership_type, t.bundle_id, t.quantity,
                   r.receipt_environment,
                   EXISTS (SELECT 1 FROM server_request s WHERE s.request_id = r.request_id AND s.event = 'verify')
            FROM apple_transaction t JOIN apple_record r ON r.record_id = t.record_id JOIN source_file f ON f.file_id = r.file_id
            ORDER BY t.record_id, t.position
            """)
        var result: [CloseListing] = []
        var judge = ListingEvidenceJudge<CloseListing>(bundleIds: bundleIds)
        func take(_ judged: [(CloseListing, PaymentEvidence)]) {
            for (listing, evidence) in judged {
                if let keep, !keep.keys.contains(keep.key(listing).hashValue) { continue }
                var listing = listing
                listing.evidence = evidence
                result.append(listing)
            }
        }
        while try q.step() {
            let signals = ListingSignals(
                recordId: q.int64(2), status: q.int64(3), environment: q.optionalText(4), receiptType: q.optionalText(5),
                receiptEnvironment: q.optionalText(32), source: q.text(6), bundleId: q.optionalText(7) ?? q.optionalText(30),
                itemSignature: q.text(27), itemEnvironment: q.optionalText(28), ownership: q.optionalText(29),
                purchaseMs: q.optionalInt64(15), expiresMs: q.optionalInt64(17))
            var l = CloseListing(
                location: SourceLocation(file: shared(q.text(0)), line: Int(q.int64(1))), transactionId: q.text(11),
                evidence: ListingEvidenceJudge<Int>.unjudged)
            l.originalTransactionId = q.optionalText(12)
            l.webOrderLineItemId = q.optionalText(13)
            l.productId = q.optionalText(14).map { shared($0) }
            l.purchaseDateMs = q.optionalInt64(15)
            l.originalPurchaseDateMs = q.optionalInt64(16)
            l.cancellationDateMs = q.optionalInt64(18)
            l.revocationPercentage = q.optionalInt64(19)
            l.priceMilliunits = q.optionalInt64(20)
            l.currency = q.optionalText(21).map { shared($0) }
            l.storefront = q.optionalText(22).map { shared($0) }
            l.isTrialPeriod = q.optionalInt64(23) == 1
            l.quantity = max(1, q.optionalInt64(31) ?? 1)
            l.type = q.optionalText(24).map { shared($0) }
            l.notificationType = (q.optionalText(25) ?? q.optionalText(10)).map { shared($0) }
            l.issuedMs = q.optionalInt64(8) ?? q.optionalInt64(26) ?? q.optionalInt64(9)
            l.linked = q.int64(33) != 0
            l.isReceipt = [EvidenceSource.appReceipt.rawValue, EvidenceSource.transactionReceipt.rawValue].contains(q.text(6))
            take(judge.add(signals, l))
        }
        take(judge.finish())
        return result
    }
}
