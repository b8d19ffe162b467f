/// Where one file's records go, batch by batch (the store's writer for the file being imported).
package final class RecordSink {
    package let write: (RecordBatch) throws -> Void
    /// The run's import metrics (parsing time, lines read strictly).
    package let metrics: ImportMetrics
    /// Told after each batch: bytes of the file read so far, records so far.
    package var progress: ((_ offset: Int, _ records: Int) -> Void)?

    package init(metrics: ImportMetrics = ImportMetrics(), _ write: @escaping (RecordBatch) throws -> Void) {
        self.metrics = metrics
        self.write = write
    }
}
