import Foundation
import IAPAuditCrypto

/// The name `trace --format xlsx` gives its workbook, `trace-<name>.xlsx` (docs/trace.md, Outputs): the id
/// with its letters and digits (any script's), `.`, `-` and `_` kept, any other character `_`, a leading `.`
/// `_`, at most 100 bytes of it; when that changed the id at all, `-` and the first 8 hex digits of the
/// SHA-256 of the id's exact text follow, so that two ids never share a workbook (`" u251"` and `"_u251"`).
enum TraceWorkbookName {
    /// At most this many UTF-8 bytes of the id are kept (a file name holds 255).
    static let maxBytes = 100

    static func of(_ id: String) -> String {
        var name = ""
        var bytes = 0
        for scalar in id.unicodeScalars {
            let kept = isKept(scalar) ? Character(scalar) : "_"
            let size = String(kept).utf8.count
            guard bytes + size <= maxBytes else { break }
            (bytes, name) = (bytes + size, name + String(kept))
        }
        if name.hasPrefix(".") { name = "_" + name.dropFirst() }
        // Compared scalar by scalar: `==` would take two normalizations of one text for the same.
        guard !name.unicodeScalars.elementsEqual(id.unicodeScalars) else { return name }
        return name + "-" + Digest.sha256Hex(Data(id.utf8)).prefix(8)
    }

    /// A letter or decimal digit of any script, or `.`, `-`, `_`.
    private static func isKept(_ s: Unicode.Scalar) -> Bool {
        if s.isASCII { return CharacterSet.alphanumerics.contains(s) || "._-".unicodeScalars.contains(s) }
        switch s.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .decimalNumber: return true
        default: return false
        }
    }
}
