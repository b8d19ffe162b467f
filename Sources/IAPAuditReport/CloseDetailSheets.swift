import IAPAuditModel

/// A detail sheet and its main table's rows (the KPIs sum them by formula).
struct DetailSheet {
    var sheet: ReportSheet
    /// The index of the main table in `sheet.tables`.
    var table: Int
    var rows: [[ReportCell]]
}

/// The close's detail sheets: Revenue, Daily, Refunds, Losses, Unpriced. Their amounts are the ledger's
/// transaction amounts (JWS price, else the price list: estimated): they explain Apple's reports.
enum DetailSheets {
    // MARK: Revenue

    enum RevenueColumn {
        static let product = 0, currency = 1, units = 2, gross = 3, trialUnits = 4, estimatedUnits = 5, estimated = 6
        static let refundUnits = 7, refunds = 8, net = 9
    }

    static func revenue(_ report: CloseReport) -> DetailSheet {
        typealias C = RevenueColumn
        let rows: [[ReportCell]] = report.revenue.map { r in
            let m = { CloseWorkbook.money($0, r.currency) }
            let net: ReportCell =
                CloseWorkbook.isCurrency(r.currency)
                ? .formula(
                    "=\(.here(C.gross))+\(.here(C.refunds))", cached: .money(r.net, currency: r.currency))
                : .empty
            return [
                .text(r.productId), .text(r.currency), .integer(r.sales.units), m(r.sales.milliunits), .integer(r.trialUnits),
                .integer(r.estimated.units), m(r.estimated.milliunits), .integer(r.refunds.units), m(r.refunds.milliunits), net,
            ]
        }
        let header = [
            "product_id", "currency", "units", "gross", "trial units", "estimated units", "estimated amount", "refund units", "refunds",
            "net",
        ]
        let notes = [
            "", "— : no price known (sheet Unpriced)", "paid purchases dated in the period, trials included",
            "their transaction amounts", "of the units: free trials, at zero", "of the units: priced from --prices",
            "of the gross: estimated", "refunds booked in the period, of purchases of any period", "refunded amounts",
            "gross + refunds",
        ]
        let table = ReportTable(
            notes: notes, header: header, rows: rows,
            footer: CloseWorkbook.currencyTotals(
                rows, width: header.count, currencyColumn: C.currency, sums: Array(C.units...C.net),
                amounts: [C.gross, C.estimated, C.refunds, C.net]),
            isPrimary: true)
        let caption = ReportTable.note(
            "Ledger revenue of \(report.period.label) (\(report.period.timeZone)): transaction amounts, which explain Apple's reports "
                + "(the source of record: KPIs, bridges)")
        return DetailSheet(sheet: ReportSheet(name: "Revenue", tables: [caption, table]), table: 1, rows: rows)
    }

    // MARK: Daily

    /// Every day of the period, one table and one chart per currency: amounts of different currencies never
    /// share an axis, and the close has no exchange rate per day to convert them.
    static func daily(_ report: CloseReport) -> ReportSheet {
        let p = report.period
        var tables = [
            ReportTable.note(
                "Ledger revenue and refunds per day of \(p.label), days in \(p.timeZone): one table and chart per currency")
        ]
        var charts: [ReportChart] = []
        let currencies = Set(report.daily.map(\.currency).filter(CloseWorkbook.isCurrency)).sorted()
        for currency in currencies {
            var byDay: [CalendarDate: CloseReport.Day] = [:]
            for day in report.daily where day.currency == currency { byDay[day.day] = day }
            var rows: [[ReportCell]] = []
            var day = p.firstDay
            while day <= p.lastDay {
                let revenue = byDay[day]?.revenue ?? 0
                let refunds = byDay[day]?.refunds ?? 0
                rows.append([
                    CloseWorkbook.day(day), .money(revenue, currency: currency), .money(refunds, currency: currency),
                    .formula("=\(.here(1))+\(.here(2))", cached: .money(revenue + refunds, currency: currency)),
                ])
                day = day.adding(days: 1)
            }
            let footer: [ReportCell] =
                [.text("Total")]
                + (1...3).map { column in
                    .formula("=SUM(\(.column(column)))", cached: .money(CloseWorkbook.sum(rows, column, where: []), currency: currency))
                }
            tables.append(
                ReportTable(title: currency, header: ["day", "revenue", "refunds", "net"], rows: rows, footer: [footer]))
            charts.append(
                ReportChart(
                    title: "\(currency): revenue and refunds per day", tableIndex: tables.count - 1, categoryColumn: 0,
                    series: [("revenue", 1), ("refunds", 2)], categoryFormat: "d mmm", valueCurrency: currency, allowsNegative: true,
                    placement: .besideTable))
        }
        if currencies.isEmpty { tables.append(.note("No priced purchase or refund in the period.")) }
        return ReportSheet(name: "Daily", tables: tables, charts: charts)
    }

    // MARK: Refunds

    static func refunds(_ report: CloseReport) -> ReportSheet {
        let tz = report.period.timeZone
        let rows: [[ReportCell]] = report.refunds.map {
            let currency = $0.refund.amount?.currency ?? $0.sale.amount?.currency ?? "—"
            return [
                CloseWorkbook.day(tz.date(containing: $0.refund.atMs)), .dateTime($0.refund.atMs), .text($0.sale.productId ?? ""),
                .text(currency), CloseWorkbook.money(-($0.refund.amount?.milliunits ?? 0), currency), .text($0.sale.key),
                $0.sale.purchaseMs.map(ReportCell.dateTime) ?? .empty, CloseWorkbook.money($0.sale.amount),
                .text($0.sale.transactionIds.joined(separator: ", ")), .text($0.refund.location.description),
            ]
        }
        let header = [
            "booked (\(tz))", "refunded (UTC)", "product_id", "currency", "refund", "purchase", "purchased (UTC)", "purchase amount",
            "transaction_ids", "evidence",
        ]
        let table = ReportTable(
            header: header, rows: rows,
            footer: CloseWorkbook.currencyTotals(rows, width: header.count, currencyColumn: 3, sums: [4, 7], amounts: [4, 7]),
            isPrimary: true)
        let caption = ReportTable.note(
            "Refunds booked in \(report.period.label) (\(tz)), of purchases of any period: ledger transaction amounts, "
                + "prorated by revocationPercentage")
        return ReportSheet(name: "Refunds", tables: [caption, table])
    }

    // MARK: Losses

    enum LossColumn {
        static let label = 0, reason = 1, transaction = 2, product = 3, users = 4, currency = 5, amount = 6, pricing = 7
        static let lossAt = 8, firstSeen = 9, detail = 10
    }

    /// Every problem finding (not info), valued with its purchase's amount where it has one.
    static func losses(_ report: CloseReport) -> DetailSheet {
        typealias C = LossColumn
        let rows: [[ReportCell]] = report.losses.filter { !$0.finding.kind.isInfo }.map {
            let f = $0.finding
            return [
                .text($0.label), .text(f.reason),
                .text(f.transactionId), .text(f.productId ?? ""), .text(f.userIds.joined(separator: ", ")),
                .text($0.amount?.currency ?? "—"), CloseWorkbook.money($0.amount), .text($0.pricing.rawValue),
                f.lossAtMs.map(ReportCell.dateTime) ?? .empty, f.firstSeenMs.map(ReportCell.dateTime) ?? .empty, .text(f.detail),
            ]
        }
        let header = [
            "loss (kind, Apple's confirmation)", "reason", "transaction_id", "product_id", "user_ids", "currency", "amount", "pricing",
            "loss at (UTC)", "first_seen (UTC)", "detail",
        ]
        var footer = CloseWorkbook.currencyTotals(
            rows, width: header.count, currencyColumn: C.currency, sums: [C.amount], amounts: [C.amount])
        // Findings of no known price have no amount to total: counted, so that they are not lost from sight (found by a
        // finance user test: such a row was in no total, count or KPI).
        let unpriced = report.losses.filter { !$0.finding.kind.isInfo && $0.amount == nil }.count
        if unpriced > 0 {
            var cells = [ReportCell](repeating: .empty, count: header.count)
            (cells[C.label], cells[C.currency]) = (.text("Not valued"), .text("—"))
            cells[C.detail] = .text(
                "\(unpriced) finding(s) of no known price: listed, in no total (a --prices line for the product values them)")
            footer.append(cells)
        }
        let table = ReportTable(header: header, rows: rows, footer: footer, isPrimary: true, wrappedColumn: C.detail)
        let caption = ReportTable.note(
            "Problem findings valued with their purchase's transaction amount: dropped orders (Apple confirms, refunded, or the "
                + "client alone claims), goods given away (credited twice, on a sandbox answer, or without proof), refunds still "
                + "granted; each booked in the period its loss happened (loss at); — : no price known")
        return DetailSheet(sheet: ReportSheet(name: "Losses", tables: [caption, table]), table: 1, rows: rows)
    }

    // MARK: Unpriced

    static func unpriced(_ report: CloseReport) -> ReportSheet {
        let rows: [[ReportCell]] = report.unpriced.map {
            [
                .text($0.key), .text($0.productId ?? ""), $0.purchaseMs.map(ReportCell.dateTime) ?? .empty, .text($0.saleClass.rawValue),
                .text($0.transactionIds.joined(separator: ", ")), .text($0.evidence.map(\.description).joined(separator: "; ")),
            ]
        }
        let footer: [[ReportCell]] =
            rows.isEmpty ? [] : [[.text("Total"), .formula("=COUNTA(\(.column(0)))", cached: .integer(Int64(rows.count)))]]
        let table = ReportTable(
            header: ["purchase", "product_id", "purchased (UTC)", "class", "transaction_ids", "evidence"], rows: rows, footer: footer,
            isPrimary: true)
        let caption = ReportTable.note(
            "Purchases of \(report.period.label) with no price (no verified JWS price, no --prices entry): counted in units, never "
                + "assumed")
        return ReportSheet(name: "Unpriced", tables: [caption, table])
    }
}
