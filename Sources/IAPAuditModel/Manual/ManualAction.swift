import Foundation

/// What a person did about a purchase, recorded with `iap-audit resolve` (table `manual_action`, never updated or
/// deleted): evidence the next run reads (docs/semantics.md rule 25), shown in every timeline.
public struct ManualAction: Hashable, Sendable {
    /// What was done.
    public enum Kind: String, Sendable, CaseIterable {
        /// The customer was credited by hand (a dropped order closed).
        case credited
        /// The claim was refused (Apple does not confirm it).
        case refused
        /// A credit was taken back by hand.
        case revoked
        /// The customer was paid back outside the App Store (a dropped order closed, nothing to credit).
        case refunded
    }

    /// Its number in `manual_action` (0 before it is recorded).
    public var actionId: Int64
    public var transactionId: String
    public var kind: Kind
    /// Units credited or taken back; nil when not said.
    public var quantity: Int64?
    /// The account acted on; nil when not said.
    public var userId: String?
    /// Who did it (`--by`).
    public var by: String
    public var note: String
    /// When it was done, ms since 1970 UTC (`--at`, else when recorded).
    public var atMs: Int64
    /// When it was recorded, ms since 1970 UTC.
    public var recordedAtMs: Int64

    public init(
        actionId: Int64 = 0, transactionId: String, kind: Kind, quantity: Int64? = nil, userId: String? = nil, by: String,
        note: String, atMs: Int64, recordedAtMs: Int64
    ) {
        (self.actionId, self.transactionId, self.kind, self.quantity, self.userId) = (actionId, transactionId, kind, quantity, userId)
        (self.by, self.note, self.atMs, self.recordedAtMs) = (by, note, atMs, recordedAtMs)
    }

    /// One line for people: `credited by hand (quantity 2, to u1) by ana on 2026-10-24T09:12:00.000Z: "the note"`.
    public var words: String {
        var what: String
        switch kind {
        case .credited: what = "credited by hand"
        case .refused: what = "claim refused"
        case .revoked: what = "credit taken back by hand"
        case .refunded: what = "paid back outside the App Store"
        }
        let parts = [quantity.map { "quantity \($0)" }, userId.map { (kind == .credited ? "to " : "of ") + $0 }].compactMap { $0 }
        if !parts.isEmpty { what += " (\(parts.joined(separator: ", ")))" }
        return "\(what) by \(by) on \(Timestamp.iso(atMs))" + (note.isEmpty ? "" : ": \"\(note)\"")
    }

    /// `manual action #3: ` and its `words`: how a finding's resolution and a timeline name it.
    public var named: String { "manual action #\(actionId): \(words)" }
}

/// Every manual action of the ledger, by transaction id: what the rules read (`AuditParameters.manual`), and the
/// line of the run's identity that makes a run after `iap-audit resolve` a new run.
public struct ManualActions: Sendable {
    public let byTransaction: [String: [ManualAction]]
    /// How many there are, and the newest number: `manual <count> <newest id>`; nil when none.
    public let identity: String?

    public init(_ actions: [ManualAction]) {
        byTransaction = Dictionary(grouping: actions, by: \.transactionId).mapValues { $0.sorted { $0.actionId < $1.actionId } }
        identity = actions.isEmpty ? nil : "manual \(actions.count) \(actions.map(\.actionId).max() ?? 0)"
    }

    public static let none = ManualActions([])

    public var isEmpty: Bool { byTransaction.isEmpty }

    /// The actions about `transactionId`, oldest first.
    public func about(_ transactionId: String) -> [ManualAction] { byTransaction[transactionId] ?? [] }
}
