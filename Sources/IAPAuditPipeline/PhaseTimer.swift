import Foundation
import IAPAuditCrypto
import IAPAuditIngest
import IAPAuditModel
import IAPAuditReconcile
import IAPAuditReport
import IAPAuditStore

/// Wall-clock and CPU seconds and peak memory per pipeline phase, written as JSON to the file named by the
/// environment variable `IAP_AUDIT_PHASE_TIMINGS` (the benchmark sets it); nothing otherwise. Never
/// stored in the database: a re-run must leave it unchanged.
final class PhaseTimer {
    private let path = ProcessInfo.processInfo.environment["IAP_AUDIT_PHASE_TIMINGS"]
    private var last = Date()
    private var lastCPU = PhaseTimer.cpuSeconds()
    /// Name, wall seconds, CPU seconds (user and system, every thread), peak resident MB.
    private var phases: [(String, Double, Double, Int)] = []
    /// Words about the run's phases (`note`), written with the timings.
    private var notes: [(String, String)] = []
    /// The run's import metrics (parsing and writing time, strict lines).
    let metrics = ImportMetrics()

    /// Ends the current phase under `name`.
    func lap(_ name: String) {
        Self.checkpoint(name)
        guard path != nil else { return }
        let now = Date()
        let cpu = Self.cpuSeconds()
        phases.append((name, now.timeIntervalSince(last), cpu - lastCPU, Self.peakResidentMB()))
        (last, lastCPU) = (now, cpu)
    }

    /// The tests' hold on a known point: a phase's end, or `close_run` (a close's run done, its tables not yet
    /// written). Named in the environment variable
    /// - `IAP_AUDIT_KILL_AT=NAME`: the process kills itself there (SIGKILL) — a kill -9 at a known point
    ///   (`import_files`: the inputs imported, nothing reconciled; `import_rotation`: rotated logs followed to their new
    ///   names, nothing read);
    /// - `IAP_AUDIT_PAUSE_AT=NAME:FILE`: it creates FILE there and waits until FILE is removed (60 s at most) —
    ///   an instant no timing reaches, for a test to act in (start a run while a close holds the folder).
    static func checkpoint(_ name: String) {
        let environment = ProcessInfo.processInfo.environment
        if environment["IAP_AUDIT_KILL_AT"] == name { kill(getpid(), SIGKILL) }
        guard let pause = environment["IAP_AUDIT_PAUSE_AT"], pause.hasPrefix(name + ":") else { return }
        let file = String(pause.dropFirst(name.count + 1))
        guard FileManager.default.createFile(atPath: file, contents: nil) else { return }
        let deadline = Date().addingTimeInterval(60)
        while FileManager.default.fileExists(atPath: file), Date() < deadline { usleep(20_000) }
    }

    /// Says something about a phase (`reconcile_carry`: whether the request stage carried its results).
    func note(_ name: String, _ text: String) { notes.append((name, text)) }

    func write() {
        guard let path else { return }
        var body = phases.map {
            "\"\($0.0)\": {\"seconds\": \(($0.1 * 1000).rounded() / 1000), \"cpu_seconds\": \(($0.2 * 1000).rounded() / 1000), \"peak_rss_mb\": \($0.3)}"
        }
        body += notes.map { "\"\($0.0)\": \"\($0.1)\"" }
        // Wall seconds spent parsing JSON Lines batches (all cores at once), inside "import".
        body.append("\"import_parse_seconds\": \((metrics.parseSeconds * 1000).rounded() / 1000)")
        body.append("\"import_write_seconds\": \((metrics.writeSeconds * 1000).rounded() / 1000)")
        // JSON Lines records the fast path left to the strict reader (unusual values, rejections).
        body.append("\"import_strict_lines\": \(metrics.strictLines)")
        try? Data(("{" + body.joined(separator: ", ") + "}\n").utf8).write(to: URL(fileURLWithPath: path))
    }

    /// The process's CPU time so far (user and system, every thread), seconds.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return 0 }
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1_000_000 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// `VmHWM` of /proc/self/status: the peak resident set so far, MB (0 where unavailable).
    static func peakResidentMB() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return 0 }
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) / 1024
    }
}
