import Foundation
import IAPAuditCrypto
import IAPAuditIngest
import IAPAuditModel
import IAPAuditStore

/// A JSON Lines or CSV file of the ledger that only grew since it was stored (a log still being written): its
/// first `oldBytes` are the bytes stored (their SHA-256 is the stored one) and end a line, so only what follows is
/// read, its lines numbered on from `oldLines`.
///
/// The file is mapped once: the size stored (`bytes`), the hash stored (`sha256`) and the lines read (`part`) are all
/// of that one mapping, though a writer appends while the run reads (a size from `stat` and lines read from a second
/// mapping once covered fewer lines than were stored: the next run numbered its new lines on from too few, and every
/// run after failed on `server_request.record_id`). A last line without a line feed is read (a rejected line, its
/// reason says the file may still be written) and counted in `bytes`: the next run, whose old end then ends no line,
/// reads the file whole.
///
/// The check reads the old part once (hashing it beside the whole file, one pass): what it costs is the
/// hashing, not the parsing. A CSV file's part is read under its header (its first non-blank line), and only
/// when no record was still open at the old end: a quoted field whose closing quote had not come yet (the lines
/// that follow could close it) was rejected there, so a rejection among the old part's last
/// `CSVRecords.maxLinesPerRecord` non-blank lines has the file read whole.
///
/// A gzip file whose inflated content begins with a plain log the ledger holds is that log grown and compressed
/// (logrotate's `compress` without `delaycompress`: `server.jsonl` grew, then became `server.jsonl.1.gz`, its records
/// followed to that path by `LedgerImporter.followingRotation`): the content is inflated once, into an unlinked file,
/// and read from its old end as a plain log's. Anything else — another format (a JWS file is one kind of record
/// throughout, but small), a gzip file of another content, a file that shrank or whose old part changed — is read
/// whole.
struct GrownFile {
    /// Bytes stored before, and the lines they hold (line feeds).
    let oldBytes: Int
    let oldLines: Int
    /// The SHA-256 of the whole file as it is on disk, and its size (bytes): what is stored (a gzip file's compressed bytes).
    let sha256: String
    let bytes: Int
    /// The SHA-256 of the content read (a gzip file's inflated bytes; else `sha256`).
    let contentSha256: String
    /// The one mapping read (a gzip file's inflated content).
    private let mapped: MappedFile
    /// A gzip file's own mapping (nil: a plain file, `mapped`).
    private let compressed: MappedFile?
    /// A CSV file's header: the bytes up to and including its line feed, and its line number (nil: JSON Lines).
    let header: (bytes: Int, line: Int)?

    /// The file at `path` as it grew from `previous`, or nil when it is not only a grown JSON Lines or CSV file.
    /// - Parameter rejectedSince: whether the stored file has a rejected line at this line number or after.
    /// - Parameters:
    ///   - inflating: where a gzip file's content is inflated, and within which limits (nil: a gzip file is read whole).
    init?(
        path: String, bytes: Int64, previous: StoredFile, inflating: (scratch: String, limits: InputLimits)? = nil,
        rejectedSince: (Int) throws -> Bool
    ) throws {
        let csv = previous.format == SourceFormat.csv.rawValue
        guard previous.format == SourceFormat.jsonLines.rawValue || csv, previous.status == ImportStatus.imported.rawValue,
            previous.isCurrentReader, previous.contentSha256 == previous.sha256, previous.bytes > 0
        else { return nil }
        var mapped = try MappedFile(path: path)
        var compressed: MappedFile? = nil
        if GzipInput.isGzip(mapped.data) {
            guard let inflating, mapped.data.count >= 18,
                previous.bytes >= 1 << 32 || LedgerImporter.inflatedSize(mapped.data) > previous.bytes,
                let content = try GzipInput.wholeContent(
                    of: mapped.data, path: path, directory: inflating.scratch, limits: inflating.limits)
            else { return nil }
            (compressed, mapped) = (mapped, content)
        } else if bytes <= previous.bytes {
            return nil
        }
        let data = mapped.data
        guard data.count > previous.bytes, data[data.startIndex + previous.bytes - 1] == 0x0A, !GzipInput.isGzip(data) else {
            return nil
        }
        // The file's pages are handed back as they are read (a mapping counts in the resident set: a 1.7 GB log
        // that grew by a line took 1.7 GB of it).
        let hashes = Digest.sha256Hex(data, prefix: previous.bytes) { mapped.release(upTo: $0) }
        guard hashes.prefix == previous.sha256 else { return nil }
        let scan = data.withUnsafeBytes {
            OldPart(UnsafeRawBufferPointer(rebasing: $0.prefix(previous.bytes)), release: { mapped.release(upTo: $0) })
        }
        if csv {
            guard let header = scan.first, try !rejectedSince(scan.windowStart ?? header.number + 1) else { return nil }
            self.header = (header.end + 1, header.number)
        } else {
            self.header = nil
        }
        oldBytes = previous.bytes
        oldLines = scan.lineFeeds
        contentSha256 = hashes.whole
        sha256 = compressed.map { Digest.sha256Hex($0) } ?? hashes.whole
        self.bytes = compressed?.data.count ?? data.count
        self.mapped = mapped
        self.compressed = compressed
    }

    /// What the readers read: `oldLines` line feeds (blank lines, read as nothing; a CSV file's header first) and then
    /// the new part, so that the new records are at their `file:line` in the whole file. Written to an unlinked file in
    /// `scratch` and mapped, as an input is: memory stays bounded however much the log grew (a copy in memory took
    /// 650 MB for a week's growth).
    func part(of path: String, scratch: String) throws -> InputFile {
        let start = mapped.data.startIndex
        var parts: [Data] = []
        if let header {
            parts.append(mapped.data[start..<(start + header.bytes)])
            parts.append(Data(repeating: 0x0A, count: oldLines - header.line))
        } else {
            parts.append(Data(repeating: 0x0A, count: oldLines))
        }
        parts.append(mapped.data[(start + oldBytes)...])
        let newPart = parts.count - 1
        let part = try MappedFile.temporary(in: scratch, for: path, parts: parts) { index, written in
            if index == newPart { mapped.release(upTo: oldBytes + written) }
        }
        return InputFile(path: path, data: part.data, sha256: sha256, bytes: bytes, mapping: part)
    }

    /// The whole file as it is on disk (read whole when its new part was not taken for what the file was).
    var whole: MappedFile { compressed ?? mapped }

    /// The content's bytes beyond the old part (a gzip file's inflated bytes).
    var newBytes: Int { mapped.data.count - oldBytes }
}

/// One pass over a grown file's old part: its line feeds, its first non-blank line (a CSV file's header) and the
/// first of its last `CSVRecords.maxLinesPerRecord` non-blank lines after that one, non-blank as the line readers
/// take it (`InputFile.forEachLineBatch`: a byte other than a space or a tab, a final carriage return aside).
struct OldPart {
    var lineFeeds = 0
    /// The first non-blank line: its number and the offset of its line feed.
    var first: (number: Int, end: Int)?
    /// The first line of the window; nil when no line follows the first.
    var windowStart: Int? { recent.isEmpty ? nil : recent.count < window ? recent[0] : recent[next] }
    private var recent: [Int] = []
    private var next = 0
    private let window = CSVRecords.maxLinesPerRecord

    /// - Parameter release: told every 64 MB the offset read up to (its pages may be handed back).
    init(_ bytes: UnsafeRawBufferPointer, release: (Int) -> Void = { _ in }) {
        var start = 0
        var released = 0
        while start < bytes.count {
            if start - released >= 64 << 20 {
                release(start)
                released = start
            }
            guard let found = memchr(bytes.baseAddress! + start, 0x0A, bytes.count - start) else { break }  // ends a line: checked
            let end = bytes.baseAddress!.distance(to: UnsafeRawPointer(found))
            lineFeeds += 1
            var stop = end
            if stop > start && bytes[stop - 1] == 0x0D { stop -= 1 }
            if bytes[start..<stop].contains(where: { $0 != 0x20 && $0 != 0x09 }) {
                if first == nil {
                    first = (lineFeeds, end)
                } else if recent.count < window {
                    recent.append(lineFeeds)
                } else {
                    recent[next] = lineFeeds
                    next = (next + 1) % window
                }
            }
            start = end + 1
        }
    }
}
