import Foundation
import IAPAuditModel
import IAPAuditReport
import IAPAuditStore

/// A full disk (or quota) under `--out`, said one way whichever layer met it — SQLite while importing or
/// storing the findings, libxlsxwriter while writing the workbook, a spill file while reconciling:
/// `<file>: error: cannot write output: the disk is full (<what failed>); free some space and run again:
/// the next run completes this one`.
///
/// What the run leaves is consistent: the database says `run_status = incomplete` (set before anything
/// else changed) and there is no workbook (removed as the run started; a new one is renamed into place only
/// once the database holds its findings).
enum DiskFull {
    /// `error` as the disk-full `AuditError.output` when it is one; else `error` itself.
    static func reported(_ error: any Error, databasePath: String, workbookPath: String, folder: String) -> any Error {
        guard let (file, cause) = cause(of: error, databasePath: databasePath, workbookPath: workbookPath, folder: folder) else {
            return error
        }
        return AuditError.output(file, "the disk is full (\(cause)); free some space and run again: the next run completes this one")
    }

    /// The file the failure was about and what failed, when `error` is the disk being full.
    static func cause(of error: any Error, databasePath: String, workbookPath: String, folder: String) -> (String, String)? {
        let noSpace = [String(cString: strerror(ENOSPC)), String(cString: strerror(EDQUOT))]
        switch error {
        case let e as SQLiteError where e.isDiskFull:
            return (databasePath, "SQLite error \(e.code): \(e.message)")
        case let e as XLSXError where e.isDiskFull:
            let said = e.diagnostics.map(XLSXError.withoutLevel).joined(separator: "; ")
            return (workbookPath, "libxlsxwriter: " + (said.isEmpty ? "\(e.operation): \(e.message)" : said))
        case AuditError.output(let path, let why) where noSpace.contains(where: why.contains):
            return (path, why)
        case let e as NSError
        where (e.domain == NSPOSIXErrorDomain && (e.code == Int(ENOSPC) || e.code == Int(EDQUOT)))
            || (e.domain == NSCocoaErrorDomain && e.code == CocoaError.fileWriteOutOfSpace.rawValue):
            return (folder, e.localizedDescription)
        default:
            return nil
        }
    }
}
