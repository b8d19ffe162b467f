import Foundation
import IAPAuditModel

#if canImport(Glibc)
    import Glibc
#endif

/// Turns the SIGBUS a mapped input raises when it is truncated while read (logrotate's
/// `copytruncate`, a writer rewriting the file) into a one-line error and exit status 1, instead of a
/// crash. The run's open SQLite transaction (this file's, or its group's) is then rolled back by the
/// next run, which imports those files again (`run_status` says `incomplete` until then).
///
/// Mappings are registered with their path so the message can name the file; the table is read by the
/// signal handler without a lock (a slot is written before it is marked live).
enum MappingGuard {
    private static let capacity = 256
    nonisolated(unsafe) private static let starts = UnsafeMutablePointer<UInt>.allocate(capacity: capacity)
    nonisolated(unsafe) private static let ends = UnsafeMutablePointer<UInt>.allocate(capacity: capacity)
    nonisolated(unsafe) private static let paths = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: capacity)
    private static let lock = NSLock()
    nonisolated(unsafe) private static var installed = false

    /// Registers `count` bytes mapped at `base` from `path`; returns the slot to pass to `unregister`
    /// (nil when the table is full: the message then names no file).
    static func register(base: UnsafeMutableRawPointer, count: Int, path: String) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        if !installed {
            for i in 0..<capacity { (starts[i], ends[i], paths[i]) = (0, 0, nil) }
            install()
            installed = true
        }
        guard let slot = (0..<capacity).first(where: { ends[$0] == 0 }) else { return nil }
        paths[slot] = strdup(path)
        starts[slot] = UInt(bitPattern: base)
        ends[slot] = UInt(bitPattern: base) + UInt(count)
        return slot
    }

    static func unregister(_ slot: Int) {
        lock.lock()
        defer { lock.unlock() }
        ends[slot] = 0
        free(paths[slot])
        paths[slot] = nil
    }

    private static func install() {
        var action = sigaction()
        action.__sigaction_handler.sa_sigaction = { _, info, _ in
            let address = UInt(bitPattern: info?.pointee._sifields._sigfault.si_addr)
            MappingGuard.say("iap-audit: error: ")
            if let slot = (0..<MappingGuard.capacity).first(where: {
                MappingGuard.ends[$0] != 0 && MappingGuard.starts[$0] <= address && address < MappingGuard.ends[$0]
            }), let path = MappingGuard.paths[slot] {
                MappingGuard.say(path)
                MappingGuard.say(": ")
            }
            MappingGuard.say(
                "the input file was truncated or rewritten while it was read (logrotate copytruncate?); this run stopped; run again once the file is stable (the next run completes it)\n"
            )
            _exit(1)
        }
        action.sa_flags = SA_SIGINFO
        sigemptyset(&action.sa_mask)
        sigaction(SIGBUS, &action, nil)
    }

    /// Writes to stderr with write(2) only (async-signal-safe).
    private static func say(_ text: UnsafePointer<CChar>) {
        var n = 0
        while text[n] != 0 { n += 1 }
        _ = write(STDERR_FILENO, text, n)
    }

    private static func say(_ text: StaticString) {
        _ = write(STDERR_FILENO, text.utf8Start, text.utf8CodeUnitCount)
    }
}
