/// Finds the values of `SecretRedaction`'s keys in a text and rewrites them: a secret's value becomes
/// `"[redacted]"`, a receipt's (when `receipts`) its summary. Works on any text, valid JSON or not (a
/// rejected line may be cut or broken): a key is a quoted name followed by `:`, at the document's level
/// (`"password": …`) or escaped once inside a JSON string (`\"password\": …`).
struct JSONKeyScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    let receipts: Bool
    /// The text ends where a rejected line was cut: a receipt string it ends in (unterminated) is a part.
    var cut = false

    private static let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\"), colon = UInt8(ascii: ":")

    private enum Kind { case secret, receipt }

    /// The rewritten bytes, or nil when nothing was rewritten.
    func rewritten() -> [UInt8]? {
        var out: [UInt8]? = nil
        var copied = 0
        func replace(_ range: Range<Int>, with text: String) {
            if out == nil { out = [UInt8](); out!.reserveCapacity(bytes.count) }
            out!.append(contentsOf: bytes[copied..<range.lowerBound])
            out!.append(contentsOf: text.utf8)
            copied = range.upperBound
        }
        let n = bytes.count
        var i = 0
        while i < n {
            guard bytes[i] == Self.quote, let found = key(at: i + 1) else {
                i += 1
                continue
            }
            let (kind, nameEnd) = found
            let escaped = i > 0 && bytes[i - 1] == Self.backslash
            var j = nameEnd
            if escaped {
                guard j + 1 < n, bytes[j] == Self.backslash, bytes[j + 1] == Self.quote else { i += 1; continue }
                j += 2
            } else {
                guard j < n, bytes[j] == Self.quote else { i += 1; continue }
                j += 1
            }
            j = skipSpace(j)
            guard j < n, bytes[j] == Self.colon else { i += 1; continue }
            j = skipSpace(j + 1)
            let opens = escaped ? j + 1 < n && bytes[j] == Self.backslash && bytes[j + 1] == Self.quote : j < n && bytes[j] == Self.quote
            if opens {
                let start = j + (escaped ? 2 : 1)
                let (end, next) = stringEnd(from: start, escaped: escaped)
                switch kind {
                case .secret: replace(start..<end, with: SecretRedaction.placeholder)
                case .receipt:
                    let part = cut && end == n
                    if receipts, let summary = SecretRedaction.receiptSummary(bytes[start..<end], cut: part) {
                        replace(start..<end, with: summary)
                    }
                }
                i = next
            } else if kind == .secret, j < n, ![UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "n")].contains(bytes[j]) {
                // A number or a boolean where the secret should be: it is replaced too (as a string).
                var end = j
                while end < n, !",}] \t\r\n\\".utf8.contains(bytes[end]) { end += 1 }
                let q = escaped ? "\\\"" : "\""
                if end > j { replace(j..<end, with: q + SecretRedaction.placeholder + q) }
                i = max(end, j + 1)
            } else {
                i = j
            }
        }
        guard var result = out else { return nil }
        result.append(contentsOf: bytes[copied..<n])
        return result
    }

    /// The key (one of `SecretRedaction`'s, any case) whose name starts at `start`, and where it ends.
    private func key(at start: Int) -> (Kind, Int)? {
        guard start < bytes.count else { return nil }
        let first = bytes[start] | 0x20
        guard
            first == UInt8(ascii: "p") || first == UInt8(ascii: "s") || first == UInt8(ascii: "l") || first == UInt8(ascii: "r")
                || first == UInt8(ascii: "t")
        else { return nil }
        for (keys, kind) in [(SecretRedaction.secretKeys, Kind.secret), (SecretRedaction.receiptKeys, .receipt)] {
            for name in keys where start + name.count <= bytes.count {
                var same = true
                for (k, c) in name.enumerated() where bytes[start + k] | (bytes[start + k] >= 65 && bytes[start + k] <= 90 ? 0x20 : 0) != c
                {
                    same = false
                    break
                }
                let end = start + name.count
                if same && end < bytes.count && (bytes[end] == Self.quote || bytes[end] == Self.backslash) { return (kind, end) }
            }
        }
        return nil
    }

    private func skipSpace(_ from: Int) -> Int {
        var j = from
        while j < bytes.count, bytes[j] == 0x20 || bytes[j] == 0x09 || bytes[j] == 0x0A || bytes[j] == 0x0D { j += 1 }
        return j
    }

    /// Where a string's content that starts at `start` ends, and the index after its closing quote: at the
    /// document's level a quote after an even number of backslashes; escaped once, a quote after 1, 5, 9…
    /// (`\"` closes; `\\\"` is a quote inside). An unterminated string runs to the end of the text.
    private func stringEnd(from start: Int, escaped: Bool) -> (end: Int, next: Int) {
        var k = start
        while k < bytes.count {
            if bytes[k] == Self.quote {
                var slashes = 0
                while k - slashes - 1 >= start, bytes[k - slashes - 1] == Self.backslash { slashes += 1 }
                if escaped ? slashes % 4 == 1 : slashes % 2 == 0 { return (escaped ? k - 1 : k, k + 1) }
            }
            k += 1
        }
        return (bytes.count, bytes.count)
    }
}
