import IAPAuditModel

extension TraceReader {
    /// The ledger's last run's parameters, read alone: `trace` decides from `redaction` how to look an id up.
    /// - Throws: as `read` does.
    package static func runParameters(ledgerPath: String) throws -> [String: String] { try runParameters(open(ledgerPath)) }

    /// The user id (for a `u_` token) or device id (`d_`) of the ledger whose token under `redactor` is
    /// `token`; nil when none is. Every distinct id of `client_report` and `server_request` is hashed, read
    /// through their user and device indexes: one HMAC per distinct id (about a microsecond each; a million
    /// ids in about a second), stopping at the first that gives the token.
    /// - Throws: as `read` does.
    package static func original(ofToken token: String, redactor: IdRedactor, ledgerPath: String) throws -> String? {
        let isUser = token.hasPrefix("u_")
        let column = isUser ? "user_id" : "device_id"
        let db = try open(ledgerPath)
        for table in ["client_report", "server_request"] {
            let q = try db.prepare("SELECT DISTINCT \(column) FROM \(table) WHERE \(column) IS NOT NULL")
            while try q.step() {
                let id = q.text(0)
                if (isUser ? redactor.user(id) : redactor.device(id)) == token { return id }
            }
        }
        return nil
    }
}
