import CSQLite
import Foundation
import IAPAuditModel
import Synchronization

/// A failure of the SQLite C API, with the result code, SQLite's message and the SQL involved.
public struct SQLiteError: Error, CustomStringConvertible {
    public var code: Int32
    public var message: String
    public var sql: String?
    /// The operating system's error (`errno`) behind it, when SQLite met one (`sqlite3_system_errno`):
    /// `ENOSPC` says the disk is full whatever code SQLite gave (`SQLITE_FULL`, or an I/O error growing
    /// the WAL index).
    public var systemError: Int32?

    /// A failure with SQLite's result `code` and `message`, the `sql` involved, and the system error behind it.
    public init(code: Int32, message: String, sql: String?, systemError: Int32? = nil) {
        (self.code, self.message, self.sql, self.systemError) = (code, message, sql, systemError)
    }

    /// The disk (or quota) is full: SQLITE_FULL, or any failure whose system error is ENOSPC / EDQUOT.
    public var isDiskFull: Bool { code & 0xFF == SQLITE_FULL || systemError == ENOSPC || systemError == EDQUOT }

    /// SQLITE_CONSTRAINT: a row the ledger's keys refuse (a line stored twice: the ledger disagrees with itself).
    public var isConstraint: Bool { code & 0xFF == SQLITE_CONSTRAINT }

    /// SQLITE_READONLY: a write the connection may not make (a read-only connection meeting a hot journal, too).
    public var isReadOnly: Bool { code & 0xFF == SQLITE_READONLY }

    /// SQLITE_CORRUPT or SQLITE_NOTADB: the file is damaged (a damaged ledger: docs/security.md).
    public var isCorrupt: Bool { code & 0xFF == SQLITE_CORRUPT || code & 0xFF == SQLITE_NOTADB }

    public var description: String {
        // Code 0: iap-audit's own finding about the database (another program's, a newer schema).
        if code == 0 && sql == nil { return message }
        // A state of the file or the machine (not of a statement) says what to do, not which SQL met it.
        if let hint = Self.hints[code & 0xFF] { return "SQLite error \(code): \(message) (\(hint))" }
        return "SQLite error \(code): \(message)" + (sql.map { " (in: \($0.prefix(200)))" } ?? "")
    }

    /// What an operator can do about a primary result code (https://sqlite.org/rescode.html).
    private static let hints: [Int32: String] = [
        3: "the file's permissions do not allow it",
        5: "another program has the database open and is writing it; close it and run again",
        6: "another connection holds a lock on the database; close it and run again",
        8: "the database file or its folder is read-only",
        10: "the disk could not be read or written",
        11: "the database file is damaged",
        13: "the disk is full",
        14: "the database file or its folder cannot be opened",
        26: "the file is not a SQLite database",
    ]
}

/// A connection to one SQLite database file. The only type that talks to the SQLite C API
/// (with `SQLiteStatement`).
final class SQLiteDatabase {
    private(set) var handle: OpaquePointer?
    /// Savepoints open inside the current transaction (`transaction` nested in a group).
    private var savepointDepth = 0
    let path: String

    /// SQLite's memory statistics take a global lock on every allocation; nothing here reads them.
    /// Set once, before the library's first use.
    private static let configured: Bool = {
        _ = sqlite3_config_memstatus_off()
        return true
    }()

    /// How long a connection waits for another's lock (SQLite's busy handler, set on every connection) before
    /// SQLITE_BUSY, "database is locked": a run meeting another program that writes the ledger stops after it.
    static let busyTimeoutMs: Int32 = 5000

    /// Opens (creating if missing, unless `readOnly`) the database at `path`. Throws `SQLiteError`.
    /// - Parameter busyTimeoutMs: how long it waits for another connection's lock (`busyTimeoutMs` unless said).
    init(path: String, readOnly: Bool = false, busyTimeoutMs: Int32 = SQLiteDatabase.busyTimeoutMs) throws {
        _ = Self.configured
        self.path = path
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &handle, flags, nil)
        if rc != SQLITE_OK {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close(handle)
            handle = nil
            throw SQLiteError(code: rc, message: message, sql: nil)
        }
        sqlite3_busy_timeout(handle, busyTimeoutMs)
    }

    deinit { sqlite3_close_v2(handle) }

    #if DEBUG
        /// A call into SQLite on this connection is under way. The connection is opened NOMUTEX: two threads on it at
        /// once is undefined (it crashed a 1M run inside SQLite, c1a6755). Debug builds — the tests' — stop at the
        /// second thread's call instead of corrupting memory; release builds pay nothing.
        private let busy = Atomic<Bool>(false)
        /// What a second thread's call meets (a test sees it instead).
        nonisolated(unsafe) static var concurrentUse: (String) -> Void = { preconditionFailure($0) }
    #endif

    /// Runs `body`, a call into SQLite on this connection (debug builds check no other thread is in one).
    @inline(__always) func calling<T>(_ body: () throws -> T) rethrows -> T {
        #if DEBUG
            if busy.exchange(true, ordering: .acquiringAndReleasing) {
                Self.concurrentUse("two threads use one SQLite connection at once (\(path)): it is opened NOMUTEX")
            }
            defer { busy.store(false, ordering: .releasing) }
        #endif
        return try body()
    }

    /// Runs one or more statements that return no rows.
    func execute(_ sql: String) throws {
        var error: UnsafeMutablePointer<CChar>?
        let rc = calling { sqlite3_exec(handle, sql, nil, nil, &error) }
        if rc != SQLITE_OK {
            let message = error.map { String(cString: $0) } ?? lastMessage
            sqlite3_free(error)
            throw SQLiteError(code: rc, message: message, sql: sql, systemError: systemError)
        }
    }

    func prepare(_ sql: String) throws -> SQLiteStatement { try SQLiteStatement(database: self, sql: sql) }

    /// Runs `body` in a transaction: commits when it returns, rolls back when it throws. Inside a
    /// transaction already (a group of small files) it is a savepoint, undone alone on error.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        let nested = handle.map { sqlite3_get_autocommit($0) == 0 } ?? false
        if nested { savepointDepth += 1 }
        defer { if nested { savepointDepth -= 1 } }
        let name = "nested\(savepointDepth)"
        try execute(nested ? "SAVEPOINT \(name)" : "BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute(nested ? "RELEASE \(name)" : "COMMIT")
            return result
        } catch {
            try? execute(nested ? "ROLLBACK TO \(name); RELEASE \(name)" : "ROLLBACK")
            throw error
        }
    }

    /// The first column of the first row of `sql`, as an integer (0 when there is no row).
    func scalar(_ sql: String) throws -> Int64 {
        let statement = try prepare(sql)
        return try statement.step() ? statement.int64(0) : 0
    }

    var lastMessage: String { handle.map { String(cString: sqlite3_errmsg($0)) } ?? "no connection" }

    /// The `errno` of the last failed system call SQLite made, or nil.
    var systemError: Int32? { handle.map { sqlite3_system_errno($0) }.flatMap { $0 == 0 ? nil : $0 } }
}

/// A prepared statement; finalized when released.
final class SQLiteStatement {
    private var handle: OpaquePointer?
    private let database: SQLiteDatabase
    let sql: String

    init(database: SQLiteDatabase, sql: String) throws {
        self.database = database
        self.sql = sql
        let rc = database.calling { sqlite3_prepare_v2(database.handle, sql, -1, &handle, nil) }
        if rc != SQLITE_OK { throw SQLiteError(code: rc, message: database.lastMessage, sql: sql, systemError: database.systemError) }
    }

    deinit { sqlite3_finalize(handle) }

    /// Binds values to `?1…?n` in order: String, Int, Int64, Bool, Double, or nil for NULL.
    func bind(_ values: [any SQLBindable]) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (i, value) in values.enumerated() {
            let index = Int32(i + 1)
            let rc: Int32
            switch value.sqlValue {
            case .null: rc = sqlite3_bind_null(handle, index)
            case .text(let v): rc = sqlite3_bind_text(handle, index, v, Int32(v.utf8.count), SQLiteStatement.transient)
            case .integer(let v): rc = sqlite3_bind_int64(handle, index, v)
            case .real(let v): rc = sqlite3_bind_double(handle, index, v)
            }
            checkBind(rc, "?\(index)")
        }
    }

    /// Binds and runs a statement that returns no rows.
    func run(_ values: [any SQLBindable]) throws {
        bind(values)
        while try step() {}
    }

    /// Advances to the next row; false when done.
    func step() throws -> Bool {
        let rc = database.calling { sqlite3_step(handle) }
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        throw SQLiteError(code: rc, message: database.lastMessage, sql: sql, systemError: database.systemError)
    }

    /// Ends the statement's read (its locks released) until it is bound again.
    func reset() { sqlite3_reset(handle) }

    // MARK: Bulk binding (typed, no copies: texts must stay valid until the statement is reset)

    /// Clears the previous row's values (every parameter NULL) before a new row is bound.
    @inline(__always) func resetForRow() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    // Binding by column: `C` is a table's parameter enum (generated: `ClientReportColumn.tsMs`…), so a
    // value goes to its column by name, never by a literal index. A bind that fails is our bug (a wrong
    // index, a statement misused), not the input's: it traps, naming the statement and the column.

    @inline(__always) func bind<C: RawRepresentable>(_ column: C, _ value: Int64) where C.RawValue == Int32 {
        checkBind(sqlite3_bind_int64(handle, column.rawValue, value), column)
    }

    @inline(__always) func bind<C: RawRepresentable>(_ column: C, _ value: Int64?) where C.RawValue == Int32 {
        if let value { bind(column, value) }
    }

    @inline(__always) func bind<C: RawRepresentable>(_ column: C, _ value: Bool) where C.RawValue == Int32 {
        bind(column, Int64(value ? 1 : 0))
    }

    @inline(__always) func bind<C: RawRepresentable>(_ column: C, _ value: Bool?) where C.RawValue == Int32 {
        if let value { bind(column, value) }
    }

    /// Binds a text of a batch's arena in place (SQLITE_STATIC: valid until the statement is reset);
    /// `.null` leaves the column NULL.
    @inline(__always) func bind<C: RawRepresentable>(_ column: C, text ref: TextRef, in base: UnsafePointer<UInt8>)
    where C.RawValue == Int32 {
        guard !ref.isNull else { return }
        let p = UnsafeRawPointer(base + Int(ref.start)).assumingMemoryBound(to: CChar.self)
        checkBind(sqlite3_bind_text(handle, column.rawValue, p, Int32(ref.count), nil), column)
    }

    /// Binds a record's own text (`raw_json`) with the app's shared secret redacted (`SecretRedaction`): in
    /// place when it holds none (the usual case), else a redacted copy.
    @inline(__always) func bind<C: RawRepresentable>(_ column: C, redactingSecretsIn ref: TextRef, in base: UnsafePointer<UInt8>)
    where C.RawValue == Int32 {
        guard !ref.isNull else { return }
        if let redacted = SecretRedaction.stored(UnsafeBufferPointer(start: base + Int(ref.start), count: Int(ref.count))) {
            bind(column, constant: redacted)
        } else {
            bind(column, text: ref, in: base)
        }
    }

    /// Binds a text SQLite copies (SQLITE_TRANSIENT): an enum's raw value, a constant.
    @inline(__always) func bind<C: RawRepresentable>(_ column: C, constant text: String) where C.RawValue == Int32 {
        var text = text
        let rc = text.withUTF8 {
            sqlite3_bind_text(
                handle, column.rawValue, UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), Int32($0.count),
                SQLiteStatement.transient)
        }
        checkBind(rc, column)
    }

    /// Traps on a failed bind: the statement and the column say where the bug is.
    @inline(__always) private func checkBind(_ rc: Int32, _ column: some Any) {
        if rc != SQLITE_OK {
            preconditionFailure("sqlite3_bind of column \(column) failed (\(rc): \(database.lastMessage)) in: \(sql)")
        }
    }

    /// Binds bytes as a BLOB without copying them (valid until the statement is reset).
    func bind<C: RawRepresentable>(_ column: C, blob bytes: UnsafeRawBufferPointer) where C.RawValue == Int32 {
        checkBind(
            sqlite3_bind_blob(handle, column.rawValue, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, Int32(bytes.count), nil),
            column)
    }

    /// Runs the bound row; throws `SQLiteError` unless the statement completes.
    @inline(__always) func insertRow() throws {
        let rc = database.calling { sqlite3_step(handle) }
        if rc != SQLITE_DONE { throw SQLiteError(code: rc, message: database.lastMessage, sql: sql, systemError: database.systemError) }
    }

    /// The bytes of a BLOB (or TEXT) column of the current row, valid until the next step.
    func blob(_ column: Int32) -> UnsafeRawBufferPointer {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let p = sqlite3_column_blob(handle, column) else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: p, count: count)
    }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
    /// Whether the column holds TEXT, or an INTEGER, in the current row (a table rebuilt without its types holds anything).
    func holdsText(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_TEXT }
    func holdsInteger(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_INTEGER }
    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    func optionalInt64(_ column: Int32) -> Int64? { isNull(column) ? nil : int64(column) }
    func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
    func text(_ column: Int32) -> String {
        guard let p = sqlite3_column_text(handle, column) else { return "" }
        return String(cString: p)
    }
    func optionalText(_ column: Int32) -> String? { isNull(column) ? nil : text(column) }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}

/// A value SQLite stores.
enum SQLValue {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
}

/// What can be bound to a statement parameter (typed: no dynamic casts on the bulk-insert path).
protocol SQLBindable {
    var sqlValue: SQLValue { get }
}

extension String: SQLBindable { var sqlValue: SQLValue { .text(self) } }
extension Int: SQLBindable { var sqlValue: SQLValue { .integer(Int64(self)) } }
extension Int64: SQLBindable { var sqlValue: SQLValue { .integer(self) } }
extension Bool: SQLBindable { var sqlValue: SQLValue { .integer(self ? 1 : 0) } }
extension Double: SQLBindable { var sqlValue: SQLValue { .real(self) } }
extension Optional: SQLBindable where Wrapped: SQLBindable {
    var sqlValue: SQLValue { self?.sqlValue ?? .null }
}
