import Foundation
import IAPAuditModel

/// What `trace --user U …` prints (text, JSON) and writes (`trace-search-<U>.xlsx`): the user's purchases that
/// match what the customer knows, nearest first, each with its verdict in a few words and the command tracing it.
package enum TraceSearchOutput {
    /// - Parameter tail: the options a command tracing a candidate repeats (`--out DIR`, `--ledger FILE`), with a
    ///   leading space; empty for the default folder.
    package static func text(_ r: TraceSearchResult, tail: String, workbookPath: String? = nil) -> String {
        var lines = ["trace --user \(TraceOutput.shown(r.request.userId)): \(searched(r))"]
        lines.append("ledger \(r.traced.ledgerPath)" + (r.traced.asOfMs.map { ", as of \(Timestamp.iso($0))" } ?? ""))
        lines += r.traced.notes
        if r.candidates.isEmpty {
            lines.append(
                r.purchasesOfUser == 0
                    ? "no purchase: no client report, server request or Apple record answering one names this user"
                    : "no purchase matches: the user has \(r.purchasesOfUser) purchase(s); "
                        + (r.request.atMs == nil ? "" : "widen --within (or move --at), or ") + "leave out --product or --price")
        } else {
            let shown = r.candidates.count + r.more
            lines.append("\(shown) candidate\(shown == 1 ? "" : "s") of \(r.purchasesOfUser) purchase(s) of the user, " + order(r) + ":")
        }
        for (c, t) in zip(r.candidates, r.traced.transactions) {
            let price =
                c.priceMilliunits.map { "  " + Money(milliunits: $0, currency: c.currency ?? "").description }
                ?? (r.request.priceMilliunits == nil ? "" : "  price unknown")
            lines.append(
                "  \(c.transactionId)  \(c.productId ?? "product unknown")  \(c.purchaseMs.map(Timestamp.iso) ?? "date unknown")  "
                    + "quantity \(c.quantity.map(String.init) ?? "unknown")\(price)"
                    + (c.distanceMs.map { "  (\(duration($0)) from --at)" } ?? ""))
            lines.append("    \(verdictWords(t))")
            lines.append("    iap-audit trace \(command(c.transactionId))\(tail)")
        }
        if r.priceUnknown > 0 {
            lines.append("\(r.priceUnknown) kept without a known price (no verified signed transaction gives it): check them by hand")
        }
        if r.more > 0 {
            lines.append("and \(r.more) more: narrow with --product, --at with a shorter --within, or --price")
        }
        if let workbookPath { lines += ["", "Wrote \(workbookPath)"] }
        return lines.map(\.controlCharactersEscaped).joined(separator: "\n")
    }

    /// The filters in words: `product com.example.gems980, 2026-10-23T05:30:00Z ± 6h, price 9.99`.
    static func searched(_ r: TraceSearchResult) -> String {
        var parts = ["user \(r.request.userId)"]
        if let p = r.request.productId { parts.append("product \(p)") }
        if let at = r.request.atMs { parts.append("\(Timestamp.iso(at)) ± \(duration(r.request.withinMs))") }
        if let price = r.request.priceMilliunits { parts.append("price \(Money.decimal(price, digits: 2))") }
        return "searched " + parts.joined(separator: ", ")
    }

    private static func order(_ r: TraceSearchResult) -> String {
        r.request.atMs == nil ? "newest first" : "nearest to --at first"
    }

    /// A candidate's id as a command argument: with `--exact` when `trace` would take it for a mangled id.
    static func command(_ id: String) -> String {
        TraceMangledId.recognise(id) == nil ? id : "--exact \(id)"
    }

    /// The verdict in a few words: `no action; Apple confirms the payment; credited to u1`.
    static func verdictWords(_ t: TransactionTrace) -> String {
        guard let v = t.verdict else { return "not judged" }
        let apple: String
        switch v.apple {
        case .confirmed: apple = "Apple confirms the payment"
        case .refunded: apple = "Apple confirms the payment and refunded it"
        case .notConfirmed: apple = "Apple does not confirm the payment"
        }
        // A credit by hand (`iap-audit resolve`) is a credit: "not credited" beside it invites a second one (found by a
        // support user test).
        let byHand = t.manualActions.filter { $0.kind == .credited }.map { "credited by hand by \($0.by) (manual action #\($0.actionId))" }
        let credits =
            (v.credits.isEmpty ? [] : ["credited \(v.credits.count)×"]) + byHand
        let credited = credits.isEmpty ? "not credited" : credits.joined(separator: ", ")
        let findings = t.findings.isEmpty ? "" : "; " + t.findings.map { "\($0.kind.rawValue)/\($0.reason)" }.joined(separator: ", ")
        return "\(v.action.rawValue.replacingOccurrences(of: "_", with: " ")); \(apple); \(credited)\(findings)"
    }

    /// `6h`, `30m`, `1d 2h`, `45s`.
    static func duration(_ ms: Int64) -> String {
        let s = ms / 1000
        let parts: [(Int64, String)] = [(s / 86_400, "d"), (s % 86_400 / 3600, "h"), (s % 3600 / 60, "m"), (s % 60, "s")]
        let shown = parts.filter { $0.0 > 0 }.map { "\($0.0)\($0.1)" }
        return shown.isEmpty ? "0s" : shown.joined(separator: " ")
    }

    // MARK: JSON

    /// `{"search": {...}, "candidates": [{"transaction_id", "product_id", "purchase_ms", "quantity", "verdict", "distance_ms",
    /// "price_milliunits", "currency", "command"}], "more": N, ...}`.
    package static func json(_ r: TraceSearchResult, tail: String, workbookPath: String? = nil) -> String {
        let null = NSNull() as Any
        let search: [String: Any] = [
            "user_id": r.request.userId, "product_id": r.request.productId ?? null, "at_ms": r.request.atMs ?? null,
            "at": r.request.atMs.map(Timestamp.iso) ?? null, "within_ms": r.request.withinMs,
            "price_milliunits": r.request.priceMilliunits ?? null,
        ]
        let candidates: [[String: Any]] = zip(r.candidates, r.traced.transactions).map { c, t in
            [
                "transaction_id": c.transactionId, "product_id": c.productId ?? null, "purchase_ms": c.purchaseMs ?? null,
                "purchase_date": c.purchaseMs.map(Timestamp.iso) ?? null, "quantity": c.quantity ?? null,
                "price_milliunits": c.priceMilliunits ?? null, "currency": c.currency ?? null, "distance_ms": c.distanceMs ?? null,
                "verdict": verdictObject(t), "command": "iap-audit trace \(command(c.transactionId))\(tail)",
            ]
        }
        var object: [String: Any] = [
            "search": search, "candidates": candidates, "more": r.more, "purchases_of_user": r.purchasesOfUser,
            "price_unknown": r.priceUnknown, "ledger": r.traced.ledgerPath, "as_of": r.traced.asOfMs.map(Timestamp.iso) ?? null,
            "notes": r.traced.notes,
        ]
        if let workbookPath { object["xlsx"] = workbookPath }
        return JSONText.encode(object)
    }

    static func verdictObject(_ t: TransactionTrace) -> Any {
        guard let v = t.verdict else { return NSNull() }
        return [
            "apple": v.apple.code, "credits": v.credits.count, "next_action": ["code": v.action.rawValue, "text": v.nextAction],
            "findings": t.findings.map { "\($0.kind.rawValue)/\($0.reason)" }, "words": verdictWords(t),
        ] as [String: Any]
    }

    // MARK: Workbook

    /// One sheet, Candidates: the search, then one row per candidate.
    package static func workbook(_ r: TraceSearchResult, tail: String) -> ReportWorkbook {
        let rows: [[ReportCell]] = zip(r.candidates, r.traced.transactions).map { c, t in
            [
                .text(c.transactionId), .text(c.productId ?? ""), c.purchaseMs.map(ReportCell.dateTime) ?? .empty,
                c.quantity.map { .integer(Int64($0)) } ?? .empty, .text(c.priceMilliunits.map { Money.decimal($0, digits: 2) } ?? ""),
                .text(c.currency ?? ""), .text(verdictWords(t)), .text("iap-audit trace \(command(c.transactionId))\(tail)"),
            ]
        }
        let about: [[ReportCell]] = [
            [.text("search"), .text(searched(r))], [.text("ledger"), .text(r.traced.ledgerPath)],
            [.text("purchases of the user"), .integer(Int64(r.purchasesOfUser))], [.text("more"), .integer(Int64(r.more))],
        ]
        return ReportWorkbook(sheets: [
            ReportSheet(
                name: "Candidates",
                tables: [
                    ReportTable(title: "Search", header: ["", ""], rows: about),
                    ReportTable(
                        header: ["transaction_id", "product_id", "purchase date", "quantity", "price", "currency", "verdict", "command"],
                        rows: rows),
                ])
        ])
    }
}
