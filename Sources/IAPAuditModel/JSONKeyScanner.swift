/// Finds the values of `SecretRedaction`'s keys in a text and rewrites them: a secret's value becomes
/// `"[redacted]"`, a receipt's (when `receipts`) its summary. Works on any text, valid JSON or not (a
/// rejected line may be cut or broken): a key is a quoted name followed by `:`, at the document's level
/// (`"password": …`) or JSON escaped inside a JSON string any number of times (`\"password\": …` once,
/// `\\\"password\\\": …` twice). A key's name is compared after JSON unescaping (`p\u0061ssword`), any
/// case. A secret's value of any type but null (a string, a number, a boolean, an object, an array) is
/// replaced whole.
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
            guard bytes[i] == Self.quote else {
                i += 1
                continue
            }
            // The quote's level: 0 at the document's, L inside L strings (2^L - 1 backslashes before it).
            let level = Self.trailingOnes(backslashes(before: i))
            guard level < 8, let (kind, nameEnd) = key(at: i + 1, level: level) else {
                i += 1
                continue
            }
            var j = skipSpace(nameEnd + 1)
            guard j < n, bytes[j] == Self.colon else {
                i += 1
                continue
            }
            j = skipSpace(j + 1)
            let escapes = (1 << level) - 1
            let quoted = String(repeating: "\\", count: escapes) + "\""
            if opensString(at: j, escapes: escapes) {
                let start = j + escapes + 1
                let (end, next) = stringEnd(from: start, level: level)
                switch kind {
                case .secret: replace(start..<end, with: SecretRedaction.placeholder)
                case .receipt:
                    let part = cut && end == n
                    if receipts, let summary = SecretRedaction.receiptSummary(bytes[start..<end], cut: part) {
                        replace(start..<end, with: summary)
                    }
                }
                i = max(next, i + 1)
            } else if kind == .secret, j < n, bytes[j] == UInt8(ascii: "{") || bytes[j] == UInt8(ascii: "[") {
                // An object or an array where the secret should be: replaced whole (it may hold the secret).
                let end = compositeEnd(from: j, level: level)
                replace(j..<end, with: quoted + SecretRedaction.placeholder + quoted)
                i = max(end, j + 1)
            } else if kind == .secret, j < n, bytes[j] != UInt8(ascii: "n") {
                // A number or a boolean where the secret should be: it is replaced too (as a string).
                var end = j
                while end < n, !",}] \t\r\n\\\"".utf8.contains(bytes[end]) { end += 1 }
                if end > j { replace(j..<end, with: quoted + SecretRedaction.placeholder + quoted) }
                i = max(end, j + 1)
            } else {
                i = max(j, i + 1)
            }
        }
        guard var result = out else { return nil }
        result.append(contentsOf: bytes[copied..<n])
        return result
    }

    /// How many backslashes stand right before `index`.
    private func backslashes(before index: Int) -> Int {
        var k = index
        while k > 0, bytes[k - 1] == Self.backslash { k -= 1 }
        return index - k
    }

    /// The number of low one bits of `run`: a quote after `run` backslashes is the quote of a string
    /// escaped that many times (0: `"`, 1: `\"`, 2: `\\\"`; `\\"` is an escaped backslash and a quote: 0).
    private static func trailingOnes(_ run: Int) -> Int { (~run).trailingZeroBitCount }

    /// Whether a string escaped to this level opens at `j` (`escapes` backslashes, then a quote).
    private func opensString(at j: Int, escapes: Int) -> Bool {
        guard j + escapes < bytes.count, bytes[j + escapes] == Self.quote else { return false }
        for k in j..<(j + escapes) where bytes[k] != Self.backslash { return false }
        return true
    }

    /// The key (one of `SecretRedaction`'s, any case, after JSON unescaping) whose name starts at `start`
    /// inside a quote of `level`, and the index of its closing quote.
    private func key(at start: Int, level: Int) -> (Kind, Int)? {
        guard start < bytes.count else { return nil }
        let first = bytes[start] | 0x20
        guard
            first == UInt8(ascii: "p") || first == UInt8(ascii: "s") || first == UInt8(ascii: "l") || first == UInt8(ascii: "r")
                || first == UInt8(ascii: "t") || bytes[start] == Self.backslash
        else { return nil }
        // The name runs to the next quote (a secret's name holds none), at most 160 bytes (escapes included).
        var close = start
        while close < bytes.count, bytes[close] != Self.quote {
            guard close - start < 160 else { return nil }
            close += 1
        }
        guard close < bytes.count else { return nil }
        let escapes = (1 << level) - 1
        guard backslashes(before: close) == escapes, close - escapes > start else { return nil }
        let end = close - escapes
        // The common case, a name without escapes, compared in place (no copy: this runs on every key of a document).
        if !bytes[start..<end].contains(Self.backslash) {
            func named(_ key: [UInt8]) -> Bool {
                guard key.count == end - start else { return false }
                for k in 0..<key.count where bytes[start + k] | (bytes[start + k] >= 65 && bytes[start + k] <= 90 ? 0x20 : 0) != key[k] {
                    return false
                }
                return true
            }
            if SecretRedaction.secretKeys.contains(where: named) { return (.secret, close) }
            if SecretRedaction.receiptKeys.contains(where: named) { return (.receipt, close) }
            return nil
        }
        guard let name = SecretRedaction.unescapedName(bytes[start..<end]) else { return nil }
        if SecretRedaction.secretKeys.contains(name) { return (.secret, close) }
        if SecretRedaction.receiptKeys.contains(name) { return (.receipt, close) }
        return nil
    }

    private func skipSpace(_ from: Int) -> Int {
        var j = from
        while j < bytes.count, bytes[j] == 0x20 || bytes[j] == 0x09 || bytes[j] == 0x0A || bytes[j] == 0x0D { j += 1 }
        return j
    }

    /// Where a string's content that starts at `start`, escaped to `level`, ends, and the index after its
    /// closing quote: a quote after exactly `level` low one bits of backslashes (level 0: an even number;
    /// level 1: 1, 5, 9…: `\"` closes, `\\\"` is a quote inside), or one of a lower level (the text around
    /// it ends there). An unterminated string runs to the end of the text.
    private func stringEnd(from start: Int, level: Int) -> (end: Int, next: Int) {
        var k = start
        while k < bytes.count {
            if bytes[k] == Self.quote {
                let run = backslashes(before: k)
                let ones = Self.trailingOnes(run)
                if ones <= level { return (max(start, k - ((1 << ones) - 1)), k + 1) }
            }
            k += 1
        }
        return (bytes.count, bytes.count)
    }

    /// The index after the object or array escaped to `level` that opens at `from`: its brackets counted
    /// outside its strings; it ends early where a quote of a lower level closes the text around it, and an
    /// unbalanced one runs to the end of the text.
    private func compositeEnd(from: Int, level: Int) -> Int {
        var depth = 0
        var inString = false
        var k = from
        while k < bytes.count {
            let c = bytes[k]
            if c == Self.quote {
                let ones = Self.trailingOnes(backslashes(before: k))
                if ones < level { return k - ((1 << ones) - 1) }
                if ones == level { inString.toggle() }
            } else if !inString {
                if c == UInt8(ascii: "{") || c == UInt8(ascii: "[") {
                    depth += 1
                } else if c == UInt8(ascii: "}") || c == UInt8(ascii: "]") {
                    depth -= 1
                    if depth == 0 { return k + 1 }
                }
            }
            k += 1
        }
        return bytes.count
    }
}
