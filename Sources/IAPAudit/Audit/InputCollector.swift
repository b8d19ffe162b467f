import Foundation

/// Expands the PATH arguments into input files: files as given, folders searched recursively
/// (sorted by path; hidden files and folders skipped; files inside the output folder skipped).
enum InputCollector {
    /// Throws `AuditError.unreadablePath` for a path that does not exist or cannot be listed.
    static func files(in paths: [String], excluding outputDirectory: String) throws -> [String] {
        let fm = FileManager.default
        let excluded = URL(fileURLWithPath: outputDirectory).standardizedFileURL.path + "/"
        var result: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard fm.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw AuditError.unreadablePath(path, "no such file or folder")
            }
            if !isDirectory.boolValue {
                result.append(path)
                continue
            }
            guard let names = try? fm.subpathsOfDirectory(atPath: path) else {
                throw AuditError.unreadablePath(path, "cannot list the folder")
            }
            for name in names.sorted() {
                if name.split(separator: "/").contains(where: { $0.hasPrefix(".") }) { continue }
                let full = path.hasSuffix("/") ? path + name : path + "/" + name
                var isDir: ObjCBool = false
                guard fm.fileExists(atPath: full, isDirectory: &isDir), !isDir.boolValue else { continue }
                if (URL(fileURLWithPath: full).standardizedFileURL.path).hasPrefix(excluded) { continue }
                result.append(full)
            }
        }
        var seen = Set<String>()
        return result.filter { seen.insert($0).inserted }
    }
}
