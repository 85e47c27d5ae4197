// Every SQLite call the Provisioning target makes, each wrapped exactly once (after
// swift-system's `Internals/Syscalls.swift`, like LibNFC's LibNFCCalls.swift and this target's
// PostgreSQLCalls.swift). Nothing else in the package imports `CSQLite`: the wrappers take and
// hand back Swift values and an opaque ``SQLiteHandle``; result codes stay `Int32`, named by
// ``SQLiteCode``. Error handling is ``SQLiteConnection``'s and ``SQLiteLedger``'s.
//
// SQLite is not linked: nfctool would load it on every start, also for the commands that never
// open a ledger. ``sqlite3OpenV2(_:readOnly:uri:)`` loads it with `dlopen("libsqlite3.so.0")`
// on first use and throws a ``LedgerError`` when it cannot be loaded; every function is resolved
// from that handle (``SQLiteLibrary``), typed by the shim's `csqlite_fn_NAME` pointer types.
// `CSQLite` gives the types and constants only (its module map links nothing). Every other
// function takes a connection or statement, which exists only once SQLite is loaded.
import CSQLite
import NFCCore
#if canImport(Glibc)
import Glibc
#endif

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
/// (which must be closed even when the code is an error: it carries the message). Loads SQLite
/// on first use: throws when it cannot be loaded.
func sqlite3OpenV2(_ name: String, readOnly: Bool, uri: Bool) throws(LedgerError) -> (code: Int32, handle: SQLiteHandle?) {
    let lib = try SQLiteLibrary.load()
    var handle: OpaquePointer?
    let code = lib.sqlite3_open_v2(name, &handle, openFlags(readOnly: readOnly, uri: uri), nil)
    return (code, handle.map(SQLiteHandle.init(pointer:)))
}

/// `sqlite3_close_v2`: closes the connection (once its statements are finalized).
func sqlite3CloseV2(_ handle: SQLiteHandle) {
    guard let lib = SQLiteLibrary.loaded else { return }
    _ = lib.sqlite3_close_v2(handle.pointer)
}

/// `sqlite3_busy_timeout`: how long SQLite itself waits on a locked database, per call.
func sqlite3BusyTimeout(_ handle: SQLiteHandle, milliseconds: Int32) {
    guard let lib = SQLiteLibrary.loaded else { return }
    _ = lib.sqlite3_busy_timeout(handle.pointer, milliseconds)
}

/// `sqlite3_errmsg`: the connection's last error in English.
func sqlite3ErrorMessage(_ handle: SQLiteHandle) -> String {
    guard let lib = SQLiteLibrary.loaded else { return "unknown SQLite error" }
    return lib.sqlite3_errmsg(handle.pointer).map { String(cString: $0) } ?? "unknown SQLite error"
}

/// `sqlite3_errcode`: the connection's last result code.
func sqlite3ErrorCode(_ handle: SQLiteHandle) -> Int32 {
    guard let lib = SQLiteLibrary.loaded else { return SQLITE_MISUSE }
    return lib.sqlite3_errcode(handle.pointer)
}

/// `sqlite3_prepare_v2`: the first statement of `sql`, or nil (the error is the connection's).
func sqlite3PrepareV2(_ handle: SQLiteHandle, _ sql: String) -> SQLiteStatement? {
    guard let lib = SQLiteLibrary.loaded else { return nil }
    var statement: OpaquePointer?
    guard lib.sqlite3_prepare_v2(handle.pointer, sql, -1, &statement, nil) == SQLITE_OK else {
        if let statement { _ = lib.sqlite3_finalize(statement) }
        return nil
    }
    return statement.map(SQLiteStatement.init(pointer:))
}

/// `sqlite3_finalize`: frees the statement.
func sqlite3Finalize(_ statement: SQLiteStatement) {
    guard let lib = SQLiteLibrary.loaded else { return }
    _ = lib.sqlite3_finalize(statement.pointer)
}

/// `sqlite3_bind_int64`: binds parameter `position` (1-based).
func sqlite3BindInt64(_ statement: SQLiteStatement, _ position: Int32, _ value: Int64) {
    guard let lib = SQLiteLibrary.loaded else { return }
    _ = lib.sqlite3_bind_int64(statement.pointer, position, value)
}

/// `sqlite3_bind_text` with `SQLITE_TRANSIENT`: binds parameter `position` (1-based) to a copy of `value`.
func sqlite3BindText(_ statement: SQLiteStatement, _ position: Int32, _ value: String) {
    guard let lib = SQLiteLibrary.loaded else { return }
    let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    _ = lib.sqlite3_bind_text(statement.pointer, position, value, -1, transient)
}

/// `sqlite3_bind_null`: binds parameter `position` (1-based) to NULL.
func sqlite3BindNull(_ statement: SQLiteStatement, _ position: Int32) {
    guard let lib = SQLiteLibrary.loaded else { return }
    _ = lib.sqlite3_bind_null(statement.pointer, position)
}

/// `sqlite3_step`: runs the statement to its next row; ``SQLiteCode/row``, ``SQLiteCode/done``
/// or an error code.
func sqlite3Step(_ statement: SQLiteStatement) -> Int32 {
    guard let lib = SQLiteLibrary.loaded else { return SQLITE_MISUSE }
    return lib.sqlite3_step(statement.pointer)
}

/// `sqlite3_column_count`: the columns of the statement's rows.
func sqlite3ColumnCount(_ statement: SQLiteStatement) -> Int32 {
    guard let lib = SQLiteLibrary.loaded else { return 0 }
    return lib.sqlite3_column_count(statement.pointer)
}

/// `sqlite3_column_type`: the type of `column` (0-based) in the current row.
func sqlite3ColumnType(_ statement: SQLiteStatement, _ column: Int32) -> SQLiteColumnType {
    guard let lib = SQLiteLibrary.loaded else { return .other }
    return switch lib.sqlite3_column_type(statement.pointer, column) {
    case SQLITE_INTEGER: .integer
    case SQLITE_NULL: .null
    default: .other
    }
}

/// `sqlite3_column_int64`: `column` (0-based) of the current row as an integer.
func sqlite3ColumnInt64(_ statement: SQLiteStatement, _ column: Int32) -> Int64 {
    guard let lib = SQLiteLibrary.loaded else { return 0 }
    return lib.sqlite3_column_int64(statement.pointer, column)
}

/// `sqlite3_column_text`: `column` (0-based) of the current row as text; nil when SQLite has
/// none (out of memory).
func sqlite3ColumnText(_ statement: SQLiteStatement, _ column: Int32) -> String? {
    guard let lib = SQLiteLibrary.loaded else { return nil }
    return lib.sqlite3_column_text(statement.pointer, column).map { String(cString: $0) }
}

/// `sqlite3_last_insert_rowid`: the rowid of the connection's last successful INSERT.
func sqlite3LastInsertRowID(_ handle: SQLiteHandle) -> Int64 {
    guard let lib = SQLiteLibrary.loaded else { return 0 }
    return lib.sqlite3_last_insert_rowid(handle.pointer)
}

// MARK: - loading

/// SQLite's functions, resolved from a `dlopen` handle: loaded once per process, when the first
/// SQLite ledger is opened, and never closed (a connection may outlive any one ledger). Each
/// field is named after, and typed as, the C function (the shim's `csqlite_fn_NAME`).
struct SQLiteLibrary: Sendable {
    /// The library's file name: its soname, `libsqlite3.so.0` for all of SQLite 3 (Debian's
    /// package: libsqlite3-0).
    static let soname = "libsqlite3.so.0"

    /// SQLite, loaded on first use (thread-safe: a `static let`), or why it could not be.
    static let shared: Result<SQLiteLibrary, LedgerError> = load(soname)

    /// SQLite, loaded on first use.
    /// - Throws: ``LedgerError`` saying SQLite cannot be loaded and how to install it.
    static func load() throws(LedgerError) -> SQLiteLibrary { try shared.get() }

    /// SQLite when it is loaded. Only a connection or statement leads to a call through here,
    /// and one exists only after ``shared`` loaded.
    static var loaded: SQLiteLibrary? { try? shared.get() }

    let sqlite3_open_v2: csqlite_fn_sqlite3_open_v2
    let sqlite3_close_v2: csqlite_fn_sqlite3_close_v2
    let sqlite3_busy_timeout: csqlite_fn_sqlite3_busy_timeout
    let sqlite3_errmsg: csqlite_fn_sqlite3_errmsg
    let sqlite3_errcode: csqlite_fn_sqlite3_errcode
    let sqlite3_prepare_v2: csqlite_fn_sqlite3_prepare_v2
    let sqlite3_finalize: csqlite_fn_sqlite3_finalize
    let sqlite3_bind_int64: csqlite_fn_sqlite3_bind_int64
    let sqlite3_bind_text: csqlite_fn_sqlite3_bind_text
    let sqlite3_bind_null: csqlite_fn_sqlite3_bind_null
    let sqlite3_step: csqlite_fn_sqlite3_step
    let sqlite3_column_count: csqlite_fn_sqlite3_column_count
    let sqlite3_column_type: csqlite_fn_sqlite3_column_type
    let sqlite3_column_int64: csqlite_fn_sqlite3_column_int64
    let sqlite3_column_text: csqlite_fn_sqlite3_column_text
    let sqlite3_last_insert_rowid: csqlite_fn_sqlite3_last_insert_rowid

    /// Opens `file` (``DynamicLibrary``) and resolves every function this wrapper calls; the error
    /// names the library and what the loader said (the file is missing, a symbol is absent).
    static func load(_ file: String) -> Result<SQLiteLibrary, LedgerError> {
        do throws(DynamicLibraryError) {
            let library = try DynamicLibrary.open(file)
            do throws(DynamicLibraryError) {
                return .success(try SQLiteLibrary(library))
            } catch {
                library.close()  // not the SQLite wanted
                throw error
            }
        } catch {
            switch error.kind {
            case .notLoadable(let reason):
                return .failure(LedgerError(
                    "a SQLite ledger needs SQLite, which cannot be loaded (\(reason)); install it (Debian: apt install libsqlite3-0)"))
            case .missingSymbol(let symbol):
                return .failure(LedgerError(
                    "the SQLite loaded from \(file) has no \(symbol); a SQLite ledger needs SQLite 3.7.14 or later"))
            }
        }
    }

    /// Resolves each function from `library`.
    private init(_ library: DynamicLibrary) throws(DynamicLibraryError) {
        sqlite3_open_v2 = try library.function("sqlite3_open_v2")
        sqlite3_close_v2 = try library.function("sqlite3_close_v2")
        sqlite3_busy_timeout = try library.function("sqlite3_busy_timeout")
        sqlite3_errmsg = try library.function("sqlite3_errmsg")
        sqlite3_errcode = try library.function("sqlite3_errcode")
        sqlite3_prepare_v2 = try library.function("sqlite3_prepare_v2")
        sqlite3_finalize = try library.function("sqlite3_finalize")
        sqlite3_bind_int64 = try library.function("sqlite3_bind_int64")
        sqlite3_bind_text = try library.function("sqlite3_bind_text")
        sqlite3_bind_null = try library.function("sqlite3_bind_null")
        sqlite3_step = try library.function("sqlite3_step")
        sqlite3_column_count = try library.function("sqlite3_column_count")
        sqlite3_column_type = try library.function("sqlite3_column_type")
        sqlite3_column_int64 = try library.function("sqlite3_column_int64")
        sqlite3_column_text = try library.function("sqlite3_column_text")
        sqlite3_last_insert_rowid = try library.function("sqlite3_last_insert_rowid")
    }
}
