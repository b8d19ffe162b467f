/// How an Apple listing is proven, weakest first (docs/security.md, "Trust levels"). A rule reads a listing only at
/// or above the level it needs (`TrustLevel.needed`); below it the listing is evidence for nothing: not for payment,
/// dates, the audit window, refunds, product types or which ids are one purchase. It is counted instead (run warnings
/// `signature_failed`, `unproven_records`).
///
/// Judged per listing from the record's source (`EvidenceSource`) and the listing's own signature (a page's or a
/// notification's nested JWS is checked on its own); a notification's own fields (REFUND_REVERSED) from the record's
/// signature, which is the worst of its parts.
package enum TrustLevel: UInt8, Comparable, CaseIterable, Sendable {
    /// A signature was checked and failed (`invalid:<reason>` or `untrusted_root`): an edited payload, `alg` other
    /// than ES256 (`none`), an unknown `crit` header, a chain to no configured anchor (self-made). Proves nothing.
    case failed
    /// A record Apple signs, given without its signature (`not_checked`): a decoded JWS payload or notification as
    /// plain JSON, an iOS 6 transaction receipt. Anyone could write it: proves nothing.
    case unverified
    /// An unsigned Apple answer no logged request links to (`not_checked`): a Notification V1 body (an inbound POST
    /// anyone can forge), a verifyReceipt answer or Server API body given bare or with a `request_id` the server log
    /// lacks. Judged only during reconciliation (`ReconcileContext.trust`: the `link` facts). The rules still read it
    /// (a V1 refund), but its fields never override a stronger listing's and its purchase date moves no purchase out
    /// of the window (`dating`).
    case appleAnswerUnlinked
    /// An unsigned Apple answer our server received (`not_checked`): a verifyReceipt answer it logged from its own TLS
    /// call, an App Store Server API body, linked to a request of the server log. As good as the server log that holds
    /// it. Made by `init` for every unsigned answer; `ReconcileContext.trust` lowers an unlinked one.
    case appleAnswerLogged
    /// A PKCS#7 app receipt verified to a configured receipt anchor (`verified`).
    case verifiedReceipt
    /// A JWS (transaction, renewal info, notification V2, Server API item) verified to a configured JWS anchor:
    /// ES256 by the leaf of its `x5c`, the chain and Apple's marker OIDs (`verified`).
    case verifiedChain

    /// The level every rule needs of an Apple listing (semantics.md rules 9, 12, 17–23; docs/security.md).
    package static let needed: TrustLevel = .appleAnswerUnlinked

    /// The level a listing needs for its purchase date to date a purchase for the audit window (semantics.md rule 17): an
    /// answer to a logged request, or a verified signature.
    package static let dating: TrustLevel = .appleAnswerLogged

    /// - Parameters:
    ///   - source: the record's format.
    ///   - signature: the listing's own signature (`apple_transaction.signature`), or the record's.
    @inline(__always)
    package init(source: EvidenceSource, signature: SignatureCode) {
        self.init(isSigned: source.isSigned, isReceipt: source == .appReceipt || source == .transactionReceipt, signature: signature)
    }

    /// - Parameters:
    ///   - isSigned: the record's format is one Apple signs (`EvidenceSource.isSigned`).
    ///   - isReceipt: an app or transaction receipt (PKCS#7), not a JWS.
    ///   - signature: the listing's own signature, or the record's.
    @inline(__always)
    package init(isSigned: Bool, isReceipt: Bool, signature: SignatureCode) {
        if signature.failed {
            self = .failed
        } else if signature == .verified {
            self = isReceipt ? .verifiedReceipt : .verifiedChain
        } else {
            self = isSigned ? .unverified : .appleAnswerLogged
        }
    }

    /// - Parameters:
    ///   - source: `apple_record.source` as stored (`signed_transaction`…); an unknown one is taken as unsigned.
    ///   - signature: the listing's own `apple_transaction.signature` (or the record's) as stored.
    package static func of(source: String, signature: String) -> TrustLevel {
        var signature = signature
        let code = signature.withUTF8 { SignatureCode($0) }
        let evidence = EvidenceSource(rawValue: source)
        return TrustLevel(
            isSigned: evidence?.isSigned ?? false, isReceipt: evidence == .appReceipt || evidence == .transactionReceipt, signature: code)
    }

    /// At or above `needed`: a listing the rules read.
    @inline(__always) package var counts: Bool { self >= Self.needed }

    /// The snake_case name (`verified_chain`, `apple_answer_logged`…).
    package var text: String {
        switch self {
        case .failed: return "failed"
        case .unverified: return "unverified"
        case .appleAnswerUnlinked: return "apple_answer_unlinked"
        case .appleAnswerLogged: return "apple_answer_logged"
        case .verifiedReceipt: return "verified_receipt"
        case .verifiedChain: return "verified_chain"
        }
    }

    package static func < (a: TrustLevel, b: TrustLevel) -> Bool { a.rawValue < b.rawValue }
}
