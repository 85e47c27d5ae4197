// Every SQLite call the Provisioning target makes, each wrapped exactly once (after
// swift-system's `Internals/Syscalls.swift`, like LibNFC's LibNFCCalls.swift and this target's
// PostgreSQLCalls.swift). Nothing else in the package imports `CSQLite`: the wrappers take and
// hand back Swift values and an opaque ``SQLiteHandle``; result codes stay `Int32`, named by
// ``SQLiteCode``. Error handling is ``SQLiteConnection``'s and ``SQLiteLedger``'s.
import CSQLite

/// An open SQLite connection (`sqlite3 *`), closed exactly once by ``sqlite3CloseV2(_:)``.
/// Owned by a ``SQLiteConnection`` inside its ledger's mutex: one thread at a time uses it.
struct SQLiteHandle {
    fileprivate let pointer: OpaquePointer
}

/// A prepared statement (`sqlite3_stmt *`), finalized exactly once by ``sqlite3Finalize(_:)``.
struct SQLiteStatement {
    fileprivate let pointer: OpaquePointer
}

/// The SQLite result codes and flags this target names (`SQLITE_OK`, …), so that no file but
/// this one needs `CSQLite`.
enum SQLiteCode {
    /// `SQLITE_OK`.
    static let ok = SQLITE_OK
    /// `SQLITE_BUSY`: another connection holds the lock.
    static let busy = SQLITE_BUSY
    /// `SQLITE_LOCKED`: a conflict inside the same process's shared cache or a table lock.
    static let locked = SQLITE_LOCKED
    /// `SQLITE_READONLY`: the database (or its WAL index) cannot be written.
    static let readOnly = SQLITE_READONLY
    /// `SQLITE_CANTOPEN`: a file (such as the `-shm` of a WAL database) cannot be opened.
    static let cantOpen = SQLITE_CANTOPEN
    /// `SQLITE_ROW`: `sqlite3_step` has a row.
    static let row = SQLITE_ROW
    /// `SQLITE_DONE`: `sqlite3_step` has finished.
    static let done = SQLITE_DONE
}

/// How ``sqlite3OpenV2(_:readOnly:uri:)`` opens a file.
///
/// Always `SQLITE_OPEN_FULLMUTEX`; read-only (`SQLITE_OPEN_READONLY`) or read-write creating
/// the file (`SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE`); `uri` adds `SQLITE_OPEN_URI`.
private func openFlags(readOnly: Bool, uri: Bool) -> Int32 {
    var flags = readOnly ? SQLITE_OPEN_READONLY | SQLITE_OPEN_FULLMUTEX : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX
    if uri { flags |= SQLITE_OPEN_URI }
    return flags
}

/// A column's type as `sqlite3_column_type` says it.
enum SQLiteColumnType {
    case integer, null, other
}

/// `sqlite3_open_v2`: the result code and, unless SQLite could not allocate one, the handle
/// (which must be closed even when the code is an error: it carries the message).
func sqlite3OpenV2(_ name: String, readOnly: Bool, uri: Bool) -> (code: Int32, handle: SQLiteHandle?) {
    var handle: OpaquePointer?
    let code = sqlite3_open_v2(name, &handle, openFlags(readOnly: readOnly, uri: uri), nil)
    return (code, handle.map(SQLiteHandle.init(pointer:)))
}

/// `sqlite3_close_v2`: closes the connection (once its statements are finalized).
func sqlite3CloseV2(_ handle: SQLiteHandle) {
    sqlite3_close_v2(handle.pointer)
}

/// `sqlite3_busy_timeout`: how long SQLite itself waits on a locked database, per call.
func sqlite3BusyTimeout(_ handle: SQLiteHandle, milliseconds: Int32) {
    sqlite3_busy_timeout(handle.pointer, milliseconds)
}

/// `sqlite3_errmsg`: the connection's last error in English.
func sqlite3ErrorMessage(_ handle: SQLiteHandle) -> String {
    sqlite3_errmsg(handle.pointer).map { String(cString: $0) } ?? "unknown SQLite error"
}

/// `sqlite3_errcode`: the connection's last result code.
func sqlite3ErrorCode(_ handle: SQLiteHandle) -> Int32 {
    sqlite3_errcode(handle.pointer)
}

/// `sqlite3_prepare_v2`: the first statement of `sql`, or nil (the error is the connection's).
func sqlite3PrepareV2(_ handle: SQLiteHandle, _ sql: String) -> SQLiteStatement? {
    var statement: OpaquePointer?
    guard sqlite3_prepare_v2(handle.pointer, sql, -1, &statement, nil) == SQLITE_OK else {
        if let statement { sqlite3_finalize(statement) }
        return nil
    }
    return statement.map(SQLiteStatement.init(pointer:))
}

/// `sqlite3_finalize`: frees the statement.
func sqlite3Finalize(_ statement: SQLiteStatement) {
    sqlite3_finalize(statement.pointer)
}

/// `sqlite3_bind_int64`: binds parameter `position` (1-based).
func sqlite3BindInt64(_ statement: SQLiteStatement, _ position: Int32, _ value: Int64) {
    sqlite3_bind_int64(statement.pointer, position, value)
}

/// `sqlite3_bind_text` with `SQLITE_TRANSIENT`: binds parameter `position` (1-based) to a copy of `value`.
func sqlite3BindText(_ statement: SQLiteStatement, _ position: Int32, _ value: String) {
    let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    sqlite3_bind_text(statement.pointer, position, value, -1, transient)
}

/// `sqlite3_bind_null`: binds parameter `position` (1-based) to NULL.
func sqlite3BindNull(_ statement: SQLiteStatement, _ position: Int32) {
    sqlite3_bind_null(statement.pointer, position)
}

/// `sqlite3_step`: runs the statement to its next row; ``SQLiteCode/row``, ``SQLiteCode/done``
/// or an error code.
func sqlite3Step(_ statement: SQLiteStatement) -> Int32 {
    sqlite3_step(statement.pointer)
}

/// `sqlite3_column_count`: the columns of the statement's rows.
func sqlite3ColumnCount(_ statement: SQLiteStatement) -> Int32 {
    sqlite3_column_count(statement.pointer)
}

/// `sqlite3_column_type`: the type of `column` (0-based) in the current row.
func sqlite3ColumnType(_ statement: SQLiteStatement, _ column: Int32) -> SQLiteColumnType {
    switch sqlite3_column_type(statement.pointer, column) {
    case SQLITE_INTEGER: .integer
    case SQLITE_NULL: .null
    default: .other
    }
}

/// `sqlite3_column_int64`: `column` (0-based) of the current row as an integer.
func sqlite3ColumnInt64(_ statement: SQLiteStatement, _ column: Int32) -> Int64 {
    sqlite3_column_int64(statement.pointer, column)
}

/// `sqlite3_column_text`: `column` (0-based) of the current row as text; nil when SQLite has
/// none (out of memory).
func sqlite3ColumnText(_ statement: SQLiteStatement, _ column: Int32) -> String? {
    sqlite3_column_text(statement.pointer, column).map { String(cString: $0) }
}

/// `sqlite3_last_insert_rowid`: the rowid of the connection's last successful INSERT.
func sqlite3LastInsertRowID(_ handle: SQLiteHandle) -> Int64 {
    sqlite3_last_insert_rowid(handle.pointer)
}
