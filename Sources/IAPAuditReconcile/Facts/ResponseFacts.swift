import IAPAuditModel

/// What the request stage reads of an Apple record that names a request (a `linkedResponse` fact).
struct AnswerFacts {
    var fileId: UInt32
    var line: UInt32
    var receivedAtMs: Int64?
    var status: Int64
    /// Effective (SEMANTICS rule 2); the raw text for `.other`.
    var environment: EnvironmentCode
    var rawEnvironment: FactText?
    var isRetryable: Bool?
    var bundleId: FactText?
    var signatureFailed: Bool
    /// Range of the partition's `AnswerItem`s.
    var items: Range<Int>

    var key: UInt64 { recordKey(fileId, line) }

    func environmentName(_ bytes: PartitionBytes) -> String? { environment.name ?? bytes.string(rawEnvironment) }

    /// Reads the fact after its request id.
    static func read(_ r: inout FactReader, chunkFile: UInt32, items: inout [AnswerItem]) -> AnswerFacts {
        let file = r.u32()
        let line = r.u32()
        let received = r.optionalInt()
        let status = r.zigzag()
        let (environment, raw) = r.environment()
        let retryable = r.optionalBool()
        let bundle = r.text()
        let failed = r.u8() != 0
        let first = items.count
        for _ in 0..<r.varint() {
            let id = r.id()!
            let original = r.id()
            let purchase = r.optionalInt()
            let itemFailed = r.u8() != 0
            items.append(
                AnswerItem(id: id, originalId: original, purchaseDateMs: purchase, signatureFailed: itemFailed, bundleId: r.text()))
        }
        return AnswerFacts(
            fileId: file == 0 ? chunkFile : file, line: line, receivedAtMs: received, status: status, environment: environment,
            rawEnvironment: raw, isRetryable: retryable, bundleId: bundle, signatureFailed: failed, items: first..<items.count)
    }
}

/// One purchase of an answer, as the request stage reads it (proof and rule 6).
struct AnswerItem {
    var id: FactId
    var originalId: FactId?
    var purchaseDateMs: Int64?
    var signatureFailed: Bool
    var bundleId: FactText?
}

/// One purchase as one Apple record lists it (a `listing` fact), with the record's fields the rules read.
struct ListingFacts {
    var id: FactId
    var fileId: UInt32
    var line: UInt32
    var receivedAtMs: Int64?
    var status: Int64
    var environment: EnvironmentCode
    var rawEnvironment: FactText?
    var bundleId: FactText?
    var source: EvidenceSource
    var signature: SignatureCode
    var signatureReason: FactText?
    var signedDateMs: Int64?
    /// The record is a REFUND_REVERSED notification.
    var refundReversed: Bool
    var familyShared: Bool
    var productId: FactText?
    var originalId: FactId?
    var purchaseDateMs: Int64?
    var cancellationDateMs: Int64?
    var cancellationReason: FactText?
    var revocationType: FactText?
    var revocationPercentage: Int64?
    var itemEnvironment: EnvironmentCode
    var itemRawEnvironment: FactText?
    var itemBundleId: FactText?
    var itemSignature: SignatureCode
    var itemSignedDateMs: Int64?

    var key: UInt64 { recordKey(fileId, line) }

    /// The record's environment as Apple named it (effective), or nil.
    func environmentName(_ bytes: PartitionBytes) -> String? { environment.name ?? bytes.string(rawEnvironment) }

    /// The record's stored signature text (`SignatureStatus.text`).
    func signatureText(_ bytes: PartitionBytes) -> String {
        switch signature {
        case .verified: return "verified"
        case .notChecked: return "not_checked"
        case .untrustedRoot: return "untrusted_root"
        case .invalid: return "invalid:" + (bytes.string(signatureReason) ?? "")
        }
    }

    static func read(_ r: inout FactReader, chunkFile: UInt32) -> ListingFacts {
        let id = r.id()!
        let file = r.u32()
        let line = r.u32()
        let received = r.optionalInt()
        let status = r.zigzag()
        let (environment, raw) = r.environment()
        let bundle = r.text()
        let source = EvidenceSource.allCases[Int(r.u8())]
        let (signature, reason) = r.signature()
        let signed = r.optionalInt()
        let flags = r.u8()
        let product = r.text()
        let original = r.id()
        let purchase = r.optionalInt()
        let cancellation = r.optionalInt()
        let cancellationReason = r.text()
        let revocation = r.text()
        let percentage = r.optionalInt()
        let (itemEnvironment, itemRaw) = r.environment()
        let itemBundle = r.text()
        let (itemSignature, _) = r.signature()
        let itemSigned = r.optionalInt()
        return ListingFacts(
            id: id, fileId: file == 0 ? chunkFile : file, line: line, receivedAtMs: received, status: status, environment: environment,
            rawEnvironment: raw, bundleId: bundle, source: source, signature: signature, signatureReason: reason, signedDateMs: signed,
            refundReversed: flags & 1 != 0, familyShared: flags & 2 != 0, productId: product, originalId: original,
            purchaseDateMs: purchase, cancellationDateMs: cancellation, cancellationReason: cancellationReason,
            revocationType: revocation, revocationPercentage: percentage, itemEnvironment: itemEnvironment,
            itemRawEnvironment: itemRaw, itemBundleId: itemBundle, itemSignature: itemSignature, itemSignedDateMs: itemSigned)
    }
}

extension FactReader {
    mutating func environment() -> (EnvironmentCode, FactText?) {
        let code = EnvironmentCode(rawValue: u8()) ?? .other
        return (code, code == .other ? text() : nil)
    }

    mutating func signature() -> (SignatureCode, FactText?) {
        let code = SignatureCode(rawValue: u8()) ?? .invalid
        return (code, code == .invalid ? text() : nil)
    }
}

extension PartitionBytes {
    /// True when two ids read from this buffer are the same id.
    @inline(__always) func same(_ a: FactId?, _ b: FactId?) -> Bool {
        switch (a, b) {
        case let (.number(x)?, .number(y)?): return x == y
        case let (.text(x)?, .text(y)?): return equals(x, y)
        case (nil, nil): return true
        default: return false
        }
    }

    /// Writes an id read from this buffer.
    func write(_ id: FactId, _ w: inout FactWriter) {
        switch id {
        case .number(let n):
            w.u8(0)
            w.i64(Int64(bitPattern: n))
        case .text(let t):
            w.u8(1)
            w.text(bytes(t))
        }
    }

    /// The partition of an id read from this buffer.
    func partition(_ id: FactId) -> Int {
        switch id {
        case .number(let n): return FactKey.partition(number: n)
        case .text(let t): return FactKey.partition(text: bytes(t))
        }
    }
}
