extension AppleRecord {
    /// Apple's word on the environment (semantics.md rule 2): `environment`, else the receipt's
    /// `receipt_type` (`ProductionSandbox`, `Sandbox`, `ProductionVPPSandbox` mean Sandbox); a 21007
    /// counts as Sandbox.
    /// Returns `Sandbox`, `Production`, another raw value, or nil when Apple said nothing.
    public var effectiveEnvironment: String? {
        var environment = environment ?? ""
        var receiptType = receiptType ?? ""
        return environment.withUTF8 { e in
            receiptType.withUTF8 { t in
                let (code, raw) = EnvironmentCode.effective(
                    status: Int64(status), environment: self.environment == nil ? nil : e, receiptType: self.receiptType == nil ? nil : t)
                return code.name ?? raw.map { String(decoding: $0, as: UTF8.self) }
            }
        }
    }

    /// True when Apple said this answer came from a non-production environment: `Sandbox`, `Xcode`,
    /// `LocalTesting`, or any value other than `Production` (nil, Apple saying nothing, is not).
    public var isSandbox: Bool { effectiveEnvironment.map { $0 != "Production" } ?? false }
}

/// Environment names as Apple and server logs write them.
public enum Environment {
    /// Apple's spelling for any capitalization of `Sandbox`, `Production`, `Xcode`, `LocalTesting`,
    /// and V1's `PROD` (→ `Production`); other values unchanged (kept raw, e.g. `LocalTestingxxx`).
    public static func normalized(_ value: String) -> String {
        var value = value
        return value.withUTF8 { EnvironmentCode.normalizing($0).name } ?? value
    }
}
