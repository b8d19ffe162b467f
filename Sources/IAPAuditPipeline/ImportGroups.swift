import Foundation

/// Consecutive small files imported in one SQLite transaction (`AuditStore.transaction`, each file a
/// savepoint inside it): a folder of 70,000 notification files costs a few hundred commits instead of
/// 70,000 (about 1.4 ms each, for the journal's create, fsync and delete). A group closes at `maxFiles`
/// files or `maxBytes` of input, and before a file of `maxBytes` or more (its own transaction).
struct ImportGroups {
    static let maxFiles = 256
    static let maxBytes: Int64 = 8 << 20

    /// Entries `range` of the input; `isLarge`: one file of `maxBytes` or more.
    struct Group {
        var range: Range<Int>
        var isLarge: Bool
        var first: Int { range.lowerBound }
        var count: Int { range.count }
    }

    /// The groups of entries written `sizes` bytes each, in order.
    static func of(_ sizes: [Int64]) -> [Group] {
        var groups: [Group] = []
        var start = 0
        var bytes: Int64 = 0
        for (i, size) in sizes.enumerated() {
            if size >= maxBytes {
                if start < i { groups.append(Group(range: start..<i, isLarge: false)) }
                groups.append(Group(range: i..<(i + 1), isLarge: true))
                (start, bytes) = (i + 1, 0)
                continue
            }
            if i - start >= maxFiles || bytes + size > maxBytes {
                groups.append(Group(range: start..<i, isLarge: false))
                (start, bytes) = (i, 0)
            }
            bytes += size
        }
        if start < sizes.count { groups.append(Group(range: start..<sizes.count, isLarge: false)) }
        return groups
    }
}
