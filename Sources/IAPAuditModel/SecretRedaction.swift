/// Keeps the app's shared secret out of everything iap-audit stores and shows, and receipts out of the
/// workbook: the one place raw input text is cleaned before it is kept or rendered.
///
/// - The shared secret: the value of every JSON key spelled `password`, `shared_secret`, `sharedSecret`
///   or `shared-secret` (any case, compared after JSON unescaping: `p\u0061ssword`) becomes `"[redacted]"`,
///   whatever its type (a string, a number, a boolean, an object or an array; null is kept), in a document
///   and in JSON escaped inside a JSON string, once or more (`{\"password\":\"…\"}`). Notification V1
///   bodies and verifyReceipt request echoes carry it. The same in a quoted CSV field (its quotes doubled), and
///   the value of a form field of such a name (`password=…&receipt-data=…`: `SecretRedaction+Text`). A CSV
///   column of such a name: `CSVSecrets` (Ingest). A `Rejection`'s reason and raw text are redacted as it is made.
/// - Receipts (`latest_receipt`, `latest_expired_receipt`, `receipt-data`, `receipt_data`, `receipt`,
///   `transactionReceipt`, Unity's `Payload`; a text that is all base64): kept in the database, but a
///   sheet shows `[receipt: N bytes of base64, SHA-256 <hex>]` in their place (the hash of the base64
///   text, line breaks and JSON escapes left out). A receipt that runs into the cut of a rejected line
///   (`Rejection.cutNote`) is only a part of one: `[receipt: at least N characters of base64, cut with
///   the line (no SHA-256 of a part)]`.
public enum SecretRedaction {
    /// What a secret's value becomes.
    public static let placeholder = "[redacted]"
    /// Keys whose value is the shared secret, lowercase (compared case-insensitively).
    static let secretKeys: [[UInt8]] = ["password", "shared_secret", "sharedsecret", "shared-secret"].map { Array($0.utf8) }
    /// Keys whose string value is a receipt's base64, lowercase.
    static let receiptKeys: [[UInt8]] = [
        "latest_receipt", "latest_expired_receipt", "receipt-data", "receipt_data", "receiptdata", "receipt", "transactionreceipt",
        "payload",
    ].map { Array($0.utf8) }
    /// Whether a key or a column named `name` holds the shared secret (any case, after JSON unescaping).
    package static func isSecretName(_ name: String) -> Bool {
        guard let unescaped = unescapedName(Array(name.utf8)) else { return false }
        return secretKeys.contains(unescaped)
    }

    /// A key's name JSON unescaped (`\u0061` → `a`; a run of backslashes before an escape counts as one, so a
    /// name escaped twice decodes too; a `\u005C` unescaped again, up to 4 times) and in lower case; nil when
    /// it is longer than any key's (32 bytes).
    static func unescapedName(_ raw: some Collection<UInt8>) -> [UInt8]? {
        let backslash = UInt8(ascii: "\\")
        var name = Array(raw)
        for _ in 0..<4 {
            guard name.contains(backslash) else { break }
            var decoded: [UInt8] = []
            var k = 0
            while k < name.count {
                guard name[k] == backslash else {
                    decoded.append(name[k])
                    k += 1
                    continue
                }
                while k < name.count, name[k] == backslash { k += 1 }
                guard k < name.count else { return nil }
                if name[k] == UInt8(ascii: "u"), k + 5 <= name.count,
                    let value = UInt8(String(decoding: name[(k + 1)..<(k + 5)], as: UTF8.self), radix: 16)
                {
                    decoded.append(value)
                    k += 5
                } else {
                    decoded.append(name[k])
                    k += 1
                }
            }
            name = decoded
        }
        guard name.count <= 32 else { return nil }
        return name.map { $0 >= 65 && $0 <= 90 ? $0 | 0x20 : $0 }
    }

    /// A text of base64 alone counts as a receipt from this many characters (shorter: an id, a word).
    static let shortestReceiptText = 64

    /// `text` as the store keeps it (`apple_record.raw_json`, `rejection.raw_text`): every secret redacted.
    public static func stored(_ text: String) -> String { rewritten(text, receipts: false) }

    /// `text` as a sheet shows it: every secret redacted and every receipt summarized.
    public static func shown(_ text: String) -> String { rewritten(text, receipts: true) }

    /// The bytes of a text as the store keeps them: nil when they hold no secret (nothing to copy).
    package static func stored(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        secretsRewritten(bytes, receipts: false, cut: false).map { String(decoding: $0, as: UTF8.self) }
    }

    /// `[receipt: N bytes of base64, SHA-256 <hex>]`, or nil when `content` (a JSON string's content, or a
    /// line) is not base64 of at least `shortest` characters. `\/`, `\n`, `\r` escapes and white space are
    /// left out of the count and the hash. `cut`: `content` ends where a rejected line was cut, so it is a
    /// receipt's first part: its size is a lower bound and its hash would name no receipt (none is given).
    static func receiptSummary(_ content: some Collection<UInt8>, shortest: Int = 8, cut: Bool = false) -> String? {
        var base64: [UInt8] = []
        var afterBackslash = false
        for c in content {
            if afterBackslash {
                afterBackslash = false
                if c == UInt8(ascii: "n") || c == UInt8(ascii: "r") || c == UInt8(ascii: "t") || c == UInt8(ascii: "\\") { continue }
            }
            switch c {
            case UInt8(ascii: "\\"): afterBackslash = true
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): continue
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="):
                base64.append(c)
            default: return nil
            }
        }
        guard base64.count >= shortest else { return nil }
        if cut {
            return
                "[receipt: at least \(CountText.grouped(Int64(base64.count))) characters of base64, cut with the line (no SHA-256 of a part)]"
        }
        return "[receipt: \(CountText.grouped(Int64(base64.count))) bytes of base64, SHA-256 \(SwiftSHA256.hex(base64))]"
    }

    /// The text with its cut note (` … [cut: …]`, added when a rejected line was shortened) set aside, so an
    /// unterminated value is redacted up to the note and not through it.
    private static func rewritten(_ text: String, receipts: Bool) -> String {
        var body = Substring(text)
        var note = Substring("")
        if text.hasSuffix("; the whole line is at its file:line]"), let cut = text.range(of: " … [cut: ", options: .backwards) {
            (body, note) = (text[..<cut.lowerBound], text[cut.lowerBound...])
        }
        if receipts {
            // A text cut ends inside the receipt (its closing quote, if any, was cut off).
            var inner = body.trimmingWhiteSpace
            if inner.first == "\"" {
                if !note.isEmpty {
                    inner = inner.dropFirst()
                } else if inner.count >= 2 && inner.last == "\"" {
                    inner = inner.dropFirst().dropLast()
                }
            }
            if let summary = receiptSummary(inner.utf8, shortest: shortestReceiptText, cut: !note.isEmpty) { return summary + note }
        }
        var utf8 = Array(body.utf8)
        let result = utf8.withUnsafeMutableBufferPointer {
            secretsRewritten(UnsafeBufferPointer($0), receipts: receipts, cut: !note.isEmpty)
        }
        if let result { utf8 = result } else if note.isEmpty { return text }
        return String(decoding: utf8, as: UTF8.self) + note
    }
}

extension Substring {
    /// Without white space (spaces, tabs, line breaks) at either end.
    fileprivate var trimmingWhiteSpace: Substring {
        var s = self
        while let c = s.first, c.isWhitespace { s = s.dropFirst() }
        while let c = s.last, c.isWhitespace { s = s.dropLast() }
        return s
    }
}
