/// An Apple record as its facts carry it (the "response body" of `FactKind`), read in place.
struct ResponseFacts {
    var fileId: UInt32
    var line: UInt32
    var receivedAtMs: Int64?
    var status: Int64
    var environment: FactText?
    var receiptType: FactText?
    var isRetryable: Bool?
    var bundleId: FactText?
    var source: EvidenceSource
    var signature: FactText?
    var signatureCode: SignatureCode
    var signedDateMs: Int64?
    var notificationType: FactText?
    var notificationUUID: FactText?
    /// The encoded body after its file id (copied on when the record is listed again).
    var encoded: Range<Int>

    static func read(_ r: inout FactReader, chunkFile: UInt32, _ bytes: PartitionBytes) -> ResponseFacts {
        let file = r.u32()
        let start = r.at
        let line = r.u32()
        let received = r.optionalInt()
        let status = r.i64()
        let environment = r.text()
        let receiptType = r.text()
        let retryable = r.optionalBool()
        let bundle = r.text()
        let source = EvidenceSource.allCases[Int(r.u8())]
        let signature = r.text()
        let signed = r.optionalInt()
        let type = r.text()
        let uuid = r.text()
        return ResponseFacts(
            fileId: file == 0 ? chunkFile : file, line: line, receivedAtMs: received, status: status, environment: environment,
            receiptType: receiptType, isRetryable: retryable, bundleId: bundle, source: source, signature: signature,
            signatureCode: signature.map { SignatureCode(bytes.bytes($0)) } ?? .notChecked, signedDateMs: signed,
            notificationType: type, notificationUUID: uuid, encoded: start..<r.at)
    }

    var key: UInt64 { recordKey(fileId, line) }

    /// Apple's word on the environment (SEMANTICS rule 2): `environment`, else `receipt_type`
    /// (`…Sandbox` means Sandbox); a 21007 is a sandbox answer.
    func effectiveEnvironment(_ bytes: PartitionBytes) -> EnvironmentName {
        if status == 21007 { return EnvironmentName(.sandbox) }
        if let environment { return EnvironmentName(normalizing: environment, bytes) }
        guard let receiptType else { return EnvironmentName(.none) }
        let b = bytes.bytes(receiptType)
        if b.count >= 7 && b[(b.count - 7)...].elementsEqual("Sandbox".utf8) { return EnvironmentName(.sandbox) }
        if b.count >= 10 && b[..<10].elementsEqual("Production".utf8) { return EnvironmentName(.production) }
        return EnvironmentName(normalizing: receiptType, bytes)
    }
}

/// One purchase listed by an Apple record (the "item" of `FactKind`), read in place.
struct ItemFacts {
    var id: FactId
    var originalId: FactId?
    var productId: FactText?
    var purchaseDateMs: Int64?
    var cancellationDateMs: Int64?
    var cancellationReason: FactText?
    var revocationType: FactText?
    var revocationPercentage: Int64?
    var environment: FactText?
    var ownership: FactText?
    var bundleId: FactText?
    var signatureCode: SignatureCode
    var signedDateMs: Int64?
    /// The encoded item.
    var encoded: Range<Int>

    static func read(_ r: inout FactReader, _ bytes: PartitionBytes) -> ItemFacts {
        let start = r.at
        let id = r.id()!
        let original = r.id()
        let product = r.text()
        let purchase = r.optionalInt()
        let cancellation = r.optionalInt()
        let reason = r.text()
        let revocation = r.text()
        let percentage = r.optionalInt()
        let environment = r.text()
        let ownership = r.text()
        let bundle = r.text()
        let signature = r.text()
        let signed = r.optionalInt()
        return ItemFacts(
            id: id, originalId: original, productId: product, purchaseDateMs: purchase, cancellationDateMs: cancellation,
            cancellationReason: reason, revocationType: revocation, revocationPercentage: percentage, environment: environment,
            ownership: ownership, bundleId: bundle, signatureCode: signature.map { SignatureCode(bytes.bytes($0)) } ?? .notChecked,
            signedDateMs: signed, encoded: start..<r.at)
    }
}

/// An environment as the rules compare it: Apple's spellings (`Environment.normalized`) or a raw value.
struct EnvironmentName {
    enum Code: UInt8 { case none, sandbox, production, xcode, localTesting, other }
    var code: Code
    /// The raw text for `.other`.
    var raw: FactText? = nil

    init(_ code: Code) { self.code = code }

    /// `Environment.normalized`: any capitalization of Sandbox, Production (or PROD), Xcode, LocalTesting.
    init(normalizing t: FactText, _ bytes: PartitionBytes) {
        let b = bytes.bytes(t)
        func isLower(_ word: StaticString) -> Bool {
            guard b.count == word.utf8CodeUnitCount else { return false }
            for i in 0..<b.count where (b[i] >= 0x41 && b[i] <= 0x5A ? b[i] | 0x20 : b[i]) != word.utf8Start[i] { return false }
            return true
        }
        if isLower("production") || isLower("prod") {
            code = .production
        } else if isLower("sandbox") {
            code = .sandbox
        } else if isLower("xcode") {
            code = .xcode
        } else if isLower("localtesting") {
            code = .localTesting
        } else {
            code = .other
            raw = t
        }
    }

    /// Apple said something (nil: it said nothing).
    var isKnown: Bool { code != .none }

    /// Any value but Production (nil, Apple saying nothing, is not a sandbox answer).
    var isSandbox: Bool { code != .none && code != .production }

    func name(_ bytes: PartitionBytes) -> String? {
        switch code {
        case .none: return nil
        case .sandbox: return "Sandbox"
        case .production: return "Production"
        case .xcode: return "Xcode"
        case .localTesting: return "LocalTesting"
        case .other: return bytes.string(raw)
        }
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

    /// Appends stored bytes of this buffer to a writer.
    func copy(_ range: Range<Int>, _ w: inout FactWriter) {
        w.bytes.append(contentsOf: UnsafeBufferPointer(start: base + range.lowerBound, count: range.count))
    }
}
