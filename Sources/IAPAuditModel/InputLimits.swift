/// How much of one input file a run reads before it stops (docs/security.md, "Limits"): a file past a limit keeps
/// what was read before it, and the rest of the file is one rejection naming the limit. `--limit NAME=VALUE` raises
/// one; the defaults are generous for a year of a big app's exports and stop a hostile file in seconds.
public struct InputLimits: Sendable, Equatable {
    /// `inflated-bytes`: bytes of content a gzip file (all its members) may inflate to (16 GiB).
    public var inflatedBytes: Int = 16 << 30
    /// `inflation-ratio`: a gzip member inflating to more than this many times its compressed bytes, once past
    /// `ratioFloor` bytes, is a bomb (200: JSON logs inflate 5 to 30 times).
    public var inflationRatio: Int = 200
    /// `line-bytes`: bytes of one line (16 MiB; a verifyReceipt answer with a long `in_app` is a few hundred KB).
    public var lineBytes: Int = 16 << 20
    /// `depth`: nesting of JSON objects and arrays in one record (128; Apple's records nest 4 deep), at most
    /// `maxDepth`.
    public var depth: Int = 128
    /// `fields`: keys of one JSON object (10,000; Apple's records have under 100).
    public var fields: Int = 10_000
    /// `records`: non-blank lines of one file (100 million; a year of a big app's server log is a few million).
    public var records: Int = 100_000_000

    /// The deepest `depth` may be raised to: the strict JSON parser recurses once a level, on a reading thread's stack.
    public static let maxDepth = 512

    /// Inflated bytes of a member below which `inflationRatio` is not checked (64 MiB): small files of repeated lines
    /// compress far.
    public static let ratioFloor = 64 << 20

    public init() {}

    /// The limits as `--limit` names them, with their values, in the order `--help` lists them.
    public var named: [(name: String, value: Int)] {
        [
            ("inflated-bytes", inflatedBytes), ("inflation-ratio", inflationRatio), ("line-bytes", lineBytes), ("depth", depth),
            ("fields", fields), ("records", records),
        ]
    }

    /// The limits that differ from their defaults, as `name=value` joined by commas ("" when none): the run parameter
    /// `input_limits`, and a line of the run's identity when not empty.
    public var parameter: String {
        zip(named, InputLimits().named).filter { $0.0.value != $0.1.value }.map { "\($0.0.name)=\($0.0.value)" }
            .joined(separator: ",")
    }

    /// Sets the limit `name` (`line-bytes`…) to `value`: a whole number, with an optional binary unit
    /// (`K`, `M`, `G`, `T`, or `KiB`, `MiB`, `GiB`, `TiB`) for the byte limits, and `_` or `,` between digits.
    /// - Throws: the message for a usage error (an unknown name, a value that is not a positive number).
    public mutating func set(_ name: String, _ value: String) throws(LimitError) {
        let names = named.map(\.name)
        guard names.contains(name) else {
            throw LimitError(message: "--limit: unknown limit '\(name)' (limits: \(names.joined(separator: ", ")))")
        }
        let bytes = name.hasSuffix("-bytes")
        guard let number = Self.number(value, units: bytes), number > 0 else {
            throw LimitError(
                message: "--limit \(name)=\(value): expected a positive whole number" + (bytes ? " of bytes (e.g. 32MiB, 64G)" : ""))
        }
        if name == "depth" && number > Self.maxDepth {
            throw LimitError(message: "--limit depth=\(value): at most \(Self.maxDepth) (the JSON parser recurses once a level)")
        }
        switch name {
        case "inflated-bytes": inflatedBytes = number
        case "inflation-ratio": inflationRatio = number
        case "line-bytes": lineBytes = number
        case "depth": depth = number
        case "fields": fields = number
        default: records = number
        }
    }

    /// `text` as a number, with a binary unit when `units`; nil when it is not one (or overflows).
    private static func number(_ text: String, units: Bool) -> Int? {
        var digits = text.filter { $0 != "_" && $0 != "," }
        var shift = 0
        if units {
            let upper = digits.uppercased()
            for (suffix, bits) in [("KIB", 10), ("MIB", 20), ("GIB", 30), ("TIB", 40), ("K", 10), ("M", 20), ("G", 30), ("T", 40)]
            where upper.hasSuffix(suffix) {
                digits = String(digits.dropLast(suffix.count))
                shift = bits
                break
            }
        }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let number = Int(digits), number >= 0,
            number <= Int.max >> shift
        else { return nil }
        return number << shift
    }

    /// A `--limit` that could not be read.
    public struct LimitError: Error, Sendable {
        public let message: String
    }
}

extension InputLimits {
    /// `bytes` in words: `16 MiB`, `16 GiB`, or the number of bytes when not a whole number of KiB.
    public static func bytesText(_ bytes: Int) -> String {
        for (unit, bits) in [("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)] where bytes >= 1 << bits && bytes % (1 << bits) == 0 {
            return "\(bytes >> bits) \(unit)"
        }
        return "\(bytes) bytes"
    }

    /// How a rejection names the limit `name` and how to raise it: `the line-bytes limit (16 MiB; raise it with
    /// --limit line-bytes=N)`.
    public func described(_ name: String) -> String {
        let value = named.first { $0.name == name }?.value ?? 0
        let shown = name.hasSuffix("-bytes") ? Self.bytesText(value) : "\(value)"
        return "the \(name) limit (\(shown); raise it with --limit \(name)=N)"
    }
}
