/// The shared secret in text that is not JSON at its level: a CSV field quoted with doubled quotes
/// (`"{""password"":""…""}"`, a request body in a CSV column) and a form-encoded body (`password=…&receipt-data=…`,
/// the legacy verifyReceipt POST form). `SecretRedaction.rewritten` runs these after `JSONKeyScanner`.
extension SecretRedaction {
    private static let quote = UInt8(ascii: "\""), comma = UInt8(ascii: ","), equals = UInt8(ascii: "=")

    /// `text` with every quoted CSV field that holds a doubled quote rewritten as its unquoted content is
    /// (`rewrite`: the JSON scanner and the form fields) and quoted again; nil when none changed. A field is
    /// quoted when a quote opens it (at the text's start, after a comma or a line break); an unterminated one
    /// runs to the end of the text (a cut line). Text that is no CSV row loses nothing: only secrets change.
    static func csvFieldsRewritten(_ text: UnsafeBufferPointer<UInt8>, _ rewrite: ([UInt8]) -> [UInt8]?) -> [UInt8]? {
        var out: [UInt8]? = nil
        var copied = 0
        let n = text.count
        var i = 0
        var fieldStart = true
        while i < n {
            let c = text[i]
            guard fieldStart, c == quote else {
                fieldStart = c == comma || c == 0x0A || c == 0x0D
                i += 1
                continue
            }
            // A quoted field: its content runs to a quote not doubled.
            var doubled = false
            var j = i + 1
            while j < n {
                if text[j] == quote {
                    guard j + 1 < n, text[j + 1] == quote else { break }
                    doubled = true
                    j += 2
                } else {
                    j += 1
                }
            }
            let closed = j < n
            let end = closed ? j + 1 : n
            if doubled, let rewritten = rewrite(unquoted(text[(i + 1)..<j])) {
                if out == nil { out = [] }
                out!.append(contentsOf: text[copied..<i])
                out!.append(quote)
                for b in rewritten {
                    out!.append(b)
                    if b == quote { out!.append(quote) }
                }
                if closed { out!.append(quote) }
                copied = end
            }
            i = end
            fieldStart = false
        }
        guard var result = out else { return nil }
        result.append(contentsOf: text[copied..<n])
        return result
    }

    /// A quoted CSV field's content without its doubled quotes.
    private static func unquoted(_ field: Slice<UnsafeBufferPointer<UInt8>>) -> [UInt8] {
        var content: [UInt8] = []
        content.reserveCapacity(field.count)
        var afterQuote = false
        for b in field {
            if b == quote && afterQuote {
                afterQuote = false
                continue
            }
            afterQuote = b == quote
            content.append(b)
        }
        return content
    }

    /// `text` with the value of every form field named as a secret (`password=…`, `shared_secret=…`, any case:
    /// `secretKeys`) `[redacted]`; nil when there is none. A field's name starts the text or follows a byte
    /// that is no part of a name (`&`, `?`, a quote, white space…); its value runs to `&`, a quote, a
    /// backslash (an escaped quote), white space or the end of the text.
    static func formFieldsRewritten(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var out: [UInt8]? = nil
        var copied = 0
        let n = text.count
        func isNameByte(_ b: UInt8) -> Bool {
            (b | 0x20 >= UInt8(ascii: "a") && b | 0x20 <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9"))
                || b == UInt8(ascii: "_") || b == UInt8(ascii: "-") || b == UInt8(ascii: ".") || b == UInt8(ascii: "%")
        }
        func endsValue(_ b: UInt8) -> Bool {
            b == UInt8(ascii: "&") || b == quote || b == UInt8(ascii: "\\") || b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D
        }
        var i = 0
        while i < n {
            guard text[i] == equals, i > 0 else {
                i += 1
                continue
            }
            // The name, read back from `=`: at most as long as the longest secret name.
            var start = i
            while start > 0, i - start <= 13, isNameByte(text[start - 1]) { start -= 1 }
            let name = text[start..<i].map { $0 >= 65 && $0 <= 90 ? $0 | 0x20 : $0 }
            guard secretKeys.contains(name) else {
                i += 1
                continue
            }
            var end = i + 1
            while end < n, !endsValue(text[end]) { end += 1 }
            if end > i + 1, !text[(i + 1)..<end].elementsEqual(placeholder.utf8) {
                if out == nil { out = [] }
                out!.append(contentsOf: text[copied..<(i + 1)])
                out!.append(contentsOf: placeholder.utf8)
                copied = end
            }
            i = end
        }
        guard var result = out else { return nil }
        result.append(contentsOf: text[copied..<n])
        return result
    }

    /// `text` with its secrets redacted and, when `receipts`, its receipts summarized, by `JSONKeyScanner` then as
    /// form fields and in quoted CSV fields; nil when nothing changed.
    static func secretsRewritten(_ text: UnsafeBufferPointer<UInt8>, receipts: Bool, cut: Bool) -> [UInt8]? {
        func pass(_ text: UnsafeBufferPointer<UInt8>, cut: Bool) -> [UInt8]? {
            guard let json = JSONKeyScanner(bytes: text, receipts: receipts, cut: cut).rewritten() else { return formFieldsRewritten(text) }
            return json.withUnsafeBufferPointer { formFieldsRewritten($0) } ?? json
        }
        let first = pass(text, cut: cut)
        func csv(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
            csvFieldsRewritten(text) { field in field.withUnsafeBufferPointer { pass($0, cut: false) } }
        }
        guard let first else { return csv(text) }
        return first.withUnsafeBufferPointer(csv) ?? first
    }
}
