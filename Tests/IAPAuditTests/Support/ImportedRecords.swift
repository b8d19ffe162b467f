import Foundation

@testable import IAPAuditIngest
@testable import IAPAuditModel

/// What the import of one file stored, as values: the production streaming path
/// (`FileImporter.stream` into a sink that keeps the batches), each row read back by the generated
/// test view (`RecordBatch.clientReport(_:file:)`…) into the generated `LoadedLedger` (every record
/// kind). The file's summary (`kind`, `note`…) and the records (`clientReports`, `salesReportLines`…)
/// read through.
@dynamicMemberLookup
struct ImportedRecords {
    var file: ImportedFile
    /// The records, every kind.
    var records = LoadedLedger()
    var rejections: [Rejection] = []
    /// Lines the fast path left to the strict reader.
    var strictLines = 0

    subscript<T>(dynamicMember path: KeyPath<ImportedFile, T>) -> T { file[keyPath: path] }
    subscript<T>(dynamicMember path: KeyPath<LoadedLedger, T>) -> T { records[keyPath: path] }
}

extension FileImporter {
    /// Imports `file` as a run does and returns what went to the store.
    static func read(_ file: InputFile, checker: any SignatureChecking = NoSignatureChecking(), fastPath: Bool = true) -> ImportedRecords {
        var batches: [RecordBatch] = []
        let metrics = ImportMetrics()
        let sink = RecordSink(metrics: metrics) { batches.append($0) }
        // The sink cannot fail: nothing here throws.
        let summary = try! stream(file, checker: checker, sink: sink, fastPath: fastPath)
        var result = ImportedRecords(file: summary, strictLines: metrics.strictLines)
        // A JSON Lines record is its line of the input (`raw_json` is not stored): read it back from there.
        let lines = summary.format == .jsonLines ? Dictionary(uniqueKeysWithValues: file.lines().map { ($0.number, $0.text) }) : [:]
        for batch in batches {
            result.records.clientReports += batch.clientReports.map { batch.clientReport($0, file: file.path) }
            result.records.serverRequests += batch.serverRequests.map { batch.serverRequest($0, file: file.path) }
            result.records.appleRecords += batch.appleRecords.map { row in
                var record = batch.appleRecord(row, file: file.path)
                if record.rawJSON.isEmpty, let line = lines[Int(row.line)] { record.rawJSON = line }
                return record
            }
            result.records.salesReportLines += batch.salesReportLines.map { batch.salesReportLine($0, file: file.path) }
            result.records.subscriptionReportLines += batch.subscriptionReportLines.map {
                batch.subscriptionReportLine($0, file: file.path)
            }
            result.records.subscriptionEventLines += batch.subscriptionEventLines.map { batch.subscriptionEventLine($0, file: file.path) }
            result.records.subscriberReportLines += batch.subscriberReportLines.map { batch.subscriberReportLine($0, file: file.path) }
            result.records.financialReportLines += batch.financialReportLines.map { batch.financialReportLine($0, file: file.path) }
            result.records.financialReportTotals += batch.financialReportTotals.map { batch.financialReportTotal($0, file: file.path) }
            result.records.paymentSummaryLines += batch.paymentSummaryLines.map { batch.paymentSummaryLine($0, file: file.path) }
            result.rejections += batch.rejections
        }
        return result
    }
}
