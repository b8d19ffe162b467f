import Foundation

/// A value of a finding fact: a text, a whole number, null, a list, or an object (keys in declared order).
public indirect enum FindingValue: Hashable, Sendable {
    case text(String)
    case integer(Int64)
    case null
    case list([FindingValue])
    case object([FindingEntry])

    public var text: String? { if case .text(let t) = self { return t } else { return nil } }
    public var integer: Int64? { if case .integer(let i) = self { return i } else { return nil } }
    public var list: [FindingValue] { if case .list(let l) = self { return l } else { return [] } }

    /// The value of `key` in an object; nil when absent (or not an object).
    public subscript(_ key: String) -> FindingValue? {
        if case .object(let entries) = self { return entries.first { $0.key == key }?.value }
        return nil
    }
}

/// One key and value of an object fact.
public struct FindingEntry: Hashable, Sendable {
    public var key: String
    public var value: FindingValue

    public init(_ key: String, _ value: FindingValue) { (self.key, self.value) = (key, value) }
}

/// The facts of one finding, as data: each `FindingField` (declared in `Sources/LedgerDeclarations/Findings.swift`)
/// a rule filled. Stored as JSON (`finding.facts`, keys in declaration order); the finding's sentence
/// (`FindingSentence`) and its action (`FindingAction`) are made from them, never from text.
public struct FindingFacts: Hashable, Sendable {
    private var values: [FindingField: FindingValue] = [:]

    public init() {}

    public var isEmpty: Bool { values.isEmpty }
    /// The fields set, in declaration order.
    public var fields: [FindingField] { FindingField.allCases.filter { values[$0] != nil } }

    public subscript(_ field: FindingField) -> FindingValue? {
        get { values[field] }
        set { values[field] = newValue }
    }

    public func text(_ field: FindingField) -> String? { values[field]?.text }
    public func integer(_ field: FindingField) -> Int64? { values[field]?.integer }
    /// A `texts` field's texts (nulls left out); empty when unset.
    public func texts(_ field: FindingField) -> [String] { (values[field]?.list ?? []).compactMap(\.text) }
    /// An `optionalTexts` field's texts, nil for null.
    public func optionalTexts(_ field: FindingField) -> [String?] { (values[field]?.list ?? []).map(\.text) }
    /// An `objects` field's objects; empty when unset.
    public func objects(_ field: FindingField) -> [FindingValue] { values[field]?.list ?? [] }

    /// Sets a text (nil clears the field).
    public mutating func set(_ field: FindingField, _ text: String?) { values[field] = text.map(FindingValue.text) }
    /// Sets a whole number (nil clears the field).
    public mutating func set(_ field: FindingField, _ integer: Int64?) { values[field] = integer.map(FindingValue.integer) }
    public mutating func set(_ field: FindingField, _ integer: Int) { values[field] = .integer(Int64(integer)) }
    /// Sets texts (`texts` or `optionalTexts`: nil is null).
    public mutating func set(_ field: FindingField, texts: [String?]) {
        values[field] = .list(texts.map { $0.map(FindingValue.text) ?? .null })
    }
    /// Sets objects, each given as its values in the order of the field's `keys` (a key ending in `_ms` an integer,
    /// any other a text; nil is null).
    public mutating func set(_ field: FindingField, objects: [[Any?]]) {
        values[field] = .list(
            objects.map { row in
                .object(
                    zip(field.keys, row).map { key, value in
                        if let i = value as? Int64 { return FindingEntry(key, .integer(i)) }
                        if let s = value as? String { return FindingEntry(key, .text(s)) }
                        return FindingEntry(key, .null)
                    })
            })
    }

    /// Each text value of the facts passed through `transform` (the redaction of users: `IdRedactor`), for
    /// the fields that name users.
    public mutating func mapUsers(_ transform: (String) -> String) {
        for field in [FindingField.reportedBy, .attributedTo, .holders] {
            if let list = values[field]?.list { values[field] = .list(list.map { $0.text.map { .text(transform($0)) } ?? $0 }) }
        }
        for field in [FindingField.grants, .laterPurchases] {
            guard let list = values[field]?.list else { continue }
            values[field] = .list(
                list.map { object in
                    guard case .object(let entries) = object else { return object }
                    return .object(
                        entries.map { e in e.key == "user_id" ? FindingEntry(e.key, e.value.text.map { .text(transform($0)) } ?? .null) : e
                        })
                })
        }
    }

    // MARK: JSON

    /// The facts as JSON values (`JSONText`, `JSONSerialization`): texts, `Int64`s, `NSNull`, arrays, dictionaries.
    public var jsonObject: [String: Any] {
        func any(_ v: FindingValue) -> Any {
            switch v {
            case .text(let t): return t
            case .integer(let i): return i
            case .null: return NSNull()
            case .list(let items): return items.map(any)
            case .object(let entries): return Dictionary(entries.map { ($0.key, any($0.value)) }, uniquingKeysWith: { a, _ in a })
            }
        }
        return Dictionary(uniqueKeysWithValues: values.map { ($0.key.rawValue, any($0.value)) })
    }

    /// The facts as one JSON object, keys in declaration order (`{}` when none).
    public var json: String {
        var out = "{"
        for (i, field) in fields.enumerated() {
            if i > 0 { out += "," }
            JSONString.append(field.rawValue, to: &out)
            out += ":"
            Self.write(values[field]!, &out)
        }
        return out + "}"
    }

    private static func write(_ value: FindingValue, _ out: inout String) {
        switch value {
        case .text(let t): JSONString.append(t, to: &out)
        case .integer(let i): out += String(i)
        case .null: out += "null"
        case .list(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                write(item, &out)
            }
            out += "]"
        case .object(let entries):
            out += "{"
            for (i, e) in entries.enumerated() {
                if i > 0 { out += "," }
                JSONString.append(e.key, to: &out)
                out += ":"
                write(e.value, &out)
            }
            out += "}"
        }
    }

    /// The facts a `json` wrote; nil when the text is not such an object: not JSON, not an object, or a declared field
    /// of another shape than its declaration's (a text for `texts`, a number that is no Int64, an object's key of
    /// another type). Keys this version does not declare are left out, in objects too (a ledger of a newer version).
    public init?(json: String) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else { return nil }
        for (key, value) in object {
            guard let field = FindingField(rawValue: key) else { continue }
            guard let v = Self.value(value, field) else { return nil }
            values[field] = v
        }
    }

    /// `any` read as `field`'s shape; nil when it is of another.
    private static func value(_ any: Any, _ field: FindingField) -> FindingValue? {
        func list(_ item: (Any) -> FindingValue?) -> FindingValue? {
            guard let items = any as? [Any] else { return nil }
            var values: [FindingValue] = []
            for raw in items {
                guard let v = item(raw) else { return nil }
                values.append(v)
            }
            return .list(values)
        }
        switch field.shape {
        case .text: return text(any)
        case .integer: return integer(any)
        case .texts: return list(text)
        case .optionalTexts: return list { $0 is NSNull ? .null : text($0) }
        case .objects:
            return list { raw in
                guard let object = raw as? [String: Any] else { return nil }
                var entries: [FindingEntry] = []
                for key in field.keys {
                    guard let raw = object[key] else { continue }
                    // A key ending in `_ms` holds an integer, any other a text; either may be null.
                    guard let v = raw is NSNull ? .null : key.hasSuffix("_ms") ? integer(raw) : text(raw) else { return nil }
                    entries.append(FindingEntry(key, v))
                }
                return .object(entries)
            }
        }
    }

    private static func text(_ any: Any) -> FindingValue? { (any as? String).map(FindingValue.text) }

    private static func integer(_ any: Any) -> FindingValue? {
        guard !(any is String), let n = any as? NSNumber, let i = Int64(n.stringValue) else { return nil }
        return .integer(i)
    }
}
