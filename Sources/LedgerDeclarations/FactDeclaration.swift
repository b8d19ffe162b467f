/// One kind of reconciliation fact, declared once: from it `generate-ledger-code` writes the fact's
/// struct (as the rules read it), its reader and its writer (Model). A fact is a compact record of
/// just what the rules read, stored beside every imported file (`fact_chunk`) or made during
/// reconciliation; the format is stored, so a layout change needs a `Schema.readerVersion` bump
/// (a test pins the layout to the version).
public struct FactDeclaration: Sendable {
    /// The `FactKind` case (`listing`).
    public var kind: String
    /// The kind byte that starts the fact.
    public var code: UInt8
    /// The Swift struct (`ListingFact`).
    public var type: String
    /// The `FactStream` the fact is written to (`transactions`), and what partitions it.
    public var stream: String
    public var doc: [String]
    public var fields: [FactField]

    /// `doc`: the struct's doc comment as one text, a line of it a line.
    init(kind: String, code: UInt8, type: String, stream: String, doc: String, fields: [FactField]) {
        (self.kind, self.code, self.type, self.stream, self.doc, self.fields) = (kind, code, type, stream, docLines(doc), fields)
    }
}

/// One field of a fact, in the order it is encoded.
public struct FactField: Sendable {
    public var name: String
    public var type: FactFieldType
    public var doc: String

    public init(_ name: String, _ type: FactFieldType, _ doc: String = "") {
        self.name = name
        self.type = type
        self.doc = doc
    }
}

/// How a fact field is encoded (the primitives of `FactWriter` / `FactReader`).
public indirect enum FactFieldType: Sendable {
    /// One byte, read as `UInt8`.
    case u8
    /// Four bytes little-endian.
    case u32
    /// A file id (u32): 0 in a chunk means the chunk's own file (facts are encoded before the store
    /// numbers the file); read as the file id it means.
    case file
    /// Eight bytes little-endian.
    case i64
    /// A present flag, then an Int64.
    case optionalInt
    /// One byte: 0 nil, 1 false, 2 true.
    case optionalBool
    /// An Int64 as a zigzag varint.
    case zigzag
    /// Text: varint(length + 1) then its bytes; 0 is nil. Read as a `FactText` range of the buffer.
    case text
    /// Text that is never nil.
    case requiredText
    /// A transaction id: a number for canonical decimal text, else text (`FactId`); nil allowed.
    case id
    case requiredId
    /// An `EnvironmentCode` byte, then the raw text for `.other`: read as `<name>` and `<name>Raw`.
    case environment
    /// A `SignatureCode` byte, then the reason of an `invalid:` signature: `<name>` and `<name>Reason`.
    case signature
    /// One byte of flags, bit `i` the Bool named `names[i]`.
    case flags([String])
    /// The index of a value in `type.allCases` (one byte).
    case caseIndex(String)
    /// A varint count, then that many elements, read into an array the caller passes (`inout`) and
    /// kept as a range of it. `optional`: a present byte first (nil when absent).
    case list(FactListElement, optional: Bool)
    /// A varint count, then (i64 value, i64 count) pairs in value order: `[Int64: Int64]`.
    case histogram
    /// A present byte, then i64 ms and u32 line: `(ms: Int64, line: UInt32)?` (an instant and the line it is from).
    case instant
}

/// The elements of a `FactFieldType.list`.
public indirect enum FactListElement: Sendable {
    /// One value per element (`[FactId]` for `.requiredId`).
    case value(FactFieldType)
    /// A struct of its own per element, named `type` inside the fact's struct.
    case record(type: String, fields: [FactField])
}
