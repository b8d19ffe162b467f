import IAPAuditModel

/// The Cover: what was closed (the period, its dates, calendar and time zone, the fiscal months Apple's
/// Financial reports book), every warning of the run, how to read the amounts, the inputs with their
/// SHA-256 and record counts, the price list's rejected lines and the run's parameters.
enum CoverSheet {
    static func build(
        _ report: CloseReport, files: [FileSummary], parameters: [String: String], warnings: [RunWarning], priceRejections: [Rejection]
    ) -> ReportSheet {
        let p = report.period
        let title = ReportTable.note("iap-audit close \(p.label): \(p)")
        let period = ReportTable(
            title: "Period", header: ["", "value"],
            rows: [
                [.text("period"), .text(p.label)], [.text("calendar"), .text(p.calendar.rawValue)],
                [.text("time zone"), .text(p.timeZone.identifier)], [.text("first day"), CloseWorkbook.day(p.firstDay)],
                [.text("last day"), CloseWorkbook.day(p.lastDay)], [.text("days"), .integer(p.lastDay - p.firstDay + 1)],
                [.text("from (UTC)"), .dateTime(p.startMs)], [.text("until, not included (UTC)"), .dateTime(p.endMs)],
                [
                    .text("Summary Sales bridge"),
                    .text(report.bridges.contains { $0.report == .sales } ? "yes" : "no report for the period"),
                ],
                [
                    .text("Financial bridge"),
                    .text(report.bridges.contains { $0.report == .financial } ? "yes" : "no report for the period"),
                ],
            ])
        let months = ReportTable(
            title: "Fiscal months: Apple's Financial reports booked by the period",
            header: ["fiscal month", "reportDate", "first day", "last day", "weeks"],
            rows: report.fiscalMonths.map {
                [
                    .text("\($0.month)"), .text($0.month.reportDate), CloseWorkbook.day($0.dates.lowerBound),
                    CloseWorkbook.day($0.dates.upperBound), .integer($0.dates.days / 7),
                ]
            })
        return ReportSheet(
            name: "Cover",
            tables: [
                title, period, warningTable(warnings), months, reading, inputs(files), rejections(priceRejections),
                ReportTable(
                    title: "Run parameters", header: ["parameter", "value"],
                    rows: parameters.sorted { $0.key < $1.key }.map { [.text($0.key), .text(SummarySheet.shortened($0.value))] }),
            ])
    }

    /// Every warning of the run and of the close, or a line saying there was none.
    static func warningTable(_ warnings: [RunWarning]) -> ReportTable {
        guard !warnings.isEmpty else { return .note("Warnings: none") }
        return ReportTable(
            title: "Warnings: \(warnings.count), read them first: they qualify the numbers of this workbook",
            header: ["warning", "code", "file"],
            rows: warnings.map { [.text($0.message), .text($0.code.rawValue), $0.file.map(ReportCell.text) ?? .empty] },
            wrappedColumn: 0)
    }

    /// How to read the workbook's amounts.
    static let reading = ReportTable(
        title: "Reading the amounts", header: ["note"],
        rows: [
            "Apple calls App Store Connect's reports the source of record, and so do we: the KPIs give Apple's numbers first.",
            "The ledger's transaction amounts (the JWS price of verified records, else the --prices list: estimated) explain "
                + "Apple's numbers (the bridges) and value the findings: they are not what Apple pays.",
            "Each amount cell holds the exact integer milliunits (USD 4.49 is 4490); its number format shows it in units of the "
                + "row's currency (JPY and KRW without decimals). A formula over amount cells gives milliunits: divide by 1000.",
            "Totals are formulas (with their values), per currency: amounts of different currencies are never added.",
            "Bridges: variance = Apple − ledger = Σ buckets + remainder, exactly; the remainder's purchases are listed below it.",
        ].map { [.text($0)] }, wrappedColumn: 0)

    /// The inputs, their SHA-256 last (the widest column: left of it, the other tables' dates and numbers keep
    /// narrow columns).
    static func inputs(_ files: [FileSummary]) -> ReportTable {
        let rows: [[ReportCell]] = files.map {
            [
                .text($0.path), .text($0.kind), .integer($0.recordsIn), .integer($0.recordsImported), .integer($0.recordsRejected),
                .text($0.sha256),
            ]
        }
        let footer: [[ReportCell]] =
            rows.isEmpty
            ? []
            : [
                [.text("Total"), .text(files.count == 1 ? "1 file" : "\(files.count) files")]
                    + (2...4).map { column in
                        .formula("=SUM(\(.column(column)))", cached: .integer(CloseWorkbook.sum(rows, column, where: [])))
                    }
            ]
        return ReportTable(
            title: "Inputs (records in = imported + rejected)",
            header: ["file", "kind", "records in", "imported", "rejected", "SHA-256"], rows: rows, footer: footer)
    }

    static func rejections(_ rejections: [Rejection]) -> ReportTable {
        guard !rejections.isEmpty else { return .note("Price list (--prices): no line rejected") }
        return ReportTable(
            title: "Price list lines rejected", header: ["file:line", "reason"],
            rows: rejections.map { [.text($0.location.description), .text($0.reason)] })
    }
}
