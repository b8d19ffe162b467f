/// JSON string literals as the outputs write them (the sample's files, the summaries): `"` and `\` escaped, the
/// control characters as `\b`, `\f`, `\n`, `\r`, `\t` or `\u00xx` (lowercase hex, as Foundation's JSONSerialization
/// writes them), everything else as it is (`/` and text beyond ASCII unescaped).
package enum JSONString {
    package static func append(_ s: String, to out: inout String) {
        out += "\""
        if !s.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
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
                if scalar.value < 0x20 {
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
