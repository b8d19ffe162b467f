import Foundation
import IAPAuditCrypto
import IAPAuditModel
import IAPAuditStore

/// `--redact` and `--redact-ledger` (README, "Redaction"): the key, the tokens it gives, and where they go.
public struct Redaction: Sendable {
    public let redactor: IdRedactor
    /// `--redact-ledger`: the ledger stores tokens too (else only the outputs show them).
    public let ledger: Bool

    /// The environment variable holding the key when `--redact-key` is not given.
    public static let environmentVariable = "IAP_AUDIT_REDACT_KEY"
    /// The shortest key accepted, in bytes (128 bits).
    public static let shortestKey = 16

    /// Why a key cannot be used: said as a usage error (exit 64). Never holds the key's bytes.
    public struct KeyError: Error, CustomStringConvertible {
        public let description: String
    }

    /// The key from `keyFile` (`--redact-key`, which wins) or else `environment[IAP_AUDIT_REDACT_KEY]`: its
    /// bytes, without trailing line breaks. Refused: no key, an empty one, one shorter than 16 bytes, a key
    /// file that is not a regular file or that every user of the machine may read or write (mode o+r, o+w).
    public init(keyFile: String?, environment: [String: String], ledger: Bool) throws {
        var key: [UInt8]
        let source: String
        if let keyFile {
            source = "--redact-key \(keyFile)"
            var info = stat()
            guard stat(keyFile, &info) == 0 else {
                // The argument is not repeated: it may be the key itself, given in the file's place.
                throw KeyError(
                    description: "--redact-key: cannot read the key file given (\(keyFile.count) characters, not repeated here in case "
                        + "it is a key given in a file's place): \(String(cString: strerror(errno)))")
            }
            guard info.st_mode & S_IFMT == S_IFREG else { throw KeyError(description: "\(source): not a regular file") }
            if info.st_mode & (S_IROTH | S_IWOTH) != 0 {
                throw KeyError(
                    description: "\(source): the key file may be read or written by every user of this machine (mode "
                        + "\(String(info.st_mode & 0o777, radix: 8))): run chmod 600 \(keyFile)")
            }
            guard access(keyFile, R_OK) == 0, let data = FileManager.default.contents(atPath: keyFile) else {
                throw KeyError(description: "\(source): cannot read the key file: \(String(cString: strerror(errno == 0 ? EIO : errno)))")
            }
            key = Array(data)
        } else if let text = environment[Self.environmentVariable] {
            source = Self.environmentVariable
            key = Array(text.utf8)
        } else {
            throw KeyError(
                description:
                    "--redact needs a key: --redact-key FILE (a file other users cannot read: chmod 600) or the environment variable "
                    + Self.environmentVariable)
        }
        while let last = key.last, last == 10 || last == 13 { key.removeLast() }
        guard !key.isEmpty else { throw KeyError(description: "\(source): the key is empty") }
        guard key.count >= Self.shortestKey else {
            throw KeyError(
                description:
                    "\(source): the key is \(key.count) byte\(key.count == 1 ? "" : "s"), shorter than \(Self.shortestKey) (make one with: "
                    + "head -c 32 /dev/urandom | base64 > FILE; chmod 600 FILE)")
        }
        self.init(redactor: HMACSHA256.redactor(key: key), ledger: ledger)
    }

    public init(redactor: IdRedactor, ledger: Bool) { (self.redactor, self.ledger) = (redactor, ledger) }

    /// The run parameter `redaction`: `ledger, key k_…` or `outputs, key k_…` (the key's fingerprint, not the key).
    var parameter: String { "\(ledger ? "ledger" : "outputs"), key \(redactor.fingerprint)" }

    /// The fingerprint of the key a ledger's ids were redacted with (its run parameter `redaction`, `ledger, key
    /// k_…`); nil for a ledger of original ids.
    static func ledgerKey(_ stored: String?) -> String? {
        stored.flatMap { $0.hasPrefix("ledger, key ") ? String($0.dropFirst("ledger, key ".count)) : nil }
    }

    /// Checks the ledger against this run's redaction before anything is imported: a ledger that holds tokens
    /// (`--redact-ledger`) is used only with `--redact-ledger` and the same key (else rows would join by
    /// originals on one side and tokens on the other, silently); `--redact-ledger` does not take over a
    /// ledger of originals (its past runs keep them). Throws `AuditError.ledger`.
    static func check(_ redaction: Redaction?, stored: String?, storedFiles: Int, databasePath: String) throws {
        if let storedKey = ledgerKey(stored) {
            guard let redaction, redaction.ledger else {
                throw AuditError.ledger(
                    databasePath,
                    "this ledger holds redacted ids (made with --redact-ledger, key \(storedKey)): run with --redact-ledger and the "
                        + "same key, or give another --out")
            }
            guard redaction.redactor.fingerprint == storedKey else {
                throw AuditError.ledger(
                    databasePath,
                    "this ledger was redacted with another key (\(storedKey); the key given is \(redaction.redactor.fingerprint)): "
                        + "its tokens would not join this run's; give the same key, or another --out")
            }
        } else if let redaction, redaction.ledger, storedFiles > 0 {
            throw AuditError.ledger(
                databasePath,
                "--redact-ledger: this ledger holds original ids from earlier runs (\(storedFiles) file(s)); give a new --out for "
                    + "a redacted ledger, or run without --redact-ledger (--redact alone redacts the outputs)")
        }
    }
}
