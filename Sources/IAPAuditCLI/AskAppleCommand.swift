import Foundation
import IAPAuditAppleAPI
import IAPAuditCrypto
import IAPAuditModel
import IAPAuditPipeline

/// `iap-audit ask-apple`: asks Apple's App Store Server API about the open claims only Apple can decide (findings whose
/// action is `ask_apple`), and ids given, and saves Apple's answers as evidence for the next run (docs/reference.md).
/// The tool's one call out; the key, the token and the Authorization header are never printed nor written.
enum AskAppleCommand: Subcommand {
    static let name = "ask-apple", help = HelpText.askApple
    static let usage =
        "iap-audit ask-apple --key FILE --key-id ID --issuer-id ID --bundle-id ID --evidence DIR [--out DIR | --ledger FILE] "
        + "[TRANSACTION_ID ...] [--order-id ORDER_ID ...] [--rate N] [--base-url URL] [--sandbox-base-url URL] [--json]"
    static let valuedOptions: Set<String> = [
        "--out", "--ledger", "--key", "--key-id", "--issuer-id", "--bundle-id", "--evidence", "--order-id", "--rate", "--base-url",
        "--sandbox-base-url",
    ]
    static let flags: Set<String> = ["--json", "-h", "--help"]
    static let repeatable: Set<String> = ["--order-id"]
    /// The environment variable setting the first retry's wait in ms (default 1000; the tests' is short).
    static let backoffVariable = "IAP_AUDIT_ASK_APPLE_BACKOFF_MS"

    static func execute(_ arguments: [String], out: (String) -> Void, err: (String) -> Void) throws -> Int32 {
        guard let args = try read(arguments, out: out) else { return 0 }
        func usageError(_ message: String) -> UsageError { UsageError(message: message, usage: usage, command: name) }
        var required: [String: String] = [:]
        for option in ["--key", "--key-id", "--issuer-id", "--bundle-id", "--evidence"] {
            guard let value = args.value(option), !value.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw usageError("\(option) is required")
            }
            required[option] = value
        }
        if args.value("--out") == "" || args.value("--ledger") == "" { throw usageError("an empty path (\"\") names no folder") }
        if args.value("--out") != nil && args.value("--ledger") != nil { throw usageError("give --out DIR or --ledger FILE, not both") }
        let ids = args.positionals, orderIds = args.values("--order-id")
        if let empty = (ids + orderIds).first(where: { $0.isEmpty || $0.contains(where: \.isWhitespace) }) {
            throw usageError("'\(empty)' is no id (an id has no spaces)")
        }
        let settings = try apiSettings(args, usageError)
        let key = try loadKey(required["--key"]!)
        // The ledger: --ledger, --out's, or reports/'s when no id is given.
        let readsLedger = args.value("--out") != nil || args.value("--ledger") != nil || (ids.isEmpty && orderIds.isEmpty)
        let ledger = args.value("--ledger") ?? OutputFolder.normalized(args.value("--out") ?? RunCommand.defaultOutput) + "/audit.sqlite"
        let claims = readsLedger ? try AskAppleClaims.open(ledgerPath: ledger, onWait: err) : []
        let items = AskAppleItem.deduplicated(ledger: claims, transactionIds: ids, orderIds: orderIds)
        let json = args.has("--json")
        guard !items.isEmpty else {
            let words = "nothing to ask Apple: no open finding of \(ledger) calls for ask_apple, and no id was given"
            out(json ? RunSummary.encoded(["asked": [Any](), "evidence": NSNull(), "answers": 0, "summary": words, "exit": 0]) : words)
            return 0
        }
        let token = AppleAPIToken(
            key: key, keyId: required["--key-id"]!, issuerId: required["--issuer-id"]!, bundleId: required["--bundle-id"]!)
        let client = AppleAPIClient(settings: settings, token: token)
        let results = AskApple.ask(items, client: client) { if !json { out(AskAppleSummary.line($0)) } }
        for result in results where result.outcome == .failed || result.failure != nil {
            err("iap-audit: ask-apple: \(result.item.id): \(result.failure ?? "failed")")
        }
        let answers = results.flatMap(\.answers)
        let evidence =
            answers.isEmpty
            ? nil : try EvidenceFile.write(answers, folder: required["--evidence"]!, atMs: Int64(Date().timeIntervalSince1970 * 1000))
        let status: Int32 = results.contains { $0.outcome == .failed || $0.failure != nil } ? 1 : 0
        if json {
            out(AskAppleSummary.json(results, evidence: evidence, folder: required["--evidence"]!, exit: status))
        } else {
            AskAppleSummary.closing(results, evidence: evidence, folder: required["--evidence"]!).forEach(out)
        }
        return status
    }

    /// The base URLs and the rate of the command line; the retry wait of `IAP_AUDIT_ASK_APPLE_BACKOFF_MS`.
    private static func apiSettings(_ args: ArgumentReader, _ usageError: (String) -> UsageError) throws -> AppleAPISettings {
        var settings = AppleAPISettings()
        if let base = args.value("--base-url") { settings.productionBaseURL = try baseURL(base, "--base-url", usageError) }
        if let base = args.value("--sandbox-base-url") { settings.sandboxBaseURL = try baseURL(base, "--sandbox-base-url", usageError) }
        if let rate = args.value("--rate") {
            guard let n = Double(rate), n.isFinite, n > 0, n <= 100 else {
                throw usageError("--rate \(rate): requests a second, a number above 0 and at most 100")
            }
            settings.requestsPerSecond = n
        }
        if let backoff = ProcessInfo.processInfo.environment[backoffVariable].flatMap({ Int64($0) }), backoff >= 0 {
            settings.backoffMs = backoff
        }
        return settings
    }

    /// A base URL: https, or http to this machine only (a stand-in server): the token never crosses a network in clear.
    private static func baseURL(_ text: String, _ option: String, _ usageError: (String) -> UsageError) throws -> URL {
        let trimmed = text.hasSuffix("/") ? String(text.dropLast()) : text
        guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(),
            url.query == nil, url.fragment == nil, url.user == nil
        else { throw usageError("\(option) \(text): no URL (https://host[:port][/path])") }
        guard scheme == "https" || (scheme == "http" && ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host)) else {
            throw usageError("\(option) \(text): https only (http to 127.0.0.1 or localhost, for a stand-in server)")
        }
        return url
    }

    /// The App Store Connect key at `path`: refused when group or others may read it (chmod 600).
    /// - Throws: `AuditError.unreadablePath` (exit 1).
    static func loadKey(_ path: String) throws -> AppStoreConnectKey {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw AuditError.unreadablePath(path, "cannot read the App Store Connect key: \(String(cString: strerror(errno)))")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw AuditError.unreadablePath(path, "the App Store Connect key is no file") }
        guard info.st_mode & 0o077 == 0 else {
            throw AuditError.unreadablePath(
                path,
                "the App Store Connect key may be read by group or others (mode \(String(info.st_mode & 0o777, radix: 8))): "
                    + "run chmod 600 \(path)")
        }
        guard let pem = FileManager.default.contents(atPath: path) else {
            throw AuditError.unreadablePath(path, "cannot read the App Store Connect key")
        }
        do {
            return try AppStoreConnectKey(pem: pem)
        } catch {
            throw AuditError.unreadablePath(path, "\(error)")
        }
    }
}
