import Foundation
import IAPAuditCrypto
import IAPAuditIngest
import IAPAuditModel
import IAPAuditReconcile
import IAPAuditReport
import IAPAuditStore

/// The output folder of a run: created if missing, locked against a second concurrent run
/// (an exclusive `flock` on `DIR/.audit.lock`, released when the run ends or dies; `FolderLock`: it
/// waits for traces reading the ledger), and the place the workbook is written atomically (to `audit.xlsx.partial`,
/// renamed over `audit.xlsx` once complete: a failed run leaves the last good one). The ledger is
/// `DIR/audit.sqlite` unless `--ledger FILE` names another (whose folder is then locked the same way).
package final class OutputFolder {
    let path: String
    private var lockDescriptors: [Int32] = []
    /// `--ledger FILE`, when given.
    private let ledger: String?

    var databasePath: String { ledger ?? path + "/audit.sqlite" }
    var workbookPath: String { path + "/audit.xlsx" }
    /// Where reconciliation keeps facts between its stages when they exceed its memory budget, and
    /// where gzip inputs are inflated (as unlinked files: nothing stays); removed when the run ends, a
    /// killed run's leftovers by the next run.
    var spillPath: String { path + "/.reconcile-spill" }
    /// The request stage's results kept for the next run (`RequestCarry`): a cache, checked against the ledger.
    var carryPath: String { path + "/.reconcile-carry" }

    /// Throws `AuditError.output` when the folder cannot be made, is a file or its workbook path is
    /// a folder; `FolderBusy` when another run holds it.
    init(path given: String, ledger: String? = nil) throws {
        let path = Self.normalized(given)
        self.path = path
        self.ledger = ledger
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw AuditError.output(path, "exists and is not a folder")
        }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw AuditError.output(path, "cannot create the folder")
        }
        if FileManager.default.fileExists(atPath: path + "/audit.xlsx", isDirectory: &isDirectory), isDirectory.boolValue {
            throw AuditError.output(path + "/audit.xlsx", "exists and is a folder")
        }
        try lock(path)
        if let ledger {
            let folder = URL(fileURLWithPath: ledger).deletingLastPathComponent().path
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            if InputCollector.realPath(folder) != InputCollector.realPath(path) { try lock(folder) }
        }
        try? FileManager.default.removeItem(atPath: spillPath)
    }

    /// Takes `folder/.audit.lock` for this run (waiting for traces). Throws `FolderBusy` when another run, close or
    /// `ack` holds it (exit 75), `AuditError.output` when the lock file cannot be made.
    private func lock(_ folder: String) throws {
        let descriptor = open(folder + "/.audit.lock", O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
        if descriptor < 0 { throw AuditError.output(folder, "cannot create .audit.lock: \(String(cString: strerror(errno)))") }
        if !FolderLock.exclusive(descriptor) {
            close(descriptor)
            throw FolderBusy(folder: folder, reason: "another iap-audit run is writing this folder; try again when it has finished")
        }
        lockDescriptors.append(descriptor)
    }

    deinit { for descriptor in lockDescriptors { close(descriptor) } }

    /// `path` without trailing slashes (`ledger/` → `ledger`, so files are named `ledger/audit.sqlite`);
    /// `/` stays `/`.
    package static func normalized(_ path: String) -> String {
        var p = Substring(path)
        while p.count > 1 && p.hasSuffix("/") { p = p.dropLast() }
        return String(p)
    }

    func openStore() throws -> AuditStore {
        do { return try AuditStore(path: databasePath) } catch let error as SQLiteError where error.isDiskFull {
            throw error  // the disk is full: said as such (DiskFull)
        } catch {
            throw AuditError.output(databasePath, "\(error)")
        }
    }

    /// Removes a killed run's `audit.xlsx.partial` as this run starts changing the database. The last run's
    /// `audit.xlsx` stays until this run's is complete (`publishWorkbook`): a run that dies or fails leaves the last good
    /// workbook (its Summary says when it was made), never none.
    func removePartialWorkbook() {
        try? FileManager.default.removeItem(atPath: partialWorkbookPath)
    }

    /// Where the workbook is written before `publishWorkbook` renames it into place.
    var partialWorkbookPath: String { workbookPath + ".partial" }

    /// Writes the workbook beside its final name (`audit.xlsx.partial`), so a killed run never leaves half
    /// a workbook; `publishWorkbook` puts it in place once the database holds its findings. Throws
    /// `XLSXError` when the disk is full (said as such by `DiskFull`), else `AuditError.output`.
    func writeWorkbook(_ workbook: ReportWorkbook) throws {
        do {
            try XLSXWriter.write(workbook, to: partialWorkbookPath)
        } catch {
            try? FileManager.default.removeItem(atPath: partialWorkbookPath)
            if let error = error as? XLSXError, error.isDiskFull { throw error }
            throw AuditError.output(workbookPath, "\(error)")
        }
    }

    /// Renames the written workbook over the old one (`rename(2)`, atomic: a reader opens the old one or the new one,
    /// never a part). Throws `AuditError.output` when it cannot (the old one stays).
    func publishWorkbook() throws {
        if rename(partialWorkbookPath, workbookPath) != 0 {
            let reason = String(cString: strerror(errno))
            discardWorkbook()
            throw AuditError.output(workbookPath, reason)
        }
    }

    /// Removes this run's unpublished workbook: the run did not complete. The last good `audit.xlsx` stays.
    func discardWorkbook() {
        try? FileManager.default.removeItem(atPath: partialWorkbookPath)
    }
}
