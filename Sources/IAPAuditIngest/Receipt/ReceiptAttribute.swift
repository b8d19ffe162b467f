import IAPAuditModel

/// One entry of an app receipt's attribute SET (the receipt itself, or one in-app purchase):
///
///     ReceiptAttribute ::= SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }
///
/// Source: Apple, "Validating receipts on the device" → "Receipt Fields" (ASN.1 field types). The
/// `value` octets hold one more DER element (UTF8String, IA5String, INTEGER, or a nested SET); the
/// typed accessors decode it and name the field in errors, e.g.
/// `receipt field 1704 (purchase date): receipt DER: expected IA5String, found INTEGER at byte 0`.
struct ReceiptAttribute {
    /// Apple's ASN.1 field type, e.g. 2 (bundle id) or 1703 (transaction id).
    var type: Int64
    /// The attribute's `version` (Apple writes 1; unused).
    var version: Int64
    /// The DER inside the `value` OCTET STRING.
    var value: [UInt8]

    /// Reads the attribute SET in `der` (a receipt payload or the value of field 17).
    /// - Throws: `ReceiptDecodingError` when `der` is not one SET of attribute SEQUENCEs.
    static func set(in der: [UInt8], what: String) throws -> [ReceiptAttribute] {
        var top = DERReader(der, mode: .der)
        guard let set = try top.next() else { throw ReceiptDecodingError("\(what) is empty") }
        guard set.isUniversal(.set), set.isConstructed else {
            throw ReceiptDecodingError("\(what) is not an ASN.1 SET of receipt fields (found \(set.tagName))")
        }
        try top.expectEnd(what)
        var entries = try top.children(of: set)
        var attributes: [ReceiptAttribute] = []
        while let entry = try entries.next() {
            guard entry.isUniversal(.sequence), entry.isConstructed else {
                throw ReceiptDecodingError.der("expected a receipt field SEQUENCE, found \(entry.tagName)", at: entry.offset)
            }
            var fields = try entries.children(of: entry)
            let type = try fields.required("field type").int64(in: der)
            let version = try fields.required("field version").int64(in: der)
            let value = try fields.octetString(fields.required("field value"))
            try fields.expectEnd("a receipt field")
            attributes.append(ReceiptAttribute(type: type, version: version, value: value))
        }
        return attributes
    }

    /// The UTF8String value.
    func utf8(_ name: String) throws -> String {
        try decode(name) { element, bytes in try element.utf8String(in: bytes) }
    }

    /// The IA5String value (Apple's dates, RFC 3339 text).
    func ia5(_ name: String) throws -> String {
        try decode(name) { element, bytes in try element.ia5String(in: bytes) }
    }

    /// The INTEGER value, within ±2^53 (`ExactNumber`).
    func integer(_ name: String) throws -> Int64 {
        try decode(name) { element, bytes in
            let value = try element.int64(in: bytes)
            guard ExactNumber.holds(value) else {
                throw ReceiptDecodingError.der("INTEGER " + ExactNumber.outOfRange(value), at: element.offset)
            }
            return value
        }
    }

    /// The INTEGER value as decimal digits, any size.
    func digits(_ name: String) throws -> String {
        try decode(name) { element, bytes in try element.integerDigits(in: bytes) }
    }

    /// An IA5String date (`2020-07-14T19:36:40Z`, Xcode: `2020-07-22T18:33:14+0100`) in milliseconds
    /// since 1970 UTC; nil for the empty string Apple writes when the date does not apply.
    /// - Throws: when the text is not a date within 1900–2200.
    func date(_ name: String) throws -> (text: String, ms: Int64)? {
        let text = try ia5(name)
        if text.isEmpty { return nil }
        guard let ms = Timestamp.parseMs(text) else {
            throw ReceiptDecodingError("receipt field \(type) (\(name)): not a date: \"\(text.prefix(60))\"")
        }
        return (text, ms)
    }

    private func decode<T>(_ name: String, _ body: (DERElement, [UInt8]) throws -> T) throws -> T {
        do {
            var reader = DERReader(value, mode: .der)
            let element = try reader.required("value")
            try reader.expectEnd("the value")
            return try body(element, value)
        } catch let error as ReceiptDecodingError {
            throw ReceiptDecodingError("receipt field \(type) (\(name)): \(error.message)")
        }
    }
}
