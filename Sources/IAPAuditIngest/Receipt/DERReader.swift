import IAPAuditModel

/// A small, strict, bounds-checked reader of ASN.1 elements (ITU-T X.690).
///
/// Reads the elements of one level, in order: the top level of the data, or the content of a
/// constructed element (`children(of:)`). Every length is checked against the bytes left; any
/// malformed identifier, length or overrun throws a `ReceiptDecodingError` naming the byte offset,
/// never traps. Nesting deeper than `maxDepth` throws (hostile input cannot exhaust the stack).
///
/// Two modes: `.der` (definite, minimal lengths only: app receipt payloads) and `.ber` (also the
/// indefinite length `0x80 … 00 00`, which Xcode StoreKit-testing receipts use in their PKCS#7
/// envelope, e.g. `tikhop__TPInAppReceipt/receipt-xcode`).
struct DERReader {
    enum Mode { case der, ber }

    /// Deepest nesting accepted; real receipts nest at most 8 levels.
    static let maxDepth = 32

    let bytes: [UInt8]
    let mode: Mode
    let depth: Int
    private(set) var position: Int
    let end: Int

    /// A reader of the top level of `bytes`.
    init(_ bytes: [UInt8], mode: Mode = .der) {
        self.init(bytes: bytes, mode: mode, depth: 0, range: 0..<bytes.count)
    }

    private init(bytes: [UInt8], mode: Mode, depth: Int, range: Range<Int>) {
        self.bytes = bytes
        self.mode = mode
        self.depth = depth
        self.position = range.lowerBound
        self.end = range.upperBound
    }

    var isAtEnd: Bool { position >= end }

    /// The next element of this level, or nil at the end of the level.
    /// - Throws: on a malformed identifier or length, or content running past the level's end.
    mutating func next() throws -> DERElement? {
        guard position < end else { return nil }
        let element = try Self.header(bytes, at: position, end: end, mode: mode, depth: depth)
        position = element.contentRange.upperBound + (element.isIndefiniteLength ? 2 : 0)
        return element
    }

    /// The next element, which must exist (`what` names it in the error).
    mutating func required(_ what: String) throws -> DERElement {
        guard let element = try next() else { throw ReceiptDecodingError.der("missing \(what)", at: position) }
        return element
    }

    /// Throws when bytes remain on this level (`what` names the level in the error).
    func expectEnd(_ what: String) throws {
        let left = end - position
        guard left <= 0 else {
            throw ReceiptDecodingError.der("\(left) unexpected byte\(left == 1 ? "" : "s") after \(what)", at: position)
        }
    }

    /// A reader of a constructed element's content, one level deeper.
    /// - Throws: when the element is primitive or nesting exceeds `maxDepth`.
    func children(of element: DERElement) throws -> DERReader {
        guard element.isConstructed else { throw ReceiptDecodingError.der("\(element.tagName) is not constructed", at: element.offset) }
        guard depth + 1 <= Self.maxDepth else {
            throw ReceiptDecodingError.der("nesting deeper than \(Self.maxDepth) levels", at: element.offset)
        }
        return DERReader(bytes: bytes, mode: mode, depth: depth + 1, range: element.contentRange)
    }

    /// An OCTET STRING's bytes; in `.ber` mode a constructed OCTET STRING's chunks are joined.
    func octetString(_ element: DERElement) throws -> [UInt8] {
        guard element.isUniversal(.octetString) else {
            throw ReceiptDecodingError.der("expected OCTET STRING, found \(element.tagName)", at: element.offset)
        }
        if !element.isConstructed { return Array(bytes[element.contentRange]) }
        guard mode == .ber else { throw ReceiptDecodingError.der("constructed OCTET STRING in DER", at: element.offset) }
        var chunks = try children(of: element)
        var result: [UInt8] = []
        while let chunk = try chunks.next() { result += try chunks.octetString(chunk) }
        return result
    }

    /// Reads the identifier and length at `start`; for an indefinite length, finds the matching
    /// end-of-contents by walking the nested elements.
    private static func header(_ bytes: [UInt8], at start: Int, end: Int, mode: Mode, depth: Int) throws -> DERElement {
        var index = start
        func byte(_ what: String) throws -> UInt8 {
            guard index < end else { throw ReceiptDecodingError.der("truncated \(what)", at: start) }
            defer { index += 1 }
            return bytes[index]
        }
        let identifier = try byte("identifier")
        var tagNumber = UInt64(identifier & 0x1F)
        if tagNumber == 0x1F {  // high-tag-number form: base-128 digits
            tagNumber = 0
            var count = 0
            while true {
                let digit = try byte("tag number")
                if count == 0 && digit == 0x80 { throw ReceiptDecodingError.der("tag number not minimally encoded", at: start) }
                count += 1
                guard count <= 4 else { throw ReceiptDecodingError.der("tag number longer than 4 bytes", at: start) }
                tagNumber = (tagNumber << 7) | UInt64(digit & 0x7F)
                if digit & 0x80 == 0 { break }
            }
        }
        let isConstructed = identifier & 0x20 != 0
        let first = try byte("length")
        var length = Int(first)
        if first == 0x80 {
            guard mode == .ber else { throw ReceiptDecodingError.der("indefinite length in DER", at: start) }
            guard isConstructed else { throw ReceiptDecodingError.der("indefinite length on a primitive element", at: start) }
            guard depth + 1 <= maxDepth else { throw ReceiptDecodingError.der("nesting deeper than \(maxDepth) levels", at: start) }
            let contentEnd = try endOfContents(bytes, from: index, end: end, mode: mode, depth: depth + 1)
            return element(identifier, tagNumber, start, index..<contentEnd, indefinite: true)
        }
        if first > 0x80 {
            let count = Int(first & 0x7F)
            guard count <= 4 else { throw ReceiptDecodingError.der("length of \(count) bytes is too large", at: start) }
            length = 0
            for _ in 0..<count { length = (length << 8) | Int(try byte("length")) }
            if mode == .der && (length < 0x80 || length >> (8 * (count - 1)) == 0) {
                throw ReceiptDecodingError.der("length \(length) not minimally encoded", at: start)
            }
        }
        guard length <= end - index else {
            let left = end - index
            throw ReceiptDecodingError.der(
                "length \(length) runs past the end of the data (\(left) byte\(left == 1 ? "" : "s") left)", at: start)
        }
        return element(identifier, tagNumber, start, index..<(index + length), indefinite: false)
    }

    private static func element(_ identifier: UInt8, _ number: UInt64, _ start: Int, _ content: Range<Int>, indefinite: Bool)
        -> DERElement
    {
        DERElement(
            tagClass: DERElement.TagClass(rawValue: identifier >> 6)!, tagNumber: number, isConstructed: identifier & 0x20 != 0,
            offset: start, contentRange: content, isIndefiniteLength: indefinite)
    }

    /// The offset of the `00 00` that ends indefinite-length content starting at `start`.
    private static func endOfContents(_ bytes: [UInt8], from start: Int, end: Int, mode: Mode, depth: Int) throws -> Int {
        var index = start
        while index < end {
            if bytes[index] == 0 {
                guard index + 1 < end, bytes[index + 1] == 0 else {
                    throw ReceiptDecodingError.der("malformed end-of-contents", at: index)
                }
                return index
            }
            let child = try header(bytes, at: index, end: end, mode: mode, depth: depth)
            index = child.contentRange.upperBound + (child.isIndefiniteLength ? 2 : 0)
        }
        throw ReceiptDecodingError.der("indefinite length without end-of-contents", at: start)
    }
}
