import Foundation
import IAPAuditCrypto
import IAPAuditIngest
import IAPAuditModel
import IAPAuditReconcile
import IAPAuditReport
import IAPAuditStore

#if canImport(Glibc)
    import Glibc
#endif

/// Progress of the import on stderr — file n of N, MB read, MB/s, records, ETA — redrawn in place,
/// only when stderr is a terminal (a scheduled run's log stays clean).
final class ImportProgress {
    private let enabled: Bool
    private let totalBytes: Int64
    private let fileCount: Int
    private let clock: () -> Date
    private let write: (String) -> Void
    private let started: Date
    private var doneBytes: Int64 = 0
    private var lastDraw = Date.distantPast

    /// - Parameters: `terminal` whether to draw (default: stderr is a terminal); `clock` and `write`
    ///   (default: the time now, stderr) are for tests.
    init(
        totalBytes: Int64, fileCount: Int, terminal: Bool = isatty(STDERR_FILENO) == 1, clock: @escaping () -> Date = Date.init,
        write: @escaping (String) -> Void = { StandardStreams.err($0) }
    ) {
        self.totalBytes = max(1, totalBytes)
        self.fileCount = fileCount
        self.enabled = terminal
        self.clock = clock
        self.write = write
        self.started = clock()
    }

    /// `offset` bytes of file number `index` (1-based) read, `records` records so far in it. Redrawn
    /// at most four times a second.
    func update(file index: Int, path: String, offset: Int, records: Int) {
        guard enabled else { return }
        let now = clock()
        guard now.timeIntervalSince(lastDraw) >= 0.25 else { return }
        lastDraw = now
        let done = doneBytes + Int64(offset)
        let seconds = max(0.001, now.timeIntervalSince(started))
        let rate = Double(done) / seconds
        let eta = rate > 0 ? Double(totalBytes - done) / rate : 0
        let name = URL(fileURLWithPath: path).lastPathComponent.controlCharactersEscaped
        let line = String(
            format: "iap-audit: file %d/%d %@  %.0f/%.0f MB  %.0f MB/s  %d records  ETA %.0fs", index, fileCount, name,
            Double(done) / 1e6, Double(totalBytes) / 1e6, rate / 1e6, records, eta)
        write("\r\u{1B}[K" + line)
    }

    /// A file is done: its bytes count as read.
    func finish(fileBytes: Int) {
        doneBytes += Int64(fileBytes)
    }

    /// Clears the progress line.
    func end() {
        guard enabled else { return }
        write("\r\u{1B}[K")
    }

    /// Shows what the run does after the import (`reconciling`, `writing reports`) in place of the
    /// progress line, when stderr is a terminal; `nil` clears it.
    static func phase(_ what: String?) {
        guard isatty(STDERR_FILENO) == 1 else { return }
        StandardStreams.err("\r\u{1B}[K" + (what.map { "iap-audit: \($0)…" } ?? ""))
    }
}
