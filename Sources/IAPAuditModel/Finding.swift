import Foundation
/// The kinds' order and groups (the enum itself is generated from `findingKindDeclarations`).
extension FindingKind: Comparable {
    /// The problem kinds, in table order: every kind whose severity is not `info`.
    public static let problems: [FindingKind] = allCases.filter { $0.severity != .info }
    /// Info observations: never counted among the problems.
    public static let infos: [FindingKind] = allCases.filter { $0.severity == .info }

    public var isInfo: Bool { severity == .info }

    public static func < (a: FindingKind, b: FindingKind) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// The shape of a finding fact's value (`FindingField.shape`).
public enum FindingFieldShape: String, Sendable {
    case text, texts, optionalTexts, integer, objects
}

public enum Severity: String, Sendable {
    case error, warning, info
}

/// semantics.md rule 22: whether Apple confirms the payment of a dropped order.
public enum AppleConfirmation: String, Sendable, Hashable, CaseIterable {
    /// A production Apple record that proves payment (status 0, or 21006 listing it; a verified JWS,
    /// notification or receipt) lists the transaction unrefunded; that record is in the evidence.
    case confirmed
    /// Apple's records that prove the payment all show it refunded (no money held); one is in the evidence.
    case refunded
    /// No Apple record proves the payment: only the client (or the server's logs) say it was paid.
    case claimed
    /// Asked by the id (Get Transaction Info, `iap-audit ask-apple`), Apple's production answered it has no such
    /// transaction (4040010) or that the id is invalid (4000006), and no record proves the payment (rule 25); that answer is
    /// in the evidence and the `apple_not_found` fact.
    case notFound = "not_found"
}

/// One reconciliation result: a problem or an info observation about one transaction.
public struct Finding: Hashable, Sendable {
    /// Made an info kind (rule 23 settles a refund as superseded), the finding is no loss: `lossAtMs` is cleared.
    public var kind: FindingKind { didSet { if !kind.isLoss { lossAtMs = nil } } }
    public var reason: String
    public var transactionId: String
    public var originalTransactionId: String?
    public var productId: String?
    /// Users involved (granted, or the reporting user), sorted.
    public var userIds: [String]
    public var environment: String?
    /// Earliest timestamp among the records involved, milliseconds since 1970 UTC.
    public var firstSeenMs: Int64?
    /// When the loss happened, milliseconds since 1970 UTC: the date a close books it by (FINANCE.md: in the
    /// period it happens). The refund of a `refund_still_granted` (or when the holding began, if later), the
    /// second credit of a `duplicate_credit`, the first grant without proof of an `invalid_credit`, the first sandbox
    /// credit of a `sandbox_leak`, the purchase's date of a `dropped_order` (`revoked_while_paid` included) as rule 17
    /// dates it for the window it is judged in (the client's earliest `purchased` report, else Apple's purchase date);
    /// else `firstSeenMs`. Nil unless `kind.isLoss`.
    public var lossAtMs: Int64?
    /// file:line of every record involved, sorted.
    public var evidence: [SourceLocation]
    /// The finding in one sentence, made from its facts (`FindingSentence`): for people; programs read `facts`.
    public var detail: String
    /// What the rule found, as data (`FindingField`s): requests, grants, statuses, dates, quantities.
    public var facts: FindingFacts
    /// `dropped_order` only (rule 22): confirmed by Apple, or claimed by the client alone; nil otherwise.
    public var appleConfirmation: AppleConfirmation?

    public var severity: Severity { kind.severity }
    /// The kind and reason as the declared value; nil for a reason this version does not declare (a ledger of a newer one).
    public var cause: FindingReason? { FindingReason(kind: kind, name: reason) }

    public init(
        kind: FindingKind, reason: String, transactionId: String, originalTransactionId: String? = nil,
        productId: String? = nil, userIds: [String] = [], environment: String? = nil,
        firstSeenMs: Int64? = nil, lossAtMs: Int64? = nil, evidence: [SourceLocation] = [], detail: String = "",
        facts: FindingFacts = FindingFacts(), appleConfirmation: AppleConfirmation? = nil
    ) {
        self.kind = kind
        self.reason = reason
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.productId = productId
        self.userIds = ExactText.distinctSorted(userIds)
        self.environment = environment
        self.firstSeenMs = firstSeenMs
        self.lossAtMs = kind.isLoss ? lossAtMs ?? firstSeenMs : nil
        self.evidence = Array(Set(evidence)).sorted()
        self.detail = detail
        self.facts = facts
        self.appleConfirmation = appleConfirmation
    }
}

/// Text compared as its exact bytes (semantics.md rule 1: ids are exact text). Swift's `String ==` treats
/// canonically equivalent strings as equal (`é` and `e` + U+0301), which would merge two users.
public struct ExactText: Hashable, Sendable {
    public let text: String

    public init(_ text: String) { self.text = text }

    public static func == (a: ExactText, b: ExactText) -> Bool {
        guard a.text.utf8.count == b.text.utf8.count else { return false }
        // Contiguous UTF-8 (every native string): one memcmp instead of a byte at a time.
        let equal = a.text.utf8.withContiguousStorageIfAvailable { x in
            b.text.utf8.withContiguousStorageIfAvailable { y in x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 }
        }
        return (equal ?? nil) ?? a.text.utf8.elementsEqual(b.text.utf8)
    }

    public func hash(into hasher: inout Hasher) {
        // The bytes at once (the same value whether the string's storage is contiguous or not).
        if let done: Void = text.utf8.withContiguousStorageIfAvailable({ hasher.combine(bytes: UnsafeRawBufferPointer($0)) }) {
            return done
        }
        Array(text.utf8).withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    /// `texts` without repeats (exact bytes), in byte order.
    public static func distinctSorted(_ texts: [String]) -> [String] {
        var seen = Set<ExactText>()
        return texts.filter { seen.insert(ExactText($0)).inserted }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }
}
