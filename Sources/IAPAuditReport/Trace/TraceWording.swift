import Foundation
import IAPAuditModel

/// What one record on a trace's timeline says, in one line of words (the text, the JSON's `says` and the
/// workbook's Timeline column): granted or not, credited ids, status and its meaning, environment,
/// refund or revocation, price.
package enum TraceWording {
    package static func says(_ event: TraceEvent) -> String {
        switch event.detail {
        case .client(let c): return client(c)
        case .request(let r): return request(r)
        case .apple(let a): return apple(a, source: event.source)
        }
    }

    /// One credit the verdict says delivered, as the JSON's `verdict.delivered` holds it: `user_id`, `request_id`,
    /// `credited_ms` (UTC ms), `quantity` and `quantity_source` (`credited_quantity`, `apple`, `client`; null when unknown).
    package static func delivered(_ c: TraceCredit) -> [String: Any] {
        let null = NSNull() as Any
        return [
            "user_id": c.userId ?? null, "request_id": c.requestId, "credited_ms": c.timeMs ?? null, "quantity": c.quantity ?? null,
            "quantity_source": c.quantitySource ?? null,
        ]
    }

    /// Ids as a list: at most five, then how many more.
    static func ids(_ ids: [String]) -> String {
        ids.prefix(5).joined(separator: ", ") + (ids.count > 5 ? " and \(ids.count - 5) more" : "")
    }

    static func client(_ c: TraceClientReport) -> String {
        var text = "client: \(c.state)"
        if let product = c.productId { text += " \(product)" }
        if let q = c.quantity, q != 1 { text += " ×\(q)" }
        if let code = c.errorCode { text += ", error_code \(code)\(code == 2 ? " (cancelled)" : "")" }
        if c.transactionId == nil { text += ", no transaction id" }
        let who = [c.userId.map { "user \($0)" }, c.deviceId.map { "device \($0)" }].compactMap { $0 }
        return text + (who.isEmpty ? "" : " (\(who.joined(separator: ", ")))")
    }

    static func request(_ r: TraceRequest) -> String {
        var text = "\(r.event) \(r.requestId)" + (r.userId.map { " by \($0)" } ?? "")
        if r.event == "revoke" { return text + ": took back \(ids(r.postedIds))" }
        text += r.restore ? ": restore posted " : ": posted "
        switch r.relation {
        case .posted: text += ids(r.postedIds)
        case .postedOriginal: text += "\(ids(r.postedIds)) (its original id, standing for it)"
        case .postedForAnother: text += "\(ids(r.postedIds)) (standing for \(r.standsFor ?? "another transaction"))"
        case .answerLists: text += "\(ids(r.postedIds)) (another transaction; Apple's answer lists this one too)"
        }
        if r.granted {
            text += "; granted" + (r.creditedIds.map { ", credited \(ids($0))" } ?? "")
            if r.creditsTransaction { text += "; credited it, " + TraceCredit.quantityWords(r.creditedQuantity, source: r.quantitySource) }
        } else {
            text += "; not granted"
        }
        text += r.loggedStatus.map { "; logged status \($0) (\(VerifyStatus.meaning($0)))" } ?? "; no status logged"
        if let environment = r.environment { text += ", \(environment)" }
        return text + (r.latencyMs.map { ", \($0) ms" } ?? "")
    }

    static func apple(_ a: TraceAppleRecord, source: String) -> String {
        var head = name(a, source: source) + (a.requestId.map { " to request \($0)" } ?? "") + ":"
        if let status = a.orderStatus, a.listing == nil { return head + " status \(status), invalid order id; lists no transaction" }
        var parts: [String] = []
        if source == EvidenceSource.verifyReceipt.rawValue || a.status != 0 {
            parts.append("status \(a.status) (\(VerifyStatus.meaning(a.status)))")
        }
        if let environment = a.listing?.environment ?? a.environment ?? a.receiptType { parts.append(environment) }
        guard let l = a.listing else {
            parts.append("does not list it" + (a.receiptCreatedMs.map { " (receipt created \(Timestamp.iso($0)))" } ?? ""))
            return head + " " + parts.joined(separator: ", ")
        }
        parts.append("lists it (\(l.sections))")
        if let ms = l.purchaseMs { parts.append("purchased \(Timestamp.iso(ms))") }
        if let product = l.productId { parts.append(product + (l.quantity.map { $0 == 1 ? "" : " ×\($0)" } ?? "")) }
        if let price = l.price { parts.append("\(price)") }
        if let ms = l.expiresMs { parts.append("expires \(Timestamp.iso(ms))") }
        if let ms = l.cancellationMs {
            let percent = l.revocationPercentage.map { " \(Double($0) / 1000)%" } ?? ""
            parts.append("refunded \(Timestamp.iso(ms))" + (l.revocationType.map { " (\($0)\(percent))" } ?? ""))
        }
        parts.append("signature \(l.signature)")
        head += " " + parts.joined(separator: ", ")
        // Below the trust level the rules need (docs/security.md, "Trust levels"): shown, never read by the verdict.
        if !TrustLevel.of(source: source, signature: l.signature).counts {
            return head + "; unproven (\(l.signature), \(source)): proves nothing, the verdict ignores it"
        }
        // An unsigned answer no logged request asked for: read, but its fields yield to a stronger listing's.
        let unlinked =
            !a.linked && TrustLevel.of(source: source, signature: l.signature) == .appleAnswerLogged
            ? "; apple_answer_unlinked: no logged request asked for it, a stronger listing's date wins" : ""
        return head + unlinked + (l.evidence.provesPayment() ? "; proves the payment" : "; proves no payment: \(l.whyNoProof)")
    }

    /// Where a finding stands across runs, in words: `open since run 1`, `acknowledged on <time>: <note>
    /// (since run 1)`, `resolved in run 3 (<time>) by server.jsonl:88`, `expired in run 2: …`.
    package static func state(_ s: FindingState) -> String {
        switch s.status {
        case .open: return "open since run \(s.firstSeenRun)"
        case .acknowledged:
            let when = s.acknowledgedAtMs.map { " on " + Timestamp.iso($0) } ?? ""
            return "acknowledged\(when)" + (s.note.map { ": \($0)" } ?? "") + " (since run \(s.firstSeenRun))"
        case .resolved:
            let run = s.resolvedRun.map { " in run \($0)" } ?? ""
            let when = s.resolvedAtMs.map { " (\(Timestamp.iso($0)))" } ?? ""
            return "resolved\(run)\(when)" + (s.resolvedEvidence.isEmpty ? ", no new record of it" : " by " + ids(s.resolvedEvidence))
        case .expired:
            let run = s.resolvedRun.map { " in run \($0)" } ?? ""
            return "expired\(run): its grace ran out with no new record of it"
        }
    }

    /// The kind of Apple record, in words.
    static func name(_ a: TraceAppleRecord, source: String) -> String {
        switch EvidenceSource(rawValue: source) {
        case .verifyReceipt?: return "Apple verifyReceipt answer"
        case .serverAPI?:
            let entry = [a.notificationType, a.notificationSubtype].compactMap { $0 }.joined(separator: "/")
            return (a.orderId.map { "Apple Look Up Order ID \($0)" } ?? "Apple Server API response")
                + (entry.isEmpty ? "" : " (notification \(entry))")
        case .signedTransaction?: return "Apple signed transaction"
        case .notificationV2?, .notificationV1?:
            let type = [a.notificationType, a.notificationSubtype].compactMap { $0 }.joined(separator: "/")
            return "Apple notification \(type)"
        case .appReceipt?: return "app receipt"
        case .transactionReceipt?: return "iOS 6 transaction receipt"
        default: return "Apple \(source)"
        }
    }
}
