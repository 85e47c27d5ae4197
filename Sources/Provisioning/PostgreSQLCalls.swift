import Foundation
import CLibPQ
import NFCCore
#if canImport(Glibc)
import Glibc
#endif

/// libpq, wrapped once: one function per libpq call this package makes, and nothing else
/// imports `CLibPQ` (Tests/RepositoryTests/LayeringTests.swift checks it). The functions are
/// thin: they convert Swift values to C and back; error handling is
/// ``PostgreSQLConnection``'s. A `PGconn` or `PGresult` is used by one thread at a time (the
/// owner's mutex).
///
/// libpq is not linked: nfctool would load it, and its Kerberos/LDAP/OpenSSL chain, on every
/// start, doubling the start of commands that never open a database. ``connectdbParams(_:expandDatabaseName:)``
/// loads it with `dlopen("libpq.so.5")` on first use and resolves the `PQ*` functions from that
/// handle (``Library``); `CLibPQ` gives the types and constants only (its module map links
/// nothing). When libpq is missing, connecting throws a ``PostgreSQLError`` saying so. Every
/// other function takes a connection or result, which exists only once libpq is loaded.
enum PQ {
    /// `PQconnectdbParams`: connects with keyword/value pairs; `expandDatabaseName` lets the
    /// `dbname` value be a connection URI (whose parameters override the pairs before it).
    /// Loads libpq on first use: throws when it cannot be loaded; nil only when libpq is out
    /// of memory.
    static func connectdbParams(_ pairs: [(String, String)], expandDatabaseName: Bool) throws(PostgreSQLError) -> OpaquePointer? {
        let library = try Library.shared.get()
        let keywords = pairs.map { strdup($0.0) }
        let values = pairs.map { strdup($0.1) }
        defer {
            keywords.forEach { free($0) }
            values.forEach { free($0) }
        }
        let keywordPointers: [UnsafePointer<CChar>?] = keywords.map { $0.map { UnsafePointer($0) } } + [nil]
        let valuePointers: [UnsafePointer<CChar>?] = values.map { $0.map { UnsafePointer($0) } } + [nil]
        return keywordPointers.withUnsafeBufferPointer { k in
            valuePointers.withUnsafeBufferPointer { v in
                library.connectdbParams(k.baseAddress, v.baseAddress, expandDatabaseName ? 1 : 0)
            }
        }
    }

    /// `PQstatus`: whether the connection is usable.
    static func isConnectionOK(_ connection: OpaquePointer) -> Bool {
        Library.loaded.map { $0.status(connection) == CONNECTION_OK } ?? false
    }

    /// `PQerrorMessage`: the connection's last error, trimmed.
    static func errorMessage(_ connection: OpaquePointer) -> String {
        Library.loaded?.errorMessage(connection).map { String(cString: $0) }?.trimmingTrailingNewlines ?? "unknown libpq error"
    }

    /// `PQreset`: closes and reopens the connection with the same parameters.
    static func reset(_ connection: OpaquePointer) { Library.loaded?.reset(connection) }

    /// `PQfinish`: closes the connection and frees it.
    static func finish(_ connection: OpaquePointer) { Library.loaded?.finish(connection) }

    /// `PQexecParams`: one statement with its parameters bound as text (`$1`, `$2`, …; nil is
    /// SQL NULL), results in text format. Nil only when libpq is out of memory.
    static func execParams(_ connection: OpaquePointer, _ sql: String, _ parameters: [String?]) -> OpaquePointer? {
        guard let library = Library.loaded else { return nil }
        let copies = parameters.map { $0.map { strdup($0) } ?? nil }
        defer { copies.forEach { free($0) } }
        let pointers: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } }
        return pointers.withUnsafeBufferPointer { values in
            library.execParams(connection, sql, Int32(parameters.count), nil, values.baseAddress, nil, nil, 0)
        }
    }

    /// `PQresultStatus`: whether a result is a success (command done, or rows).
    static func resultSucceeded(_ result: OpaquePointer) -> Bool {
        guard let status = Library.loaded?.resultStatus(result) else { return false }
        return status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK
    }

    /// `PQresultErrorMessage`: the error of a failed result, trimmed.
    static func resultErrorMessage(_ result: OpaquePointer) -> String {
        Library.loaded?.resultErrorMessage(result).map { String(cString: $0) }?.trimmingTrailingNewlines ?? ""
    }

    /// `PQresultErrorField(…, PG_DIAG_SQLSTATE)`: the five-character SQLSTATE of a failed result.
    static func sqlState(_ result: OpaquePointer) -> String? {
        Library.loaded?.resultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
    }

    /// `PQntuples`: the number of rows.
    static func rowCount(_ result: OpaquePointer) -> Int { Library.loaded.map { Int($0.ntuples(result)) } ?? 0 }

    /// `PQnfields`: the number of columns.
    static func columnCount(_ result: OpaquePointer) -> Int { Library.loaded.map { Int($0.nfields(result)) } ?? 0 }

    /// `PQgetisnull`: whether a value is SQL NULL.
    static func isNull(_ result: OpaquePointer, row: Int, column: Int) -> Bool {
        Library.loaded?.getisnull(result, Int32(row), Int32(column)) == 1
    }

    /// `PQgetvalue`: a value as text.
    static func value(_ result: OpaquePointer, row: Int, column: Int) -> String {
        Library.loaded?.getvalue(result, Int32(row), Int32(column)).map { String(cString: $0) } ?? ""
    }

    /// `PQclear`: frees a result.
    static func clear(_ result: OpaquePointer) { Library.loaded?.clear(result) }

    /// `PQlibVersion`: libpq's version (e.g. 150018); loads libpq on first use.
    static func libraryVersion() throws(PostgreSQLError) -> Int { Int(try Library.shared.get().libVersion()) }

    /// libpq's functions, resolved from a `dlopen` handle: loaded once per process, on the first
    /// connection, and never closed (a `PGconn` may outlive any one ledger).
    struct Library: Sendable {
        /// The library's file name: its soname, which has been `libpq.so.5` since PostgreSQL 8.2
        /// (Debian's package: libpq5).
        static let soname = "libpq.so.5"

        /// libpq, loaded on first use (thread-safe: a `static let`), or why it could not be.
        static let shared: Result<Library, PostgreSQLError> = load(soname)

        /// libpq when it is loaded. Only a connection or result handle leads to a call through
        /// here, and one exists only after ``shared`` loaded.
        static var loaded: Library? { try? shared.get() }

        let connectdbParams: @convention(c) (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<UnsafePointer<CChar>?>?, Int32) -> OpaquePointer?
        let status: @convention(c) (OpaquePointer?) -> ConnStatusType
        let errorMessage: @convention(c) (OpaquePointer?) -> UnsafeMutablePointer<CChar>?
        let reset: @convention(c) (OpaquePointer?) -> Void
        let finish: @convention(c) (OpaquePointer?) -> Void
        let execParams: @convention(c) (
            OpaquePointer?, UnsafePointer<CChar>?, Int32, UnsafePointer<Oid>?, UnsafePointer<UnsafePointer<CChar>?>?,
            UnsafePointer<Int32>?, UnsafePointer<Int32>?, Int32) -> OpaquePointer?
        let resultStatus: @convention(c) (OpaquePointer?) -> ExecStatusType
        let resultErrorMessage: @convention(c) (OpaquePointer?) -> UnsafeMutablePointer<CChar>?
        let resultErrorField: @convention(c) (OpaquePointer?, Int32) -> UnsafeMutablePointer<CChar>?
        let ntuples: @convention(c) (OpaquePointer?) -> Int32
        let nfields: @convention(c) (OpaquePointer?) -> Int32
        let getisnull: @convention(c) (OpaquePointer?, Int32, Int32) -> Int32
        let getvalue: @convention(c) (OpaquePointer?, Int32, Int32) -> UnsafeMutablePointer<CChar>?
        let clear: @convention(c) (OpaquePointer?) -> Void
        let libVersion: @convention(c) () -> Int32

        /// Opens `file` (``DynamicLibrary``) and resolves every function this wrapper calls; the error
        /// names the library and what the loader said (the file is missing, a symbol is absent).
        static func load(_ file: String) -> Result<Library, PostgreSQLError> {
            do throws(DynamicLibraryError) {
                let library = try DynamicLibrary.open(file)
                do throws(DynamicLibraryError) {
                    return .success(try Library(library))
                } catch {
                    library.close()  // not the libpq wanted
                    throw error
                }
            } catch {
                switch error.kind {
                case .notLoadable(let reason):
                    return .failure(PostgreSQLError(
                        "a PostgreSQL ledger needs libpq, which cannot be loaded (\(reason)); install it (Debian: apt install libpq5)"))
                case .missingSymbol(let symbol):
                    return .failure(PostgreSQLError(
                        "the libpq loaded from \(file) has no \(symbol); a PostgreSQL ledger needs libpq 9.1 or later"))
                }
            }
        }

        /// Resolves each function from `library`.
        private init(_ library: DynamicLibrary) throws(DynamicLibraryError) {
            connectdbParams = try library.function("PQconnectdbParams")
            status = try library.function("PQstatus")
            errorMessage = try library.function("PQerrorMessage")
            reset = try library.function("PQreset")
            finish = try library.function("PQfinish")
            execParams = try library.function("PQexecParams")
            resultStatus = try library.function("PQresultStatus")
            resultErrorMessage = try library.function("PQresultErrorMessage")
            resultErrorField = try library.function("PQresultErrorField")
            ntuples = try library.function("PQntuples")
            nfields = try library.function("PQnfields")
            getisnull = try library.function("PQgetisnull")
            getvalue = try library.function("PQgetvalue")
            clear = try library.function("PQclear")
            libVersion = try library.function("PQlibVersion")
        }
    }
}

extension String {
    var trimmingTrailingNewlines: String {
        var text = self
        while text.last == "\n" || text.last == "\r" { text.removeLast() }
        return text
    }
}
