import Foundation
import IAPAuditModel

/// The lock on a ledger's folder (`DIR/.audit.lock`, a `flock`, released when the process ends or dies):
/// a run, a close and an `ack` hold it exclusively (they write the ledger); `trace` holds it shared (it
/// reads, and only adds indexes), so several traces run at once and none reads a ledger a run is
/// half-way through writing.
///
/// - A run finding the folder held by traces only waits for them (a trace takes seconds), up to
///   `runWaitSeconds`; held by another run, close or ack, it is refused at once.
/// - A trace finding a run writing waits for it, up to `traceWaitSeconds`.
enum FolderLock {
    /// How long a run waits for the traces reading its ledger.
    static let runWaitSeconds: Double = 120
    /// How long a trace waits for the run writing its ledger.
    static let traceWaitSeconds: Double = 600

    /// The exclusive lock of a run on `descriptor`: true when held (at once, or after the traces holding
    /// it shared let go within `runWaitSeconds`); false when a writer holds it.
    static func exclusive(_ descriptor: Int32) -> Bool {
        if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return true }
        let deadline = Date().addingTimeInterval(runWaitSeconds)
        while Date() < deadline {
            // Shared granted: no writer holds it, only traces (reading): wait for them.
            guard flock(descriptor, LOCK_SH | LOCK_NB) == 0 else { return false }
            _ = flock(descriptor, LOCK_UN)
            usleep(100_000)
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return true }
        }
        return false
    }

    /// The shared lock of a trace on `folder`'s `.audit.lock`, held until the returned descriptor is
    /// closed; nil when the folder has no lock file and cannot hold one (a ledger in a read-only place, which
    /// no run writes either). A lock file this user may only read (the run's, made 0644 by the user the nights
    /// run as) is locked all the same: `flock` needs no write access. Waits for a run writing the ledger,
    /// telling `onWait` once.
    /// - Parameter openFile: `open(2)` (a test's stand-in).
    /// - Throws: `FolderBusy` when the run has not finished within `traceWaitSeconds`.
    static func shared(
        folder: String, onWait: (String) -> Void, openFile: (String, Int32) -> Int32 = { open($0, $1, 0o644) }
    ) throws -> Int32? {
        let path = folder + "/.audit.lock"
        var descriptor = openFile(path, O_CREAT | O_RDWR | O_CLOEXEC)
        if descriptor < 0 { descriptor = openFile(path, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { return nil }
        if flock(descriptor, LOCK_SH | LOCK_NB) == 0 { return descriptor }
        onWait("waiting for the run writing \(folder) to finish (trace reads the ledger once it is complete)…")
        let deadline = Date().addingTimeInterval(traceWaitSeconds)
        while Date() < deadline {
            usleep(200_000)
            if flock(descriptor, LOCK_SH | LOCK_NB) == 0 { return descriptor }
        }
        close(descriptor)
        throw FolderBusy(
            folder: folder,
            reason: "a run has been writing this ledger for over \(Int(traceWaitSeconds)) s; trace again when it has finished")
    }
}

/// Another run, close or `ack` holds the folder's lock: nothing is wrong, try again later. The command line exits 75
/// (`EX_TEMPFAIL` of sysexits.h: a scheduler retries) instead of 1 (a real failure). Said as `AuditError.output` says it:
/// `<folder>: error: cannot write output: <reason>`.
package struct FolderBusy: Error, CustomStringConvertible {
    /// The exit status of a command refused by a folder's lock.
    package static let exitStatus: Int32 = 75
    package let folder: String
    package let reason: String

    package var description: String { "\(AuditError.output(folder, reason))" }
}
