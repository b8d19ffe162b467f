import Foundation
import IAPAuditCrypto
import IAPAuditIngest
import IAPAuditModel
import IAPAuditStore

extension LedgerImporter {
    /// Logs rotated under numbered names (logrotate without `dateext`: `server.jsonl` → `server.jsonl.1` →
    /// `server.jsonl.2.gz`, the oldest deleted): the paths stay, their contents move along them. A stored path given
    /// with other content is part of a rotation when another given path holds its old content now (it moved on), or
    /// when its new content is another stored path's old content (it received one: its own old content was rotated
    /// away). Such a path's records stay in the ledger under `path@<first 8 hex of the content's SHA-256>`, kept as a
    /// file no longer given; the path that holds the content now is then its copy (skipped, not read again), and the
    /// path itself a new file. Without this each path's new content replaced its old records, and every night lost
    /// the oldest day's (found by an on-call user test: a ledger of 6 nights held 188 of 380 server records).
    ///
    /// A given file is hashed here only when its size (a gzip file's: also its inflated size, from its trailer) is a
    /// stored file's: a usual night hashes nothing more. A path rewritten with content no other path had (a damaged
    /// delivery given again whole) still replaces what it held. Returns the stored files by their paths now, and one
    /// `input_rotated` warning saying what moved.
    func followingRotation(_ entries: [InputEntry], _ stored: [String: StoredFile]) throws -> ([String: StoredFile], [RunWarning]) {
        let movable = stored.filter { _, file in
            file.status == ImportStatus.imported.rawValue && file.isCurrentReader && file.recordsImported + file.recordsRejected > 0
        }
        let bySize = Set(movable.values.map(\.bytes))
        guard !bySize.isEmpty else { return (stored, []) }
        let (heldNow, unchanged) = try contentsNow(entries, stored, sizes: bySize)
        let given = Set(entries.filter { $0.skipReason == nil }.map(\.path))
        // Stored paths given again whose old content another given path holds now.
        var movedTo: [String: String] = [:]
        for (path, file) in movable where given.contains(path) && !unchanged.contains(path) {
            // A log that only grew holds its old content still: its copy elsewhere is a copy, no rotation.
            if let now = heldNow[file.contentSha256] ?? heldNow[file.sha256], now != path, !Self.grew(path, from: file) {
                movedTo[path] = now
            }
        }
        let grownInto = grownInto(given, movable, unchanged: unchanged, movedTo: movedTo)
        // A rotated generation (`server.jsonl.3.gz` beside `server.jsonl`) with other content received one, whatever it is
        // (an empty log gzipped again, `ifempty`; a log rotated three times between two runs): no export rewrites it.
        // One that grew in place is no such thing: a log followed to this name by a run killed before it read the new part.
        // Not one that held rejected lines: a damaged archive delivered again whole replaces what was read of it (as its alert
        // says to do; found by a hostile-input test: its records were kept and read again, twice).
        let generations = movable.filter { path, file in
            file.recordsRejected == 0 && given.contains(path) && !unchanged.contains(path) && movedTo[path] == nil
                && grownInto[path] == nil
                && Self.extendsGivenName(path, given) && !Self.grew(path, from: file) && !continues(path, file)
        }.keys
        guard !movedTo.isEmpty || !grownInto.isEmpty || !generations.isEmpty else { return (stored, []) }
        // Paths that received a content, their own old content gone from every path: rotated away.
        let received = Set(movedTo.values).union(grownInto.values).union(generations)
        let rotatedAway = received.filter { movable[$0] != nil && movedTo[$0] == nil && grownInto[$0] == nil && given.contains($0) }
        let (result, kept, followed) = try keep(Array(movedTo.keys) + rotatedAway, grownInto, stored)
        let moves =
            kept.map { k in movedTo[k.path].map { "\(k.path) → \($0)" } ?? "\(k.path) (rotated away)" }
            + followed.map { "\($0.path) → \($0.to) (grown since it was read)" }
        guard !moves.isEmpty else { return (stored, []) }
        return (
            result,
            [
                RunWarning(
                    .inputRotated,
                    "\(CountText.counted(Int64(moves.count), "file")) rotated under numbered names (content moved to another "
                        + "name): \(moves.joined(separator: ", ")); the records read from them stay in the ledger under the name "
                        + "they were read with and their content's hash\(kept.first.map { " (\($0.as)…)" } ?? ""), or, grown since, under the "
                        + "file holding them now; nothing read twice, nothing lost")
            ]
        )
    }

    /// The content each given file holds now (SHA-256 of its bytes, or of a gzip file's inflated content: the path), where
    /// its size says it may be a stored file's (`sizes`); and the stored paths that still hold what they held.
    private func contentsNow(_ entries: [InputEntry], _ stored: [String: StoredFile], sizes bySize: Set<Int>) throws -> (
        heldNow: [String: String], unchanged: Set<String>
    ) {
        // A stored path that still holds what it held is unchanged (a copy of a file elsewhere is no rotation of it: found by an on-call user test, where
        // `cp verify.jsonl verify.jsonl.bak` moved the untouched original's records out of the files given).
        var heldNow: [String: String] = [:]
        var unchanged: Set<String> = []
        for entry in entries where entry.skipReason == nil {
            guard let stamp = try? Self.stamp(of: entry.path) else { continue }
            let known = stored[entry.path]
            if let known, stamp.isKnown, known.stamp == stamp {  // as stored
                unchanged.insert(entry.path)
                continue
            }
            guard let mapped = try? MappedFile(path: entry.path) else { continue }
            if bySize.contains(Int(stamp.bytes)) {
                let hash = Digest.sha256Hex(mapped)
                heldNow[hash] = entry.path
                if let known, hash == known.sha256 { unchanged.insert(entry.path) }
            }
            if GzipInput.isGzip(mapped.data), mapped.data.count >= 18, bySize.contains(Self.inflatedSize(mapped.data)),
                let content = try? GzipInput.wholeContent(
                    of: mapped.data, path: entry.path, directory: scratchDirectory ?? NSTemporaryDirectory(), limits: limits)
            {
                let hash = Digest.sha256Hex(content)
                heldNow[hash] = heldNow[hash] ?? entry.path
                if let known, hash == known.contentSha256 { unchanged.insert(entry.path) }
            }
        }
        return (heldNow, unchanged)
    }

    /// Moved and grown: the log read while it was being written, copied whole to `path.1` at the rotation (or compressed
    /// to `path.1.gz`, `path-20261008.gz`, or moved to another folder: logrotate's `olddir`) — a given file whose name
    /// extends this one's file name begins with its old content and goes on. Checked only for the stored logs that no
    /// longer hold what they held and did not grow (rotated nights), or that this run is not given (kept), against the
    /// given files new or changed since; files of the same folder first. Returns the path holding it now, by the stored path.
    private func grownInto(
        _ given: Set<String>, _ movable: [String: StoredFile], unchanged: Set<String>, movedTo: [String: String]
    ) -> [String: String] {
        // Given, or kept (not given: a log missing a night, its rotated file come since).
        let candidates = movable.filter { path, _ in movedTo[path] == nil && !unchanged.contains(path) }
        guard !candidates.isEmpty else { return [:] }
        // By its file name, and a rotated name (`server.jsonl.1`) by its log's too: a log followed to `.1` by a run killed
        // before it read the new part moved on to `.2.gz` before the next run.
        let givenNames = Set(given.map { String(Self.split($0).name) })
        var byName: [String: [String]] = [:]
        for path in candidates.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            let name = Self.split(path).name
            byName[String(name), default: []].append(path)
            let cuts = name.indices.filter { name[$0] == "." || name[$0] == "-" }.map { String(name[..<$0]) }
            if let log = cuts.last(where: givenNames.contains) { byName[log, default: []].append(path) }
        }
        // A log given that grew holds its old content still (hashed only when a name extends its own: a usual night's
        // logs are hashed once, by the plan).
        var grew: [String: Bool] = [:]
        let moved = { (path: String) -> Bool in
            if let known = grew[path] { return !known }
            grew[path] = given.contains(path) && Self.grew(path, from: candidates[path]!)
            return !grew[path]!
        }
        var grownInto: [String: String] = [:]
        for longer in given.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) where !unchanged.contains(longer) {
            let (folder, name) = Self.split(longer)
            // The names it extends: its file name cut at each `.` or `-` (`server.jsonl.1.gz` → `server.jsonl`).
            for cut in name.indices where name[cut] == "." || name[cut] == "-" {
                let paths = (byName[String(name[..<cut])] ?? []).filter { grownInto[$0] == nil && $0 != longer }
                let sameFolder = paths.filter { Self.split($0).folder == folder }
                guard let path = (sameFolder + paths).first(where: { moved($0) && continues(longer, candidates[$0]!) }) else {
                    continue
                }
                grownInto[path] = longer
                break
            }
        }
        return grownInto
    }

    /// The file name of `path` extends that of another path of `given` in its folder, cut at a `.` or `-`
    /// (`server.jsonl.1.gz`, `server.jsonl-20261008` beside `server.jsonl`).
    static func extendsGivenName(_ path: String, _ given: Set<String>) -> Bool {
        let (folder, name) = split(path)
        return name.indices.contains { cut in (name[cut] == "." || name[cut] == "-") && given.contains(String(folder + name[..<cut])) }
    }

    /// A path's folder (with its final `/`; empty for none) and file name.
    static func split(_ path: String) -> (folder: Substring, name: Substring) {
        let name = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        return (path[..<name], path[name...])
    }

    /// In one transaction: the rotated paths' records kept under `path@<sha8>` (no longer given), and the contents that
    /// moved and grew renamed to the path holding them now. Returns the stored files by their paths now, the paths kept
    /// (and as what), and the contents followed (from, to).
    private func keep(_ rotated: [String], _ grownInto: [String: String], _ stored: [String: StoredFile]) throws -> (
        [String: StoredFile], [(path: String, as: String)], [(path: String, to: String)]
    ) {
        var result = stored
        var kept: [(path: String, as: String)] = []
        var followed: [(path: String, to: String)] = []
        var lastLines: [String: Int] = [:]
        try store.transaction {
            for path in rotated.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
                let file = stored[path]!
                var name = path + "@" + file.contentSha256.prefix(8)
                if result[name] != nil { name = path + "@" + file.contentSha256 }
                guard result[name] == nil else { continue }  // the same content kept under that name already
                try store.renameFile(from: path, to: name)
                var renamed = result.removeValue(forKey: path)!
                renamed.given = false
                result[name] = renamed
                kept.append((path, name))
            }
            try store.markMissing(kept.map(\.as))
            // A content that moved and grew follows its bytes: the path holding it now is that file, grown (read from
            // its old end). Through temporary names: one path may pass its content on as it receives another's.
            // A name holding a skipped file (a copy, an empty log) holds no record: it makes way (its content moved on too).
            for to in grownInto.values where result[to].map({ $0.recordsImported + $0.recordsRejected == 0 }) == true {
                try store.removeFile(path: to)
                result[to] = nil
            }
            for (path, to) in grownInto.sorted(by: { $0.key < $1.key }) where result[to] == nil || grownInto[to] != nil {
                lastLines[to] = try store.lastStoredLine(path: path)
                try store.renameFile(from: path, to: path + "\u{1}rotating")
                followed.append((path, to))
            }
            for (path, to) in followed {
                try store.renameFile(from: path + "\u{1}rotating", to: to)
            }
            var moving: [String: StoredFile] = [:]
            for (path, _) in followed { moving[path] = result.removeValue(forKey: path) }
            for (path, to) in followed { result[to] = moving[path] }
            try FollowedLogs.add(lastLines, store)
        }
        return (result, kept, followed)
    }

    /// The file at `path` begins with the content stored (it is longer, and its first bytes hash to the stored SHA-256).
    static func grew(_ path: String, from file: StoredFile) -> Bool {
        guard let mapped = try? MappedFile(path: path), mapped.data.count > file.bytes else { return false }
        return Digest.sha256Hex(mapped.data, prefix: file.bytes).prefix == file.sha256
    }

    /// The file at `path` begins with `file`'s stored content and goes on: a plain file, or a gzip file whose inflated
    /// content does (inflated within the limits, into an unlinked file). A stored content that ended inside a line (the
    /// run read a line being written) is continued too: the file is then read whole, its old rejected lines not
    /// alerting again (`ImportRound.readWhole`).
    func continues(_ path: String, _ file: StoredFile) -> Bool {
        guard file.format == SourceFormat.jsonLines.rawValue || file.format == SourceFormat.csv.rawValue, file.bytes > 0,
            file.contentSha256 == file.sha256, var mapped = try? MappedFile(path: path)
        else { return false }
        if GzipInput.isGzip(mapped.data) {
            guard mapped.data.count >= 18, file.bytes >= 1 << 32 || Self.inflatedSize(mapped.data) > file.bytes,
                let content = try? GzipInput.wholeContent(of: mapped.data, path: path, directory: scratch, limits: limits)
            else { return false }
            mapped = content
        }
        guard mapped.data.count > file.bytes, !GzipInput.isGzip(mapped.data) else { return false }
        return Digest.sha256Hex(mapped.data, prefix: file.bytes).prefix == file.sha256
    }

    /// A gzip member's inflated size, from its trailer (ISIZE, the last 4 bytes: the size modulo 2^32).
    static func inflatedSize(_ data: Data) -> Int {
        let n = data.count
        return Int(data[n - 4]) | Int(data[n - 3]) << 8 | Int(data[n - 2]) << 16 | Int(data[n - 1]) << 24
    }
}
