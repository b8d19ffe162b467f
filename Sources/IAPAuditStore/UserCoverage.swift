import IAPAuditModel

/// How many of a file's client reports or server-log records name a user: a file none of whose records does (an
/// export that renamed `user_id` to `userId`, or dropped it) is read without error, and its findings name nobody.
package struct UserCoverage: Sendable, Equatable {
    package var fileId: Int64
    /// `client_report` or `server_request`.
    package var table: String
    package var records: Int64
    package var withUser: Int64
}

extension AuditStore {
    /// The user coverage of the client reports and server-log records of each file `files` names, from its line
    /// `fromLine` on (a grown log: its new lines), files of other kinds left out (they hold none). Read on a connection
    /// of its own (the run's may be building indexes meanwhile); each file is a range of its table's key.
    package func userCoverage(files: [(fileId: Int64, fromLine: Int)]) throws -> [UserCoverage] {
        let database = try SQLiteDatabase(path: self.database.path, readOnly: true)
        var result: [UserCoverage] = []
        for table in ["client_report", "server_request"] {
            let q = try database.prepare(
                "SELECT count(*), count(user_id) FROM \(table) WHERE record_id BETWEEN (?1 << 32) | ?2 AND (?1 << 32) | 4294967295")
            for (fileId, fromLine) in files.sorted(by: { $0.fileId < $1.fileId }) {
                q.bind([fileId, Int64(fromLine)])
                defer { q.reset() }
                if try q.step(), q.int64(0) > 0 {
                    result.append(UserCoverage(fileId: fileId, table: table, records: q.int64(0), withUser: q.int64(1)))
                }
            }
        }
        return result
    }
}
