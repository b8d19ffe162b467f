import COpenSSL
import Foundation

/// One input file read into memory, with its SHA-256 (the import key: same content, same import).
struct InputFile {
    /// The path as the user gave it (or as found under a given folder).
    let path: String
    let data: Data
    /// Lowercase hex SHA-256 of the content.
    let sha256: String

    init(path: String, data: Data) {
        self.path = path
        self.data = data
        self.sha256 = InputFile.sha256Hex(data)
    }

    static func sha256Hex(_ data: Data) -> String {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        data.withUnsafeBytes { raw in
            _ = SHA256(raw.bindMemory(to: UInt8.self).baseAddress, raw.count, &digest)
        }
        return digest.map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// Non-blank lines with their 1-based numbers; a trailing `\r` is removed.
    /// Split on bytes: in a Swift `String`, `\r\n` is one character.
    func lines() -> [(number: Int, text: String)] {
        var result: [(Int, String)] = []
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            let bytes = raw.bindMemory(to: UInt8.self)
            var start = 0
            var number = 0
            while start <= bytes.count {
                var end = start
                while end < bytes.count && bytes[end] != 10 { end += 1 }
                number += 1
                var stop = end
                if stop > start && bytes[stop - 1] == 13 { stop -= 1 }
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<stop])
                if slice.contains(where: { $0 != 32 && $0 != 9 }) {
                    result.append((number, String(decoding: slice, as: UTF8.self)))
                }
                if end == bytes.count { break }
                start = end + 1
            }
        }
        return result
    }

    func location(_ line: Int) -> SourceLocation { SourceLocation(file: path, line: line) }
}
