import Foundation
import IAPAuditCrypto
import IAPAuditModel
import IAPAuditStore

/// A run's identity (docs/operations.md, "Runs"): what decides its findings. Two runs of the same
/// identity find the same, so the second is a re-run of the first and changes nothing in the lifecycle.
///
/// The fingerprint is the SHA-256 (hex) of this text, one item a line:
/// ```
/// iap-audit run identity 1
/// tool 0.1.0                         ToolVersion.current
/// reader 9                           Schema.readerVersion
/// schema 9                           Schema.version (what the findings hold: a run after an upgrade is a new run)
/// config {…}                         the config as canonical JSON (run_parameter.config)
/// as_of newest record                or --as-of in epoch ms
/// grace_ms 86400000
/// from none                          or --from in epoch ms
/// to none                            or --to in epoch ms
/// signatures <hex>                   SHA-256 of the trust anchors and the check time
/// redacted_ledger k_<hex>            only under --redact-ledger: the key's fingerprint (its ids are tokens)
/// limits line-bytes=33554432         only under --limit: the limits not at their defaults (what is read of a file)
/// manual 3 17                        only when people recorded actions (`iap-audit resolve`): how many, the newest number
/// file <sha256> <path>               per imported or rejected input file, by path (bytes)
/// ```
/// `--redact` alone changes what the outputs show, not the findings: it is no part of the identity.
/// Skipped files (hidden, certificates, copies of another input) read nothing and are left out; the
/// alert options (`--fail-on`, `--fail-on-stale`) and the machine's clock judge a run, they are not part of it.
struct RunIdentity {
    /// SHA-256 of `text`, hex.
    let fingerprint: String
    /// The identity's lines without the files (`audit_run.parameters`).
    let parameters: String
    /// The files it names: (path, SHA-256), by path.
    let inputs: [(path: String, sha256: String)]
    /// Every file of the ledger, skipped ones too (copies of another input): (path, SHA-256), by path — what the
    /// next run compares its files with to say which it brought (`run_input`).
    let given: [(path: String, sha256: String)]

    init(files: [LedgerFile], options: AuditOptions, signatures: String, manual: ManualActions = .none) {
        let lines =
            [
                "tool \(ToolVersion.current)", "reader \(Schema.readerVersion)", "schema \(Schema.version)",
                "config \(ConfigLoader.canonicalJSON(options.config))",
                "as_of \(options.asOfMs.map(String.init) ?? "newest record")", "grace_ms \(options.graceMs)",
                "from \(options.fromMs.map(String.init) ?? "none")", "to \(options.toMs.map(String.init) ?? "none")",
                "signatures \(signatures)",
            ] + (options.redaction.map { $0.ledger ? ["redacted_ledger \($0.redactor.fingerprint)"] : [] } ?? [])
            + (options.limits.parameter.isEmpty ? [] : ["limits \(options.limits.parameter)"]) + (manual.identity.map { [$0] } ?? [])
        given = files.sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }.map { ($0.path, $0.sha256) }
        inputs = files.filter { $0.status != "skipped" }.sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
            .map { ($0.path, $0.sha256) }
        parameters = lines.joined(separator: "\n")
        let text = (["iap-audit run identity 1"] + lines + inputs.map { "file \($0.sha256) \($0.path)" }).joined(separator: "\n")
        fingerprint = Digest.sha256Hex(Data(text.utf8))
    }
}
