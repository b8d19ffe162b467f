import Synchronization

/// What one run's import spent where (the benchmark's phase timings, `IAP_AUDIT_PHASE_TIMINGS`): wall
/// seconds parsing, seconds the writer thread was busy, lines the fast path handed to the strict
/// reader. Owned by the run; added to from the parsing and writing threads.
package final class ImportMetrics: Sendable {
    private let totals = Mutex<(parseSeconds: Double, writeSeconds: Double, strictLines: Int)>((0, 0, 0))

    package init() {}

    package func addParse(seconds: Double, strictLines: Int) {
        totals.withLock {
            $0.parseSeconds += seconds; $0.strictLines += strictLines
        }
    }
    package func addWrite(seconds: Double) { totals.withLock { $0.writeSeconds += seconds } }

    package var parseSeconds: Double { totals.withLock { $0.parseSeconds } }
    package var writeSeconds: Double { totals.withLock { $0.writeSeconds } }
    package var strictLines: Int { totals.withLock { $0.strictLines } }
}
