import Foundation
import IAPAuditModel
import Synchronization

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
package enum MappingGuard {
    private static let capacity = 256

    /// One registered mapping: `start..<end` holds `path`; `end` 0 is a free slot.
    private struct Slot {
        var start: UInt = 0
        var end: UInt = 0
        var path: UnsafeMutablePointer<CChar>? = nil
        /// What the handler writes on stdout when this mapping's file is cut (`alsoPrint`), if anything.
        var output: UnsafeMutablePointer<CChar>? = nil
    }

    /// The slots, allocated once and never freed. Written under `installed`'s lock; read by the SIGBUS
    /// handler with no lock (a handler may take none): a slot's start and path are written before its
    /// end marks it live, and a live slot is never freed while its file is mapped.
    nonisolated(unsafe) private static let table: UnsafeMutablePointer<Slot> = {
        let table = UnsafeMutablePointer<Slot>.allocate(capacity: capacity)
        table.initialize(repeating: Slot(), count: capacity)
        return table
    }()
    /// What the handler says of a file cut while read, after its path.
    package static let cutMessage: StaticString =
        "the input file was truncated or rewritten while it was read (logrotate copytruncate?); this run stopped; run again once the file is stable (the next run completes it)"

    /// Whether the handler is installed; its lock guards the table's writers.
    private static let installed = Mutex(false)
    /// The text the handler also writes on stdout for a cut file, by its path (a command asked for JSON prints its failure
    /// there); set before any input is mapped, called when a mapping is registered (never in the handler).
    nonisolated(unsafe) private static var output: (@Sendable (String) -> String)? = nil

    /// Has the handler also write `text(path)` on standard output when it stops the run (`{"error": …, "exit": 1}` under
    /// `--json`: found by an on-call user test, a scheduler reading stdout saw nothing). Call before any input is mapped.
    package static func alsoPrint(_ text: @escaping @Sendable (String) -> String) { output = text }

    /// Registers `count` bytes mapped at `base` from `path`; returns the slot to pass to `unregister`
    /// (nil when the table is full: the message then names no file).
    static func register(base: UnsafeMutableRawPointer, count: Int, path: String) -> Int? {
        installed.withLock { installed in
            if !installed {
                _ = table
                install()
                installed = true
            }
            guard let slot = (0..<capacity).first(where: { table[$0].end == 0 }) else { return nil }
            table[slot].path = strdup(path.controlCharactersEscaped)  // printed by the handler as it is
            table[slot].output = output.map { strdup($0(path)) }
            table[slot].start = UInt(bitPattern: base)
            table[slot].end = UInt(bitPattern: base) + UInt(count)
            return slot
        }
    }

    static func unregister(_ slot: Int) {
        installed.withLock { _ in
            table[slot].end = 0
            free(table[slot].path)
            free(table[slot].output)
            (table[slot].path, table[slot].output) = (nil, nil)
        }
    }

    private static func install() {
        var action = sigaction()
        action.__sigaction_handler.sa_sigaction = { _, info, _ in
            let address = UInt(bitPattern: info?.pointee._sifields._sigfault.si_addr)
            MappingGuard.say("iap-audit: error: ")
            let table = MappingGuard.table
            let slot = (0..<MappingGuard.capacity).first {
                table[$0].end != 0 && table[$0].start <= address && address < table[$0].end
            }
            if let slot, let path = table[slot].path {
                MappingGuard.say(path)
                MappingGuard.say(": ")
            }
            MappingGuard.say(MappingGuard.cutMessage)
            MappingGuard.say("\n")
            if let slot, let text = table[slot].output {
                var n = 0
                while text[n] != 0 { n += 1 }
                _ = write(STDOUT_FILENO, text, n)
            }
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
