import CZlib
import Foundation
import IAPAuditModel

#if canImport(Glibc)
    import Glibc
#endif

/// A gzip-compressed input (RFC 1952: `.gz`, known by its magic bytes 1f 8b, whatever its name),
/// inflated through zlib into an unlinked temporary file that is then mapped: every reader reads the
/// content as it reads a file on disk, and memory stays bounded (the content is written in 256 KiB
/// pieces, and the pages of the archive and of the content are released as they are read). The only
/// code that touches zlib.
///
/// Members one after another (what `cat a.gz b.gz` gives) are one stream; zero bytes after the last
/// member (tape padding) are ignored. An archive that could not be read to its end keeps only content
/// that can be trusted, in whole lines, and says where and why in `damage` (the caller imports those
/// lines and adds one rejection for the rest): when it is truncated (its end is missing), every
/// complete line inflated; when its data is corrupt (a structure or checksum error), the lines of the
/// members before the damaged one, since zlib cannot tell which of the damaged member's bytes are wrong.
///
/// Inflation stops early, in seconds, past a limit (`InputLimits`: `inflated-bytes` per file, `inflation-ratio` per
/// member and per file once past `InputLimits.ratioFloor` inflated): a decompression bomb is cut like a damaged archive
/// (`damage` of kind `limit`), its complete lines before the cut kept.
package struct GzipInput {
    /// The inflated content, mapped (its temporary file is already unlinked: nothing is left behind).
    let content: MappedFile
    /// Why the content stops early, when it does.
    let damage: Damage?

    /// An archive that could not be read to its end.
    struct Damage {
        /// The 1-based line after the last line kept in `content`.
        let line: Int
        /// `truncated`, `corrupt` or `limit` (inflated past a limit: `detail` names it).
        let kind: String
        /// What went wrong, in words (`it ends before the end of its gzip stream…`).
        let detail: String
        /// The bytes inflated after the last kept line (at most `tailLimit`), for the rejection's raw text.
        let tail: String
        /// Whether `content` is all the content there is (only bytes after the end of the gzip data were
        /// not gzip).
        let contentComplete: Bool
    }

    /// Bytes inflated after the last kept line that are kept for the rejection's raw text.
    static let tailLimit = 4096

    /// Whether `data` starts with gzip's magic bytes 1f 8b.
    package static func isGzip(_ data: Data) -> Bool { data.count >= 2 && data.starts(with: [0x1F, 0x8B]) }

    /// Inflates `data` (the bytes of the file at `path`) into an unlinked temporary file in `directory`
    /// (created if missing).
    /// - Parameter release: told the offset in `data` before which its bytes are done with (a mapped
    ///   archive's pages are handed back as it is read).
    /// - Throws: `AuditError.output` when the temporary file cannot be made or written (a full disk),
    ///   `AuditError.unreadablePath` when it cannot be mapped.
    ///   - limits: inflation stops past `inflatedBytes` or `inflationRatio` (a damage of kind `limit`).
    init(
        _ data: Data, path: String, directory: String, limits: InputLimits = InputLimits(), release: @escaping (Int) -> Void = { _ in }
    ) throws {
        let sink = try TemporaryContent(directory: directory, for: path)
        var inflater = Inflater(sink: sink, limits: limits, release: release)
        let problem = try data.withUnsafeBytes { try inflater.run(over: $0.bindMemory(to: UInt8.self)) }
        if let problem {
            let complete = problem.kept == nil
            let kept = problem.kept ?? Inflater.Mark(end: inflater.written, lineFeeds: inflater.lineFeeds)
            let tail = try sink.read(from: kept.end, count: min(inflater.written - kept.end, Self.tailLimit))
            if !complete { try sink.truncate(to: kept.end) }
            // After a last line without a line feed, the damage is on the line after it.
            let line = kept.lineFeeds + (complete && inflater.written > inflater.lastLineEnd ? 2 : 1)
            damage = Damage(
                line: line, kind: problem.kind, detail: problem.detail, tail: String(decoding: tail, as: UTF8.self),
                contentComplete: complete)
        } else {
            damage = nil
        }
        content = try MappedFile(descriptor: sink.descriptor, path: path)
    }
}

extension GzipInput {
    /// The inflated content of `data` when it is a whole gzip archive (nil: not gzip, or truncated or
    /// corrupt), inflated into an unlinked file in `directory`: what the ledger hashes to know a gzipped copy
    /// of a file it holds (`source_file.content_sha256`). Inflation stops at the first of `limits` passed (nil then).
    package static func wholeContent(
        of data: Data, path: String, directory: String, limits: InputLimits = InputLimits()
    ) throws -> MappedFile? {
        guard isGzip(data) else { return nil }
        let gzip = try GzipInput(data, path: path, directory: directory, limits: limits)
        return gzip.damage == nil ? gzip.content : nil
    }
}

/// zlib's inflate over a whole archive, member after member, its output handed to a `TemporaryContent`.
private struct Inflater {
    /// A point in the content: just past a line feed (`end` bytes), after `lineFeeds` of them.
    struct Mark {
        var end = 0
        var lineFeeds = 0
    }

    /// Why an archive could not be read to its end: `truncated` or `corrupt`, in words, and the
    /// content that can be trusted (nil: all of it; only bytes after the gzip data were not gzip).
    struct Problem {
        var kind: String
        var detail: String
        var kept: Mark?
    }

    let sink: TemporaryContent
    let limits: InputLimits
    let release: (Int) -> Void
    /// Bytes of content written.
    private(set) var written = 0
    /// The last line feed written, and the last one before the member being inflated.
    private var lastLine = Mark()
    private var memberStart = Mark()
    var lastLineEnd: Int { lastLine.end }
    var lineFeeds: Int { lastLine.lineFeeds }
    private static let outputSize = 256 << 10
    /// Bytes of the archive handed to zlib at a time.
    private static let inputSize = 64 << 20

    /// The offset in the archive where the member being inflated starts, and the content written before it.
    private var memberInput = 0
    private var memberOutput = 0

    init(sink: TemporaryContent, limits: InputLimits, release: @escaping (Int) -> Void) {
        (self.sink, self.limits, self.release) = (sink, limits, release)
    }

    /// Why writing `count` more bytes of content would pass a limit, when it would (`consumed`: bytes of the archive
    /// read so far).
    private func limitPassed(adding count: Int, consumed: Int) -> String? {
        if written + count > limits.inflatedBytes {
            return "it inflates to more than \(limits.described("inflated-bytes")): a decompression bomb?"
        }
        // Per member, and over the file (many small members of one bomb, concatenated).
        for (inflated, compressed) in [(written + count - memberOutput, consumed - memberInput), (written + count, consumed)]
        where inflated > InputLimits.ratioFloor && inflated / max(1, compressed) >= limits.inflationRatio {
            return "\(CountText.grouped(Int64(compressed))) compressed bytes inflate to more than "
                + "\(CountText.grouped(Int64(inflated))) bytes, over \(limits.described("inflation-ratio")): a decompression bomb?"
        }
        return nil
    }

    /// Inflates `input`; returns nil when every member ended cleanly, else why the content stops early.
    mutating func run(over input: UnsafeBufferPointer<UInt8>) throws -> Problem? {
        var stream = z_stream()
        guard iap_inflate_init_gzip(&stream) == Z_OK else { return Problem(kind: "corrupt", detail: "zlib could not start", kept: Mark()) }
        defer { inflateEnd(&stream) }
        let output = UnsafeMutablePointer<UInt8>.allocate(capacity: Self.outputSize)
        defer { output.deallocate() }
        var given = 0  // bytes of `input` handed to zlib
        while true {
            if stream.avail_in == 0 && given < input.count {
                release(given)
                let n = min(input.count - given, Self.inputSize)
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress! + given)
                stream.avail_in = UInt32(n)
                given += n
            }
            stream.next_out = output
            stream.avail_out = UInt32(Self.outputSize)
            let status = inflate(&stream, Z_NO_FLUSH)
            let count = Self.outputSize - Int(stream.avail_out)
            if count > 0, let passed = limitPassed(adding: count, consumed: given - Int(stream.avail_in)) {
                // Up to `inflatedBytes` exactly: the complete lines in it are kept.
                try emit(output, max(0, min(count, limits.inflatedBytes - written)))
                return Problem(kind: "limit", detail: passed, kept: lastLine)
            }
            try emit(output, count)
            switch status {
            case Z_OK:
                continue
            case Z_STREAM_END:
                let rest = input.count - given + Int(stream.avail_in)
                if rest == 0 { return nil }
                let next = input.count - rest
                if rest >= 2 && input[next] == 0x1F && input[next + 1] == 0x8B {
                    inflateReset(&stream)  // the next member of a concatenation
                    memberStart = lastLine
                    (memberInput, memberOutput) = (next, written)
                    continue
                }
                if input[next...].allSatisfy({ $0 == 0 }) { return nil }  // padding
                return Problem(kind: "corrupt", detail: "\(rest) bytes after the end of its gzip data are not gzip", kept: nil)
            case Z_BUF_ERROR where stream.avail_in == 0 && given < input.count:
                continue
            case Z_BUF_ERROR:
                return Problem(
                    kind: "truncated", detail: "it ends before the end of its gzip stream: cut off while copied or written?", kept: lastLine
                )
            default:
                let message = stream.msg.map { String(cString: $0) } ?? "zlib error \(status)"
                return Problem(
                    kind: "corrupt", detail: "zlib: \(message) at byte \(given - Int(stream.avail_in)) of the archive", kept: memberStart)
            }
        }
    }

    private mutating func emit(_ bytes: UnsafeMutablePointer<UInt8>, _ count: Int) throws {
        guard count > 0 else { return }
        try sink.write(bytes, count)
        var at = 0
        while at < count, let newline = memchr(bytes + at, 10, count - at) {
            at = UnsafeRawPointer(bytes).distance(to: UnsafeRawPointer(newline)) + 1
            lastLine.lineFeeds += 1
        }
        if at > 0 { lastLine.end = written + at }
        written += count
    }
}

extension MappedFile {
    /// `parts` written one after the other into an unlinked temporary file in `directory`, mapped (its pages released
    /// as it is read, like an input's): what a reader reads of a log that grew, without holding it in memory. `release`
    /// is told, part by part, how many bytes of that part were written (64 MB at a time), so that a part mapped from
    /// another file can hand its pages back. Throws `AuditError.output` when the file cannot be made or written.
    package static func temporary(
        in directory: String, for path: String, parts: [Data], release: (_ part: Int, _ written: Int) -> Void = { _, _ in }
    ) throws -> MappedFile {
        let content = try TemporaryContent(directory: directory, for: path, prefix: ".part-")
        for (index, part) in parts.enumerated() {
            try part.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
                var offset = 0
                while offset < raw.count {
                    let n = min(64 << 20, raw.count - offset)
                    try content.write(UnsafeMutablePointer(mutating: raw.baseAddress!.assumingMemoryBound(to: UInt8.self) + offset), n)
                    offset += n
                    release(index, offset)
                }
            }
        }
        return try MappedFile(descriptor: content.descriptor, path: path)
    }
}

/// An unlinked temporary file holding inflated content: made in a folder, its name removed at once,
/// so it goes away with its descriptor whatever happens to the run.
private final class TemporaryContent {
    let descriptor: Int32
    private let directory: String

    init(directory: String, for path: String, prefix: String = ".gunzip-") throws {
        self.directory = directory
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var template = Array((directory + "/" + prefix + "XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw AuditError.output(directory, "cannot make a temporary file to inflate \(path): \(String(cString: strerror(errno)))")
        }
        unlink(template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
        descriptor = fd
    }

    deinit { close(descriptor) }

    func write(_ bytes: UnsafeMutablePointer<UInt8>, _ count: Int) throws {
        var done = 0
        while done < count {
            let n = Glibc.write(descriptor, bytes + done, count - done)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw failure("cannot write the inflated content") }
            done += n
        }
    }

    func read(from offset: Int, count: Int) throws -> [UInt8] {
        guard count > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: count)
        let n = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress!, count, off_t(offset)) }
        guard n >= 0 else { throw failure("cannot read the inflated content back") }
        return Array(bytes.prefix(n))
    }

    func truncate(to count: Int) throws {
        guard ftruncate(descriptor, off_t(count)) == 0 else { throw failure("cannot cut the inflated content") }
    }

    private func failure(_ what: String) -> AuditError {
        AuditError.output(directory, "\(what): \(String(cString: strerror(errno)))")
    }
}
