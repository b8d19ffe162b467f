/// The version of iap-audit, stored with every run (`run_parameter.tool_version`).
public enum ToolVersion {
    public static let current = "0.1.0"
}
