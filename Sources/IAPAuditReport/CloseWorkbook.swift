import IAPAuditModel

/// The close workbook (`close-<period>.xlsx`, docs/close.md): Cover, KPIs, Revenue, the bridges to
/// Apple's reports, Refunds, Losses, Unpriced. Amounts are milliunits of the row's currency.
public enum CloseWorkbook {
    package static func build(
        _ report: CloseReport, files: [FileSummary], parameters: [String: String], warnings: [RunWarning], priceRejections: [Rejection]
    ) -> ReportWorkbook {
        var sheets = [cover(report, files: files, parameters: parameters, warnings: warnings, priceRejections: priceRejections)]
        sheets.append(kpis(report))
        sheets.append(revenue(report))
        for bridge in report.bridges { sheets.append(bridgeSheet(bridge)) }
        sheets.append(refunds(report))
        sheets.append(losses(report))
        sheets.append(unpriced(report))
        return ReportWorkbook(sheets: sheets, createdMs: report.period.startMs)
    }

    static func cover(
        _ report: CloseReport, files: [FileSummary], parameters: [String: String], warnings: [RunWarning], priceRejections: [Rejection]
    ) -> ReportSheet {
        let p = report.period
        var rows: [[ReportCell]] = [
            [.text("period"), .text(p.label)], [.text("first day"), .text("\(p.firstDay)")], [.text("last day"), .text("\(p.lastDay)")],
            [.text("calendar"), .text(p.calendar.rawValue)], [.text("time zone"), .text(p.timeZone.identifier)],
        ]
        for (month, dates) in report.fiscalMonths {
            rows.append([.text("fiscal month \(month.reportDate)"), .text("\(month): \(dates.lowerBound) to \(dates.upperBound)")])
        }
        rows.append([
            .text("amounts"),
            .text("milliunits of each row's currency; transaction amounts explain Apple's reports, the source of record"),
        ])
        let period = ReportTable(title: "Close", header: ["", ""], rows: rows)
        let inputs = ReportTable(
            title: "Inputs", header: ["file", "kind", "SHA-256", "records in", "imported", "rejected"],
            rows: files.map {
                [
                    .text($0.path), .text($0.kind), .text($0.sha256), .integer($0.recordsIn), .integer($0.recordsImported),
                    .integer($0.recordsRejected),
                ]
            })
        let warningTable = ReportTable(
            title: "Warnings", header: ["code", "message"], rows: warnings.map { [.text($0.code.rawValue), .text($0.message)] })
        let rejected = ReportTable(
            title: "Price list lines rejected", header: ["file:line", "reason"],
            rows: priceRejections.map { [.text($0.location.description), .text($0.reason)] })
        let run = ReportTable(
            title: "Run parameters", header: ["parameter", "value"],
            rows: parameters.sorted { $0.key < $1.key }.map { [.text($0.key), .text(SummarySheet.shortened($0.value))] })
        return ReportSheet(name: "Cover", tables: [period, warningTable, inputs, rejected, run])
    }

    static func kpis(_ report: CloseReport) -> ReportSheet {
        var rows: [[ReportCell]] = []
        for t in report.totals {
            var measures: [(String, Int64)] = [
                ("Apple Summary Sales: units", t.appleSalesUnits), ("Apple Summary Sales: customer price", t.appleSales),
                ("Apple Summary Sales: developer proceeds", t.appleSalesProceeds), ("Apple Financial: proceeds", t.appleFinancialProceeds),
                ("ledger: gross revenue", t.gross), ("ledger: refunds", t.refunds), ("ledger: net", t.net),
            ]
            measures += t.losses.sorted { $0.key < $1.key }.map { ("loss: \($0.key)", $0.value) }
            rows += measures.map { [.text(t.currency), .text($0.0), .integer($0.1)] }
        }
        return ReportSheet(name: "KPIs", tables: [ReportTable(header: ["currency", "measure", "value"], rows: rows, isPrimary: true)])
    }

    static func revenue(_ report: CloseReport) -> ReportSheet {
        let rows: [[ReportCell]] = report.revenue.map {
            [
                .text($0.productId), .text($0.currency), .integer($0.sales.units), .integer($0.sales.milliunits), .integer($0.trialUnits),
                .integer($0.estimated.units), .integer($0.estimated.milliunits), .integer($0.refunds.units),
                .integer($0.refunds.milliunits),
                .integer($0.net),
            ]
        }
        return ReportSheet(
            name: "Revenue",
            tables: [
                ReportTable(
                    header: [
                        "product_id", "currency", "units", "gross", "trial units", "estimated units", "estimated amount", "refund units",
                        "refunds", "net",
                    ], rows: rows, isPrimary: true)
            ])
    }

    static func bridgeSheet(_ bridge: Bridge) -> ReportSheet {
        var header = [
            "product_id", "currency", "countries", "ledger units", "ledger amount", "Apple units", "Apple amount", "variance units",
            "variance amount",
        ]
        for bucket in BridgeBucket.allCases { header += ["\(bucket.rawValue) units", "\(bucket.rawValue) amount"] }
        header += ["remainder units", "remainder amount", "remainder: the ledger's purchases"]
        let rows: [[ReportCell]] = bridge.rows.map { row in
            var cells: [ReportCell] = [
                .text(row.productId), .text(row.currency), .text(row.countries.sorted().joined(separator: ", ")),
                .integer(row.ledger.units), .integer(row.ledger.milliunits), .integer(row.apple.units), .integer(row.apple.milliunits),
                .integer(row.variance.units), .integer(row.variance.milliunits),
            ]
            for bucket in BridgeBucket.allCases {
                let tally = row.buckets[bucket] ?? Tally()
                cells += [.integer(tally.units), .integer(tally.milliunits)]
            }
            cells += [
                .integer(row.remainder.units), .integer(row.remainder.milliunits),
                .text(row.remainderSales.sorted().joined(separator: ", ")),
            ]
            return cells
        }
        return ReportSheet(
            name: bridge.report == .sales ? "Bridge vs Sales" : "Bridge vs Financial",
            tables: [ReportTable(header: header, rows: rows, isPrimary: true)])
    }

    static func refunds(_ report: CloseReport) -> ReportSheet {
        let rows: [[ReportCell]] = report.refunds.map {
            [
                .dateTime($0.refund.atMs), .text($0.sale.productId ?? ""), .text($0.refund.amount?.currency ?? "—"),
                .integer($0.refund.amount?.milliunits ?? 0), .text($0.sale.key), .text($0.sale.transactionIds.joined(separator: ", ")),
                .text($0.refund.location.description),
            ]
        }
        return ReportSheet(
            name: "Refunds",
            tables: [
                ReportTable(
                    header: ["refunded (UTC)", "product_id", "currency", "amount", "purchase", "transaction_ids", "evidence"], rows: rows,
                    isPrimary: true)
            ])
    }

    static func losses(_ report: CloseReport) -> ReportSheet {
        let rows: [[ReportCell]] = report.losses.filter { !$0.finding.kind.isInfo }.map {
            let f = $0.finding
            return [
                .text(f.kind.rawValue), .text(f.reason), .text(f.appleConfirmation?.rawValue ?? ""), .text(f.transactionId),
                .text(f.userIds.joined(separator: ", ")), .text($0.amount?.currency ?? "—"), .integer($0.amount?.milliunits ?? 0),
                .text($0.pricing.rawValue), .text(f.detail),
            ]
        }
        return ReportSheet(
            name: "Losses",
            tables: [
                ReportTable(
                    header: [
                        "kind", "reason", "apple_confirmation", "transaction_id", "user_ids", "currency", "amount", "pricing", "detail",
                    ],
                    rows: rows, isPrimary: true)
            ])
    }

    static func unpriced(_ report: CloseReport) -> ReportSheet {
        let rows: [[ReportCell]] = report.unpriced.map {
            [
                .text($0.key), .text($0.productId ?? ""), $0.purchaseMs.map(ReportCell.dateTime) ?? .empty, .text($0.saleClass.rawValue),
                .text($0.transactionIds.joined(separator: ", ")), .text($0.evidence.map(\.description).joined(separator: "; ")),
            ]
        }
        return ReportSheet(
            name: "Unpriced",
            tables: [
                ReportTable(
                    header: ["purchase", "product_id", "purchased (UTC)", "class", "transaction_ids", "evidence"], rows: rows,
                    isPrimary: true)
            ])
    }
}
