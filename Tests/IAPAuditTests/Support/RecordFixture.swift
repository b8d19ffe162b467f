import Foundation

@testable import IAPAuditIngest

/// Records built in a test, read the way the importer reads input: their JSON text parsed by the
/// strict tape (`JSONField.parseObject`), fields read through the `RecordObject` vocabulary.
enum RecordFixture {
    /// `object` serialized by `JSONSerialization` (sorted keys), then parsed by the tape.
    static func object(_ object: [String: Any]) -> JSONRef {
        try! JSONField.parseObject(try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
    }

    /// A JSON object's text parsed by the tape.
    static func object(_ text: String) throws -> JSONRef { try JSONField.parseObject(Data(text.utf8)) }
}
