import IAPAuditModel

/// A transaction id across partitions: the number its canonical digits spell, or its exact text.
enum GlobalId: Hashable, Comparable {
    case number(UInt64)
    case text(String)

    init(_ id: FactId, in bytes: PartitionBytes) {
        switch id {
        case .number(let n): self = .number(n)
        case .text(let t): self = .text(bytes.string(t)!)
        }
    }

    /// The id a text spells (a number when its digits are canonical, as the fact format keeps it).
    init(_ text: String) {
        var text = text
        self = text.withUTF8 { FactKey.canonicalNumber($0) }.map { .number($0) } ?? .text(text)
    }

    /// The id exactly as the input wrote it.
    var text: String {
        switch self {
        case .number(let n): return String(n)
        case .text(let s): return s
        }
    }

    /// `Purchases` order: shortest first, then smallest text.
    static func < (a: GlobalId, b: GlobalId) -> Bool { (a.text.count, a.text) < (b.text.count, b.text) }

    var partition: Int {
        switch self {
        case .number(let n): return FactKey.partition(number: n)
        case .text(var s): return s.withUTF8 { FactKey.partition(text: $0) }
        }
    }
}

/// `(file id, line)` of a record as one integer (a key in sets and dictionaries).
@inline(__always) func recordKey(_ fileId: UInt32, _ line: UInt32) -> UInt64 { UInt64(fileId) << 32 | UInt64(line) }
