import Foundation

/// An id that looks like a number a spreadsheet rewrote: Excel keeps 15 significant digits, so a 16-digit
/// transaction id pasted through it ends in 0 (`2000000400072794` → `2000000400072790`), shows in scientific
/// notation (`2.00000040007279E+15`, `2E+15` in a narrow column) or is saved as a float (`2000000400072794.0`).
/// Such an id may be any ledger id of the same length within `low..<high` (the 15 kept digits as prefix; fewer
/// shown digits: the ids they round from).
package struct TraceMangledId: Sendable, Equatable {
    /// Why it looks mangled, in words.
    package var why: String
    /// The digits of the ids it may be: how many, and their range (text, same length: compares as numbers).
    package var length: Int
    package var low: String
    package var high: String

    /// Significant digits a spreadsheet keeps.
    static let keptDigits = 15

    /// Nil when `id` has none of the three forms.
    package static func recognise(_ id: String) -> TraceMangledId? {
        let s = id.trimmingCharacters(in: .whitespaces)
        let bytes = Array(s.utf8)
        let isDigit = { (b: UInt8) in b >= 0x30 && b <= 0x39 }
        guard let first = bytes.first, isDigit(first) else { return nil }
        if let e = bytes.firstIndex(where: { $0 == UInt8(ascii: "E") || $0 == UInt8(ascii: "e") }) {
            return scientific(s, mantissa: Array(bytes[..<e]), exponent: Array(bytes[(e + 1)...]))
        }
        if let dot = bytes.firstIndex(of: UInt8(ascii: ".")) {
            let (whole, fraction) = (bytes[..<dot], bytes[(dot + 1)...])
            guard !fraction.isEmpty, whole.allSatisfy(isDigit), fraction.allSatisfy({ $0 == 0x30 }), whole.first != 0x30 else { return nil }
            return truncated(
                String(decoding: whole, as: UTF8.self),
                why: "it is in a float's form (\(s)): a spreadsheet or a script read the id as a number")
        }
        guard bytes.count > keptDigits, bytes.allSatisfy(isDigit), first != 0x30, bytes.last == 0x30 else { return nil }
        let significant = bytes.count - bytes.reversed().prefix { $0 == 0x30 }.count
        guard significant <= keptDigits else { return nil }
        return truncated(
            s,
            why: "it has \(bytes.count) digits ending in zeros and at most \(keptDigits) significant ones: a spreadsheet keeps "
                + "\(keptDigits) digits and writes zeros for the rest")
    }

    /// Digits of which a spreadsheet kept the first 15 (the ids with that prefix, of the same length).
    private static func truncated(_ digits: String, why: String) -> TraceMangledId {
        let kept = String(digits.prefix(keptDigits))
        let zeros = String(repeating: "0", count: digits.count - kept.count)
        guard digits.count > kept.count else { return TraceMangledId(why: why, length: digits.count, low: digits, high: digits + "\u{0}") }
        return TraceMangledId(why: why, length: digits.count, low: kept + zeros, high: increment(kept) + zeros)
    }

    /// `d.ddd E+n`: `n + 1` digits; 15 shown digits are a prefix, fewer are rounded (the ids within half a unit of the last).
    private static func scientific(_ s: String, mantissa: [UInt8], exponent: [UInt8]) -> TraceMangledId? {
        var exp = exponent
        if exp.first == UInt8(ascii: "+") { exp.removeFirst() }
        let isDigit = { (b: UInt8) in b >= 0x30 && b <= 0x39 }
        guard !exp.isEmpty, exp.count <= 3, exp.allSatisfy(isDigit), let n = Int(String(decoding: exp, as: UTF8.self)),
            mantissa.count >= 1, isDigit(mantissa[0]), mantissa[0] != 0x30
        else { return nil }
        var digits = [mantissa[0]]
        if mantissa.count > 1 {
            guard mantissa[1] == UInt8(ascii: "."), mantissa.count > 2, mantissa[2...].allSatisfy(isDigit) else { return nil }
            digits += mantissa[2...]
        }
        // A spreadsheet shows a number of 12 digits or more this way; fewer are no id's.
        let length = n + 1
        guard length > digits.count, length >= 12, length <= 40 else { return nil }
        let shown = String(decoding: digits, as: UTF8.self)
        let why = "it is in scientific notation (\(s)): a spreadsheet showed the id as a number of \(length) digits"
        if digits.count >= keptDigits {
            let kept = String(shown.prefix(keptDigits))
            let zeros = String(repeating: "0", count: length - kept.count)
            return TraceMangledId(why: why, length: length, low: kept + zeros, high: increment(kept) + zeros)
        }
        // Rounded to the digits shown: from …(d−1)5 to …d5 in the next digit.
        let zeros = String(repeating: "0", count: length - digits.count - 1)
        let down = shown == "1" ? "10" : decrement(shown) + "5"
        let low = shown == "1" ? "1" + String(repeating: "0", count: length - 1) : down + zeros
        return TraceMangledId(why: why, length: length, low: low, high: shown + "5" + zeros)
    }

    /// Decimal digits plus one (`199` → `200`, `999` → `1000`).
    static func increment(_ digits: String) -> String {
        var d = Array(digits.utf8)
        var i = d.count - 1
        while i >= 0 {
            if d[i] == 0x39 {
                d[i] = 0x30
                i -= 1
            } else {
                d[i] += 1
                return String(decoding: d, as: UTF8.self)
            }
        }
        return "1" + String(decoding: d, as: UTF8.self)
    }

    /// Decimal digits minus one, same length (`200` → `199`); `digits` > 0.
    static func decrement(_ digits: String) -> String {
        var d = Array(digits.utf8)
        var i = d.count - 1
        while i >= 0 {
            if d[i] == 0x30 {
                d[i] = 0x39
                i -= 1
            } else {
                d[i] -= 1
                break
            }
        }
        return String(decoding: d, as: UTF8.self)
    }
}

/// A ledger transaction a mangled id may be.
package struct TraceMangledCandidate: Sendable {
    package var transactionId: String
    package var userIds: [String] = []
    package var productId: String?
    package var purchaseMs: Int64?
    /// It is the id as given, character for character.
    package var exact = false
    /// One of its users is `--user`'s.
    package var ofUser = false

    package init(transactionId: String) { self.transactionId = transactionId }
}
