import Foundation
import IAPAuditModel

/// Keeps the shared secret of a CSV column named like a secret (`password`, `shared_secret`…:
/// `SecretRedaction.isSecretName`) out of a rejected row's text, the only CSV text iap-audit keeps (an
/// imported row's fields are read by name; its text is not stored).
struct CSVSecrets {
    /// The columns (0-based) whose header name is a secret's.
    let columns: [Int]
    let width: Int

    init(header: [String]) {
        columns = header.indices.filter { SecretRedaction.isSecretName(header[$0].trimmingCharacters(in: .whitespaces)) }
        width = header.count
    }

    /// The text shown for a row that cannot be split into as many fields as the header: which field holds
    /// the secret is not known, so none is shown.
    static let withheld = "[withheld: a row of a CSV file with a secret column, not split into fields as its header]"

    /// `text` (a row) with each secret column's field `[redacted]`; the row withheld whole when it does not
    /// split into the header's number of fields; `text` itself when the header names no secret.
    func redacted(_ text: String) -> String {
        guard !columns.isEmpty else { return text }
        guard var fields = try? CSVRecords.fields(text), fields.count == width else { return Self.withheld }
        for column in columns { fields[column] = SecretRedaction.placeholder }
        return fields.map { field in
            field.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline })
                ? "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : field
        }.joined(separator: ",")
    }
}
