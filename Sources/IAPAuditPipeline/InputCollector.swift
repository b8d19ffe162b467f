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

/// One path found under the PATH arguments: a regular file to read, or something that is listed
/// as skipped with the reason (a FIFO, a link to a folder, a dangling link…).
struct InputEntry: Equatable {
    let path: String
    /// Nil for a regular file; else why it is not read.
    let skipReason: String?
}

/// Expands the PATH arguments into input entries: files as given, folders searched recursively
/// (sorted by path; hidden files and folders listed as skipped, not read; this run's own outputs left out).
enum InputCollector {
    /// The files `run` writes into its output folder: never inputs.
    static let outputNames: Set<String> = [
        "audit.sqlite", "audit.sqlite-journal", "audit.sqlite-wal", "audit.sqlite-shm", "audit.xlsx", "audit.xlsx.partial",
    ]

    /// Hidden names `run` itself makes in an output folder: not listed even as skipped.
    static let ownHiddenNames: Set<String> = [".audit.lock", ".reconcile-spill", ".reconcile-carry"]

    /// Throws `AuditError.unreadablePath` for a PATH that does not exist or a folder that cannot be listed.
    /// - Parameter configFile: the run's config file: when it is among the inputs, it is listed as used.
    /// - Parameter ledger: `--ledger FILE`: it and its journals are never inputs either.
    static func entries(in paths: [String], outputDirectory: String, configFile: String? = nil, ledger: String? = nil) throws
        -> [InputEntry]
    {
        // Compared with symbolic links resolved: an output folder reached through a link (or inputs
        // reached through one) is still this run's own.
        let outputFolder = realPath(outputDirectory) ?? URL(fileURLWithPath: outputDirectory).standardizedFileURL.path
        var outputs = Set(outputNames.map { outputFolder + "/" + $0 })
        if let ledger {
            let url = URL(fileURLWithPath: ledger)
            let folder = realPath(url.deletingLastPathComponent().path) ?? url.deletingLastPathComponent().standardizedFileURL.path
            for suffix in ["", "-journal", "-wal", "-shm"] { outputs.insert(folder + "/" + url.lastPathComponent + suffix) }
        }
        // Paths named on the command line are read as named, even hidden ones inside a folder also named.
        let named = Set(paths.map { URL(fileURLWithPath: $0).standardizedFileURL.path })
        var result: [InputEntry] = []
        for path in paths {
            switch type(of: path) {
            case nil:
                throw AuditError.unreadablePath(path, "no such file or folder")
            case .typeDirectory?:
                try walk(path, named: named, into: &result)
            default:
                result.append(entry(path))
            }
        }
        var seen = Set<String>()
        let config = configFile.flatMap(realPath)
        return result.filter { entry in
            seen.insert(entry.path).inserted && !outputs.contains(realPath(entry.path) ?? entry.path)
        }.map { entry in
            guard entry.skipReason == nil, let config, realPath(entry.path) == config else { return entry }
            return InputEntry(path: entry.path, skipReason: ConfigDiscovery.usedNote)
        }
    }

    /// `path` with every symbolic link resolved (realpath(3)); nil when it does not exist.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func walk(_ folder: String, named: Set<String>, into result: inout [InputEntry]) throws {
        guard let listed = list(folder) else { throw AuditError.unreadablePath(folder, "cannot list the folder") }
        for (name, utf8) in listed.sorted(by: { $0.name < $1.name }) where !ownHiddenNames.contains(name) {
            let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
            // A name no String holds as it is: no path opens it, so it is listed (escaped) and refused, never read.
            guard utf8 else {
                result.append(InputEntry(path: path, skipReason: notUTF8Name))
                continue
            }
            let isFolder = type(of: path, followingLinks: false) == .typeDirectory
            // Hidden files and folders are not read, but listed: their records are accounted for as skipped.
            if name.hasPrefix(".") {
                // Named on the command line too: read (or searched) there, not listed as skipped here.
                if named.contains(URL(fileURLWithPath: path).standardizedFileURL.path) { continue }
                result.append(
                    InputEntry(
                        path: path,
                        skipReason: isFolder
                            ? "hidden folder (its name starts with '.'): not searched; name it on the command line to search it"
                            : "hidden file (its name starts with '.'): not read; name it on the command line to read it"))
                continue
            }
            if isFolder {
                try walk(path, named: named, into: &result)
            } else {
                result.append(entry(path))
            }
        }
    }

    /// The skip note of a file whose name is not UTF-8 (its path shown with `\xNN` for each byte that is not):
    /// `RunAlerts` alerts on it under --fail-on-rejected.
    static let notUTF8Name = "file name is not UTF-8 (shown with \\xNN for its bytes that are not): not read; rename it to read it"

    /// A folder's names (readdir(3), without `.` and `..`), each with whether it is UTF-8; a name that is not is
    /// given with each byte that is not UTF-8 as `\xNN`. Nil when the folder cannot be listed.
    static func list(_ folder: String) -> [(name: String, utf8: Bool)]? {
        guard let dir = opendir(folder) else { return nil }
        defer { closedir(dir) }
        var names: [(name: String, utf8: Bool)] = []
        while let entry = readdir(dir) {
            let bytes = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix(while: { $0 != 0 })) }
            if bytes == [0x2E] || bytes == [0x2E, 0x2E] { continue }
            if let name = String(validating: bytes, as: UTF8.self) {
                names.append((name, true))
            } else {
                names.append((escaped(bytes), false))
            }
        }
        return names
    }

    /// Bytes as text: their valid UTF-8 as it is, every other byte as `\xNN`.
    static func escaped(_ bytes: [UInt8]) -> String {
        var text = ""
        var rest = bytes[...]
        while !rest.isEmpty {
            // The longest valid prefix (at most 4 bytes a character) is kept; else one byte escaped.
            var taken = false
            for length in stride(from: min(4, rest.count), through: 1, by: -1) {
                if let c = String(validating: rest.prefix(length), as: UTF8.self), c.unicodeScalars.count == 1 {
                    text += c
                    rest = rest.dropFirst(length)
                    taken = true
                    break
                }
            }
            if !taken {
                text += "\\x" + String(rest.first!, radix: 16, uppercase: true).leftPadded(to: 2)
                rest = rest.dropFirst()
            }
        }
        return text
    }

    private static func entry(_ path: String) -> InputEntry {
        let own = type(of: path, followingLinks: false)
        let target = type(of: path)
        switch (own, target) {
        case (_, .typeRegular?):
            return InputEntry(path: path, skipReason: nil)
        case (.typeSymbolicLink?, nil):
            var info = stat()
            let loop = stat(path, &info) != 0 && errno == ELOOP
            return InputEntry(
                path: path,
                skipReason: loop ? "symbolic link loop (it leads back to itself)" : "dangling symbolic link (its target does not exist)")
        case (.typeSymbolicLink?, .typeDirectory?):
            return InputEntry(path: path, skipReason: "symbolic link to a folder (not followed: name the folder itself)")
        default:
            return InputEntry(path: path, skipReason: "not a regular file: \(describe(path))")
        }
    }

    /// What a path that is no regular file is, in words (from stat(2)).
    private static func describe(_ path: String) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else { return "cannot be examined (\(String(cString: strerror(errno))))" }
        switch info.st_mode & S_IFMT {
        case S_IFIFO: return "a named pipe (FIFO); iap-audit reads files, copy its content to one"
        case S_IFSOCK: return "a socket"
        case S_IFCHR, S_IFBLK: return "a device"
        default: return "of an unknown type"
        }
    }

    private static func type(of path: String, followingLinks: Bool = true) -> FileAttributeType? {
        if followingLinks {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return nil }
            if isDirectory.boolValue { return .typeDirectory }
            let attributes = try? FileManager.default.attributesOfItem(atPath: URL(fileURLWithPath: path).resolvingSymlinksInPath().path)
            return attributes?[.type] as? FileAttributeType
        }
        return (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
