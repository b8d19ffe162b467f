import IAPAuditModel

/// What the rules ask of an Apple record's facts.
extension LinkedResponseFact {
    /// `recordKey` of the Apple record.
    var key: UInt64 { recordKey(fileId, line) }

    /// The record's environment as Apple named it (effective), or nil.
    func environmentName(_ bytes: PartitionBytes) -> String? { environment.name ?? bytes.string(environmentRaw) }
}

extension ListingFact {
    /// `recordKey` of the Apple record.
    var key: UInt64 { recordKey(fileId, line) }

    /// The record's environment as Apple named it (effective), or nil.
    func environmentName(_ bytes: PartitionBytes) -> String? { environment.name ?? bytes.string(environmentRaw) }

    /// The record's stored signature text (`SignatureStatus.text`).
    func signatureText(_ bytes: PartitionBytes) -> String {
        switch signature {
        case .verified: return "verified"
        case .notChecked: return "not_checked"
        case .untrustedRoot: return "untrusted_root"
        case .invalid: return "invalid:" + (bytes.string(signatureReason) ?? "")
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

    /// An id read from this buffer, as a fact writer takes it.
    @inline(__always) func input(_ id: FactId) -> FactIdInput {
        switch id {
        case .number(let n): return .number(n)
        case .text(let t): return .bytes(bytes(t))
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
