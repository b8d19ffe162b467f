import IAPAuditModel

/// One ASN.1 element read by `DERReader`: its tag and where its content lies in the data.
///
/// Source: ITU-T X.690 (BER/DER encoding rules). Values are decoded on demand by the typed
/// accessors below, which throw `ReceiptDecodingError` when the element is not of the asked type
/// or its content is malformed; none of them traps on hostile input.
struct DERElement: Equatable {
    /// The tag class (bits 8–7 of the identifier octet).
    enum TagClass: UInt8 {
        case universal = 0, application = 1, contextSpecific = 2, privateUse = 3
    }

    /// The universal tag numbers a receipt uses (X.680), each with its name for messages.
    enum Universal: UInt64 {
        case integer = 2, octetString = 4, null = 5, objectIdentifier = 6, utf8String = 12, sequence = 16, set = 17, ia5String = 22

        var name: String {
            switch self {
            case .integer: return "INTEGER"
            case .octetString: return "OCTET STRING"
            case .null: return "NULL"
            case .objectIdentifier: return "OBJECT IDENTIFIER"
            case .utf8String: return "UTF8String"
            case .sequence: return "SEQUENCE"
            case .set: return "SET"
            case .ia5String: return "IA5String"
            }
        }
    }

    var tagClass: TagClass
    var tagNumber: UInt64
    var isConstructed: Bool
    /// Offset of the identifier octet in the whole data.
    var offset: Int
    /// The content octets' range in the whole data (for an indefinite length: up to, not including, the end-of-contents).
    var contentRange: Range<Int>
    /// True for a BER indefinite length (`0x80`), ended by `00 00`.
    var isIndefiniteLength: Bool

    func isUniversal(_ tag: Universal) -> Bool { tagClass == .universal && tagNumber == tag.rawValue }
    func isContextSpecific(_ number: UInt64) -> Bool { tagClass == .contextSpecific && tagNumber == number }

    /// A short name of the tag for error messages, e.g. `SEQUENCE`, `[0]`, `universal 30`.
    var tagName: String {
        switch (tagClass, tagNumber) {
        case (.universal, _): return Universal(rawValue: tagNumber)?.name ?? "universal \(tagNumber)"
        case (.contextSpecific, _): return "[\(tagNumber)]"
        case (.application, _): return "application \(tagNumber)"
        case (.privateUse, _): return "private \(tagNumber)"
        }
    }

    /// Throws unless the element is the universal primitive type `tag`.
    func expectPrimitive(_ tag: Universal) throws {
        guard isUniversal(tag) else { throw ReceiptDecodingError.der("expected \(tag.name), found \(tagName)", at: offset) }
        guard !isConstructed else { throw ReceiptDecodingError.der("\(tag.name) must be primitive", at: offset) }
    }

    /// An INTEGER (two's complement, minimal encoding) that fits in 64 bits.
    /// - Throws: when it is no INTEGER, is empty, not minimally encoded, or has more than 8 content bytes.
    func int64(in bytes: [UInt8]) throws -> Int64 {
        let content = try integerContent(in: bytes)
        guard content.count <= 8 else {
            throw ReceiptDecodingError.der("INTEGER of \(content.count) bytes does not fit in 64 bits", at: offset)
        }
        var value: Int64 = content[content.startIndex] >= 0x80 ? -1 : 0
        for byte in content { value = (value << 8) | Int64(byte) }
        return value
    }

    /// An INTEGER of any size as decimal digits (a leading `-` when negative), e.g. for
    /// `web_order_line_item_id` values that may exceed 64 bits.
    func integerDigits(in bytes: [UInt8]) throws -> String {
        let content = try integerContent(in: bytes)
        if content.count <= 8 { return String(try int64(in: bytes)) }
        let negative = content[content.startIndex] >= 0x80
        var magnitude = Array(content)
        if negative {  // two's complement → magnitude: invert and add one
            magnitude = magnitude.map { ~$0 }
            var index = magnitude.count - 1
            while index >= 0 {
                magnitude[index] &+= 1
                if magnitude[index] != 0 { break }
                index -= 1
            }
        }
        var digits: [UInt8] = []
        while magnitude.contains(where: { $0 != 0 }) {
            var remainder = 0
            for i in magnitude.indices {
                let current = remainder * 256 + Int(magnitude[i])
                magnitude[i] = UInt8(current / 10)
                remainder = current % 10
            }
            digits.append(UInt8(ascii: "0") + UInt8(remainder))
        }
        return (negative ? "-" : "") + String(decoding: digits.reversed(), as: UTF8.self)
    }

    private func integerContent(in bytes: [UInt8]) throws -> ArraySlice<UInt8> {
        try expectPrimitive(.integer)
        let content = bytes[contentRange]
        guard let first = content.first else { throw ReceiptDecodingError.der("empty INTEGER", at: offset) }
        if content.count > 1 {
            let second = content[content.startIndex + 1]
            if (first == 0 && second < 0x80) || (first == 0xFF && second >= 0x80) {
                throw ReceiptDecodingError.der("INTEGER not minimally encoded", at: offset)
            }
        }
        return content
    }

    /// A UTF8String's text. Throws when it is another type or holds invalid UTF-8.
    func utf8String(in bytes: [UInt8]) throws -> String {
        try expectPrimitive(.utf8String)
        guard let text = String(validating: bytes[contentRange], as: UTF8.self) else {
            throw ReceiptDecodingError.der("UTF8String is not valid UTF-8", at: offset)
        }
        return text
    }

    /// An IA5String's text. Throws when it is another type or holds a byte above 0x7F.
    func ia5String(in bytes: [UInt8]) throws -> String {
        try expectPrimitive(.ia5String)
        let content = bytes[contentRange]
        guard content.allSatisfy({ $0 < 0x80 }) else { throw ReceiptDecodingError.der("IA5String holds a non-ASCII byte", at: offset) }
        return String(decoding: content, as: UTF8.self)
    }

    /// An OBJECT IDENTIFIER in dotted form, e.g. `1.2.840.113549.1.7.2`.
    /// - Throws: when empty, truncated, not minimally encoded, or an arc exceeds 64 bits.
    func objectIdentifier(in bytes: [UInt8]) throws -> String {
        try expectPrimitive(.objectIdentifier)
        let content = bytes[contentRange]
        guard !content.isEmpty else { throw ReceiptDecodingError.der("empty OBJECT IDENTIFIER", at: offset) }
        var arcs: [UInt64] = []
        var value: UInt64 = 0
        var started = false
        for byte in content {
            if !started && byte == 0x80 { throw ReceiptDecodingError.der("OBJECT IDENTIFIER arc not minimally encoded", at: offset) }
            guard value >> 57 == 0 else { throw ReceiptDecodingError.der("OBJECT IDENTIFIER arc exceeds 64 bits", at: offset) }
            value = (value << 7) | UInt64(byte & 0x7F)
            started = true
            if byte & 0x80 == 0 {
                arcs.append(value)
                value = 0
                started = false
            }
        }
        guard !started else { throw ReceiptDecodingError.der("truncated OBJECT IDENTIFIER", at: offset) }
        let first = arcs[0]
        let head: [UInt64] = first < 40 ? [0, first] : first < 80 ? [1, first - 40] : [2, first - 80]
        return (head + arcs.dropFirst()).map(String.init).joined(separator: ".")
    }
}
