/// One record kind of the ledger, declared once: from it `generate-ledger-code` writes the value
/// type the readers fill (Model), its row in a `RecordBatch` and the batch append, the table's DDL,
/// and the INSERT with its binds (Store). See docs/architecture.md, "Add a field".
public struct RecordDeclaration: Sendable {
    /// The SQL table, e.g. `client_report`.
    public var table: String
    /// The Swift value type the readers make, e.g. `ClientReport`.
    public var type: String
    /// The row type in a `RecordBatch`, e.g. `ClientRow`.
    public var row: String
    /// The `RecordBatch` array holding the rows, e.g. `clientReports`.
    public var batchProperty: String
    /// How a row is keyed in its table.
    public var key: RecordKey
    /// The value type's doc comment, one line per element.
    public var doc: [String]
    /// Protocols the value type adopts.
    public var conformances = ["Hashable", "Sendable"]
    /// Generate `mutating func merge(_:)` on the value (and row): fills what this listing lacks from
    /// another listing of the same transaction.
    public var merges = false
    public var fields: [FieldDeclaration]

    /// The fields with a column of their own (groups flattened), in table order.
    public var columns: [(field: FieldDeclaration, column: String, path: [FieldDeclaration])] {
        fields.flatMap { $0.columns(prefix: "", path: []) }
    }
}

/// How a record's row is keyed.
public enum RecordKey: Sendable {
    /// A record of an input line: `column` = `file_id << 32 | line`, with `file_id` and `line` columns;
    /// the value has a `location`.
    case fileLine(column: String)
    /// A part of a record (a listed transaction, a pending renewal): (`parent`, `position`), the
    /// parent's key and the part's position in it.
    case part(parent: String)
}

/// One field: its name in the input (Apple's or the log's key), its Swift property and type, its
/// SQL column, and its doc comment (shapes, units, the source document).
public struct FieldDeclaration: Sendable {
    /// The input's key (`transaction_id`, `revocationDate`); also the column's name unless `column` says otherwise.
    public var name: String
    /// The Swift property (`transactionId`).
    public var property: String
    public var type: FieldType
    /// The SQL column when it is not `name`.
    public var column: String?
    public var doc: [String]
    /// The Swift default of the value's property (an initializer argument that may be left out);
    /// nil: optional types default to nil, the others must be given.
    public var defaultValue: String?
    /// Kept in the value only (a reader's scratch), never stored.
    public var stored: Bool

    public init(
        _ name: String, _ property: String, _ type: FieldType, column: String? = nil, default defaultValue: String? = nil,
        stored: Bool = true, doc: [String] = []
    ) {
        (self.name, self.property, self.type, self.column, self.defaultValue, self.stored, self.doc) = (
            name, property, type, column, defaultValue, stored, doc
        )
    }

    public var columnName: String { column ?? name }

    func columns(prefix: String, path: [FieldDeclaration]) -> [(field: FieldDeclaration, column: String, path: [FieldDeclaration])] {
        guard stored else { return [] }
        switch type {
        case .group(let group): return group.fields.flatMap { $0.columns(prefix: prefix + group.columnPrefix, path: path + [self]) }
        case .parts: return []
        default: return [(self, prefix + columnName, path)]
        }
    }
}

/// What a field holds, and so its Swift, row and SQL types.
public indirect enum FieldType: Sendable {
    /// Exact text (ids, names, raw enum values). Row: a `TextRef`; SQL: TEXT.
    case text(required: Bool)
    /// A whole number. `swift`: `Int` or `Int64` in the value (the row and SQL hold Int64).
    case integer(swift: String, required: Bool)
    /// SQL: INTEGER 0 or 1.
    case bool(required: Bool)
    /// A Swift `enum` with `String` raw values, stored as its raw value (TEXT).
    case enumeration(type: String, required: Bool)
    /// A `SignatureStatus`, stored as its text (`verified`, `invalid:<reason>`…).
    case signature
    /// Ids in an array (`[String]`): the row keeps them in `RecordBatch.ids` and their JSON text; SQL:
    /// a JSON array of strings.
    case idList(required: Bool)
    /// Quantities by id (`[String: Int]`, nil when not logged): the row keeps (id, quantity) pairs in
    /// `RecordBatch.quantities` and their JSON text; SQL: a JSON object `{"id": n}` with sorted keys.
    case quantities
    /// `[String]` stored as one text joined by `separator`.
    case joinedList(separator: String)
    /// `[String]` stored as a JSON array of strings.
    case jsonList
    /// The record's own text as read (`raw_json`): stored unless the record is a line of its file
    /// (JSON Lines: the line at `file:line` is the record).
    case rawText
    /// Fields that belong together (a notification's): an optional struct of its own, present when
    /// `presentWhen` (one of its fields) is not null; its columns are prefixed.
    case group(GroupDeclaration)
    /// The record's parts (listed transactions, pending renewals): another record kind keyed `.part`.
    case parts(type: String)

    public var isOptional: Bool {
        switch self {
        case .text(let required), .integer(_, let required), .bool(let required), .enumeration(_, let required),
            .idList(let required):
            return !required
        case .group, .quantities: return true
        default: return false
        }
    }
}

/// A group of fields (`FieldType.group`).
public struct GroupDeclaration: Sendable {
    /// The Swift struct of the group (`NotificationInfo`).
    public var type: String
    /// Prefix of its columns (`notification_`).
    public var columnPrefix: String
    /// The field whose presence makes the group present (`notificationType`).
    public var presentWhen: String
    public var doc: [String]
    public var fields: [FieldDeclaration]

}

/// A doc comment written as one text (a multi-line string literal): its lines, blank ones kept.
func docLines(_ text: String) -> [String] { text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
