import Foundation

/// Id lists stored as a JSON array of strings (`["1000000001","1000000002"]`).
package enum IdList {
    package static func encode(_ ids: [String]) -> String {
        // Ids are digits or plain text almost always: written directly; anything needing escapes goes
        // through JSONSerialization.
        let plain = ids.allSatisfy { id in
            id.utf8.allSatisfy { $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") && $0 < 0x80 }
        }
        if plain { return "[" + ids.map { "\"" + $0 + "\"" }.joined(separator: ",") + "]" }
        let data = (try? JSONSerialization.data(withJSONObject: ids, options: [.withoutEscapingSlashes])) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    package static func decode(_ text: String) -> [String] {
        // What `encode` wrote directly (no escapes): split between the quotes; anything else through Foundation.
        let utf8 = text.utf8
        if utf8.first == UInt8(ascii: "["), utf8.last == UInt8(ascii: "]"), !utf8.contains(UInt8(ascii: "\\")) {
            if utf8.count == 2 { return [] }
            let inner = text.dropFirst(2).dropLast(2)
            if utf8.count > 4, text.hasPrefix("[\""), text.hasSuffix("\"]") {
                return inner.components(separatedBy: "\",\"")
            }
        }
        return (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String] ?? []
    }
}

/// Quantities by id stored as a JSON object with sorted keys (`{"1000000001":3,"1000000002":1}`).
package enum QuantityList {
    /// The pairs in the stored order: ids by their bytes.
    package static func sorted(_ values: [String: Int]) -> [(id: String, quantity: Int)] {
        values.map { (id: $0.key, quantity: $0.value) }.sorted { $0.id.utf8.lexicographicallyPrecedes($1.id.utf8) }
    }

    package static func encode(_ values: [String: Int]) -> String {
        let pairs = sorted(values).map { IdList.encode([$0.id]).dropFirst().dropLast() + ":\($0.quantity)" }
        return "{" + pairs.joined(separator: ",") + "}"
    }

    package static func decode(_ text: String) -> [String: Int] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { return [:] }
        return object.compactMapValues { ($0 as? NSNumber)?.intValue }
    }
}
