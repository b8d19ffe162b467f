import IAPAuditModel

/// What judges an Apple listing (`PaymentEvidence`), as a row of `apple_transaction ⋈ apple_record` gives it.
struct ListingSignals {
    var recordId: Int64
    var status: Int64
    /// The record's `environment` and `receipt_type`.
    var environment: String?
    var receiptType: String?
    /// The record's `receipt_environment` (the receipt's own word, when it has one).
    var receiptEnvironment: String?
    /// `apple_record.source`.
    var source: String
    /// The record's bundle id, else the transaction's.
    var bundleId: String?
    /// The transaction's own signature, environment and `in_app_ownership_type`.
    var itemSignature: String
    var itemEnvironment: String?
    var ownership: String?
    var purchaseMs: Int64?
    var expiresMs: Int64?
}

/// Judges listings record by record (the close and `trace` read them so): rows come in record order, and
/// a record's listings come back with their evidence once the record is complete, its environment
/// conflict (rule 24) judged across all of them.
struct ListingEvidenceJudge<Item> {
    /// The config's bundle ids (empty: not checked).
    let bundleIds: Set<String>
    private var recordId: Int64 = -1
    private var record: [(item: Item, evidence: PaymentEvidence, purchaseMs: Int64?, expiresMs: Int64?)] = []
    private var signals: (environment: EnvironmentCode, sandboxType: Bool, receipt: EnvironmentCode, effective: EnvironmentCode) = (
        .none, false, .none, .none
    )

    init(bundleIds: Set<String>) { self.bundleIds = bundleIds }

    /// The evidence a listing holds until its record is judged.
    static var unjudged: PaymentEvidence {
        PaymentEvidence(
            status: 0, environment: .none, environmentConflict: false, isSigned: false, itemSignature: .notChecked, itemEnvironment: .none,
            familyShared: false, foreignBundle: false)
    }

    /// Adds one row; returns the listings of the record before it when this row starts another.
    mutating func add(_ s: ListingSignals, _ item: Item) -> [(Item, PaymentEvidence)] {
        var done: [(Item, PaymentEvidence)] = []
        if s.recordId != recordId {
            done = finish()
            recordId = s.recordId
            signals = (
                s.environment.map(Self.code) ?? .none, s.receiptType.map { $0.hasSuffix("Sandbox") } ?? false,
                s.receiptEnvironment.map(Self.code) ?? .none,
                Self.effective(status: s.status, environment: s.environment, receiptType: s.receiptType)
            )
        }
        let evidence = PaymentEvidence(
            status: s.status, environment: signals.effective, environmentConflict: false,
            isSigned: EvidenceSource(rawValue: s.source)?.isSigned ?? false, itemSignature: Self.signature(s.itemSignature),
            itemEnvironment: s.itemEnvironment.map(Self.code) ?? .none, familyShared: s.ownership == "FAMILY_SHARED",
            foreignBundle: !bundleIds.isEmpty && s.bundleId.map { !bundleIds.contains($0) } == true)
        record.append((item, evidence, s.purchaseMs, s.expiresMs))
        return done
    }

    /// The last record's listings (call once the rows are done).
    mutating func finish() -> [(Item, PaymentEvidence)] {
        let conflict = PaymentEvidence.environmentConflict(
            environment: signals.environment, receiptTypeIsSandbox: signals.sandboxType, receiptEnvironment: signals.receipt,
            effective: signals.effective,
            items: record.lazy.map { ($0.evidence.itemEnvironment, $0.purchaseMs, $0.expiresMs) })
        defer { record = [] }
        return record.map { entry in
            var evidence = entry.evidence
            evidence.environmentConflict = conflict
            return (entry.item, evidence)
        }
    }

    private static func code(_ text: String) -> EnvironmentCode {
        var text = text
        return text.withUTF8 { EnvironmentCode.normalizing($0) }
    }

    private static func signature(_ text: String) -> SignatureCode {
        var text = text
        return text.withUTF8 { SignatureCode($0) }
    }

    private static func effective(status: Int64, environment: String?, receiptType: String?) -> EnvironmentCode {
        var environment = environment
        var receiptType = receiptType
        func with<R>(_ s: inout String?, _ body: (UnsafeBufferPointer<UInt8>?) -> R) -> R {
            guard s != nil else { return body(nil) }
            return s!.withUTF8 { body($0) }
        }
        return with(&environment) { e in
            with(&receiptType) { t in EnvironmentCode.effective(status: status, environment: e, receiptType: t).0 }
        }
    }
}

/// `TrustLevel.counts` as SQL over `apple_transaction` and its `apple_record` (docs/security.md, "Trust levels"): the
/// listing's own signature verified, or not checked in a format Apple does not sign (a logged verifyReceipt answer,
/// a Server API body, a Notification V1 body). A failed signature, or a signed format given unsigned, does not count.
enum ListingTrustSQL {
    /// - Parameters:
    ///   - listing: the alias of `apple_transaction`.
    ///   - record: the alias of its `apple_record`.
    static func counts(listing t: String, record r: String) -> String {
        let unsigned = EvidenceSource.allCases.filter { !$0.isSigned }.map { "'\($0.rawValue)'" }.joined(separator: ", ")
        return "(\(t).signature = 'verified' OR (\(t).signature = 'not_checked' AND \(r).source IN (\(unsigned))))"
    }
}
