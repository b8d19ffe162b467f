import Foundation
import IAPAuditModel
import IAPAuditStore

extension LedgerImporter {
    /// The stored files given under another path than the ledger holds them (`./exports/a.jsonl` for
    /// `/srv/iap-audit/exports/a.jsonl`: a run from another folder), the old path not given: renamed in the ledger
    /// rather than hashed again and skipped as a copy while its old path is kept as "not given". The same file is
    /// one of the same size, modification time and inode as stored (a moved file, a symlinked folder), or one
    /// whose old path names it still (the same device and inode now: another spelling of its path, a hard link),
    /// whatever its modification time (it is then checked as any stored file: by its hash). Returns the stored files
    /// by their paths now, and a warning per file renamed (its evidence shows the new path from now on).
    func renamingMoved(_ entries: [InputEntry], _ stored: [String: StoredFile]) throws -> ([String: StoredFile], [RunWarning]) {
        let given = Set(entries.map(\.path))
        let unknown = entries.filter { $0.skipReason == nil && stored[$0.path] == nil }
        guard !unknown.isEmpty else { return (stored, []) }
        var byStamp: [FileStamp: String] = [:]
        var byNode: [FileNode: String] = [:]
        for (path, file) in stored where !given.contains(path) {
            if let stamp = file.stamp, stamp.isKnown {
                byStamp[stamp] = byStamp[stamp] == nil ? path : ""  // two stored paths of one stamp: neither is sure
            }
            if let node = FileNode(path) { byNode[node] = byNode[node] == nil ? path : "" }
        }
        guard !byStamp.isEmpty || !byNode.isEmpty else { return (stored, []) }
        var result = stored
        var warnings: [RunWarning] = []
        for entry in unknown {
            let why: String
            let old: String
            if let stamp = try? Self.stamp(of: entry.path), stamp.isKnown, let path = byStamp[stamp], !path.isEmpty,
                result[path] != nil
            {
                (old, why) = (path, "the same size, modification time and inode): renamed, not read again")
            } else if let node = FileNode(entry.path), let path = byNode[node], !path.isEmpty, result[path] != nil {
                (old, why) = (path, "the same file: its old path names it still): renamed, and checked by its hash")
            } else {
                continue
            }
            try store.renameFile(from: old, to: entry.path)
            result[entry.path] = result.removeValue(forKey: old)
            warnings.append(
                RunWarning(
                    .inputRenamed,
                    "\(entry.path): the file the ledger held as \(old) (\(why); its evidence shows this path from now on "
                        + "(give the same paths every night)", file: entry.path))
        }
        return (result, warnings)
    }
}

/// A file's identity on this machine now: its device and inode (two paths of one node are one file).
struct FileNode: Hashable {
    let device: UInt64
    let inode: UInt64

    /// nil when the path cannot be stat'ed (gone).
    init?(_ path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        (device, inode) = (UInt64(info.st_dev), UInt64(info.st_ino))
    }
}
