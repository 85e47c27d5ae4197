import Foundation
import CLibPQ

/// libpq, wrapped once: one function per libpq call this package makes, and nothing else
/// imports `CLibPQ` (Tests/IntegrationTests/LayeringTests.swift checks it). The functions are
/// thin: they convert Swift values to C and back; error handling is
/// ``PostgreSQLConnection``'s. A `PGconn` or `PGresult` is used by one thread at a time (the
/// owner's mutex).
enum PQ {
    /// `PQconnectdbParams`: connects with keyword/value pairs; `expandDatabaseName` lets the
    /// `dbname` value be a connection URI (whose parameters override the pairs before it).
    static func connectdbParams(_ pairs: [(String, String)], expandDatabaseName: Bool) -> OpaquePointer? {
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
                PQconnectdbParams(k.baseAddress, v.baseAddress, expandDatabaseName ? 1 : 0)
            }
        }
    }

    /// `PQstatus`: whether the connection is usable.
    static func isConnectionOK(_ connection: OpaquePointer) -> Bool { PQstatus(connection) == CONNECTION_OK }

    /// `PQerrorMessage`: the connection's last error, trimmed.
    static func errorMessage(_ connection: OpaquePointer) -> String {
        PQerrorMessage(connection).map { String(cString: $0) }?.trimmingTrailingNewlines ?? "unknown libpq error"
    }

    /// `PQreset`: closes and reopens the connection with the same parameters.
    static func reset(_ connection: OpaquePointer) { PQreset(connection) }

    /// `PQfinish`: closes the connection and frees it.
    static func finish(_ connection: OpaquePointer) { PQfinish(connection) }

    /// `PQexecParams`: one statement with its parameters bound as text (`$1`, `$2`, …; nil is
    /// SQL NULL), results in text format. Nil only when libpq is out of memory.
    static func execParams(_ connection: OpaquePointer, _ sql: String, _ parameters: [String?]) -> OpaquePointer? {
        let copies = parameters.map { $0.map { strdup($0) } ?? nil }
        defer { copies.forEach { free($0) } }
        let pointers: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } }
        return pointers.withUnsafeBufferPointer { values in
            PQexecParams(connection, sql, Int32(parameters.count), nil, values.baseAddress, nil, nil, 0)
        }
    }

    /// `PQresultStatus`: whether a result is a success (command done, or rows).
    static func resultSucceeded(_ result: OpaquePointer) -> Bool {
        let status = PQresultStatus(result)
        return status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK
    }

    /// `PQresultErrorMessage`: the error of a failed result, trimmed.
    static func resultErrorMessage(_ result: OpaquePointer) -> String {
        PQresultErrorMessage(result).map { String(cString: $0) }?.trimmingTrailingNewlines ?? ""
    }

    /// `PQresultErrorField(…, PG_DIAG_SQLSTATE)`: the five-character SQLSTATE of a failed result.
    static func sqlState(_ result: OpaquePointer) -> String? {
        PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
    }

    /// `PQntuples`: the number of rows.
    static func rowCount(_ result: OpaquePointer) -> Int { Int(PQntuples(result)) }

    /// `PQnfields`: the number of columns.
    static func columnCount(_ result: OpaquePointer) -> Int { Int(PQnfields(result)) }

    /// `PQgetisnull`: whether a value is SQL NULL.
    static func isNull(_ result: OpaquePointer, row: Int, column: Int) -> Bool { PQgetisnull(result, Int32(row), Int32(column)) == 1 }

    /// `PQgetvalue`: a value as text.
    static func value(_ result: OpaquePointer, row: Int, column: Int) -> String {
        PQgetvalue(result, Int32(row), Int32(column)).map { String(cString: $0) } ?? ""
    }

    /// `PQclear`: frees a result.
    static func clear(_ result: OpaquePointer) { PQclear(result) }

    /// `PQlibVersion`: libpq's version (e.g. 150018).
    static func libraryVersion() -> Int { Int(PQlibVersion()) }
}

extension String {
    var trimmingTrailingNewlines: String {
        var text = self
        while text.last == "\n" || text.last == "\r" { text.removeLast() }
        return text
    }
}
