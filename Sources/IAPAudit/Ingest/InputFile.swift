import Foundation

/// One input file read into memory, with its SHA-256 (the import key: same content, same import).
struct InputFile {
    /// The path as the user gave it (or as found under a given folder).
    let path: String
    let data: Data
    /// Lowercase hex SHA-256 of the content.
    let sha256: String
    /// Size on disk in bytes.
    let bytes: Int

    /// - Parameter data: the file's bytes; the SHA-256 is of these exact bytes. The content read
    ///   is UTF-8: a UTF-8 byte-order mark is dropped and UTF-16 with a byte-order mark is converted.
    init(path: String, data: Data) {
        self.path = path
        self.sha256 = InputFile.sha256Hex(data)
        self.bytes = data.count
        self.data = InputFile.utf8(data)
        mapping = nil
    }

    /// A mapped file: hashed chunk by chunk (unless `sha256` is given), its pages released as they are
    /// hashed and later read.
    init(path: String, mapped: MappedFile, sha256: String? = nil) {
        self.path = path
        self.sha256 = sha256 ?? InputFile.sha256Hex(mapped)
        self.bytes = mapped.count
        self.data = InputFile.utf8(mapped.data)
        mapping = mapped
    }

    /// The SHA-256 of a mapped file's bytes, its pages released as they are hashed.
    static func sha256Hex(_ mapped: MappedFile) -> String { Digest.sha256Hex(mapped.data) { mapped.release(upTo: $0) } }

    /// The mapping behind `data`, when the file was mapped (pages of read batches are released).
    let mapping: MappedFile?

    /// Tells the mapping that bytes before `offset` of `data` are done with (no-op when not mapped or
    /// when `data` is a converted copy).
    func release(upTo offset: Int) {
        guard let mapping, data.count == mapping.count else { return }
        mapping.release(upTo: offset)
    }

    /// The content as UTF-8 without a byte-order mark.
    static func utf8(_ data: Data) -> Data {
        if data.starts(with: [0xEF, 0xBB, 0xBF]) { return Data(data.dropFirst(3)) }
        if data.starts(with: [0xFF, 0xFE]) || data.starts(with: [0xFE, 0xFF]),
            let text = String(data: data, encoding: .utf16)
        {
            return Data(text.utf8)
        }
        return data
    }

    static func sha256Hex(_ data: Data) -> String { Digest.sha256Hex(data) }

    /// Non-blank lines with their 1-based numbers; a trailing `\r` is removed.
    /// Split on bytes: in a Swift `String`, `\r\n` is one character.
    /// Calls `body` with batches of at most `batchSize` non-blank lines (numbers 1-based, a trailing
    /// `\r` removed) and the byte offset just past the batch, without holding the whole file's lines.
    /// `body` returns false to stop.
    func forEachLineBatch(
        batchSize: Int, _ body: (_ lines: [(number: Int, text: String)], _ endOffset: Int) throws -> Bool
    ) rethrows {
        try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) throws -> Void in
            let bytes = raw.bindMemory(to: UInt8.self)
            var batch: [(number: Int, text: String)] = []
            batch.reserveCapacity(batchSize)
            var start = 0
            var number = 0
            while start < bytes.count {
                var end = bytes.count
                if let found = memchr(raw.baseAddress! + start, 10, bytes.count - start) {
                    end = raw.baseAddress!.distance(to: UnsafeRawPointer(found))
                }
                number += 1
                var stop = end
                if stop > start && bytes[stop - 1] == 13 { stop -= 1 }
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<stop])
                if slice.contains(where: { $0 != 32 && $0 != 9 }) {
                    batch.append((number: number, text: String(decoding: slice, as: UTF8.self)))
                    if batch.count == batchSize {
                        if try !body(batch, end) { return }
                        batch.removeAll(keepingCapacity: true)
                    }
                }
                start = end + 1
            }
            if !batch.isEmpty { _ = try body(batch, bytes.count) }
        }
    }

    /// One non-blank line: its 1-based number and its bytes `start..<end` (a trailing `\r` excluded).
    struct LineRange {
        var number: Int
        var start: Int
        var end: Int
    }

    /// Calls `body` with the file's bytes and batches of at most `batchSize` non-blank line ranges, and
    /// the byte offset just past the batch, without making strings. `body` returns false to stop.
    func forEachLineRangeBatch(
        batchSize: Int, _ body: (_ bytes: UnsafePointer<UInt8>, _ lines: [LineRange], _ endOffset: Int) throws -> Bool
    ) rethrows {
        try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) throws -> Void in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            let count = raw.count
            var batch: [LineRange] = []
            batch.reserveCapacity(batchSize)
            var start = 0
            var number = 0
            while start < count {
                var end = count
                if let found = memchr(base + start, 10, count - start) {
                    end = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
                }
                number += 1
                var stop = end
                if stop > start && base[stop - 1] == 13 { stop -= 1 }
                var blank = true
                for i in start..<stop where base[i] != 32 && base[i] != 9 {
                    blank = false
                    break
                }
                if !blank {
                    batch.append(LineRange(number: number, start: start, end: stop))
                    if batch.count == batchSize {
                        if try !body(base, batch, end) { return }
                        batch.removeAll(keepingCapacity: true)
                    }
                }
                start = end + 1
            }
            if !batch.isEmpty { _ = try body(base, batch, count) }
        }
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
