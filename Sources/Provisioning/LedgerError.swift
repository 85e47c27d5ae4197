import Foundation

/// A ledger failure: SQLite's message and result code, or a refusal of ours.
public struct LedgerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public var message: String
    /// SQLite's result code (0 when the error is ours).
    public var code: Int32

    /// PostgreSQL's SQLSTATE, for a ledger on a server.
    public var sqlState: String?
    /// Whether the ledger could not be reached (the server is down or the connection was
    /// lost): the work may be tried again once it is back.
    public var isUnavailable: Bool
    /// Whether a counter `{n}` has handed out its last value (``LedgerCounter/usedUp(run:)``):
    /// not a failure of the ledger, the end of what it can hand out.
    public var isCounterUsedUp = false

    /// Creates an error.
    public init(_ message: String, code: Int32 = 0, sqlState: String? = nil, isUnavailable: Bool = false) {
        self.message = message
        self.code = code
        self.sqlState = sqlState
        self.isUnavailable = isUnavailable
    }

    /// A PostgreSQL error as a ledger error.
    public init(_ error: PostgreSQLError) {
        self.init(error.message, sqlState: error.sqlState, isUnavailable: error.isConnectionLoss)
    }

    /// The message, with SQLite's code or PostgreSQL's SQLSTATE when there is one.
    public var description: String {
        if let sqlState { return "\(message) (SQLSTATE \(sqlState))" }
        return code == 0 ? message : "\(message) (SQLite \(code))"
    }

    /// Whether another connection holds the database: `SQLITE_BUSY` (5) or `SQLITE_LOCKED` (6),
    /// extended codes included.
    public var isLockContention: Bool { code & 0xFF == SQLiteCode.busy || code & 0xFF == SQLiteCode.locked }

    /// The refusal of a run name the ledger at `location` does not hold; `known` are the names
    /// it has.
    public static func noSuchRun(_ name: String, known: [String], in location: String) -> LedgerError {
        let shown = known.prefix(10).map { "'\($0)'" }.joined(separator: ", ")
        let more = known.count > 10 ? " and \(known.count - 10) more" : ""
        let have = known.isEmpty ? "it has no named runs" : "its runs: " + shown + more
        return LedgerError("no run named '\(name)' in \(location) (\(have))")
    }
}
