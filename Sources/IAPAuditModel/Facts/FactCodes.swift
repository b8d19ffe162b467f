import Foundation

/// An environment as the rules compare it: Apple's spellings in any (ASCII) capitalization, or a raw
/// value (`Environment.normalized`, `AppleRecord.effectiveEnvironment` read through it). Stored in
/// facts as one byte (+ the raw text for `.other`).
package enum EnvironmentCode: UInt8 {
    case none = 0, sandbox, production, xcode, localTesting, other

    /// `Environment.normalized` of `b` (ASCII case-insensitive; `PROD` is Production).
    package static func normalizing(_ b: UnsafeBufferPointer<UInt8>) -> EnvironmentCode {
        @inline(__always) func isLower(_ word: StaticString) -> Bool {
            guard b.count == word.utf8CodeUnitCount else { return false }
            for i in 0..<b.count where (b[i] >= 0x41 && b[i] <= 0x5A ? b[i] | 0x20 : b[i]) != word.utf8Start[i] { return false }
            return true
        }
        if isLower("production") || isLower("prod") { return .production }
        if isLower("sandbox") { return .sandbox }
        if isLower("xcode") { return .xcode }
        if isLower("localtesting") { return .localTesting }
        return .other
    }

    /// Apple's word on an answer's environment (semantics.md rule 2, `AppleRecord.effectiveEnvironment`):
    /// a 21007 is a sandbox answer; else `environment`; else `receipt_type` (`…Sandbox` is Sandbox,
    /// `Production…` Production). Returns the code and, for `.other`, the raw value it came from.
    package static func effective(status: Int64, environment: UnsafeBufferPointer<UInt8>?, receiptType: UnsafeBufferPointer<UInt8>?)
        -> (EnvironmentCode, UnsafeBufferPointer<UInt8>?)
    {
        if status == 21007 { return (.sandbox, nil) }
        if let environment {
            let code = normalizing(environment)
            return (code, code == .other ? environment : nil)
        }
        guard let b = receiptType else { return (.none, nil) }
        if b.count >= 7 && b[(b.count - 7)...].elementsEqual("Sandbox".utf8) { return (.sandbox, nil) }
        if b.count >= 10 && b[..<10].elementsEqual("Production".utf8) { return (.production, nil) }
        let code = normalizing(b)
        return (code, code == .other ? b : nil)
    }

    /// Any value but Production (none, Apple saying nothing, is not a sandbox answer).
    package var isSandbox: Bool { self != .none && self != .production }

    /// Apple's spelling; nil for `.none` and `.other` (whose name is its raw text).
    package var name: String? {
        switch self {
        case .none, .other: return nil
        case .sandbox: return "Sandbox"
        case .production: return "Production"
        case .xcode: return "Xcode"
        case .localTesting: return "LocalTesting"
        }
    }
}

extension FactWriter {
    /// An environment: its code, and the raw text for `.other`.
    package mutating func environment(_ value: (EnvironmentCode, UnsafeBufferPointer<UInt8>?)) {
        u8(value.0.rawValue)
        if value.0 == .other { text(value.1) }
    }

    /// A signature (`SignatureStatus.text` as stored): its code, and the reason of an `invalid:<reason>`.
    package mutating func signature(_ text: UnsafeBufferPointer<UInt8>?) {
        guard let text else { return u8(SignatureCode.notChecked.rawValue) }
        let code = SignatureCode(text)
        u8(code.rawValue)
        if code == .invalid { self.text(UnsafeBufferPointer(rebasing: text[min(8, text.count)...])) }
    }

    /// A signed integer in few bytes (zigzag varint).
    package mutating func zigzag(_ v: Int64) { varint(Int(bitPattern: UInt(UInt64(bitPattern: (v << 1) ^ (v >> 63))))) }
}

extension FactReader {
    package mutating func zigzag() -> Int64 {
        let u = UInt64(UInt(bitPattern: varint()))
        return Int64(bitPattern: (u >> 1) ^ (0 &- (u & 1)))
    }
}

extension FactReader {
    package mutating func environment() -> (EnvironmentCode, FactText?) {
        let code = EnvironmentCode(rawValue: u8()) ?? .other
        return (code, code == .other ? text() : nil)
    }

    package mutating func signature() -> (SignatureCode, FactText?) {
        let code = SignatureCode(rawValue: u8()) ?? .invalid
        return (code, code == .invalid ? text() : nil)
    }
}
