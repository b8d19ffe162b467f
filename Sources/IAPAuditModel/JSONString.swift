/// JSON string literals as the outputs write them (the sample's files, the summaries): `"` and `\` escaped, the
/// control characters as `\b`, `\f`, `\n`, `\r`, `\t` or `\u00xx` (lowercase hex, as Foundation's JSONSerialization
/// writes them); DEL, the C1 controls, the line and paragraph separators and the bidi controls as `\u007f`, `\u0085`,
/// `\u2028`, `\u202e` (`Unicode.Scalar.isUnprintable`: JSON printed on a terminal, or read by JavaScript, would
/// break its line or reorder it there); everything else as it is (`/` and other text beyond ASCII unescaped).
package enum JSONString {
    /// JSON text (Foundation's) with every `Unicode.Scalar.isUnprintable` scalar beyond ASCII `\uxxxx`: such a
    /// scalar can only stand inside a string there.
    package static func unprintableEscaped(_ json: String) -> String {
        guard json.unicodeScalars.contains(where: { $0.value >= 0x7F && $0.isUnprintable }) else { return json }
        var out = ""
        for scalar in json.unicodeScalars {
            if scalar.value >= 0x7F && scalar.isUnprintable {
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    package static func append(_ s: String, to out: inout String) {
        out += "\""
        if !s.utf8.contains(where: {
            $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 == 0x7F || $0 == 0xC2 || $0 == 0xE2
        }) {
            out += s  // nothing to escape: the usual case, appended whole
            out += "\""
            return
        }
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                if scalar.isUnprintable {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
