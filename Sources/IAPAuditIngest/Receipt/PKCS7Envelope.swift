import IAPAuditModel

/// The attached content of a PKCS#7 / CMS signed-data structure: for an app receipt, the DER of the
/// receipt attribute SET.
///
/// Source: RFC 5652 §3 (`ContentInfo`) and §5 (`SignedData`, `EncapsulatedContentInfo`); Apple,
/// "Validating receipts on the device" (the receipt is a PKCS #7 container whose payload is ASN.1).
/// Only the content is extracted here; certificates and signer infos are left to `SignatureChecking`.
///
///     ContentInfo ::= SEQUENCE { contentType OID (1.2.840.113549.1.7.2 signedData), content [0] EXPLICIT SignedData }
///     SignedData ::= SEQUENCE { version INTEGER, digestAlgorithms SET, encapContentInfo SEQUENCE {
///         eContentType OID (1.2.840.113549.1.7.1 data), eContent [0] EXPLICIT OCTET STRING OPTIONAL }, … }
///
/// BER is accepted for the envelope (indefinite lengths, a constructed OCTET STRING): Xcode's
/// StoreKit-testing receipts are encoded that way.
struct PKCS7Envelope {
    static let signedDataOID = "1.2.840.113549.1.7.2"
    static let dataOID = "1.2.840.113549.1.7.1"

    /// The `eContent` octets (the receipt payload).
    var content: [UInt8]
    /// `SignedData.version` (1 for Apple's receipts).
    var version: Int64

    /// Parses `der`, a whole ContentInfo.
    /// - Throws: `ReceiptDecodingError` "not a PKCS#7 signed-data receipt …" when the outer structure or
    ///   content type is something else, and a DER error for malformed encoding, detached content,
    ///   or bytes left after the ContentInfo.
    init(der: [UInt8]) throws {
        var top = DERReader(der, mode: .ber)
        let contentInfo = try Self.structure(top.next(), "ContentInfo SEQUENCE", universal: .sequence)
        try top.expectEnd("the PKCS#7 ContentInfo")
        var info = try top.children(of: contentInfo)
        let typeElement = try info.required("ContentInfo contentType")
        guard typeElement.isUniversal(.objectIdentifier) else {
            throw ReceiptDecodingError("not a PKCS#7 signed-data receipt: ContentInfo starts with \(typeElement.tagName), not an OID")
        }
        let contentType = try typeElement.objectIdentifier(in: der)
        guard contentType == Self.signedDataOID else {
            throw ReceiptDecodingError("not a PKCS#7 signed-data receipt: content type \(contentType), expected \(Self.signedDataOID)")
        }
        let explicit = try info.required("ContentInfo content [0]")
        guard explicit.isContextSpecific(0), explicit.isConstructed else {
            throw ReceiptDecodingError.der("expected [0] content, found \(explicit.tagName)", at: explicit.offset)
        }
        var explicitReader = try info.children(of: explicit)
        let signedData = try Self.structure(explicitReader.next(), "SignedData SEQUENCE", universal: .sequence)
        var fields = try explicitReader.children(of: signedData)
        version = try fields.required("SignedData version").int64(in: der)
        let digests = try fields.required("SignedData digestAlgorithms")
        guard digests.isUniversal(.set) else {
            throw ReceiptDecodingError.der("expected digestAlgorithms SET, found \(digests.tagName)", at: digests.offset)
        }
        let encap = try Self.structure(fields.next(), "encapContentInfo SEQUENCE", universal: .sequence)
        var encapFields = try fields.children(of: encap)
        let eContentType = try encapFields.required("eContentType").objectIdentifier(in: der)
        guard eContentType == Self.dataOID else {
            throw ReceiptDecodingError("PKCS#7 receipt content type is \(eContentType), expected data (\(Self.dataOID))")
        }
        guard let eContent = try encapFields.next() else {
            throw ReceiptDecodingError("PKCS#7 signed data has no attached content (detached signature): no receipt inside")
        }
        guard eContent.isContextSpecific(0), eContent.isConstructed else {
            throw ReceiptDecodingError.der("expected [0] eContent, found \(eContent.tagName)", at: eContent.offset)
        }
        var octets = try encapFields.children(of: eContent)
        let octetString = try octets.required("eContent OCTET STRING")
        content = try octets.octetString(octetString)
        try octets.expectEnd("eContent")
    }

    private static func structure(_ element: DERElement?, _ what: String, universal tag: DERElement.Universal) throws -> DERElement {
        guard let element else { throw ReceiptDecodingError("not a PKCS#7 signed-data receipt: missing \(what)") }
        guard element.isUniversal(tag), element.isConstructed else {
            throw ReceiptDecodingError(
                "not a PKCS#7 signed-data receipt: expected \(what), found \(element.tagName) at byte \(element.offset)")
        }
        return element
    }
}
