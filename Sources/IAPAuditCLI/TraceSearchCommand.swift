import Foundation
import IAPAuditModel
import IAPAuditPipeline
import IAPAuditReport

/// `iap-audit trace --user U [--product P] [--at TIME [--within DURATION]] [--price AMOUNT]`: the purchase a customer
/// describes, found without its id (`TracePipeline.search`).
enum TraceSearchCommand {
    static let usage = TraceCommand.usage

    /// Exit status: 0 candidates listed, 2 none (the output says what was searched).
    static func execute(_ args: ArgumentReader, out: (String) -> Void, err: (String) -> Void) throws -> Int32 {
        let request = try self.request(args)
        let (format, ledger, folder) = try TraceCommand.output(args)
        if args.has("--redact-ledger") || args.has("--exact") {
            throw UsageError(
                message: args.has("--exact") ? "--exact traces an ID as given: give it an ID, not --user" : "--redact-ledger is run's",
                usage: usage, command: "trace")
        }
        let redaction = try RunCommand.redaction(args, usage: usage, command: "trace")
        let tail = self.tail(args)
        let outcome = try TracePipeline.search(
            request, ledgerPath: ledger, workbookFolder: folder, redaction: redaction, tail: tail,
            onWait: { err("iap-audit: " + $0) })
        if let note = outcome.indexNote { err("iap-audit: " + RunSummary.printable(note)) }
        if format == "json" {
            out(TraceSearchOutput.json(outcome.result, tail: tail, workbookPath: outcome.workbookPath))
        } else {
            out(printable(TraceSearchOutput.text(outcome.result, tail: tail, workbookPath: outcome.workbookPath)))
        }
        return outcome.result.candidates.isEmpty ? TraceCommand.unknownIdStatus : 0
    }

    /// The search `args` give.
    /// - Throws: `UsageError`: an empty user, a time, duration or price that does not read.
    static func request(_ args: ArgumentReader) throws -> TraceSearchRequest {
        let user = args.value("--user") ?? ""
        guard !user.isEmpty else { throw UsageError(message: "--user: an empty user id names nobody", usage: usage, command: "trace") }
        var request = TraceSearchRequest(userId: user)
        request.productId = args.value("--product")
        if let at = args.value("--at") {
            guard let ms = atMs(at) else {
                throw UsageError(
                    message: "--at: expected an ISO-8601 time (2026-10-23T05:30:00Z) or YYYY-MM-DD HH:MM in UTC, not '\(at)'",
                    usage: usage, command: "trace")
            }
            request.atMs = ms
        }
        if let within = args.value("--within") {
            guard request.atMs != nil else { throw UsageError(message: "--within needs --at", usage: usage, command: "trace") }
            guard let ms = durationMs(within) else {
                throw UsageError(
                    message: "--within: expected a duration like 30m, 2h or 1d, not '\(within)'", usage: usage, command: "trace")
            }
            request.withinMs = ms
        }
        if let price = args.value("--price") {
            guard let milliunits = try? Money.milliunits(price), milliunits >= 0 else {
                throw UsageError(message: "--price: expected an amount like 9.99, not '\(price)'", usage: usage, command: "trace")
            }
            request.priceMilliunits = milliunits
        }
        return request
    }

    /// `--at`: ISO-8601 (seconds optional), `YYYY-MM-DD HH:MM`, read as UTC without a zone.
    static func atMs(_ text: String) -> Int64? {
        var s = text.trimmingCharacters(in: .whitespaces)
        let bytes = Array(s.utf8)
        guard bytes.count >= 16, bytes[4] == UInt8(ascii: "-"), bytes[13] == UInt8(ascii: ":") else { return nil }
        if bytes.count == 16 || bytes[16] != UInt8(ascii: ":") {
            s = String(decoding: bytes[..<16], as: UTF8.self) + ":00" + String(decoding: bytes[16...], as: UTF8.self)
        }
        return Timestamp.parseMs(s)
    }

    /// `45s`, `30m`, `2h`, `1d` in ms; nil for any other text.
    static func durationMs(_ text: String) -> Int64? {
        guard let unit = text.last, let n = Int64(text.dropLast()), n >= 0, n < 100_000 else { return nil }
        switch unit {
        case "s": return n * 1000
        case "m": return n * 60_000
        case "h": return n * 3_600_000
        case "d": return n * 86_400_000
        default: return nil
        }
    }

    /// The options a printed command repeats: ` --out DIR` or ` --ledger FILE` as given (quoted when needed), and
    /// ` --redact`.
    static func tail(_ args: ArgumentReader) -> String {
        var parts: [String] = []
        if let out = args.value("--out") { parts += ["--out", quoted(out)] }
        if let ledger = args.value("--ledger") { parts += ["--ledger", quoted(ledger)] }
        if args.has("--redact") { parts.append("--redact") }
        return parts.map { " " + $0 }.joined()
    }

    static func quoted(_ text: String) -> String {
        let plain = text.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || "/._-+,:=@".unicodeScalars.contains($0) }
        return plain ? text : "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// Each line of `text` printable (`RunSummary.printable`).
    static func printable(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { RunSummary.printable(String($0)) }.joined(separator: "\n")
    }
}
