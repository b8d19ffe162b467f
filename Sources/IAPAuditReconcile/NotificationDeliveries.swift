import IAPAuditModel

/// Apple retries a notification until the server answers, so one `notificationUUID` may be delivered
/// several times: only the first delivery in ledger order counts. Deliveries below `TrustLevel.needed` (a failed
/// signature, a decoded payload given unsigned) claim no UUID (a forged copy must not hide the genuine one; it proves
/// nothing itself).
enum NotificationDeliveries {
    /// The records (`recordKey`) that are re-deliveries of an earlier one.
    static func redeliveries(_ source: FactSource, ranks: FileRanks) throws -> Set<UInt64> {
        var dropped = Set<UInt64>()
        for part in 0..<FactKey.partitions {
            let bytes = PartitionBytes()
            try source.forEachChunk(.notifications, part: part) { bytes.append($1, fileId: $0) }
            var first: [ByteKey: (order: UInt64, key: UInt64)] = [:]
            var all: [(uuid: ByteKey, order: UInt64, key: UInt64)] = []
            try bytes.forEachFact { r, chunkFile in
                guard r.u8() == FactKind.notification.rawValue else { return r.fail() }
                let fact = NotificationFact.read(&r, chunkFile: chunkFile)
                guard !fact.signatureFailed else { return }
                let order = ranks.order(fact.fileId, fact.line)
                let key = ByteKey(bytes, fact.uuid)
                all.append((key, order, recordKey(fact.fileId, fact.line)))
                if let seen = first[key], seen.order < order { return }
                first[key] = (order, recordKey(fact.fileId, fact.line))
            }
            for d in all where first[d.uuid]?.key != d.key { dropped.insert(d.key) }
        }
        return dropped
    }
}

/// Ledger order of the input files: a file's rank is the position of its path.
struct FileRanks {
    private let rank: [UInt32: UInt32]
    let paths: [UInt32: String]

    init(_ files: [(id: UInt32, path: String)]) {
        rank = Dictionary(uniqueKeysWithValues: files.enumerated().map { ($1.id, UInt32($0)) })
        paths = Dictionary(uniqueKeysWithValues: files.map { ($0.id, $0.path) })
    }

    /// Sorts records in ledger order: (rank of the file, line).
    @inline(__always) func order(_ fileId: UInt32, _ line: UInt32) -> UInt64 { UInt64(rank[fileId] ?? UInt32.max) << 32 | UInt64(line) }

    func location(_ fileId: UInt32, _ line: UInt32) -> SourceLocation {
        SourceLocation(file: paths[fileId] ?? "file \(fileId)", line: Int(line))
    }
}
