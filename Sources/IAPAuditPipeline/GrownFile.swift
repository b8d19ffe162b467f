import Foundation
import IAPAuditCrypto
import IAPAuditIngest
import IAPAuditModel
import IAPAuditStore

/// A JSON Lines file of the ledger that only grew since it was stored (a log still being written): its
/// first `oldBytes` are the bytes stored (their SHA-256 is the stored one) and end a line, so only what
/// follows is read, its lines numbered on from `oldLines`.
///
/// The check reads the old part once (hashing it beside the whole file, one pass): what it costs is the
/// hashing, not the parsing. Anything else — another format (CSV needs its header, a JWS file its kind), a
/// gzip file, a file that shrank or whose old part changed — is read whole.
struct GrownFile {
    /// Bytes stored before, and the lines they hold (line feeds).
    let oldBytes: Int
    let oldLines: Int
    /// The SHA-256 of the whole file now.
    let sha256: String

    /// The file at `path` as it grew from `previous`, or nil when it is not only a grown JSON Lines file.
    init?(path: String, bytes: Int64, previous: StoredFile) throws {
        guard previous.format == SourceFormat.jsonLines.rawValue, previous.status == ImportStatus.imported.rawValue,
            previous.isCurrentReader, previous.contentSha256 == previous.sha256, previous.bytes > 0, bytes > previous.bytes
        else { return nil }
        let mapped = try MappedFile(path: path)
        let data = mapped.data
        guard data.count > previous.bytes, data[data.startIndex + previous.bytes - 1] == 0x0A, !GzipInput.isGzip(data) else {
            return nil
        }
        let hashes = Digest.sha256Hex(data, prefix: previous.bytes)
        guard hashes.prefix == previous.sha256 else { return nil }
        oldBytes = previous.bytes
        oldLines = data.withUnsafeBytes { raw in raw.prefix(previous.bytes).reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) } }
        sha256 = hashes.whole
    }

    /// What the readers read: `oldLines` line feeds (blank lines, read as nothing) and then the new part, so that
    /// the new records are at their `file:line` in the whole file.
    func part(of path: String) throws -> InputFile {
        let mapped = try MappedFile(path: path)
        var data = Data(repeating: 0x0A, count: oldLines)
        data.append(mapped.data[(mapped.data.startIndex + oldBytes)...])
        return InputFile(path: path, data: data, sha256: sha256, bytes: mapped.data.count)
    }
}
