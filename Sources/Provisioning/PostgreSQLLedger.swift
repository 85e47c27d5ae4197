import Foundation
import Synchronization

/// The provisioning ledger on a PostgreSQL server, for several stations working one run.
///
/// Every statement binds its values (`$1`, `$2`, …). A tag costs two round trips (three when
/// its lease is renewed while it is worked, ``renewLease(run:row:station:epoch:lease:)``): the claim
/// (a manifest row taken with `SELECT … FOR UPDATE SKIP LOCKED`, so stations never wait for one
/// another, its lease epoch raised; or a counter handed out and its use recorded) and the
/// record (the attempt, and the row marked done only while it keeps the claim's epoch, else
/// the attempt recorded `void`), each one statement and so one transaction. The schema is
/// created and migrated by the tool (``schemaVersion``, under an advisory lock so that stations
/// starting together migrate once).
///
/// Thread-safe: one connection behind a mutex. A lost connection makes the call fail with
/// ``LedgerError/isUnavailable``; the next call reconnects. Its calls block for a round trip
/// (or a connection timeout): they belong on its ``executor``, a thread of its own, where
/// ``BatchCoordinator`` makes them; other async callers go there through
/// ``ProvisioningLedger/perform(_:)``.
public final class PostgreSQLLedger: ProvisioningLedger {
    /// The connection, inside the mutex that keeps a transaction's statements together.
    private let connection: Mutex<PostgreSQLConnection>
    /// The thread this ledger's calls run on (started at its first use).
    public let executor = LedgerExecutor(name: "nfctool ledger (PostgreSQL)")
    /// The server, as given (password and all; never print it: use ``location``).
    public let server: PostgreSQLLocation
    /// The server's URI with any password redacted.
    public var location: String { server.redacted }
    /// The station lock this connection holds, to take again after a reconnect.
    private let stationLock = Mutex<(run: String, station: String)?>(nil)

    /// The schema version this code writes (table `nfctool_schema`).
    public static let schemaVersion = 5

    /// Connects to `server` and creates or migrates the schema; `connectTimeout` bounds the wait
    /// for an unreachable server.
    public init(_ server: PostgreSQLLocation, connectTimeout: Int = 5) throws(LedgerError) {
        self.server = server
        do {
            connection = Mutex(try PostgreSQLConnection(server, connectTimeout: connectTimeout))
        } catch {
            throw LedgerError(error)
        }
        try migrate()
    }

    /// Database round trips (statements sent) since the ledger was opened.
    public var roundTrips: Int { connection.withLock { $0.roundTrips } }

    /// Creates the schema or brings it up to ``schemaVersion``, in one transaction.
    private func migrate() throws(LedgerError) {
        try transaction { db throws(PostgreSQLError) in
            try db.query("SELECT pg_advisory_xact_lock(7415226331)")
            try db.query("CREATE TABLE IF NOT EXISTS nfctool_schema(version integer NOT NULL)")
            let version = Int(try db.query("SELECT max(version) FROM nfctool_schema").first?.first?.integer ?? 0)
            guard version < Self.schemaVersion else {
                if version > Self.schemaVersion {
                    throw PostgreSQLError("the ledger's schema is version \(version), newer than this nfctool's \(Self.schemaVersion): update nfctool")
                }
                return
            }
            if version < 1 {
                for statement in Self.version1 { try db.query(statement) }
            }
            if version < 2 {
                for statement in Self.version2 { try db.query(statement) }
            }
            if version < 3 {
                for statement in Self.version3 { try db.query(statement) }
            }
            if version < 4 {
                for statement in Self.version4 { try db.query(statement) }
            }
            if version < 5 {
                for statement in Self.version5 { try db.query(statement) }
            }
            try db.query("DELETE FROM nfctool_schema")
            try db.query("INSERT INTO nfctool_schema(version) VALUES($1)", [.integer(Int64(Self.schemaVersion))])
        }
    }

    /// Version 5: fencing. Each run row's lease epoch (raised by every claim), each attempt's
    /// epoch, the `void` status with the station and UID holding a void tag's row or counter,
    /// its resolution, and at most one done tag per counter value of a named run.
    static let version5 = [
        "ALTER TABLE run_rows ADD COLUMN epoch bigint NOT NULL DEFAULT 0",
        "ALTER TABLE attempts ADD COLUMN epoch bigint",
        "ALTER TABLE attempts ADD COLUMN superseded_station text",
        "ALTER TABLE attempts ADD COLUMN superseded_uid text",
        "ALTER TABLE attempts ADD COLUMN resolution text",
        "ALTER TABLE attempts DROP CONSTRAINT IF EXISTS attempts_status_check",
        "ALTER TABLE attempts ADD CONSTRAINT attempts_status_check CHECK (status IN \(LedgerAttemptStatus.sqlList))",
        """
        CREATE UNIQUE INDEX attempts_run_done_counter ON attempts(run_name, counter)
        WHERE status = 'done' AND run_name IS NOT NULL AND counter IS NOT NULL
        """,
    ]

    /// Version 4: each attempt's failure cause (``FailureCause``; NULL for attempts recorded before).
    static let version4 = ["ALTER TABLE attempts ADD COLUMN cause text"]

    /// Version 3: each session's manifest digest (``ManifestDigest``).
    static let version3 = ["ALTER TABLE runs ADD COLUMN manifest_digest text"]

    /// Version 2: an attempt's status may be `counterfeit` (`batch --require-genuine`).
    static let version2 = [
        "ALTER TABLE attempts DROP CONSTRAINT IF EXISTS attempts_status_check",
        "ALTER TABLE attempts ADD CONSTRAINT attempts_status_check CHECK (status IN \(LedgerAttemptStatus.sqlList))",
    ]

    static let version1 = [
        """
        CREATE TABLE runs(
            id bigserial PRIMARY KEY, name text, station text, started text NOT NULL, finished text, template text, manifest text,
            readers text NOT NULL)
        """,
        """
        CREATE TABLE attempts(
            id bigserial PRIMARY KEY, run bigint NOT NULL REFERENCES runs(id), run_name text, station text, key text UNIQUE,
            uid text NOT NULL, model text NOT NULL, row integer, counter bigint, summary text NOT NULL, bytes integer NOT NULL,
            verified boolean NOT NULL, locked boolean NOT NULL, protected boolean NOT NULL, error text, started text NOT NULL,
            finished text NOT NULL, reader text NOT NULL, status text NOT NULL CHECK (status IN ('done', 'failed')))
        """,
        "CREATE INDEX attempts_uid ON attempts(uid, status)",
        "CREATE UNIQUE INDEX attempts_run_done_uid ON attempts(run_name, uid) WHERE status = 'done' AND run_name IS NOT NULL",
        "CREATE INDEX attempts_run ON attempts(run_name, station)",
        "CREATE TABLE counters(name text PRIMARY KEY, next bigint NOT NULL)",
        """
        CREATE TABLE run_rows(
            run_name text NOT NULL, row integer NOT NULL, line integer NOT NULL, fields text NOT NULL,
            status text NOT NULL DEFAULT 'free' CHECK (status IN ('free', 'held', 'done')), station text, uid text,
            lease_until timestamptz, source text, PRIMARY KEY(run_name, row))
        """,
        // The claim's scan: the rows not done yet, in order.
        "CREATE INDEX run_rows_open ON run_rows(run_name, row) WHERE status <> 'done'",
        "CREATE INDEX run_rows_uid ON run_rows(run_name, uid) WHERE uid IS NOT NULL",
        """
        CREATE TABLE counter_uses(
            run_name text NOT NULL, counter bigint NOT NULL, uid text NOT NULL, station text NOT NULL,
            at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY(run_name, counter))
        """,
    ]

    // MARK: - The ledger

    /// Starts a session; as a station of a named run it also takes the station's lock (an
    /// advisory lock held while this connection lives), so a second live process with the same
    /// station name is refused rather than releasing the first one's rows.
    public func startRun(name: String?, station: String?, template: String?, manifest: String?, readers: [String]) throws(LedgerError) -> Int64 {
        if let name, let station {
            try takeStationLock(run: name, station: station)
            stationLock.withLock { $0 = (name, station) }
        }
        return try single(
            "INSERT INTO runs(name, station, started, template, manifest, readers) VALUES($1, $2, $3, $4, $5, $6) RETURNING id",
            [name.map(SQLValue.text) ?? .null, station.map(SQLValue.text) ?? .null, .text(SQLiteLedger.now()),
             template.map(SQLValue.text) ?? .null, manifest.map(SQLValue.text) ?? .null, .text(readers.joined(separator: " "))])
    }

    private func takeStationLock(run: String, station: String) throws(LedgerError) {
        let got = try query("SELECT pg_try_advisory_lock(hashtext($1), hashtext($2))", [.text(run), .text(station)]).first?.first?.text
        guard got == "t" else {
            throw LedgerError("station '\(station)' is already working run '\(run)' (another nfctool batch holds it): give each station its own --station name")
        }
    }

    /// Marks session `id` finished.
    public func finishRun(_ id: Int64) throws(LedgerError) {
        try query("UPDATE runs SET finished = $1 WHERE id = $2", [.text(SQLiteLedger.now()), .integer(id)])
    }

    /// Records the digest of session `id`'s manifest.
    public func setManifestDigest(_ digest: String, session id: Int64) throws(LedgerError) {
        try query("UPDATE runs SET manifest_digest = $1 WHERE id = $2", [.text(digest), .integer(id)])
    }

    /// The manifests of the sessions without a run name that have rows done.
    public func doneManifests() throws(LedgerError) -> [RecordedManifest] {
        try query(ManifestDigest.doneManifestsSQL).map { RecordedManifest(path: $0[column: 0].text, digest: $0[column: 1].text ?? "") }
    }

    /// The ledger-wide counter `n`.
    public func allocateCounter(start: Int) throws(LedgerError) -> Int {
        _ = try LedgerCounter.next(after: start, run: nil)
        return Int(try Self.counting(run: nil) { () throws(LedgerError) in try single(
            """
            INSERT INTO counters(name, next) VALUES('n', $1::bigint + 1)
            ON CONFLICT (name) DO UPDATE SET next = GREATEST(counters.next, $1::bigint) + 1 RETURNING next - 1
            """, [.integer(Int64(start))]) })
    }

    /// `body`, its "bigint out of range" (SQLSTATE 22003: the counter's next value would pass
    /// 2^63 − 1) said as a counter used up.
    private static func counting<T>(run: String?, _ body: () throws(LedgerError) -> T) throws(LedgerError) -> T {
        do {
            return try body()
        } catch where error.sqlState == "22003" {
            throw LedgerCounter.usedUp(run: run)
        }
    }

    /// Records an attempt and, in a named run, marks its row done or gives it back: one statement.
    @discardableResult
    public func record(_ a: LedgerAttempt) throws(LedgerError) -> Int64 { try recordOutcome(a).id }

    /// Records an attempt and says what it became, in one statement (one round trip): in a
    /// named run a verified tag is done only while its row keeps the claim's epoch (or is
    /// free: nobody holds it), and only when its counter is its own and on no other done tag;
    /// otherwise it is recorded `void`, with the station and UID that hold the row or counter.
    /// The row's update re-checks its condition on the row as it is when the update runs
    /// (READ COMMITTED), so a claim committed meanwhile is seen.
    public func recordOutcome(_ a: LedgerAttempt) throws(LedgerError) -> RecordedAttempt {
        let answer = try query(
            """
            WITH r AS (
                UPDATE run_rows SET
                    status = CASE WHEN $18 = 'done' THEN 'done' ELSE 'free' END,
                    station = CASE WHEN $18 = 'done' THEN $3 ELSE NULL END,
                    uid = CASE WHEN $18 = 'done' THEN $5 ELSE NULL END,
                    lease_until = NULL,
                    epoch = CASE WHEN $18 = 'done' THEN epoch + 1 ELSE epoch END
                WHERE run_name = $2 AND row = $7 AND $3::text IS NOT NULL AND status <> 'done'
                    AND NOT EXISTS (SELECT 1 FROM attempts WHERE key = $4)
                    AND (($18 = 'done' AND (epoch = $20 OR status = 'free' OR ($20::bigint IS NULL AND station = $3 AND uid = $5)))
                        OR ($18 <> 'done' AND status = 'held' AND station = $3 AND uid = $5 AND ($20::bigint IS NULL OR epoch = $20)))
                RETURNING row),
            w AS (
                SELECT station, uid FROM run_rows WHERE $7::integer IS NOT NULL AND run_name = $2 AND row = $7
                UNION ALL
                SELECT station, uid FROM attempts WHERE $7::integer IS NULL AND $8::bigint IS NOT NULL AND run_name = $2 AND counter = $8 AND status = 'done'
                UNION ALL
                SELECT station, uid FROM counter_uses WHERE $7::integer IS NULL AND $8::bigint IS NOT NULL AND run_name = $2 AND counter = $8 AND uid <> $5
                LIMIT 1),
            s AS (
                SELECT CASE WHEN $18 = 'done' AND $2::text IS NOT NULL AND $3::text IS NOT NULL AND EXISTS (SELECT 1 FROM w)
                    AND ($7::integer IS NULL OR NOT EXISTS (SELECT 1 FROM r)) THEN 'void' ELSE $18 END AS status),
            a AS (
                INSERT INTO attempts(run, run_name, station, key, uid, model, row, counter, summary, bytes, verified, locked,
                    protected, error, started, finished, reader, status, cause, epoch, superseded_station, superseded_uid)
                SELECT $1::bigint, $2::text, $3::text, $4::text, $5::text, $6::text, $7::integer, $8::bigint, $9::text, $10::integer,
                    $11::boolean, $12::boolean, $13::boolean, $14::text, $15::text, $16::text, $17::text, s.status, $19::text, $20::bigint,
                    CASE WHEN s.status = 'void' THEN (SELECT station FROM w) END, CASE WHEN s.status = 'void' THEN (SELECT uid FROM w) END
                FROM s
                ON CONFLICT (key) DO NOTHING RETURNING id, status, superseded_station, superseded_uid)
            SELECT id, status, superseded_station, superseded_uid FROM a
            UNION ALL SELECT id, status, superseded_station, superseded_uid FROM attempts WHERE key = $4 AND NOT EXISTS (SELECT 1 FROM a)
            """,
            [.integer(a.run), a.runName.map(SQLValue.text) ?? .null, a.station.map(SQLValue.text) ?? .null,
             a.key.map(SQLValue.text) ?? .null, .text(a.uid), .text(a.model), a.row.map { .integer(Int64($0)) } ?? .null,
             a.counter.map { .integer(Int64($0)) } ?? .null, .text(a.summary), .integer(Int64(a.bytes)), .text(a.verified ? "true" : "false"),
             .text(a.locked ? "true" : "false"), .text(a.protected ? "true" : "false"), a.error.map(SQLValue.text) ?? .null,
             .text(a.started), .text(a.finished), .text(a.reader), .text(a.status), a.cause.map(SQLValue.text) ?? .null,
             a.epoch.map(SQLValue.integer) ?? .null])
        guard let first = answer.first, let id = first[column: 0].integer else { throw LedgerError("the ledger returned no id") }
        return RecordedAttempt(id: id, status: first[column: 1].text ?? a.status, supersededStation: first[column: 2].text, supersededUID: first[column: 3].text)
    }

    /// Extends `station`'s claim of `row` while it keeps epoch `epoch`: one statement.
    public func renewLease(run: String, row: Int, station: String, epoch: Int64, lease: Duration) throws(LedgerError) -> Bool {
        let seconds = Double(SQLiteLedger.milliseconds(lease)) / 1000
        return !(try query(
            """
            UPDATE run_rows SET lease_until = now() + make_interval(secs => $5::double precision)
            WHERE run_name = $1 AND row = $2 AND station = $3 AND epoch = $4 AND status = 'held' RETURNING row
            """, [.text(run), .integer(Int64(row)), .text(station), .integer(epoch), .text(String(seconds))])).isEmpty
    }

    /// Marks the open void attempts of `uid` as `resolution`: one statement.
    public func resolveVoid(run: String?, uid: String, as resolution: VoidResolution) throws(LedgerError) -> [LedgerAttempt] {
        let ids = try query(
            """
            UPDATE attempts SET resolution = $3 WHERE status = 'void' AND resolution IS NULL AND uid = $2 AND ($1::text IS NULL OR run_name = $1)
            RETURNING id
            """, [run.map(SQLValue.text) ?? .null, .text(uid.uppercased()), .text(resolution.rawValue)]).compactMap { $0.first?.integer }
        return try attempts(run: run).filter { ids.contains($0.id) }
    }

    /// The rows done in sessions without a run name.
    public func doneRows() throws(LedgerError) -> Set<Int> {
        Set(try query("SELECT DISTINCT row FROM attempts WHERE status = 'done' AND row IS NOT NULL AND run_name IS NULL")
            .compactMap { $0.first?.integer.map(Int.init) })
    }

    /// Whether `uid` has a `done` attempt.
    public func isDone(uid: String) throws(LedgerError) -> Bool {
        !(try query("SELECT 1 FROM attempts WHERE uid = $1 AND status = 'done' LIMIT 1", [.text(uid.uppercased())])).isEmpty
    }

    /// Every attempt (of the named run, when given), oldest first.
    public func attempts(run: String?) throws(LedgerError) -> [LedgerAttempt] {
        try query(
            """
            SELECT id, run, uid, model, row, counter, summary, bytes, verified, locked, protected, error, started, finished,
                reader, status, run_name, station, key, cause, epoch, superseded_station, superseded_uid, resolution
            FROM attempts WHERE $1::text IS NULL OR run_name = $1 ORDER BY id
            """, [run.map(SQLValue.text) ?? .null]).map(SQLiteLedger.attempt)
    }

    /// Totals (of the named run, with its progress, when given).
    public func stats(run: String?) throws(LedgerError) -> LedgerStats {
        let name: [SQLValue] = [run.map(SQLValue.text) ?? .null]
        let totals = try query(
            """
            SELECT (SELECT count(*) FROM runs WHERE $1::text IS NULL OR name = $1),
                count(*), count(DISTINCT uid) FILTER (WHERE status = 'done'), count(*) FILTER (WHERE status = 'failed'),
                count(DISTINCT uid) FILTER (WHERE status = 'done' AND locked),
                (SELECT next FROM counters WHERE name = COALESCE('run:' || $1, 'n')),
                count(*) FILTER (WHERE status = 'counterfeit'),
                count(*) FILTER (WHERE status = 'void'), count(*) FILTER (WHERE status = 'void' AND resolution IS NULL)
            FROM attempts WHERE $1::text IS NULL OR run_name = $1
            """, name).first ?? []
        func int(_ i: Int) -> Int { i < totals.count ? Int(totals[i].integer ?? 0) : 0 }
        var stats = LedgerStats(
            runs: int(0), attempts: int(1), done: int(2), failed: int(3), locked: int(4),
            nextCounter: totals.count > 5 ? totals[5].integer.map(Int.init) : nil, run: run,
            progress: try run.map { name throws(LedgerError) in try progress(run: name) }, counterfeit: int(6))
        (stats.void, stats.voidOpen) = (int(7), int(8))
        return stats
    }

    /// Every session (of the named run, when given), oldest first.
    public func sessions(run: String?) throws(LedgerError) -> [LedgerSession] {
        try query(LedgerSession.sql.replacingOccurrences(of: "$1", with: "$1::text"), [run.map(SQLValue.text) ?? .null]).map(LedgerSession.from)
    }

    // MARK: - Named runs

    /// Loads `rows` into `run`, once (the same rows again: nothing changes; other rows: refused).
    public func loadManifest(run: String, rows: [ManifestRow], source: String) throws(LedgerError) -> ManifestLoad {
        try transaction { db throws(PostgreSQLError) -> Result<ManifestLoad, LedgerError> in
            // Two loads of one run at once: the second waits for the first, then compares.
            try db.query("SELECT pg_advisory_xact_lock(hashtext($1))", [.text(run)])
            let stored = try db.query("SELECT row, line, fields FROM run_rows WHERE run_name = $1 ORDER BY row", [.text(run)])
            if !stored.isEmpty {
                do throws(LedgerError) {
                    try RunRows.compare(stored: stored, with: rows, run: run)
                } catch {
                    return .failure(error)
                }
                return .success(.alreadyLoaded(rows: rows.count))
            }
            // In batches of 500 rows, one statement each (unnest of bound arrays: no SQL built from values).
            var index = 0
            while index < rows.count {
                let chunk = rows[index..<min(index + 500, rows.count)]
                try db.query(
                    """
                    INSERT INTO run_rows(run_name, row, line, fields, source)
                    SELECT $1, r, l, f, $5 FROM unnest($2::integer[], $3::integer[], $4::text[]) AS t(r, l, f)
                    """,
                    [.text(run), .text(Self.arrayLiteral(chunk.map { String($0.index) })), .text(Self.arrayLiteral(chunk.map { String($0.line) })),
                     .text(Self.arrayLiteral(chunk.map { StoredFields.encode($0.fields) })), .text(source)])
                index += 500
            }
            return .success(.loaded(rows: rows.count))
        }.get()
    }

    /// A PostgreSQL array literal (`{"a","b"}`) of `values`, each quoted and escaped: bound as
    /// one text parameter and cast by the statement, never spliced into SQL.
    static func arrayLiteral(_ values: [String]) -> String {
        "{" + values.map { "\"" + $0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"" }
            .joined(separator: ",") + "}"
    }

    /// Claims the first free row of `run` for `uid` at `station`: one statement, the row taken
    /// with `FOR UPDATE SKIP LOCKED` (a row another station is claiming at this moment is
    /// skipped, not waited for). A second round trip only when nothing was claimed, to say why.
    public func claimRow(run: String, uid: String, station: String, lease: Duration) throws(LedgerError) -> RowClaim {
        let uid = uid.uppercased()
        let seconds = Double(SQLiteLedger.milliseconds(lease)) / 1000
        let answer = try query(
            """
            WITH taken AS (
                SELECT 'already done in run ''' || $1 || '''' AS why FROM attempts WHERE run_name = $1 AND uid = $2 AND status = 'done'
                UNION ALL
                SELECT 'row ' || row || ' of run ''' || $1 || ''' is being written to it at station ' || station
                    FROM run_rows WHERE run_name = $1 AND uid = $2 AND status = 'held' AND lease_until >= now()
                LIMIT 1),
            pick AS (
                SELECT row FROM run_rows
                WHERE run_name = $1 AND status <> 'done' AND (status = 'free' OR lease_until < now()) AND NOT EXISTS (SELECT 1 FROM taken)
                ORDER BY row LIMIT 1 FOR UPDATE SKIP LOCKED),
            claimed AS (
                UPDATE run_rows r SET status = 'held', station = $3, uid = $2, lease_until = now() + make_interval(secs => $4::double precision),
                    epoch = r.epoch + 1
                FROM pick WHERE r.run_name = $1 AND r.row = pick.row
                RETURNING r.row, r.line, r.fields, r.epoch)
            SELECT 'claimed', row, line, fields, epoch FROM claimed
            UNION ALL SELECT why, NULL, NULL, NULL, NULL FROM taken
            """, [.text(run), .text(uid), .text(station), .text(String(seconds))])
        if let first = answer.first {
            if first[column: 0].text == "claimed", let row = first[column: 1].integer, let line = first[column: 2].integer, let fields = first[column: 3].text {
                return .claimed(ManifestRow(index: Int(row), line: Int(line), fields: try StoredFields.decode(fields)), epoch: first[column: 4].integer ?? 0)
            }
            return .uidTaken(first[column: 0].text ?? "taken")
        }
        let counts = try query(
            "SELECT count(*) FILTER (WHERE status = 'held'), count(*) FILTER (WHERE status <> 'done') FROM run_rows WHERE run_name = $1",
            [.text(run)]).first
        let held = Int(counts?[column: 0].integer ?? 0), open = Int(counts?[column: 1].integer ?? 0)
        return open == 0 ? .runComplete : .noneFree(held: max(held, 1))
    }

    /// Hands out the run's next counter to `uid` at `station` and records its use: one statement.
    public func claimCounter(run: String, uid: String, station: String, start: Int) throws(LedgerError) -> CounterClaim {
        _ = try LedgerCounter.next(after: start, run: run)
        let answer = try Self.counting(run: run) { () throws(LedgerError) in try query(
            """
            WITH taken AS (SELECT 1 FROM attempts WHERE run_name = $1 AND uid = $2 AND status = 'done' LIMIT 1),
            c AS (
                INSERT INTO counters(name, next) SELECT 'run:' || $1, $4::bigint + 1 WHERE NOT EXISTS (SELECT 1 FROM taken)
                ON CONFLICT (name) DO UPDATE SET next = GREATEST(counters.next, $4::bigint) + 1 RETURNING next - 1 AS value),
            u AS (INSERT INTO counter_uses(run_name, counter, uid, station) SELECT $1, value, $2, $3 FROM c RETURNING counter)
            SELECT counter FROM u
            """, [.text(run), .text(uid.uppercased()), .text(station), .integer(Int64(start))]) }
        guard let value = answer.first?.first?.integer else { return .uidTaken }
        return .claimed(Int(value))
    }

    /// Frees every row `station` holds in `run`.
    public func releaseClaims(run: String, station: String) throws(LedgerError) -> Int {
        try query(
            """
            UPDATE run_rows SET status = 'free', station = NULL, uid = NULL, lease_until = NULL
            WHERE run_name = $1 AND station = $2 AND status = 'held' RETURNING row
            """, [.text(run), .text(station)]).count
    }

    /// Every run name a session, a loaded manifest or an attempt carries, sorted.
    public func runNames() throws(LedgerError) -> [String] {
        try query("""
            SELECT n FROM (SELECT name FROM runs WHERE name IS NOT NULL UNION SELECT run_name FROM run_rows
            UNION SELECT run_name FROM attempts WHERE run_name IS NOT NULL) AS names(n) ORDER BY n COLLATE "C"
            """).compactMap { $0.first?.text }
    }

    /// The run's rows, tags and stations.
    public func progress(run: String) throws(LedgerError) -> RunProgress {
        let rows = try query(
            """
            SELECT count(*), count(*) FILTER (WHERE status = 'done'), count(*) FILTER (WHERE status = 'held' AND lease_until >= now())
            FROM run_rows WHERE run_name = $1
            """, [.text(run)]).first ?? []
        let tags = try query(
            """
            SELECT count(DISTINCT uid) FILTER (WHERE status = 'done'), count(*) FILTER (WHERE status = 'failed'),
                count(*) FILTER (WHERE status = 'void' AND resolution IS NULL) FROM attempts WHERE run_name = $1
            """,
            [.text(run)]).first ?? []
        return RunProgress.from(rows: rows, tags: tags, stations: try query(RunRows.stationsSQL, [.text(run)]))
    }

    // MARK: - The connection

    /// Runs one statement on the connection (reconnecting first if it was lost).
    @discardableResult
    private func query(_ sql: String, _ values: [SQLValue] = []) throws(LedgerError) -> [[SQLValue]] {
        try withConnection { db throws(PostgreSQLError) in try db.query(sql, values) }
    }

    /// The first column of the first row, as an integer.
    private func single(_ sql: String, _ values: [SQLValue]) throws(LedgerError) -> Int64 {
        guard let value = try query(sql, values).first?.first?.integer else { throw LedgerError("the ledger returned no id") }
        return value
    }

    /// `BEGIN … COMMIT` around `body` (rolled back when it throws).
    private func transaction<T: Sendable>(_ body: (PostgreSQLConnection) throws(PostgreSQLError) -> T) throws(LedgerError) -> T {
        try withConnection { db throws(PostgreSQLError) -> T in
            try db.query("BEGIN")
            do throws(PostgreSQLError) {
                let value = try body(db)
                try db.query("COMMIT")
                return value
            } catch {
                if db.isOpen { _ = try? db.query("ROLLBACK") }
                throw error
            }
        }
    }

    private func withConnection<T: Sendable>(_ body: (PostgreSQLConnection) throws(PostgreSQLError) -> T) throws(LedgerError) -> T {
        let lockToRetake = stationLock.withLock { $0 }
        let result: Result<T, PostgreSQLError> = connection.withLock { db in
            do throws(PostgreSQLError) {
                if !db.isOpen {
                    try db.reconnect()
                    // The station lock went with the old connection's session: take it again.
                    if let lockToRetake {
                        let got = try db.query("SELECT pg_try_advisory_lock(hashtext($1), hashtext($2))", [.text(lockToRetake.run), .text(lockToRetake.station)])
                        _ = got
                    }
                }
                return .success(try body(db))
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success(let value): return value
        case .failure(let error): throw LedgerError(error)
        }
    }
}

extension RunProgress {
    static func from(rows: [SQLValue], tags: [SQLValue], stations: [[SQLValue]]) -> RunProgress {
        RunRows.progress(rows: rows, tags: tags, stations: stations)
    }
}
