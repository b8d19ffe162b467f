import IAPAuditModel

/// Summary Sales reports of several frequencies for the same days are counted once, by the finest (docs/close.md,
/// "Checks on Apple's reports"). Apple's weekly report is the sum of its days' daily reports (a monthly or yearly one
/// likewise), so a weekly file beside the daily ones doubled the week's figures in the bridge, silently (found by a
/// finance user test, helper-39 B6).
///
/// Lines are taken span length by span length, shortest first (daily, then weekly, monthly, yearly). A file's lines of
/// one span (`Begin Date` .. `End Date`) are dropped, and said (`duplicate_report`), when a shorter span's kept line
/// has a day in it; otherwise kept. A day of a dropped span that no shorter report gives is then missing, and the
/// coverage check says so: Apple's figures for it are absent, never doubled.
enum ReportFrequency {
    /// The lines kept, in their order, and a warning per dropped (file, span).
    static func oneFrequency(_ lines: [SalesLine], warnings: inout [RunWarning]) -> [SalesLine] {
        func length(_ l: SalesLine) -> Int64 { l.endDate.dayNumber - l.beginDate.dayNumber }
        let lengths = Set(lines.map(length)).sorted()
        guard lengths.count > 1 else { return lines }
        var finer: [Int64: String] = [:]  // a day → the first file of a shorter span with a line of it
        var dropped: Set<String> = []  // "file|begin|end" of the spans dropped
        for size in lengths {
            let group = lines.filter { length($0) == size }
            var kept: [SalesLine] = []
            var said: Set<String> = []
            for line in group {
                let key = span(line)
                let days = line.beginDate.dayNumber...line.endDate.dayNumber
                if let other = days.lazy.compactMap({ finer[$0] }).first {
                    dropped.insert(key)
                    if said.insert(key).inserted {
                        warnings.append(
                            RunWarning(
                                .duplicateReport,
                                "\(line.location.file): its Summary Sales lines of \(line.beginDate)..\(line.endDate) cover days that a "
                                    + "report of a shorter period also gives (\(other)): Apple's figures of those days are counted once, "
                                    + "from the shorter reports; give one frequency (days of the span no shorter report gives are missing, "
                                    + "not doubled)", file: line.location.file))
                    }
                } else {
                    kept.append(line)
                }
            }
            for line in kept {
                for day in line.beginDate.dayNumber...line.endDate.dayNumber where finer[day] == nil { finer[day] = line.location.file }
            }
        }
        return lines.filter { !dropped.contains(span($0)) }
    }

    /// The lines but those whose span runs over an edge of the period's `days` (a weekly report of Monday 09/28 to
    /// Sunday 10/04 for a close of October), each (file, span) said (`report_coverage`). A report's days cannot be
    /// split, and counted whole in the period of its `Begin Date` it gave one period the other's days (found by a
    /// finance user test: October's close missed its first four days, unsaid, and September's held them). Its days in
    /// the period are then missing, and the coverage check names them.
    static func inPeriod(
        _ lines: [SalesLine], days: ClosedRange<CalendarDate>, period: String, warnings: inout [RunWarning]
    ) -> [SalesLine] {
        var said: Set<String> = []
        return lines.filter { line in
            let crosses =
                line.beginDate <= days.upperBound && line.endDate >= days.lowerBound
                && (line.beginDate < days.lowerBound || line.endDate > days.upperBound)
            guard crosses else { return true }
            if said.insert(span(line)).inserted {
                warnings.append(
                    RunWarning(
                        .reportCoverage,
                        "\(line.location.file): its Summary Sales lines of \(line.beginDate)..\(line.endDate) run over an edge of "
                            + "\(period) (\(days.lowerBound)..\(days.upperBound)) and cannot be split by day: not counted; Apple's "
                            + "figures of their days in \(period) come from daily reports only (a day none gives is named missing)",
                        file: line.location.file))
            }
            return false
        }
    }

    /// A file's lines of one span: `file|begin|end`.
    private static func span(_ line: SalesLine) -> String { "\(line.location.file)|\(line.beginDate)|\(line.endDate)" }
}
