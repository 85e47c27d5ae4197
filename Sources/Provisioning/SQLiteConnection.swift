/// An open SQLite connection and the file it is of: statements with bound values, rows of
/// ``SQLValue``, errors as ``LedgerError`` naming the file. Lives inside its ledger's mutex
/// (``SQLiteLedger``), so one thread at a time uses it; closed once, by ``close()``.
struct SQLiteConnection {
    let handle: SQLiteHandle
    /// The file, for error messages.
    let path: String

    func execute(_ sql: String, _ values: [SQLValue] = []) throws(LedgerError) { _ = try run(sql, values) }
    func insert(_ sql: String, _ values: [SQLValue]) throws(LedgerError) -> Int64 { try run(sql, values).lastRowID }
    func query(_ sql: String, _ values: [SQLValue] = []) throws(LedgerError) -> [[SQLValue]] { try run(sql, values).rows }

    /// Runs one statement to its end: its rows, and the last inserted row id.
    func run(_ sql: String, _ values: [SQLValue]) throws(LedgerError) -> (rows: [[SQLValue]], lastRowID: Int64) {
        guard let statement = sqlite3PrepareV2(handle, sql) else {
            throw LedgerError("ledger \(path): \(sqlite3ErrorMessage(handle))", code: sqlite3ErrorCode(handle))
        }
        defer { sqlite3Finalize(statement) }
        for (index, value) in values.enumerated() {
            let position = Int32(index + 1)
            switch value {
            case .integer(let v): sqlite3BindInt64(statement, position, v)
            case .text(let v): sqlite3BindText(statement, position, v)
            case .null: sqlite3BindNull(statement, position)
            }
        }
        var rows: [[SQLValue]] = []
        while true {
            let step = sqlite3Step(statement)
            if step == SQLiteCode.done { break }
            guard step == SQLiteCode.row else { throw LedgerError("ledger \(path): \(sqlite3ErrorMessage(handle))", code: step) }
            var row: [SQLValue] = []
            for column in 0..<sqlite3ColumnCount(statement) {
                switch sqlite3ColumnType(statement, column) {
                case .integer: row.append(.integer(sqlite3ColumnInt64(statement, column)))
                case .null: row.append(.null)
                case .other: row.append(sqlite3ColumnText(statement, column).map { .text($0) } ?? .null)
                }
            }
            rows.append(row)
        }
        return (rows, sqlite3LastInsertRowID(handle))
    }

    /// Closes the connection; it must not be used afterwards.
    func close() { sqlite3CloseV2(handle) }
}
