import Foundation
import IAPAuditCrypto
import IAPAuditIngest
import IAPAuditModel
import IAPAuditReconcile
import IAPAuditReport
import IAPAuditStore

/// Wall-clock seconds and peak memory per pipeline phase, written as JSON to the file named by the
/// environment variable `IAP_AUDIT_PHASE_TIMINGS` (the benchmark sets it); nothing otherwise. Never
/// stored in the database: a re-run must leave it unchanged.
final class PhaseTimer {
    private let path = ProcessInfo.processInfo.environment["IAP_AUDIT_PHASE_TIMINGS"]
    /// A phase's name in the environment variable `IAP_AUDIT_KILL_AT`: the process kills itself (SIGKILL) as that
    /// phase ends — the tests' kill -9 at a known point (`import_files`: the inputs imported, nothing reconciled).
    private let killAt = ProcessInfo.processInfo.environment["IAP_AUDIT_KILL_AT"]
    private var last = Date()
    private var phases: [(String, Double, Int)] = []
    /// Words about the run's phases (`note`), written with the timings.
    private var notes: [(String, String)] = []
    /// The run's import metrics (parsing and writing time, strict lines).
    let metrics = ImportMetrics()

    /// Ends the current phase under `name`.
    func lap(_ name: String) {
        if name == killAt { kill(getpid(), SIGKILL) }
        guard path != nil else { return }
        let now = Date()
        phases.append((name, now.timeIntervalSince(last), Self.peakResidentMB()))
        last = now
    }

    /// Says something about a phase (`reconcile_carry`: whether the request stage carried its results).
    func note(_ name: String, _ text: String) { notes.append((name, text)) }

    func write() {
        guard let path else { return }
        var body = phases.map { "\"\($0.0)\": {\"seconds\": \(($0.1 * 1000).rounded() / 1000), \"peak_rss_mb\": \($0.2)}" }
        body += notes.map { "\"\($0.0)\": \"\($0.1)\"" }
        // Wall seconds spent parsing JSON Lines batches (all cores at once), inside "import".
        body.append("\"import_parse_seconds\": \((metrics.parseSeconds * 1000).rounded() / 1000)")
        body.append("\"import_write_seconds\": \((metrics.writeSeconds * 1000).rounded() / 1000)")
        // JSON Lines records the fast path left to the strict reader (unusual values, rejections).
        body.append("\"import_strict_lines\": \(metrics.strictLines)")
        try? Data(("{" + body.joined(separator: ", ") + "}\n").utf8).write(to: URL(fileURLWithPath: path))
    }

    /// `VmHWM` of /proc/self/status: the peak resident set so far, MB (0 where unavailable).
    static func peakResidentMB() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return 0 }
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) / 1024
    }
}
