import IAPAuditModel

/// What the close can trust of Apple's reports for a period, before any bridge is made (docs/close.md,
/// "Apple's reports in the close"): a report given twice is counted once, as are days that Summary Sales reports
/// of two frequencies give (`ReportFrequency`); two different reports of the same day or fiscal month, days and fiscal months no report covers, and reports with rejected lines are
/// said in warnings — Apple's figures are then incomplete, never silently short or doubled.
package enum ReportCheck {
    /// The inputs with each duplicate report's lines removed, and the warnings.
    package static func check(
        _ inputs: CloseInputs, period: AccountingPeriod, fiscalMonths: [(month: FiscalMonth, dates: ClosedRange<CalendarDate>)]
    ) -> (inputs: CloseInputs, warnings: [RunWarning]) {
        var inputs = inputs
        var warnings: [RunWarning] = []
        let days = period.firstDay...period.lastDay
        // Summary Sales: one file per day (or span); the same lines twice are a copy.
        let copies = dedupe(
            inputs.sales, kind: "Summary Sales",
            fingerprint: {
                "\($0.productId)|\($0.beginDate)|\($0.endDate)|\($0.countryCode)|\($0.units)|\($0.customerPrice)|\($0.proceeds)"
            },
            span: { "\($0.beginDate)..\($0.endDate)" }, warnings: &warnings)
        // A weekly (monthly…) report over an edge of the period, or beside the daily ones: its days counted once, in
        // their own period.
        let whole = ReportFrequency.inPeriod(copies, days: days, period: period.label, warnings: &warnings)
        let sales = ReportFrequency.oneFrequency(whole, warnings: &warnings)
        inputs.sales = sales
        let financial = dedupe(
            inputs.financial, kind: "Financial",
            fingerprint: {
                "\($0.productId)|\($0.startDate)|\($0.endDate)|\($0.countryCode)|\($0.quantity)|\($0.partnerShare)|\($0.extendedPartnerShare)"
            },
            // With the country of sale: regions sharing a currency (Americas, Rest of World: USD) are different reports.
            span: { "\($0.startDate)..\($0.endDate) \($0.extendedPartnerShare.currency) \($0.countryCode)" }, warnings: &warnings)
        inputs.financial = financial
        // Coverage: the period's days with a Summary Sales line, its fiscal months with a Financial one.
        let covered = Set(sales.flatMap { line in stride(from: line.beginDate.dayNumber, through: line.endDate.dayNumber, by: 1) })
        let inPeriod = Set(stride(from: days.lowerBound.dayNumber, through: days.upperBound.dayNumber, by: 1))
        let salesDays = inPeriod.intersection(covered)
        let missingMonths = fiscalMonths.filter { m in !financial.contains { m.dates.contains($0.startDate) } }
        // Reports of the period set aside above are given: their days are said missing, not the reports.
        let salesGiven = copies.contains { $0.beginDate <= days.upperBound && $0.endDate >= days.lowerBound }
        if !salesGiven && missingMonths.count == fiscalMonths.count {
            warnings.append(
                RunWarning(
                    .noAppleReports,
                    "no Summary Sales or Financial report of \(period.label) among the inputs: Apple's figures are absent (not zero) and "
                        + "nothing is bridged; give App Store Connect's reports of the period"))
        } else {
            // Short, or none at all while the other kind is given (found by a finance user test: a close given the Sales
            // reports only said nothing of the Financial ones).
            if salesDays.count < inPeriod.count {
                let missing = inPeriod.subtracting(salesDays).sorted().map { CalendarDate(dayNumber: $0) }
                warnings.append(
                    RunWarning(
                        .reportCoverage,
                        "Summary Sales lines cover \(salesDays.count) of the \(inPeriod.count) days of \(period.label): none for "
                            + "\(ranges(missing)) (no report given, or no sale that day): Apple's figures for those days are missing from "
                            + "the bridge, not zero"))
            }
            if !missingMonths.isEmpty {
                warnings.append(
                    RunWarning(
                        .reportCoverage,
                        "Financial reports cover \(fiscalMonths.count - missingMonths.count) of the \(fiscalMonths.count) fiscal months of "
                            + "\(period.label): none for \(missingMonths.map { "\($0.month)" }.joined(separator: ", ")): Apple's proceeds for "
                            + "them are missing from the bridge, not zero"))
            }
        }
        for file in inputs.reportFiles where file.rejected > 0 {
            let first = file.firstRejection.map { " (first, line \($0.line): \($0.reason))" } ?? ""
            warnings.append(
                RunWarning(
                    .reportLinesRejected,
                    "\(file.path): \(file.rejected) of its \(file.recordsIn) lines were rejected\(first): Apple's figures from this "
                        + "report are incomplete in the close (a report edited by hand or re-saved by a spreadsheet?); download it again",
                    file: file.path))
        }
        return (inputs, warnings)
    }

    /// Lines of files whose lines another file already holds, in the same multiset, are dropped (a copy of the
    /// report: gzipped beside the original, re-saved with other line ends); two different files holding lines
    /// of the same `span` are both kept and said.
    static func dedupe<Line>(
        _ lines: [Line], kind: String, fingerprint: (Line) -> String, span: (Line) -> String, warnings: inout [RunWarning]
    ) -> [Line] where Line: HasLocation {
        var byFile: [String: [Line]] = [:]
        for line in lines { byFile[line.location.file, default: []].append(line) }
        var seen: [String: String] = [:]  // the lines' fingerprint → the first file holding them
        var spans: [String: String] = [:]  // a span → the first file holding lines of it
        var kept: [Line] = []
        for file in byFile.keys.sorted() {
            let fileLines = byFile[file]!
            let key = fileLines.map(fingerprint).sorted().joined(separator: "\n")
            if let original = seen[key] {
                warnings.append(
                    RunWarning(
                        .duplicateReport,
                        "\(file): the same \(kind) lines as \(original) (a copy of one report: gzipped beside it, or re-saved): counted once",
                        file: file))
                continue
            }
            seen[key] = file
            for s in Set(fileLines.map(span)).sorted() {
                if let other = spans[s] {
                    warnings.append(
                        RunWarning(
                            .duplicateReport,
                            "\(file) and \(other) both hold \(kind) lines of \(s) and differ: both are counted; if one is a wrong or older "
                                + "download, remove it", file: file))
                } else {
                    spans[s] = file
                }
            }
            kept += fileLines
        }
        return kept.sorted { ($0.location.file, $0.location.line) < ($1.location.file, $1.location.line) }
    }

    /// Days as ranges: `2026-09-27 to 2026-09-30, 2026-10-05`.
    static func ranges(_ days: [CalendarDate]) -> String {
        var parts: [String] = []
        var start = days.first
        var last = days.first
        for day in days.dropFirst() + [CalendarDate(dayNumber: Int64.max)] {
            if let l = last, day.dayNumber == l.dayNumber + 1 {
                last = day
                continue
            }
            if let s = start, let l = last { parts.append(s == l ? "\(s)" : "\(s) to \(l)") }
            (start, last) = (day, day)
        }
        return parts.joined(separator: ", ")
    }
}

/// A report line that knows its `file:line`.
package protocol HasLocation { var location: SourceLocation { get } }
extension SalesLine: HasLocation {}
extension FinancialLine: HasLocation {}
