import Foundation
import IAPAuditModel

/// One input file read into memory, with its SHA-256 (the import key: same content, same import).
package struct InputFile {
    /// The path as the user gave it (or as found under a given folder).
    package let path: String
    let data: Data
    /// Lowercase hex SHA-256 of the content.
    package let sha256: String
    /// Size on disk in bytes.
    package let bytes: Int

    /// - Parameters:
    ///   - data: the file's bytes. The content read is UTF-8: a UTF-8 byte-order mark is dropped and
    ///     UTF-16 with a byte-order mark is converted.
    ///   - sha256: of these exact bytes (the pipeline hashes: `Digest` is a Crypto target's).
    package init(path: String, data: Data, sha256: String) {
        self.path = path
        self.sha256 = sha256
        self.bytes = data.count
        self.data = InputFile.utf8(data)
        mapping = nil
    }

    /// A mapped file, its pages released as they are read; `sha256` of its bytes.
    package init(path: String, mapped: MappedFile, sha256: String) {
        self.path = path
        self.sha256 = sha256
        self.bytes = mapped.count
        self.data = InputFile.utf8(mapped.data)
        mapping = mapped
    }

    /// The mapping behind `data`, when the file was mapped (pages of read batches are released).
    let mapping: MappedFile?

    /// What is read of the file: its line iterators stop at a line over `lineBytes` or past `records` lines.
    package var limits = InputLimits()
    /// Where an iterator stopped at a limit, if one did (shared by the copies of this value): `FileImporter` rejects the
    /// rest of the file as one span.
    let cut = LimitCut.Holder()

    package init(path: String, data: Data, sha256: String, bytes: Int, mapping: MappedFile? = nil) {
        self.path = path
        self.data = data
        self.sha256 = sha256
        self.bytes = bytes
        self.mapping = mapping
    }

    /// Tells the mapping that bytes before `offset` of `data` are done with (no-op when not mapped or
    /// when `data` is a converted copy).
    func release(upTo offset: Int) {
        guard let mapping, data.count == mapping.count else { return }
        mapping.release(upTo: offset)
    }

    /// The content as UTF-8 without a byte-order mark, its lines ended by LF (CR LF is read as it is).
    package static func utf8(_ data: Data) -> Data {
        var text = data
        if data.starts(with: [0xEF, 0xBB, 0xBF]) {
            text = Data(data.dropFirst(3))
        } else if data.starts(with: [0xFF, 0xFE]) || data.starts(with: [0xFE, 0xFF]) {
            text = utf8(utf16: data.dropFirst(2), bigEndian: data.first == 0xFE)
        }
        return endsLinesWithCR(text) ? lineFeedsForLoneCRs(text) : text
    }

    /// UTF-16 code units as UTF-8. Half a surrogate pair, or a last odd byte, becomes the byte 0xFF (never
    /// UTF-8), so only its own line is rejected as not UTF-8, not the file nor a U+FFFD read as an id.
    private static func utf8(utf16 data: Data, bigEndian: Bool) -> Data {
        var out = [UInt8]()
        out.reserveCapacity(data.count)
        let bytes = [UInt8](data)
        let units = bytes.count / 2
        func unit(_ i: Int) -> UInt32 {
            bigEndian ? UInt32(bytes[2 * i]) << 8 | UInt32(bytes[2 * i + 1]) : UInt32(bytes[2 * i + 1]) << 8 | UInt32(bytes[2 * i])
        }
        var i = 0
        while i < units {
            var scalar = unit(i)
            i += 1
            if (0xD800...0xDBFF).contains(scalar), i < units, (0xDC00...0xDFFF).contains(unit(i)) {
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (unit(i) - 0xDC00)
                i += 1
            } else if (0xD800...0xDFFF).contains(scalar) {
                out.append(0xFF)
                continue
            }
            out.append(contentsOf: UTF8.encode(Unicode.Scalar(scalar)!)!)
        }
        if bytes.count % 2 == 1 { out.append(0xFF) }
        return Data(out)
    }

    /// Whether `data` is text whose lines end in a lone CR (classic Mac; Excel for Mac's "CSV (Macintosh)"),
    /// perhaps with a CR LF or LF here and there (a line appended by another program): its first 64 KiB
    /// hold no control byte but tab (a binary receipt holds some), and its first line ends in a lone CR
    /// or lone CRs outnumber LFs.
    private static func endsLinesWithCR(_ data: Data) -> Bool {
        let head = data.prefix(65_536)
        var loneCRs = 0
        var lineFeeds = 0
        var firstLineEndsInCR = false
        var previous: UInt8 = 0
        for byte in head {
            if previous == 13 && byte != 10 {
                loneCRs += 1
                if lineFeeds == 0 && loneCRs == 1 { firstLineEndsInCR = true }
            }
            if byte == 10 {
                lineFeeds += 1
            } else if byte < 0x20 && byte != 9 && byte != 13 {
                return false
            }
            previous = byte
        }
        if previous == 13 { loneCRs += 1 }
        return loneCRs > 0 && (firstLineEndsInCR || loneCRs > lineFeeds)
    }

    /// `data` with each CR not followed by LF made an LF (a CR LF stays one line end).
    private static func lineFeedsForLoneCRs(_ data: Data) -> Data {
        var out = data
        out.withUnsafeMutableBytes { (bytes: UnsafeMutableRawBufferPointer) in
            for i in bytes.indices where bytes[i] == 13 && (i + 1 == bytes.count || bytes[i + 1] != 10) { bytes[i] = 10 }
        }
        return out
    }

    /// Non-blank lines with their 1-based numbers; a trailing `\r` is removed.
    /// Split on bytes: in a Swift `String`, `\r\n` is one character.
    /// Calls `body` with batches of at most `batchSize` non-blank lines (numbers 1-based, a trailing
    /// `\r` removed) and the byte offset just past the batch, without holding the whole file's lines.
    /// A batch also ends once its lines hold `batchBytes` bytes, so long lines do not grow it.
    /// `body` returns false to stop.
    func forEachLineBatch(
        batchSize: Int, batchBytes: Int = Self.batchBytes, _ body: (_ lines: [(number: Int, text: String)], _ endOffset: Int) throws -> Bool
    ) rethrows {
        try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) throws -> Void in
            let bytes = raw.bindMemory(to: UInt8.self)
            var batch: [(number: Int, text: String)] = []
            batch.reserveCapacity(batchSize)
            var start = 0
            var batchStart = 0
            var number = 0
            var records = 0
            while start < bytes.count {
                number += 1
                guard let end = lineEnd(raw.baseAddress!.assumingMemoryBound(to: UInt8.self), bytes.count, start, number) else {
                    if !batch.isEmpty { _ = try body(batch, start) }
                    return
                }
                var stop = end
                if stop > start && bytes[stop - 1] == 13 { stop -= 1 }
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<stop])
                if slice.contains(where: { $0 != 32 && $0 != 9 }) {
                    records += 1
                    if records > limits.records {
                        cut.record(overRecords(number, start))
                        if !batch.isEmpty { _ = try body(batch, start) }
                        return
                    }
                    batch.append((number: number, text: String(decoding: slice, as: UTF8.self)))
                    if batch.count == batchSize || end - batchStart >= batchBytes {
                        if try !body(batch, end) { return }
                        batch.removeAll(keepingCapacity: true)
                        batchStart = end
                    }
                }
                start = end + 1
            }
            if !batch.isEmpty { _ = try body(batch, bytes.count) }
        }
    }

    /// The offset of the line feed ending the line at `start` (line `number`), or `count` for a last line without one;
    /// nil (the cut recorded) when the line holds more than `limits.lineBytes` bytes: the search for its end stops
    /// there, so a line of gigabytes is not paged in.
    @inline(__always)
    private func lineEnd(_ base: UnsafePointer<UInt8>, _ count: Int, _ start: Int, _ number: Int) -> Int? {
        let rest = count - start
        let window = min(rest, limits.lineBytes &+ 2)  // + 2: the line's CR LF
        var end: Int? = window < rest ? nil : count
        if let found = memchr(base + start, 10, window) { end = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found)) }
        if let end, end - start - (end > start && base[end - 1] == 13 ? 1 : 0) <= limits.lineBytes { return end }
        let shown = min(count - start, GzipInput.tailLimit)
        cut.record(
            LimitCut(
                line: number, limit: "line-bytes",
                reason: "line \(number) is longer than \(limits.described("line-bytes")): it and the rest of the file "
                    + "(\(CountText.grouped(Int64(count - start))) bytes) were not read",
                rawText: String(decoding: UnsafeBufferPointer(start: base + start, count: shown), as: UTF8.self)))
        return nil
    }

    /// The cut at line `number` (at byte `start`), one line past the `records` limit.
    private func overRecords(_ number: Int, _ start: Int) -> LimitCut {
        LimitCut(
            line: number, limit: "records",
            reason: "the file holds more lines than \(limits.described("records")): line \(number) and the rest of the file "
                + "(\(CountText.grouped(Int64(data.count - start))) bytes) were not read",
            rawText: "")
    }

    /// Bytes of input after which a line batch ends whatever its line count (16 MiB: more than 8,192
    /// verify responses of 2 KB, a few hundred receipts with long purchase histories).
    static let batchBytes = 16 << 20

    /// One non-blank line: its 1-based number and its bytes `start..<end` (a trailing `\r` excluded).
    struct LineRange {
        var number: Int
        var start: Int
        var end: Int
    }

    /// Calls `body` with the file's bytes and batches of at most `batchSize` non-blank line ranges, and
    /// the byte offset just past the batch, without making strings. `body` returns false to stop.
    func forEachLineRangeBatch(
        batchSize: Int, batchBytes: Int = Self.batchBytes,
        _ body: (_ bytes: UnsafePointer<UInt8>, _ lines: [LineRange], _ endOffset: Int) throws -> Bool
    ) rethrows {
        try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) throws -> Void in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            let count = raw.count
            var batch: [LineRange] = []
            batch.reserveCapacity(batchSize)
            var start = 0
            var batchStart = 0
            var number = 0
            var records = 0
            while start < count {
                number += 1
                guard let end = lineEnd(base, count, start, number) else {
                    if !batch.isEmpty { _ = try body(base, batch, start) }
                    return
                }
                var stop = end
                if stop > start && base[stop - 1] == 13 { stop -= 1 }
                var blank = true
                for i in start..<stop where base[i] != 32 && base[i] != 9 {
                    blank = false
                    break
                }
                if !blank {
                    records += 1
                    if records > limits.records {
                        cut.record(overRecords(number, start))
                        if !batch.isEmpty { _ = try body(base, batch, start) }
                        return
                    }
                    batch.append(LineRange(number: number, start: start, end: stop))
                    if batch.count == batchSize || end - batchStart >= batchBytes {
                        if try !body(base, batch, end) { return }
                        batch.removeAll(keepingCapacity: true)
                        batchStart = end
                    }
                }
                start = end + 1
            }
            if !batch.isEmpty { _ = try body(base, batch, count) }
        }
    }

    /// Lines holding bytes that are not UTF-8 (their text has U+FFFD in their place), with the 1-based
    /// column of the first such byte. Lines decoded to text lose that fact: readers that take text
    /// (CSV) ask here.
    func invalidUTF8Lines() -> [Int: Int] {
        var invalid: [Int: Int] = [:]
        forEachLineRangeBatch(batchSize: 65_536) { bytes, lines, _ in
            for line in lines {
                let raw = UnsafeBufferPointer(start: bytes + line.start, count: line.end - line.start)
                if String(validating: raw, as: UTF8.self) == nil { invalid[line.number] = Self.firstInvalidByte(raw) + 1 }
            }
            return true
        }
        return invalid
    }

    /// Index of the first byte that does not start or continue a valid UTF-8 sequence.
    private static func firstInvalidByte(_ raw: UnsafeBufferPointer<UInt8>) -> Int {
        var i = 0
        while i < raw.count {
            let length: Int
            switch raw[i] {
            case 0x00..<0x80: length = 1
            case 0xC2...0xDF: length = 2
            case 0xE0...0xEF: length = 3
            case 0xF0...0xF4: length = 4
            default: return i
            }
            guard i + length <= raw.count,
                String(validating: UnsafeBufferPointer(rebasing: raw[i..<(i + length)]), as: UTF8.self) != nil
            else { return i }
            i += length
        }
        return raw.count
    }

    /// Non-blank lines with their 1-based numbers; at most `limit` when given.
    func lines(limit: Int) -> [(number: Int, text: String)] {
        var head: [(number: Int, text: String)] = []
        forEachLineBatch(batchSize: limit) { lines, _ in
            head = lines
            return false
        }
        return head
    }

    /// Every non-blank line with its 1-based number (files read whole: documents, CSV, receipts).
    func lines() -> [(number: Int, text: String)] {
        var result: [(number: Int, text: String)] = []
        forEachLineBatch(batchSize: 65_536) { lines, _ in
            result += lines
            return true
        }
        return result
    }

    func location(_ line: Int) -> SourceLocation { SourceLocation(file: path, line: line) }
}

/// Where a file's reading stopped at a limit: the first line not read (1-based), the limit's name, and the rejection's
/// reason and raw text (the line's first bytes).
struct LimitCut {
    var line: Int
    var limit: String
    var reason: String
    var rawText: String

    /// The first cut of a file, once an iterator met it (iterators on several threads record the same one).
    final class Holder: @unchecked Sendable {
        private let lock = NSLock()
        private var first: LimitCut?

        var value: LimitCut? { lock.withLock { first } }

        /// Forgets the cut (a file that is not text: it is skipped whole, not cut).
        func clear() { lock.withLock { first = nil } }

        func record(_ cut: LimitCut) { lock.withLock { if first == nil || cut.line < first!.line { first = cut } } }
    }
}
