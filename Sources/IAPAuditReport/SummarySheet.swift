import IAPAuditModel

/// The Summary sheet: the run's warnings first, then its parameters, findings by kind and reason, findings
/// per day with a chart, and the inputs with records in = imported + rejected.
enum SummarySheet {
    /// Parameter values longer than this (the config) are shortened on the sheet; the whole value
    /// is in table `run_parameter`.
    static let longestParameter = 60

    static func shortened(_ value: String) -> String {
        value.count <= longestParameter ? value : value.prefix(longestParameter - 24) + "… (see run_parameter)"
    }

    /// The warnings block, at the top: every warning of the run, or one line saying there was none.
    static func warnings(_ warnings: [RunWarning]) -> ReportTable {
        guard !warnings.isEmpty else {
            return ReportTable(title: "Warnings: none (nothing qualifies the numbers below)", header: [], rows: [])
        }
        return ReportTable(
            title: "Warnings: \(warnings.count), read them first: they qualify the numbers below",
            header: ["warning", "code", "file"],
            rows: warnings.map { [.text($0.message), .text($0.code.rawValue), $0.file.map(ReportCell.text) ?? .empty] },
            wrappedColumn: 0)
    }

    static func build(_ snapshot: AuditSnapshot) -> ReportSheet {
        let parameters = ReportTable(
            title: "Run", header: ["parameter", "value"],
            rows: snapshot.parameters.sorted { $0.key < $1.key }.map {
                [.text($0.key), .text(shortened($0.value))]
            })
        var fileRows: [[ReportCell]] = snapshot.files.map {
            [
                .text($0.path), .text($0.kind), .text($0.status), .text($0.note), .integer($0.recordsIn),
                .integer($0.recordsImported), .integer($0.recordsRejected),
            ]
        }
        let totalIn = snapshot.files.reduce(0) { $0 + $1.recordsIn }
        let totalImported = snapshot.files.reduce(0) { $0 + $1.recordsImported }
        let totalRejected = snapshot.files.reduce(0) { $0 + $1.recordsRejected }
        fileRows.append([
            .text("Total"), .empty, .empty, .text(snapshot.files.count == 1 ? "1 file" : "\(snapshot.files.count) files"),
            .integer(totalIn),
            .integer(totalImported), .integer(totalRejected),
        ])
        let inputs = ReportTable(
            title: "Inputs (records in = imported + rejected)",
            header: ["file", "kind", "status", "taken for / reason", "records in", "imported", "rejected"],
            rows: fileRows)
        // Dropped orders split by Apple's confirmation (rule 22): confirmed by a production Apple record, or
        // claimed by the client alone.
        var byKind: [[ReportCell]] = snapshot.findings.counts.map {
            let split: [ReportCell] =
                $0.kind == .droppedOrder
                ? [.integer(Int64($0.confirmed)), .integer(Int64($0.refunded)), .integer(Int64($0.count - $0.confirmed - $0.refunded))]
                : [.empty, .empty, .empty]
            return [.text($0.kind.rawValue), .text($0.reason), .text($0.kind.severity.rawValue), .integer(Int64($0.count))] + split
        }
        let problems = snapshot.findings.problems
        byKind.append([.text("Total problems"), .empty, .empty, .integer(Int64(problems)), .empty, .empty, .empty])
        byKind.append([.text("Total info"), .empty, .empty, .integer(Int64(snapshot.findings.total - problems)), .empty, .empty, .empty])
        byKind.append([
            .text("Dropped orders"), .empty, .empty, .integer(Int64(snapshot.findings.count([.droppedOrder]))),
            .integer(Int64(snapshot.findings.confirmedDroppedOrders)), .integer(Int64(snapshot.findings.refundedDroppedOrders)),
            .integer(Int64(snapshot.findings.claimedDroppedOrders)),
        ])
        let findings = ReportTable(
            title: "Findings by kind and reason",
            header: ["kind", "reason", "severity", "findings", "Apple confirms", "Apple refunded", "client claims only"],
            rows: byKind)
        let days = ReportTable(
            title: "Problem findings per day (first seen, UTC)", header: ["day", "findings"],
            rows: snapshot.findings.problemsPerDay.map { [.date($0.dayMs), .integer(Int64($0.findings))] })
        return ReportSheet(
            name: "Summary", tables: [warnings(snapshot.warnings), parameters, findings, days, inputs],
            charts: [
                ReportChart(
                    title: "Problem findings per day", tableIndex: 3, categoryColumn: 0,
                    valueColumn: 1, seriesName: "findings", categoryFormat: "yyyy-mm-dd")
            ])
    }
}
