import IAPAuditModel

extension AuditStore {
    /// The generation of what reconciliation keeps beside the ledger (`RequestCarry`; table `ledger_schema`): each run
    /// calls this once its files are imported. When the ledger's files (id, path, SHA-256, size) differ from those of
    /// the generation stored, the next generation is a hash of the stored one and of them, else it stays. A carry is
    /// used only by a run that finds the generation the run which made it left: another ledger, this one rebuilt or
    /// restored from a backup and given other files, have another. The same history gives the same generations (a
    /// killed run's successor, a re-run: nothing changes).
    /// - Returns: the generation found (nil: none yet) and the one now stored.
    package func advanceCarryGeneration() throws -> (previous: UInt64?, next: UInt64) {
        func stored(_ name: String) throws -> UInt64? {
            let find = try database.prepare("SELECT value FROM ledger_schema WHERE name = ?1")
            find.bind([name])
            return try find.step() ? UInt64(find.text(0)) : nil
        }
        let previous = try stored(Schema.carryGenerationKey)
        var digest: UInt64 = 0xCBF2_9CE4_8422_2325
        let files = try database.prepare("SELECT file_id, path, sha256, bytes FROM source_file ORDER BY file_id")
        while try files.step() {
            var row = Array("\(files.int64(0))\u{0}\(files.text(1))\u{0}\(files.text(2))\u{0}\(files.int64(3))\u{0}".utf8)
            digest = FactKey.mix(digest ^ row.withUnsafeMutableBufferPointer { FactKey.hash(text: UnsafeBufferPointer($0)) })
        }
        if let previous, try stored(Schema.carryFilesKey) == digest { return (previous, previous) }
        let next = FactKey.mix((previous ?? 0) ^ FactKey.mix(digest))
        try database.transaction {
            let set = try database.prepare(
                "INSERT INTO ledger_schema (name, value) VALUES (?1, ?2) ON CONFLICT (name) DO UPDATE SET value = excluded.value")
            try set.run([Schema.carryGenerationKey, String(next)])
            try set.run([Schema.carryFilesKey, String(digest)])
        }
        return (previous, next)
    }
}
