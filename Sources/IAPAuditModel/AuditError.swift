/// Why a run could not complete (exit status 1). Bad input *lines* are rejections, never these.
public enum AuditError: Error, CustomStringConvertible {
    case unreadablePath(String, String)
    case badConfig(String, String)
    case output(String, String)
    /// A trust-anchor certificate (`--jws-root`, `--receipt-root`, the config's `*_trust_anchors`, or
    /// the default under certs/) that cannot be read or decoded.
    case trustAnchor(String, String)
    /// The ledger (`DIR/audit.sqlite`) cannot do what was asked: no ledger yet, an unknown finding id (`ack`),
    /// one `trace` cannot read (missing, a folder, another program's, made by another version).
    case ledger(String, String)

    public var description: String {
        switch self {
        case .unreadablePath(let path, let why): return "\(path): error: cannot read input: \(why)"
        case .badConfig(let path, let why): return "\(path): error: bad config: \(why)"
        case .output(let path, let why): return "\(path): error: cannot write output: \(why)"
        case .trustAnchor(let path, let why): return "\(path): error: cannot use as a trust anchor: \(why)"
        case .ledger(let path, let why): return "\(path): error: \(why)"
        }
    }
}
