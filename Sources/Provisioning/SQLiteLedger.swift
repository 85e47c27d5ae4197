import Foundation
import NFCTags
import Synchronization

/// The SQLite ledger under the name it had first (`Ledger(path:)`).
public typealias Ledger = SQLiteLedger

/// The provisioning ledger: a SQLite database in WAL mode recording every attempt, with one
/// transaction per tag written only after the tag was verified, so a crash can never leave a tag
/// marked done that was not. Counters are allocated from it, so two runs (or two processes) on
/// the same ledger never hand out the same `{n}`.
///
/// Thread-safe: one connection behind a mutex. Several processes may share one ledger file
/// (each batch with its own readers): SQLite's locking orders them, and every statement and
/// transaction that finds the file locked by another process (`SQLITE_BUSY`, `SQLITE_LOCKED`,
/// including the cases where SQLite's busy handler is not called) is retried whole, backing
/// off, for up to ``lockWait``; only then does it fail, with an error saying the ledger stayed
/// locked.
///
/// Its calls block (SQLite waits for the file, retrying, up to ``lockWait``): they belong on
/// its ``executor``, a thread of its own, where ``BatchCoordinator`` makes them; other async
/// callers go there through ``ProvisioningLedger/perform(_:)``.
public final class SQLiteLedger: ProvisioningLedger {
    /// The SQLite connection, inside the mutex that keeps a transaction's statements together
    /// (SQLite's FULLMUTEX mode guards single calls only).
    private let connection: Mutex<SQLiteConnection>
    /// The thread this ledger's calls run on (started at its first use).
    public let executor = LedgerExecutor(name: "nfctool ledger (SQLite)")
    /// The database file.
    public let path: String
    /// The database file (``ProvisioningLedger/location``).
    public var location: String { path }
    /// How long a statement or transaction waits, retrying, for another process to release the
    /// ledger before it fails.
    public let lockWait: Duration

    /// Opens (creating if needed) the ledger at `path`; `lockWait` bounds how long any one
    /// operation waits for another process holding the file (default 60 s).
    ///
    /// Nothing is written to a file before it is known to be a ledger: an empty database (or a
    /// new file) becomes one; a database with other tables, or a ledger of a newer schema than
    /// ``schemaVersion``, is refused untouched. `readOnly` opens the file without ever writing
    /// it (`ledger stats`, `ledger export`, `batch --plan`): a read-only file can be read; a
    /// ledger of an older schema, which cannot be migrated then, is refused.
    /// - Throws: ``LedgerError``: the file cannot be opened or is not a ledger, or it stayed
    ///   locked for `lockWait`. Every message names the file.
    public init(path: String, lockWait: Duration = .seconds(60), readOnly: Bool = false) throws(LedgerError) {
        self.path = path
        self.lockWait = lockWait
        var readOnly = readOnly
        var db = try Self.open(path, readOnly: readOnly, lockWait: lockWait)
        var version: Int64
        do {
            version = try Self.checkIsLedger(db, allowEmpty: !readOnly)
        } catch where readOnly && (error.code & 0xFF == SQLiteCode.readOnly || error.code & 0xFF == SQLiteCode.cantOpen) {
            // A ledger in WAL mode whose directory this user cannot write (no -shm can be made):
            // read as an immutable file, which needs none.
            db.close()
            db = try Self.open(path, readOnly: true, immutable: true, lockWait: lockWait)
            do {
                version = try Self.checkIsLedger(db, allowEmpty: false)
            } catch {
                db.close()
                throw error
            }
        } catch {
            db.close()
            throw error
        }
        if readOnly && version < Self.schemaVersion && access(path, W_OK) == 0 {
            // An older ledger that may be written is migrated, as any opening does.
            db.close()
            db = try Self.open(path, readOnly: false, lockWait: lockWait)
            readOnly = false
        }
        connection = Mutex(db)
        if readOnly {
            guard version == Self.schemaVersion else {
                throw LedgerError(
                    "the ledger \(path) is of schema version \(version); this nfctool reads version \(Self.schemaVersion) and migrates "
                        + "an older ledger only when it may write it: open it once writable (e.g. with 'nfctool batch --plan')")
            }
            return
        }
        try execute("PRAGMA journal_mode=WAL")
        try execute("PRAGMA synchronous=FULL")
        // In one transaction: a station opening the same new ledger at the same moment sees no
        // tables or all of them, never some (it refused the file as "not an nfctool ledger").
        try transaction { db throws(LedgerError) in
            try db.execute("""
                CREATE TABLE IF NOT EXISTS runs(
                    id INTEGER PRIMARY KEY, started TEXT NOT NULL, finished TEXT, template TEXT, manifest TEXT,
                    readers TEXT NOT NULL)
                """)
            try db.execute("""
                CREATE TABLE IF NOT EXISTS attempts(
                    id INTEGER PRIMARY KEY, run INTEGER NOT NULL REFERENCES runs(id), uid TEXT NOT NULL, model TEXT NOT NULL,
                    row INTEGER, counter INTEGER, summary TEXT NOT NULL, bytes INTEGER NOT NULL, verified INTEGER NOT NULL,
                    locked INTEGER NOT NULL, protected INTEGER NOT NULL, error TEXT, started TEXT NOT NULL,
                    finished TEXT NOT NULL, reader TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN \(LedgerAttemptStatus.sqlList)))
                """)
            try db.execute("CREATE INDEX IF NOT EXISTS attempts_uid ON attempts(uid, status)")
            try db.execute("CREATE TABLE IF NOT EXISTS counters(name TEXT PRIMARY KEY, next INTEGER NOT NULL)")
        }
        try migrate()
    }

    /// The schema version this code writes (`PRAGMA user_version`). Version 0 stored manifest
    /// rows from 0; version 1 stores them from 1, as the dry run and the docs number them;
    /// version 2 adds named runs (run rows with their claims, counter uses, the station and
    /// key of each attempt); version 3 lets an attempt's status be `counterfeit`; version 4
    /// keeps each session's manifest digest (`runs.manifest_digest`); version 5 keeps each
    /// attempt's failure cause (`attempts.cause`, ``FailureCause``); version 6 fences claims:
    /// each run row's lease epoch (`run_rows.epoch`), each attempt's epoch, the `void` status
    /// with the station and UID that hold a void tag's row, its resolution, and at most one
    /// done tag per counter value of a named run.
    public static let schemaVersion: Int64 = 6

    /// The tables an nfctool ledger has had since its first schema, with a column each must
    /// hold (the earliest ledgers may lack `counters`, which is made when missing).
    private static let requiredColumns = ["runs": "readers", "attempts": "uid"]

    /// Opens the SQLite connection (read-only, or read-write creating the file).
    private static func open(_ path: String, readOnly: Bool, immutable: Bool = false, lockWait: Duration) throws(LedgerError) -> SQLiteConnection {
        var name = path
        if immutable {
            let allowed = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "?#%"))
            name = "file:" + (path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path) + "?immutable=1"
        }
        let (status, handle) = try sqlite3OpenV2(name, readOnly: readOnly, uri: immutable)
        guard status == SQLiteCode.ok, let handle else {
            let message = handle.map(sqlite3ErrorMessage) ?? "out of memory"
            if let handle { sqlite3CloseV2(handle) }
            throw LedgerError("cannot open the ledger \(path): \(message)", code: status)
        }
        // SQLite's own wait, per attempt; the retries around each operation make up the rest.
        sqlite3BusyTimeout(handle, milliseconds: Int32(min(Self.milliseconds(lockWait), 1000)))
        return SQLiteConnection(handle: handle, path: path)
    }

    /// The schema version of the file, after checking, before anything is written, that it is
    /// an nfctool ledger (or, with `allowEmpty`, an empty database, version 0, about to become
    /// one) of a schema this code knows. A file that is not a database says so, naming the file.
    private static func checkIsLedger(_ db: SQLiteConnection, allowEmpty: Bool) throws(LedgerError) -> Int64 {
        let path = db.path
        let tables = try db.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
            .compactMap { $0.first?.text }
        let version = try db.query("PRAGMA user_version").first?.first?.integer ?? 0
        if tables.isEmpty && version == 0 && allowEmpty { return 0 }
        for (table, column) in Self.requiredColumns.sorted(by: { $0.key < $1.key }) {
            let columns = try db.query("SELECT name FROM pragma_table_info(?)", [.text(table)]).compactMap { $0.first?.text }
            guard columns.contains(column) else {
                let found = tables.isEmpty ? "no tables" : "tables " + tables.prefix(8).joined(separator: ", ") + (tables.count > 8 ? ", …" : "")
                throw LedgerError("\(path) is not an nfctool ledger (it has \(found)); it was left as it was")
            }
        }
        guard version <= Self.schemaVersion else {
            throw LedgerError(
                "the ledger \(path) is of schema version \(version), newer than this nfctool's \(Self.schemaVersion): update nfctool; "
                    + "the ledger was left as it was")
        }
        return version
    }

    /// Brings a ledger of an older schema up to ``schemaVersion``, in one transaction (two
    /// processes opening the same old ledger migrate it once).
    private func migrate() throws(LedgerError) {
        try transaction { db throws(LedgerError) in
            let version = try db.query("PRAGMA user_version").first?.first?.integer ?? 0
            guard version < Self.schemaVersion else { return }
            if version < 1 { try db.execute("UPDATE attempts SET row = row + 1 WHERE row IS NOT NULL") }
            if version < 2 {
                for statement in [
                    "ALTER TABLE runs ADD COLUMN name TEXT",
                    "ALTER TABLE runs ADD COLUMN station TEXT",
                    "ALTER TABLE attempts ADD COLUMN run_name TEXT",
                    "ALTER TABLE attempts ADD COLUMN station TEXT",
                    "ALTER TABLE attempts ADD COLUMN key TEXT",
                    "CREATE UNIQUE INDEX attempts_key ON attempts(key)",
                    "CREATE UNIQUE INDEX attempts_run_done_uid ON attempts(run_name, uid) WHERE status = 'done' AND run_name IS NOT NULL",
                    "CREATE INDEX attempts_run ON attempts(run_name, station)",
                    """
                    CREATE TABLE run_rows(
                        run_name TEXT NOT NULL, row INTEGER NOT NULL, line INTEGER NOT NULL, fields TEXT NOT NULL,
                        status TEXT NOT NULL DEFAULT 'free' CHECK (status IN ('free', 'held', 'done')), station TEXT, uid TEXT,
                        lease_until INTEGER, source TEXT, PRIMARY KEY(run_name, row))
                    """,
                    "CREATE INDEX run_rows_claim ON run_rows(run_name, status, row)",
                    "CREATE INDEX run_rows_uid ON run_rows(run_name, uid)",
                    """
                    CREATE TABLE counter_uses(
                        run_name TEXT NOT NULL, counter INTEGER NOT NULL, uid TEXT NOT NULL, station TEXT NOT NULL, at TEXT NOT NULL,
                        PRIMARY KEY(run_name, counter))
                    """,
                ] { try db.execute(statement) }
            }
            if version < 3 {
                // SQLite cannot change a CHECK constraint: the table is rebuilt with the new one,
                // rows and ids kept, and its indexes made again.
                let columns = "id, run, uid, model, row, counter, summary, bytes, verified, locked, protected, error, started, finished, reader, status, run_name, station, key"
                for statement in [
                    """
                    CREATE TABLE attempts_v3(
                        id INTEGER PRIMARY KEY, run INTEGER NOT NULL REFERENCES runs(id), uid TEXT NOT NULL, model TEXT NOT NULL,
                        row INTEGER, counter INTEGER, summary TEXT NOT NULL, bytes INTEGER NOT NULL, verified INTEGER NOT NULL,
                        locked INTEGER NOT NULL, protected INTEGER NOT NULL, error TEXT, started TEXT NOT NULL,
                        finished TEXT NOT NULL, reader TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN \(LedgerAttemptStatus.sqlList)),
                        run_name TEXT, station TEXT, key TEXT)
                    """,
                    "INSERT INTO attempts_v3(\(columns)) SELECT \(columns) FROM attempts",
                    "DROP TABLE attempts",
                    "ALTER TABLE attempts_v3 RENAME TO attempts",
                    "CREATE INDEX attempts_uid ON attempts(uid, status)",
                    "CREATE UNIQUE INDEX attempts_key ON attempts(key)",
                    "CREATE UNIQUE INDEX attempts_run_done_uid ON attempts(run_name, uid) WHERE status = 'done' AND run_name IS NOT NULL",
                    "CREATE INDEX attempts_run ON attempts(run_name, station)",
                ] { try db.execute(statement) }
            }
            if version < 4 { try db.execute("ALTER TABLE runs ADD COLUMN manifest_digest TEXT") }
            // Attempts recorded before keep no cause (NULL: `ledger stats` says "unrecorded").
            if version < 5 { try db.execute("ALTER TABLE attempts ADD COLUMN cause TEXT") }
            if version < 6 {
                // The status CHECK gains `void`: the table is rebuilt as for version 3.
                let columns = "id, run, uid, model, row, counter, summary, bytes, verified, locked, protected, error, started, finished, reader, status, run_name, station, key, cause"
                for statement in [
                    """
                    CREATE TABLE attempts_v6(
                        id INTEGER PRIMARY KEY, run INTEGER NOT NULL REFERENCES runs(id), uid TEXT NOT NULL, model TEXT NOT NULL,
                        row INTEGER, counter INTEGER, summary TEXT NOT NULL, bytes INTEGER NOT NULL, verified INTEGER NOT NULL,
                        locked INTEGER NOT NULL, protected INTEGER NOT NULL, error TEXT, started TEXT NOT NULL,
                        finished TEXT NOT NULL, reader TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN \(LedgerAttemptStatus.sqlList)),
                        run_name TEXT, station TEXT, key TEXT, cause TEXT, epoch INTEGER, superseded_station TEXT, superseded_uid TEXT,
                        resolution TEXT)
                    """,
                    "INSERT INTO attempts_v6(\(columns)) SELECT \(columns) FROM attempts",
                    "DROP TABLE attempts",
                    "ALTER TABLE attempts_v6 RENAME TO attempts",
                    "CREATE INDEX attempts_uid ON attempts(uid, status)",
                    "CREATE UNIQUE INDEX attempts_key ON attempts(key)",
                    "CREATE UNIQUE INDEX attempts_run_done_uid ON attempts(run_name, uid) WHERE status = 'done' AND run_name IS NOT NULL",
                    "CREATE INDEX attempts_run ON attempts(run_name, station)",
                    """
                    CREATE UNIQUE INDEX attempts_run_done_counter ON attempts(run_name, counter)
                    WHERE status = 'done' AND run_name IS NOT NULL AND counter IS NOT NULL
                    """,
                    "ALTER TABLE run_rows ADD COLUMN epoch INTEGER NOT NULL DEFAULT 0",
                ] { try db.execute(statement) }
            }
            try db.execute("PRAGMA user_version = \(Self.schemaVersion)")
        }
    }

    deinit {
        connection.withLock { $0.close() }
    }

    /// Starts a session (alone, or as `station` of the named run `name`) and returns its id.
    public func startRun(name: String?, station: String?, template: String?, manifest: String?, readers: [String]) throws(LedgerError) -> Int64 {
        try insert(
            "INSERT INTO runs(started, template, manifest, readers, name, station) VALUES(?, ?, ?, ?, ?, ?)",
            [.text(Self.now()), template.map(SQLValue.text) ?? .null, manifest.map(SQLValue.text) ?? .null,
             .text(readers.joined(separator: " ")), name.map(SQLValue.text) ?? .null, station.map(SQLValue.text) ?? .null])
    }

    /// Marks run `id` finished.
    public func finishRun(_ id: Int64) throws(LedgerError) {
        try execute("UPDATE runs SET finished = ? WHERE id = ?", [.text(Self.now()), .integer(id)])
    }

    /// Records the digest of session `id`'s manifest.
    public func setManifestDigest(_ digest: String, session id: Int64) throws(LedgerError) {
        try execute("UPDATE runs SET manifest_digest = ? WHERE id = ?", [.text(digest), .integer(id)])
    }

    /// The manifests of the sessions without a run name that have rows done.
    public func doneManifests() throws(LedgerError) -> [RecordedManifest] {
        try query(ManifestDigest.doneManifestsSQL).map { RecordedManifest(path: $0[column: 0].text, digest: $0[column: 1].text ?? "") }
    }

    /// Hands out the next counter value: at least `start`, never one handed out before on this
    /// ledger (by any run or process), even if the tag that got it failed.
    public func allocateCounter(start: Int) throws(LedgerError) -> Int {
        try transaction { db throws(LedgerError) -> Int in
            let rows = try db.query("SELECT next FROM counters WHERE name = 'n'")
            let next = max(start, try LedgerCounter.stored(rows.first?.first, run: nil) ?? start)
            try db.execute(
                "INSERT INTO counters(name, next) VALUES('n', ?) ON CONFLICT(name) DO UPDATE SET next = excluded.next",
                [.integer(Int64(try LedgerCounter.next(after: next, run: nil)))])
            return next
        }
    }

    /// Records an attempt in one transaction; returns its id. Call it after verification. In a
    /// named run its row becomes done, or free again when the attempt failed and the row is
    /// still this station's; an attempt whose key is already recorded is not recorded twice.
    @discardableResult
    public func record(_ attempt: LedgerAttempt) throws(LedgerError) -> Int64 { try recordOutcome(attempt).id }

    /// Records an attempt in one transaction and says what it became: in a named run a
    /// verified tag is done only while its row keeps the claim's epoch (or is free: nobody
    /// holds it) and its counter is its own and on no other done tag; otherwise it is `void`.
    public func recordOutcome(_ attempt: LedgerAttempt) throws(LedgerError) -> RecordedAttempt {
        try transaction { db throws(LedgerError) -> RecordedAttempt in
            if let key = attempt.key,
               let existing = try db.query("SELECT id, status, superseded_station, superseded_uid FROM attempts WHERE key = ?", [.text(key)]).first {
                return RecordedAttempt(
                    id: existing[column: 0].integer ?? 0, status: existing[column: 1].text ?? "", supersededStation: existing[column: 2].text,
                    supersededUID: existing[column: 3].text)
            }
            var status = attempt.status
            var winner: (station: String?, uid: String?) = (nil, nil)
            if let run = attempt.runName, let station = attempt.station, attempt.status == LedgerAttemptStatus.done.rawValue {
                if let row = attempt.row,
                   let current = try db.query("SELECT status, station, uid, epoch FROM run_rows WHERE run_name = ? AND row = ?", [.text(run), .integer(Int64(row))]).first {
                    let rowStatus = current[column: 0].text
                    let holds = current[column: 3].integer == attempt.epoch
                        || (attempt.epoch == nil && current[column: 1].text == station && current[column: 2].text == attempt.uid)
                    if rowStatus != "done" && (holds || rowStatus == "free") {
                        try db.execute(
                            "UPDATE run_rows SET status = 'done', station = ?, uid = ?, lease_until = NULL, epoch = epoch + 1 WHERE run_name = ? AND row = ?",
                            [.text(station), .text(attempt.uid), .text(run), .integer(Int64(row))])
                    } else {
                        status = LedgerAttemptStatus.void.rawValue
                        winner = (current[column: 1].text, current[column: 2].text)
                    }
                } else if attempt.row == nil, let counter = attempt.counter {
                    let other = try db.query(
                        "SELECT station, uid FROM attempts WHERE run_name = ? AND counter = ? AND status = 'done' LIMIT 1",
                        [.text(run), .integer(Int64(counter))]).first
                    let holder = try db.query(
                        "SELECT station, uid FROM counter_uses WHERE run_name = ? AND counter = ?", [.text(run), .integer(Int64(counter))]).first
                    if let other {
                        status = LedgerAttemptStatus.void.rawValue
                        winner = (other[column: 0].text, other[column: 1].text)
                    } else if let holder, holder[column: 1].text != attempt.uid {
                        status = LedgerAttemptStatus.void.rawValue
                        winner = (holder[column: 0].text, holder[column: 1].text)
                    }
                }
            }
            let id = try db.insert(
                """
                INSERT INTO attempts(run, uid, model, row, counter, summary, bytes, verified, locked, protected, error,
                    started, finished, reader, status, run_name, station, key, cause, epoch, superseded_station, superseded_uid)
                VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [.integer(attempt.run), .text(attempt.uid), .text(attempt.model),
                 attempt.row.map { .integer(Int64($0)) } ?? .null, attempt.counter.map { .integer(Int64($0)) } ?? .null,
                 .text(attempt.summary), .integer(Int64(attempt.bytes)), .integer(attempt.verified ? 1 : 0),
                 .integer(attempt.locked ? 1 : 0), .integer(attempt.protected ? 1 : 0),
                 attempt.error.map(SQLValue.text) ?? .null, .text(attempt.started), .text(attempt.finished),
                 .text(attempt.reader), .text(status), attempt.runName.map(SQLValue.text) ?? .null,
                 attempt.station.map(SQLValue.text) ?? .null, attempt.key.map(SQLValue.text) ?? .null,
                 attempt.cause.map(SQLValue.text) ?? .null, attempt.epoch.map(SQLValue.integer) ?? .null,
                 winner.station.map(SQLValue.text) ?? .null, winner.uid.map(SQLValue.text) ?? .null])
            if let run = attempt.runName, let row = attempt.row, let station = attempt.station, attempt.status != LedgerAttemptStatus.done.rawValue {
                // A failed attempt gives its row back while the claim is still its own.
                try db.execute(
                    """
                    UPDATE run_rows SET status = 'free', station = NULL, uid = NULL, lease_until = NULL
                    WHERE run_name = ? AND row = ? AND status = 'held' AND station = ? AND uid = ? AND (?5 IS NULL OR epoch = ?5)
                    """, [.text(run), .integer(Int64(row)), .text(station), .text(attempt.uid), attempt.epoch.map(SQLValue.integer) ?? .null])
            }
            return RecordedAttempt(id: id, status: status, supersededStation: winner.station, supersededUID: winner.uid)
        }
    }

    /// Extends `station`'s claim of `row` while it keeps epoch `epoch`.
    public func renewLease(run: String, row: Int, station: String, epoch: Int64, lease: Duration) throws(LedgerError) -> Bool {
        try transaction { db throws(LedgerError) -> Bool in
            try db.execute(
                "UPDATE run_rows SET lease_until = ? WHERE run_name = ? AND row = ? AND station = ? AND epoch = ? AND status = 'held'",
                [.integer(Self.nowMilliseconds() + Int64(Self.milliseconds(lease))), .text(run), .integer(Int64(row)), .text(station), .integer(epoch)])
            return (try db.query("SELECT changes()").first?.first?.integer ?? 0) > 0
        }
    }

    /// Marks the open void attempts of `uid` as `resolution`.
    public func resolveVoid(run: String?, uid: String, as resolution: VoidResolution) throws(LedgerError) -> [LedgerAttempt] {
        let ids = try transaction { db throws(LedgerError) -> [Int64] in
            let ids = try db.query(
                "SELECT id FROM attempts WHERE status = 'void' AND resolution IS NULL AND uid = ?1 AND (?2 IS NULL OR run_name = ?2)",
                [.text(uid.uppercased()), run.map(SQLValue.text) ?? .null]).compactMap { $0.first?.integer }
            for id in ids { try db.execute("UPDATE attempts SET resolution = ? WHERE id = ?", [.text(resolution.rawValue), .integer(id)]) }
            return ids
        }
        return try attempts(run: run).filter { ids.contains($0.id) }
    }

    /// The manifest rows already done (written and verified) in any run.
    public func doneRows() throws(LedgerError) -> Set<Int> {
        Set(try query("SELECT DISTINCT row FROM attempts WHERE status = 'done' AND row IS NOT NULL AND run_name IS NULL").compactMap { $0.first?.integer.map(Int.init) })
    }

    /// Whether a tag with `uid` was already provisioned (a `done` attempt).
    public func isDone(uid: String) throws(LedgerError) -> Bool {
        !(try query("SELECT 1 FROM attempts WHERE uid = ? AND status = 'done' LIMIT 1", [.text(uid.uppercased())])).isEmpty
    }

    /// Every attempt, oldest first (of the named run, when given).
    public func attempts(run: String?) throws(LedgerError) -> [LedgerAttempt] {
        try query("""
            SELECT id, run, uid, model, row, counter, summary, bytes, verified, locked, protected, error, started, finished,
                reader, status, run_name, station, key, cause, epoch, superseded_station, superseded_uid, resolution
            FROM attempts WHERE ? IS NULL OR run_name = ? ORDER BY id
            """, [run.map(SQLValue.text) ?? .null, run.map(SQLValue.text) ?? .null]).map(Self.attempt)
    }

    /// An attempt from a row of `SELECT id, run, uid, …, status, run_name, station, key, cause`.
    static func attempt(_ r: [SQLValue]) -> LedgerAttempt {
        var attempt = LedgerAttempt(
            run: r[column: 1].integer ?? 0, uid: r[column: 2].text ?? "", model: r[column: 3].text ?? "", row: r[column: 4].integer.map(Int.init),
            counter: r[column: 5].integer.map(Int.init), summary: r[column: 6].text ?? "", bytes: Int(r[column: 7].integer ?? 0),
            verified: r[column: 8].integer == 1 || r[column: 8].text == "t", locked: r[column: 9].integer == 1 || r[column: 9].text == "t",
            protected: r[column: 10].integer == 1 || r[column: 10].text == "t", error: r[column: 11].text,
            started: r[column: 12].text ?? "", finished: r[column: 13].text ?? "", reader: r[column: 14].text ?? "", status: r[column: 15].text ?? "",
            runName: r[column: 16].text, station: r[column: 17].text, key: r[column: 18].text)
        attempt.cause = r[column: 19].text
        attempt.epoch = r[column: 20].integer
        attempt.supersededStation = r[column: 21].text
        attempt.supersededUID = r[column: 22].text
        attempt.resolution = r[column: 23].text
        attempt.id = r[column: 0].integer ?? 0
        return attempt
    }

    /// Totals (of the named run, with its progress, when given).
    public func stats(run: String?) throws(LedgerError) -> LedgerStats {
        let filter: [SQLValue] = [run.map(SQLValue.text) ?? .null, run.map(SQLValue.text) ?? .null]
        func count(_ sql: String, _ values: [SQLValue]) throws(LedgerError) -> Int { Int(try query(sql, values).first?.first?.integer ?? 0) }
        let counterName = run.map { "run:" + $0 } ?? "n"
        var stats = LedgerStats(
            runs: try count("SELECT COUNT(*) FROM runs WHERE ? IS NULL OR name = ?", filter),
            attempts: try count("SELECT COUNT(*) FROM attempts WHERE ? IS NULL OR run_name = ?", filter),
            done: try count("SELECT COUNT(DISTINCT uid) FROM attempts WHERE status = 'done' AND (? IS NULL OR run_name = ?)", filter),
            failed: try count("SELECT COUNT(*) FROM attempts WHERE status = 'failed' AND (? IS NULL OR run_name = ?)", filter),
            locked: try count("SELECT COUNT(DISTINCT uid) FROM attempts WHERE status = 'done' AND locked = 1 AND (? IS NULL OR run_name = ?)", filter),
            nextCounter: try LedgerCounter.stored(query("SELECT next FROM counters WHERE name = ?", [.text(counterName)]).first?.first, run: run),
            run: run, progress: try run.map { name throws(LedgerError) in try progress(run: name) },
            counterfeit: try count("SELECT COUNT(*) FROM attempts WHERE status = 'counterfeit' AND (? IS NULL OR run_name = ?)", filter))
        let voids = try query(RunRows.voidSQL.replacingOccurrences(of: "$1", with: "?1"), [run.map(SQLValue.text) ?? .null]).first ?? []
        stats.void = voids.count > 0 ? RunRows.count(voids[0]) : 0
        stats.voidOpen = voids.count > 1 ? RunRows.count(voids[1]) : 0
        return stats
    }

    /// Every session (of the named run, when given), oldest first.
    public func sessions(run: String?) throws(LedgerError) -> [LedgerSession] {
        try query(LedgerSession.sql.replacingOccurrences(of: "$1", with: "?1"), [run.map(SQLValue.text) ?? .null]).map(LedgerSession.from)
    }

    // MARK: - Named runs

    /// Every run name a session, a loaded manifest or an attempt carries, sorted.
    public func runNames() throws(LedgerError) -> [String] {
        try query("""
            SELECT name FROM runs WHERE name IS NOT NULL UNION SELECT run_name FROM run_rows
            UNION SELECT run_name FROM attempts WHERE run_name IS NOT NULL ORDER BY 1
            """).compactMap { $0.first?.text }
    }

    /// Loads `rows` into the run `run` (idempotent for the same rows; other rows are refused).
    public func loadManifest(run: String, rows: [ManifestRow], source: String) throws(LedgerError) -> ManifestLoad {
        try transaction { db throws(LedgerError) -> ManifestLoad in
            let stored = try db.query("SELECT row, line, fields FROM run_rows WHERE run_name = ? ORDER BY row", [.text(run)])
            if !stored.isEmpty {
                try RunRows.compare(stored: stored, with: rows, run: run)
                return .alreadyLoaded(rows: rows.count)
            }
            for row in rows {
                try db.execute(
                    "INSERT INTO run_rows(run_name, row, line, fields, source) VALUES(?, ?, ?, ?, ?)",
                    [.text(run), .integer(Int64(row.index)), .integer(Int64(row.line)), .text(StoredFields.encode(row.fields)), .text(source)])
            }
            return .loaded(rows: rows.count)
        }
    }

    /// Claims the first free row of `run` for `uid` at `station` (one transaction: SQLite
    /// orders concurrent claims, so no two stations get the same row).
    public func claimRow(run: String, uid: String, station: String, lease: Duration) throws(LedgerError) -> RowClaim {
        let uid = uid.uppercased()
        return try transaction { db throws(LedgerError) -> RowClaim in
            let now = Self.nowMilliseconds()
            if !(try db.query("SELECT 1 FROM attempts WHERE run_name = ? AND uid = ? AND status = 'done' LIMIT 1", [.text(run), .text(uid)])).isEmpty {
                return .uidTaken("already done in run '\(run)'")
            }
            if let held = try db.query(
                "SELECT row, station FROM run_rows WHERE run_name = ? AND uid = ? AND status = 'held' AND lease_until >= ? LIMIT 1",
                [.text(run), .text(uid), .integer(now)]).first {
                return .uidTaken("row \(held[column: 0].integer ?? 0) of run '\(run)' is being written to it at station \(held[column: 1].text ?? "?")")
            }
            guard let free = try db.query(
                """
                SELECT row, line, fields FROM run_rows WHERE run_name = ? AND (status = 'free' OR (status = 'held' AND lease_until < ?))
                ORDER BY row LIMIT 1
                """, [.text(run), .integer(now)]).first, let row = free[column: 0].integer, let line = free[column: 1].integer, let fields = free[column: 2].text else {
                let counts = try db.query(
                    "SELECT COUNT(*) FILTER (WHERE status = 'held'), COUNT(*) FILTER (WHERE status <> 'done') FROM run_rows WHERE run_name = ?",
                    [.text(run)]).first
                let held = Int(counts?[column: 0].integer ?? 0), open = Int(counts?[column: 1].integer ?? 0)
                return open == 0 ? .runComplete : .noneFree(held: held)
            }
            try db.execute(
                "UPDATE run_rows SET status = 'held', station = ?, uid = ?, lease_until = ?, epoch = epoch + 1 WHERE run_name = ? AND row = ?",
                [.text(station), .text(uid), .integer(now + Int64(Self.milliseconds(lease))), .text(run), .integer(row)])
            let epoch = try db.query("SELECT epoch FROM run_rows WHERE run_name = ? AND row = ?", [.text(run), .integer(row)]).first?.first?.integer ?? 0
            return .claimed(ManifestRow(index: Int(row), line: Int(line), fields: try StoredFields.decode(fields)), epoch: epoch)
        }
    }

    /// Hands out the run's next counter to `uid` at `station`, recording the use in the same transaction.
    public func claimCounter(run: String, uid: String, station: String, start: Int) throws(LedgerError) -> CounterClaim {
        let uid = uid.uppercased()
        return try transaction { db throws(LedgerError) -> CounterClaim in
            if !(try db.query("SELECT 1 FROM attempts WHERE run_name = ? AND uid = ? AND status = 'done' LIMIT 1", [.text(run), .text(uid)])).isEmpty {
                return .uidTaken
            }
            let name = "run:" + run
            let stored = try LedgerCounter.stored(db.query("SELECT next FROM counters WHERE name = ?", [.text(name)]).first?.first, run: run)
            let value = max(start, stored ?? start)
            try db.execute(
                "INSERT INTO counters(name, next) VALUES(?, ?) ON CONFLICT(name) DO UPDATE SET next = excluded.next",
                [.text(name), .integer(Int64(try LedgerCounter.next(after: value, run: run)))])
            try db.execute(
                "INSERT INTO counter_uses(run_name, counter, uid, station, at) VALUES(?, ?, ?, ?, ?)",
                [.text(run), .integer(Int64(value)), .text(uid), .text(station), .text(Self.now())])
            return .claimed(value)
        }
    }

    /// Frees every row `station` holds in `run`.
    public func releaseClaims(run: String, station: String) throws(LedgerError) -> Int {
        try transaction { db throws(LedgerError) -> Int in
            let held = try db.query("SELECT COUNT(*) FROM run_rows WHERE run_name = ? AND station = ? AND status = 'held'", [.text(run), .text(station)])
            try db.execute(
                "UPDATE run_rows SET status = 'free', station = NULL, uid = NULL, lease_until = NULL WHERE run_name = ? AND station = ? AND status = 'held'",
                [.text(run), .text(station)])
            return Int(held.first?.first?.integer ?? 0)
        }
    }

    /// The run's rows, tags and stations.
    public func progress(run: String) throws(LedgerError) -> RunProgress {
        let now = Self.nowMilliseconds()
        let rows = try query(
            """
            SELECT COUNT(*), COUNT(*) FILTER (WHERE status = 'done'), COUNT(*) FILTER (WHERE status = 'held' AND lease_until >= ?)
            FROM run_rows WHERE run_name = ?
            """, [.integer(now), .text(run)]).first ?? []
        let tags = try query(
            """
            SELECT COUNT(DISTINCT uid) FILTER (WHERE status = 'done'), COUNT(*) FILTER (WHERE status = 'failed'),
                COUNT(*) FILTER (WHERE status = 'void' AND resolution IS NULL) FROM attempts WHERE run_name = ?
            """,
            [.text(run)]).first ?? []
        let stations = try query(RunRows.stationsSQL.replacingOccurrences(of: "$1", with: "?"), [.text(run)])
        return RunRows.progress(rows: rows, tags: tags, stations: stations)
    }

    /// Milliseconds since 1970 by this machine's clock (the leases of a SQLite ledger, which
    /// only processes of this machine share).
    static func nowMilliseconds() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }

    /// Now, ISO 8601 in UTC with milliseconds.
    public static func now() -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date())
    }

    // MARK: - SQLite

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`, holding the connection the whole time so no
    /// other thread's statement lands inside the transaction. A transaction that finds the
    /// ledger locked is rolled back and run again whole (see ``retryingWhileLocked(_:)``).
    private func transaction<T: Sendable>(_ body: (SQLiteConnection) throws(LedgerError) -> T) throws(LedgerError) -> T {
        try retryingWhileLocked { () throws(LedgerError) -> T in
            let result: Result<T, LedgerError> = connection.withLock { db in
                do throws(LedgerError) {
                    try db.execute("BEGIN IMMEDIATE")
                    do throws(LedgerError) {
                        let value = try body(db)
                        try db.execute("COMMIT")
                        return .success(value)
                    } catch {
                        try? db.execute("ROLLBACK")
                        return .failure(error)
                    }
                } catch {
                    return .failure(error)
                }
            }
            return try result.get()
        }
    }

    /// Runs `attempt` (each time taking the mutex itself), again and again while it fails because another process
    /// holds the ledger (`SQLITE_BUSY` or `SQLITE_LOCKED`, after SQLite's own busy wait, or at
    /// once where SQLite does not wait: a stale WAL snapshot, a recovery), sleeping 5 ms
    /// doubling to 250 ms (with jitter, so processes fall out of step) between attempts, for up
    /// to ``lockWait`` in all. Any other failure is thrown at once.
    private func retryingWhileLocked<T>(_ attempt: () throws(LedgerError) -> T) throws(LedgerError) -> T {
        let clock = ContinuousClock()
        let deadline = clock.now + lockWait
        var pause = Duration.milliseconds(5)
        var tries = 0
        while true {
            tries += 1
            do throws(LedgerError) {
                return try attempt()
            } catch where error.isLockContention {
                guard clock.now < deadline else {
                    throw LedgerError(
                        "the ledger \(path) stayed locked by another process for \(Self.milliseconds(lockWait) / 1000) s (\(tries) attempts); "
                            + "is another nfctool stuck on it? Last error: \(error.message)", code: error.code)
                }
                let jittered = pause * Double.random(in: 0.5...1.5)
                usleep(useconds_t(clamping: Self.milliseconds(min(jittered, deadline - clock.now)) * 1000))
                pause = min(pause * 2, .milliseconds(250))
            }
        }
    }

    static func milliseconds(_ duration: Duration) -> Int {
        max(0, Int(duration.components.seconds) * 1000 + Int(duration.components.attoseconds / 1_000_000_000_000_000))
    }

    private func execute(_ sql: String, _ values: [SQLValue] = []) throws(LedgerError) {
        _ = try locked { db throws(LedgerError) in try db.run(sql, values) }
    }

    private func insert(_ sql: String, _ values: [SQLValue]) throws(LedgerError) -> Int64 {
        try locked { db throws(LedgerError) in try db.insert(sql, values) }
    }

    private func query(_ sql: String, _ values: [SQLValue] = []) throws(LedgerError) -> [[SQLValue]] {
        try locked { db throws(LedgerError) in try db.query(sql, values) }
    }

    /// Runs one statement (its own transaction) under the mutex, retried while the ledger is
    /// locked by another process.
    private func locked<T: Sendable>(_ body: (SQLiteConnection) throws(LedgerError) -> T) throws(LedgerError) -> T {
        try retryingWhileLocked { () throws(LedgerError) -> T in
            let result: Result<T, LedgerError> = connection.withLock { db in
                do throws(LedgerError) { return .success(try body(db)) } catch { return .failure(error) }
            }
            return try result.get()
        }
    }
}
