import Foundation

/// A PostgreSQL failure: the server's or libpq's message (any password redacted) and the
/// SQLSTATE when the server sent one.
public struct PostgreSQLError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong (passwords redacted).
    public var message: String
    /// The five-character SQLSTATE (`23505` unique violation, `08006` connection failure, …).
    public var sqlState: String?
    /// Whether the server could not be reached or the connection was lost (connection
    /// exceptions, class 08; the server shutting down, 57P01–57P03): the statement may be tried
    /// again once the server is back. Other errors are the statement's own.
    public var isConnectionLoss: Bool

    /// Creates an error; libpq's multi-line messages become one line.
    public init(_ message: String, sqlState: String? = nil, isConnectionLoss: Bool = false) {
        self.message = message.split(whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\t" })
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: " ")
        self.sqlState = sqlState
        self.isConnectionLoss = isConnectionLoss
    }

    /// The message, with the SQLSTATE when there is one.
    public var description: String { sqlState.map { "\(message) (SQLSTATE \($0))" } ?? message }
}

/// A PostgreSQL connection URI or keyword string, and its form for messages: the password of
/// `postgresql://user:secret@host/db` or of `password=secret` is never printed. nfctool takes the
/// password only from libpq's own `PGPASSWORD` or `~/.pgpass`; a URI that carries one still works
/// but is shown redacted everywhere.
public struct PostgreSQLLocation: Sendable, Hashable, CustomStringConvertible {
    /// The connection string as given (may hold a password: never print it).
    public let connectionString: String

    /// Wraps a connection string.
    public init(_ connectionString: String) { self.connectionString = connectionString }

    /// Whether `text` names a PostgreSQL server: a URI (`postgresql://` or `postgres://`), or a
    /// libpq keyword string (`host=db port=5432 user=line dbname=prov`) — one or more
    /// `keyword=value` pairs, every keyword one libpq knows, so a file name such as `run=1.db`
    /// stays a SQLite file.
    public static func isPostgreSQL(_ text: String) -> Bool {
        let lower = text.lowercased()
        return lower.hasPrefix("postgresql://") || lower.hasPrefix("postgres://") || keywordPairs(text) != nil
    }

    /// libpq's connection keywords (its documented parameter key words).
    static let keywords: Set<String> = [
        "host", "hostaddr", "port", "dbname", "user", "password", "passfile", "require_auth", "channel_binding", "connect_timeout",
        "client_encoding", "options", "application_name", "fallback_application_name", "keepalives", "keepalives_idle",
        "keepalives_interval", "keepalives_count", "tcp_user_timeout", "replication", "gssencmode", "sslmode", "requiressl",
        "sslcompression", "sslcert", "sslkey", "sslpassword", "sslcertmode", "sslrootcert", "sslcrl", "sslcrldir", "sslsni",
        "requirepeer", "ssl_min_protocol_version", "ssl_max_protocol_version", "krbsrvname", "gsslib", "gssdelegation", "service",
        "target_session_attrs", "load_balance_hosts", "sslnegotiation",
    ]

    /// The `keyword=value` pairs of a libpq keyword string, with each value's range in `text`
    /// (as libpq reads them: spaces around `=` allowed, a value single-quoted with `\'` and `\\`
    /// escapes, or unquoted up to white space with `\` escapes), or nil when `text` is not one.
    static func keywordPairs(_ text: String) -> [(keyword: String, value: String, range: Range<String.Index>)]? {
        var pairs: [(keyword: String, value: String, range: Range<String.Index>)] = []
        var i = text.startIndex
        func skipSpace() { while i < text.endIndex, text[i].isWhitespace { i = text.index(after: i) } }
        while true {
            skipSpace()
            if i == text.endIndex { break }
            let keyStart = i
            while i < text.endIndex, text[i] != "=", !text[i].isWhitespace { i = text.index(after: i) }
            let keyword = String(text[keyStart..<i])
            guard keywords.contains(keyword) else { return nil }
            skipSpace()
            guard i < text.endIndex, text[i] == "=" else { return nil }
            i = text.index(after: i)
            skipSpace()
            let valueStart = i
            var value = ""
            if i < text.endIndex, text[i] == "'" {
                i = text.index(after: i)
                var closed = false
                while i < text.endIndex {
                    let c = text[i]
                    i = text.index(after: i)
                    if c == "'" { closed = true; break }
                    if c == "\\", i < text.endIndex { value.append(text[i]); i = text.index(after: i) } else { value.append(c) }
                }
                guard closed else { return nil }
            } else {
                while i < text.endIndex, !text[i].isWhitespace {
                    if text[i] == "\\", text.index(after: i) < text.endIndex { i = text.index(after: i) }
                    value.append(text[i])
                    i = text.index(after: i)
                }
            }
            pairs.append((keyword, value, valueStart..<i))
        }
        return pairs.isEmpty ? nil : pairs
    }

    /// The password in the string, if any (to redact it from libpq's messages too).
    var password: String? {
        if let pairs = Self.keywordPairs(connectionString) {
            return pairs.last { $0.keyword == "password" }.flatMap { $0.value.isEmpty ? nil : $0.value }
        }
        if let range = connectionString.range(of: #"^[A-Za-z]+://[^/@:?#]*:([^@/?#]*)@"#, options: .regularExpression) {
            let userinfo = connectionString[range].dropLast()
            if let colon = userinfo.dropFirst(userinfo.range(of: "://").map { userinfo.distance(from: userinfo.startIndex, to: $0.upperBound) } ?? 0).firstIndex(of: ":") {
                let value = String(userinfo[userinfo.index(after: colon)...])
                return value.isEmpty ? nil : (value.removingPercentEncoding ?? value)
            }
        }
        if let range = connectionString.range(of: #"(?i)(?<=[?&\s]password=|^password=)[^&\s]+"#, options: .regularExpression) {
            return String(connectionString[range]).removingPercentEncoding ?? String(connectionString[range])
        }
        return nil
    }

    /// The string with any password replaced by `***`.
    public var redacted: String {
        if let pairs = Self.keywordPairs(connectionString) {
            var out = connectionString
            for pair in pairs.reversed() where pair.keyword == "password" { out.replaceSubrange(pair.range, with: "***") }
            return Self.redact(out, password: password)
        }
        return Self.redact(connectionString, password: password)
    }

    /// `text` with the URI's password (in user info, a `password=` parameter, or verbatim) replaced by `***`.
    static func redact(_ text: String, password: String?) -> String {
        var out = text.replacingOccurrences(of: #"(://[^/@:?#\s]*):[^@/?#\s]*@"#, with: "$1:***@", options: .regularExpression)
        out = out.replacingOccurrences(of: #"(?i)(password=)[^&\s]+"#, with: "$1***", options: .regularExpression)
        if let password, !password.isEmpty { out = out.replacingOccurrences(of: password, with: "***") }
        return out
    }

    /// The redacted string.
    public var description: String { redacted }
}

/// A row as a statement answers it. A PostgreSQL server says how many columns its rows have, so
/// a hostile or broken one may send fewer than the statement asked for: rows are read by
/// column through ``subscript(column:)``, never by plain index.
extension Array where Element == SQLValue {
    /// The value in `column`, or `.null` when the row has no such column.
    subscript(column column: Int) -> SQLValue {
        indices.contains(column) ? self[column] : .null
    }
}

/// A value bound to or read from a ledger statement (SQLite or PostgreSQL).
enum SQLValue: Sendable, Hashable {
    case integer(Int64)
    case text(String)
    case null

    var integer: Int64? {
        switch self {
        case .integer(let v): v
        case .text(let v): Int64(v)
        case .null: nil
        }
    }
    var text: String? {
        switch self {
        case .text(let v): v
        case .integer(let v): String(v)
        case .null: nil
        }
    }
    /// As a libpq text parameter.
    var parameter: String? {
        switch self {
        case .integer(let v): String(v)
        case .text(let v): v
        case .null: nil
        }
    }
}

/// One connection to a PostgreSQL server, for the ledger: statements with bound parameters only
/// (`$1`, `$2`, …; a value is never spliced into SQL text), results as rows of ``SQLValue``
/// (text; NULL as `.null`), typed errors with the SQLSTATE. Not thread-safe: its owner
/// (``PostgreSQLLedger``) uses it under a mutex. A lost connection is reopened by
/// ``reconnect()``.
final class PostgreSQLConnection {
    private var handle: OpaquePointer?
    let location: PostgreSQLLocation
    /// Statements sent to the server since the connection was made (database round trips).
    private(set) var roundTrips = 0

    /// Connects to `location`; `connectTimeout` (seconds) bounds how long an unreachable
    /// server is waited for; TCP keepalives and a 10 s user timeout (unless the URI sets its
    /// own) make a silent loss of the server an error within seconds. Notices (`relation … already exists, skipping`) are not printed.
    init(_ location: PostgreSQLLocation, connectTimeout: Int = 5, applicationName: String = "nfctool") throws(PostgreSQLError) {
        self.location = location
        try connect(connectTimeout: connectTimeout, applicationName: applicationName)
    }

    private var connectTimeout = 5
    private var applicationName = "nfctool"

    private func connect(connectTimeout: Int, applicationName: String) throws(PostgreSQLError) {
        self.connectTimeout = connectTimeout
        self.applicationName = applicationName
        // Keywords before `dbname` are defaults the URI may override.
        let connection = try PQ.connectdbParams(
            // A server that vanishes without closing the connection (a cut cable, a partition)
            // is noticed within seconds, not after the system's TCP timeout of many minutes.
            [("connect_timeout", String(connectTimeout)), ("application_name", applicationName),
             ("keepalives", "1"), ("keepalives_idle", "5"), ("keepalives_interval", "2"), ("keepalives_count", "3"),
             ("tcp_user_timeout", "10000"),
             ("options", "-c client_min_messages=warning"), ("dbname", location.connectionString)],
            expandDatabaseName: true)
        guard let connection else { throw PostgreSQLError("libpq is out of memory", isConnectionLoss: true) }
        guard PQ.isConnectionOK(connection) else {
            let message = PQ.errorMessage(connection)
            PQ.finish(connection)
            throw PostgreSQLError(
                "cannot connect to \(location.redacted): \(PostgreSQLLocation.redact(message, password: location.password))",
                sqlState: "08001", isConnectionLoss: true)
        }
        handle = connection
    }

    /// Closes the connection and opens it again (the server came back).
    func reconnect() throws(PostgreSQLError) {
        close()
        try connect(connectTimeout: connectTimeout, applicationName: applicationName)
    }

    /// Whether the connection is open and usable as far as libpq knows.
    var isOpen: Bool { handle.map(PQ.isConnectionOK) ?? false }

    /// Closes the connection.
    func close() {
        if let handle { PQ.finish(handle) }
        handle = nil
    }

    deinit { close() }

    /// Runs one statement (several separated by `;` only without parameters) and returns its rows.
    @discardableResult
    func query(_ sql: String, _ values: [SQLValue] = []) throws(PostgreSQLError) -> [[SQLValue]] {
        guard let handle else { throw PostgreSQLError("not connected to \(location.redacted)", sqlState: "08003", isConnectionLoss: true) }
        roundTrips += 1
        guard let result = PQ.execParams(handle, sql, values.map(\.parameter)) else {
            throw PostgreSQLError("libpq is out of memory", isConnectionLoss: !PQ.isConnectionOK(handle))
        }
        defer { PQ.clear(result) }
        guard PQ.resultSucceeded(result) else {
            let state = PQ.sqlState(result)
            var message = PQ.resultErrorMessage(result)
            if message.isEmpty { message = PQ.errorMessage(handle) }
            let lost = !PQ.isConnectionOK(handle) || state.map(Self.isConnectionLossState) ?? false
            throw PostgreSQLError(
                PostgreSQLLocation.redact(message, password: location.password), sqlState: state ?? (lost ? "08006" : nil),
                isConnectionLoss: lost)
        }
        var rows: [[SQLValue]] = []
        let columns = PQ.columnCount(result)
        for row in 0..<PQ.rowCount(result) {
            rows.append((0..<columns).map { column in
                PQ.isNull(result, row: row, column: column) ? .null : .text(PQ.value(result, row: row, column: column))
            })
        }
        return rows
    }

    /// Connection exceptions (class 08) and the server going down (57P01 admin shutdown, 57P02
    /// crash shutdown, 57P03 cannot connect now).
    static func isConnectionLossState(_ state: String) -> Bool {
        state.hasPrefix("08") || state == "57P01" || state == "57P02" || state == "57P03"
    }
}
