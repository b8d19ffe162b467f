/// Replaces user and device ids with keyed tokens (`--redact`, README "Redaction"): the same id and the same
/// key always give the same token, so rows about one user still join; without the key a token names nobody.
///
/// A token is a prefix and the first 16 hex digits (64 bits) of HMAC-SHA256(key, role ":" id):
/// ```
/// user id, app account token   u_3f2a9c0d41b7e815   HMAC(key, "user:" + id)
/// device id                    d_7c01e4b9a2f36d50   HMAC(key, "device:" + id)
/// an id trace found nothing of x_0b5e61c2d9a4f713   HMAC(key, "id:" + id)
/// key fingerprint              k_91d0…              HMAC(key, "iap-audit key fingerprint")
/// ```
/// 64 bits are enough for joins: among n ids two share a token with probability about n² / 2⁶⁵ (5 million
/// ids: 7 in 10 million), and a token cannot be turned back into its id without the key. The role in the
/// message keeps a user id and an equal device id apart. The fingerprint names the key (to refuse a ledger
/// redacted with another one) and reveals nothing of it.
///
/// The MAC is given by the caller (`IAPAuditCrypto.HMACSHA256` through OpenSSL): Model depends on nothing.
/// `trace` (another command) prints its rows through `user(_:)` and `device(_:)` too.
public struct IdRedactor: Sendable {
    /// HMAC-SHA256 under the key of a message's bytes (32 bytes).
    private let mac: @Sendable ([UInt8]) -> [UInt8]
    /// Hex digits of the MAC a token keeps.
    public static let tokenHexDigits = 16
    /// What a token looks like: `u_` or `d_` and 16 lowercase hex digits.
    public static let tokenPattern = #"^[ud]_[0-9a-f]{16}$"#

    public init(mac: @escaping @Sendable ([UInt8]) -> [UInt8]) { self.mac = mac }

    /// The token of a user id (an app account token is a user id too): `u_` + 16 hex digits.
    public func user(_ id: String) -> String { token("u_", "user:", id) }

    /// The token of a device id: `d_` + 16 hex digits.
    public func device(_ id: String) -> String { token("d_", "device:", id) }

    /// The token of an id `trace` was given and found nothing of (it may be a user's id all the same: in another
    /// case, in a rejected line): `x_` + 16 hex digits. Not traceable (it stands for no record).
    public func given(_ id: String) -> String { token("x_", "id:", id) }

    /// The key's fingerprint, `k_` + 16 hex digits: stored with a redacted ledger to refuse another key.
    public var fingerprint: String { "k_" + Self.hex(mac(Array("iap-audit key fingerprint".utf8)).prefix(Self.tokenHexDigits / 2)) }

    /// Whether `text` has a token's form (`u_` or `d_` and 16 lowercase hex digits).
    public static func isToken(_ text: String) -> Bool {
        let u = Array(text.utf8)
        guard u.count == 2 + tokenHexDigits, u[0] == UInt8(ascii: "u") || u[0] == UInt8(ascii: "d"), u[1] == UInt8(ascii: "_") else {
            return false
        }
        return u.dropFirst(2).allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
    }

    private func token(_ prefix: String, _ role: String, _ id: String) -> String {
        prefix + Self.hex(mac(Array((role + id).utf8)).prefix(Self.tokenHexDigits / 2))
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for b in bytes { out += [digits[Int(b >> 4)], digits[Int(b & 15)]] }
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: What the outputs show

    /// A finding as a redacted output shows it: its users as tokens, in its facts too, and its sentence made
    /// again from them. A finding without facts (a reason this version does not declare) has its `userIds` replaced in
    /// its text.
    public func finding(_ f: Finding) -> Finding {
        var f = f
        if f.cause == nil || f.facts.isEmpty {
            f.detail = Self.replacingWords(in: f.detail, f.userIds.filter { !$0.isEmpty }.map { ($0, user($0)) })
        } else {
            f.facts.mapUsers(user)
            f.detail = FindingSentence.text(f)
        }
        f.userIds = f.userIds.map(user)
        return f
    }

    /// A config as a redacted output (or ledger) holds it: the sandbox allowlist's users as tokens.
    public func config(_ config: AuditConfig) -> AuditConfig {
        var config = config
        config.sandboxAllowlist = Set(config.sandboxAllowlist.map(user))
        return config
    }

    /// A rejected line's text as a redacted output shows it: not at all. The line could not be read, so where
    /// its ids are is not known (a CSV line, a cut or broken JSON line, an id under a misspelled key); its
    /// reason and `file:line` say what and where.
    public static func rawText(_ text: String, at location: SourceLocation) -> String {
        "[not shown: redacted (\(text.count) characters); the line is at \(location)]"
    }

    /// A rejection's reason as a redacted output shows it: every value it quotes is `[redacted]`, of any field — the
    /// line could not be read, so a quoted value may be an id out of its place (a CSV line whose columns shifted puts
    /// a user id under `ts`): `field 'ts': not a timestamp: [redacted] (expected …)`. An id field's value is
    /// `[redacted]` also unquoted (`found 12.5`); so is the id a `credited_quantity` key names. Reasons quoting
    /// nothing (`invalid JSON: expected ':' at line 1, column 231`) are kept.
    public static func reason(_ reason: String) -> String { valuesRedacted(idFieldRedacted(reason)) }

    /// `text` with what a value leaves behind redacted too (found by a privacy user test: a numeric user id shifted under
    /// `ts` was shown as `epoch milliseconds 1790812920 would be 1970-01-21T17:26:52.920Z`): every word holding a run of
    /// five digits or more, or a timestamp (`T` and `:` among digits), is `[redacted]` (its brackets and punctuation
    /// kept), and a list of object keys, `(keys: a, b)`, is `(keys: [redacted])`. Short numbers (a line, a column, a
    /// count, a year range) stay.
    public static func valuesRedacted(_ text: String) -> String {
        let text = keysRedacted(text)
        let words = text.split(separator: " ", omittingEmptySubsequences: false).map { word -> String in
            var run = 0
            var longest = 0
            for c in word.unicodeScalars {
                run = ("0"..."9").contains(c) ? run + 1 : 0
                longest = max(longest, run)
            }
            let digits = word.unicodeScalars.filter { ("0"..."9").contains($0) }.count
            let timestamp = digits >= 6 && word.contains("T") && word.contains(":")
            guard longest >= 5 || timestamp else { return String(word) }
            let lead = word.prefix { "([\"'".contains($0) }
            let trail = word.reversed().prefix { ")]:,;.\"'".contains($0) }
            return lead + "[redacted]" + String(trail.reversed())
        }
        return words.joined(separator: " ")
    }

    /// An Apple record's `notes` (a JSON array of texts, table `apple_record`) as a redacted output or ledger holds them:
    /// each as `reason(_:)` shows a rejection's (found by a privacy retest: `not a compact JWS ("renewal-u42")`).
    public static func notes(_ notes: String) -> String {
        guard notes != "[]" else { return notes }
        let list = IdList.decode(notes)
        return list.isEmpty ? reason(notes) : IdList.encode(list.map(reason))
    }

    /// A reason of the price list (`field 'price': not a decimal amount: 'u42'`) with the value it quotes in single quotes
    /// after the field's name as `[redacted]`.
    public static func singleQuotedRedacted(_ reason: String) -> String {
        guard reason.hasPrefix("field '"), let close = reason.dropFirst(7).firstIndex(of: "'") else { return reason }
        let rest = reason[reason.index(after: close)...]
        guard let first = rest.firstIndex(of: "'"), let last = rest.lastIndex(of: "'"), first < last else { return reason }
        return String(reason[..<first]) + "[redacted]" + rest[rest.index(after: last)...]
    }

    /// `text` with a list of object keys it gives, `(keys: a, b)`, as `(keys: [redacted])`: a key may be an id (a map
    /// of users). Also a skipped file's note (`JSON object of an unrecognized shape (keys: …)`).
    public static func keysRedacted(_ text: String) -> String {
        guard let keys = text.range(of: "(keys: "), let end = text[keys.upperBound...].firstIndex(of: ")") else { return text }
        return String(text[..<keys.upperBound]) + "[redacted]" + text[end...]
    }

    private static func idFieldRedacted(_ reason: String) -> String {
        guard reason.hasPrefix("field '"), let close = reason.dropFirst(7).firstIndex(of: "'") else { return quotedRedacted(reason) }
        let name = reason[reason.index(reason.startIndex, offsetBy: 7)..<close]
        let last = name.split(separator: ".").last.map(String.init) ?? String(name)
        let normalized = last.lowercased().filter { $0 != "_" && $0 != "-" }
        guard Self.idKeys.contains(normalized) else { return quotedRedacted(reason) }
        let head = String(reason[...close]) + ": "
        let rest = reason.dropFirst(head.count)
        for phrase in [" looks like an id", " has white space", " is not a list of ids"] {
            if let r = rest.range(of: phrase) { return head + "[redacted]" + rest[r.lowerBound...] }
        }
        if let found = rest.range(of: "found "), rest[found.upperBound...].first.map({ $0.isNumber || $0 == "-" || $0 == "\"" }) == true {
            return head + rest[..<found.upperBound] + "[redacted]"
        }
        return rest.contains("\"") ? head + "[redacted]" : reason
    }

    /// `reason` with what it quotes, from its first `"` to its last (a value may hold a `"` of its own), as
    /// `[redacted]` (all after a lone `"`: a value cut short), and the id after `: names ` up to `, which `.
    static func quotedRedacted(_ reason: String) -> String {
        var text = reason
        if let names = text.range(of: ": names "), let which = text[names.upperBound...].range(of: ", which ") {
            text = String(text[..<names.upperBound]) + "[redacted]" + text[which.lowerBound...]
        }
        guard let first = text.firstIndex(of: "\""), let last = text.lastIndex(of: "\"") else { return text }
        return String(text[..<first]) + "[redacted]" + (first == last ? "" : text[text.index(after: last)...])
    }

    /// Id fields, lowercase without `_` and `-`: whose value a rejection reason shows redacted even unquoted.
    static let idKeys: Set<String> = ["userid", "deviceid", "appaccounttoken"]

    /// `text` with each whole-word occurrence of a name (bounded by the text's ends, white space, `,`, `;`,
    /// `(`, `)` or `:`) replaced by its token; longer names first.
    static func replacingWords(in text: String, _ pairs: [(String, String)]) -> String {
        guard !pairs.isEmpty else { return text }
        let boundary: Set<Character> = [" ", ",", ";", "(", ")", ":", "\n", "\t"]
        var result = text
        for (name, token) in pairs.sorted(by: { $0.0.count > $1.0.count }) {
            var out = ""
            var rest = Substring(result)
            while let r = rest.range(of: name) {
                let before = r.lowerBound == rest.startIndex ? (out.last ?? " ") : rest[rest.index(before: r.lowerBound)]
                let after = r.upperBound == rest.endIndex ? " " : rest[r.upperBound]
                out += rest[..<r.lowerBound]
                out += boundary.contains(before) && boundary.contains(after) ? token : name
                rest = rest[r.upperBound...]
            }
            result = out + rest
        }
        return result
    }
}
