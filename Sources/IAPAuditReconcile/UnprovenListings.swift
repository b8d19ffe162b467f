import IAPAuditModel

/// Apple listings below the trust level the rules need (`TrustLevel.needed`; docs/security.md, "Trust levels"),
/// counted per file as the transaction stage reads them: they change no finding, so the run says they were there
/// (warnings `signature_failed` and `unproven_records`). A listing is one transaction as one Apple record lists it
/// (a page of ten forged transactions is ten listings); a re-delivered notification is not counted again.
package struct UnprovenListings: Sendable {
    /// One file's unproven listings of one level.
    package struct Count: Sendable, Equatable {
        /// How many listings.
        package var listings: Int64 = 0
        /// How many of them are of a record that names a request the server log has (`Listing.linked`) and still answers
        /// it (docs/security.md, "Trust levels"): an unverified one (a posted iOS 6 transaction receipt), or a failed item
        /// of an unsigned answer (a Server API page, which answers as it would without the item).
        package var answering: Int64 = 0
        /// The first in ledger order: its record's line and why it proves nothing (its signature as stored and its
        /// source, e.g. `invalid:unsupported_alg:none, signed_transaction`).
        package var first: (order: UInt64, line: UInt32, why: String)? = nil

        mutating func add(order: UInt64, line: UInt32, answering: Bool = false, why: @autoclosure () -> String) {
            listings += 1
            if answering { self.answering += 1 }
            if first.map({ order < $0.order }) ?? true { first = (order, line, why()) }
        }

        mutating func merge(_ other: Count) {
            listings += other.listings
            answering += other.answering
            if let o = other.first, first.map({ o.order < $0.order }) ?? true { first = o }
        }

        package static func == (a: Count, b: Count) -> Bool {
            a.listings == b.listings && a.answering == b.answering && a.first?.order == b.first?.order && a.first?.why == b.first?.why
        }
    }

    /// Per file id: listings whose signature failed, and listings of a signed format given unsigned.
    package var failed: [UInt32: Count] = [:]
    package var unverified: [UInt32: Count] = [:]

    package init() {}

    /// Counts the partition's listings below `TrustLevel.needed`: by their own signature, and a notification V2's also
    /// by its envelope's (a genuine transaction inside a forged notification is counted: its notification proves nothing).
    mutating func add(_ c: ReconcileContext) {
        for l in c.facts.listings {
            switch Self.level(l, c) {
            case .failed:
                // An item of an unsigned answer (a Server API page) to a logged request: the answer still answers it.
                failed[l.fact.fileId, default: Count()].add(
                    order: l.order, line: l.fact.line, answering: l.linked && !l.fact.source.isSigned, why: Self.why(l, c))
            case .unverified:
                unverified[l.fact.fileId, default: Count()].add(
                    order: l.order, line: l.fact.line, answering: l.linked, why: Self.why(l, c))
            default: continue
            }
        }
    }

    mutating func merge(_ other: UnprovenListings) {
        for (file, count) in other.failed { failed[file, default: Count()].merge(count) }
        for (file, count) in other.unverified { unverified[file, default: Count()].merge(count) }
    }

    /// The listing's level, a notification V2's envelope's when lower.
    @inline(__always)
    static func level(_ l: TransactionFacts.Listing, _ c: ReconcileContext) -> TrustLevel {
        let own = c.trust(l)
        return l.fact.source == .notificationV2 ? min(own, TrustLevel(source: l.fact.source, signature: l.fact.signature)) : own
    }

    /// The signature that makes it unproven as stored (the listing's own, else its notification's), and its record's source.
    static func why(_ l: TransactionFacts.Listing, _ c: ReconcileContext) -> String {
        let f = l.fact
        let signature: String
        if c.trust(l).counts {
            signature = f.signatureText(c.facts.bytes)
        } else {
            switch f.itemSignature {
            case .verified: signature = "verified"
            case .notChecked: signature = "not_checked"
            case .untrustedRoot: signature = "untrusted_root"
            case .invalid: signature = "invalid:" + (c.facts.bytes.string(f.itemSignatureReason) ?? "")
            }
        }
        return "\(signature), \(f.source.rawValue)"
    }

    var isEmpty: Bool { failed.isEmpty && unverified.isEmpty }
}
