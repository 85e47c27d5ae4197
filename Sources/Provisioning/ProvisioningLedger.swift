import Foundation
import NFCCore

/// The provisioning ledger, whatever keeps it: ``SQLiteLedger`` (a SQLite file, the embedded default)
/// or ``PostgreSQLLedger`` (a server several stations share). Both record every attempt after
/// its verification, hand out counters that are never handed out again, and keep named runs:
/// manifest rows loaded once (``loadManifest(run:rows:source:)``), claimed one at a time with a
/// lease (``claimRow(run:uid:station:lease:)``), counters recorded with the UID that got them
/// (``claimCounter(run:uid:station:start:)``). The same test suite runs against both
/// (Tests/ProvisioningTests/LedgerContractTests.swift).
public protocol ProvisioningLedger: AnyObject, Sendable {
    /// The ledger for messages: the file's path, or the server's URI with any password redacted.
    var location: String { get }

    /// The thread its calls belong on (they block: SQLite's busy waits, PostgreSQL's round
    /// trips). ``BatchCoordinator`` runs there; ``perform(_:)`` takes other callers there.
    /// Default: ``LedgerExecutor/shared``.
    var executor: LedgerExecutor { get }

    /// Starts a session (one `nfctool batch` process) and returns its id: on its own, or as
    /// station `station` of the named run `name`.
    func startRun(name: String?, station: String?, template: String?, manifest: String?, readers: [String]) throws(LedgerError) -> Int64
    /// Marks session `id` finished.
    func finishRun(_ id: Int64) throws(LedgerError)
    /// Hands out the ledger-wide counter: at least `start`, never one handed out before.
    func allocateCounter(start: Int) throws(LedgerError) -> Int
    /// Records an attempt (after verification) and returns its id. In a named run the
    /// attempt's manifest row becomes done (or free again when the attempt failed), in the same
    /// transaction. An attempt with a ``LedgerAttempt/key`` already recorded is not recorded
    /// again (a journal replayed twice): its first id is returned.
    @discardableResult
    func record(_ attempt: LedgerAttempt) throws(LedgerError) -> Int64
    /// The manifest rows done (written and verified) in any session without a run name.
    func doneRows() throws(LedgerError) -> Set<Int>
    /// Whether a tag with `uid` was provisioned (a `done` attempt), in any run.
    func isDone(uid: String) throws(LedgerError) -> Bool
    /// Every attempt, oldest first; only those of the named run when `run` is given.
    func attempts(run: String?) throws(LedgerError) -> [LedgerAttempt]
    /// Totals; only the named run's when `run` is given (with its rows and per-station progress).
    func stats(run: String?) throws(LedgerError) -> LedgerStats
    /// The sessions (one per `nfctool batch` process), oldest first; only those of the named
    /// run when `run` is given: when each started and finished and what it was given (template,
    /// manifest and its digest, readers).
    func sessions(run: String?) throws(LedgerError) -> [LedgerSession]
    /// The names of the ledger's runs (`batch --run`, `ledger load --run`): every name a session,
    /// a loaded manifest or an attempt carries, sorted.
    func runNames() throws(LedgerError) -> [String]

    /// Loads a manifest's rows into the named run. Idempotent: loading the same rows again
    /// changes nothing (``ManifestLoad/alreadyLoaded``); different rows under a run name that
    /// already has rows are refused with an error naming the first row that differs.
    func loadManifest(run: String, rows: [ManifestRow], source: String) throws(LedgerError) -> ManifestLoad
    /// Claims the first free row of the named run for the tag `uid` at `station`, for `lease`
    /// (a row whose lease ran out is free again). Refuses a UID already done, or held by
    /// another row, in the run. Each claim raises the row's lease epoch, which the claim
    /// returns: the tag is recorded done only while the row keeps that epoch (fencing: a
    /// station cut off past its lease cannot record a row another station claimed since).
    func claimRow(run: String, uid: String, station: String, lease: Duration) throws(LedgerError) -> RowClaim
    /// Hands out the named run's next counter (at least `start`) for the tag `uid` at
    /// `station`, recording who got it in the same transaction. Refuses a UID already done in
    /// the run.
    func claimCounter(run: String, uid: String, station: String, start: Int) throws(LedgerError) -> CounterClaim
    /// Extends `station`'s claim of `row` (with lease epoch `epoch`) to `lease` from now;
    /// false when the claim is no longer this station's (the row was claimed again, or is done).
    func renewLease(run: String, row: Int, station: String, epoch: Int64, lease: Duration) throws(LedgerError) -> Bool
    /// Records an attempt as ``record(_:)`` does and says what it became: a verified tag whose
    /// manifest row was claimed again since its claim (another epoch), or whose counter is not
    /// its own or on another done tag, is recorded ``LedgerAttemptStatus/void``, naming the
    /// station and UID that hold it; nothing is ever done twice.
    func recordOutcome(_ attempt: LedgerAttempt) throws(LedgerError) -> RecordedAttempt
    /// Marks the void attempts of the tag `uid` (in the named run, when given) not yet
    /// accounted for as `resolution`; returns them as now recorded (empty: none was open).
    func resolveVoid(run: String?, uid: String, as resolution: VoidResolution) throws(LedgerError) -> [LedgerAttempt]
    /// Gives back at once every row `station` holds in the named run (the station restarted).
    func releaseClaims(run: String, station: String) throws(LedgerError) -> Int
    /// The run's progress: rows (total, done, held), tags done, per-station counts and rates.
    func progress(run: String) throws(LedgerError) -> RunProgress

    /// Records the digest of the manifest session `id` works (``ManifestDigest/of(_:)``), so a
    /// later session can tell whether its manifest is the same one.
    func setManifestDigest(_ digest: String, session id: Int64) throws(LedgerError)
    /// The manifests (path as given, rows digest) of the sessions without a run name that have
    /// rows done; sessions that recorded no digest (ledgers written before it was kept) are left
    /// out.
    func doneManifests() throws(LedgerError) -> [RecordedManifest]
}

/// A session (one `nfctool batch` process) as the ledger keeps it: the `runs` table's row.
public struct LedgerSession: Sendable, Hashable, Codable {
    /// The session's id (the attempts' ``LedgerAttempt/run``).
    public var id: Int64
    /// The named run it worked (`--run`), if any.
    public var name: String?
    /// Its station, in a named run.
    public var station: String?
    /// When it started (ISO 8601).
    public var started: String
    /// When it finished (nil: it never said so: still running, or killed).
    public var finished: String?
    /// The message template it was given, if any.
    public var template: String?
    /// The manifest's path as it was given, if any.
    public var manifest: String?
    /// The manifest's rows digest (``ManifestDigest/of(_:)``), when recorded.
    public var manifestDigest: String?
    /// Its readers' connection strings, space-separated.
    public var readers: String

    /// Both ledgers' query: every session (of run `$1` when not NULL), oldest first.
    static let sql = """
        SELECT id, name, station, started, finished, template, manifest, manifest_digest, readers FROM runs
        WHERE $1 IS NULL OR name = $1 ORDER BY id
        """

    /// A session from a row of ``sql``.
    static func from(_ r: [SQLValue]) -> LedgerSession {
        LedgerSession(
            id: r[column: 0].integer ?? 0, name: r[column: 1].text, station: r[column: 2].text, started: r[column: 3].text ?? "",
            finished: r[column: 4].text, template: r[column: 5].text, manifest: r[column: 6].text, manifestDigest: r[column: 7].text,
            readers: r[column: 8].text ?? "")
    }
}

/// A manifest as a ledger session recorded it.
public struct RecordedManifest: Sendable, Hashable {
    /// The manifest's path as the session was given it.
    public var path: String?
    /// Its rows digest (``ManifestDigest/of(_:)``).
    public var digest: String

    /// A recorded manifest.
    public init(path: String?, digest: String) {
        self.path = path
        self.digest = digest
    }
}

/// What a manifest's rows are, in one short value: sessions without a run name match rows to
/// the ledger by number only (`--resume` skips the rows done), so the ledger keeps this digest
/// and a manifest with other rows is refused rather than silently skipped. Named runs keep the
/// rows themselves (``ProvisioningLedger/loadManifest(run:rows:source:)``).
public enum ManifestDigest {
    /// SHA-256 (hex) over the rows' stored form (each row's `[name, value]` pairs as a named run
    /// stores them, one a line, in order): the same rows give the same digest whatever their
    /// file's layout (line endings, blank lines, JSONL or CSV).
    public static func of(_ rows: [ManifestRow]) -> String {
        Hex.encode(SHA256.hash(Array(rows.map { StoredFields.encode($0.fields) + "\n" }.joined().utf8)))
    }

    /// Both ledgers' query for ``ProvisioningLedger/doneManifests()``: path and digest of each
    /// session without a run name that recorded a digest and has a manifest row done.
    static let doneManifestsSQL = """
        SELECT r.manifest, r.manifest_digest FROM runs r
        WHERE r.name IS NULL AND r.manifest_digest IS NOT NULL
            AND EXISTS (SELECT 1 FROM attempts a WHERE a.run = r.id AND a.status = 'done' AND a.row IS NOT NULL)
        ORDER BY r.id
        """

    /// Why `rows` (the manifest at `path`) cannot work the ledger's sessions without a run name
    /// (their done rows came from another manifest; the reason names both), or nil when they can.
    public static func conflict(_ rows: [ManifestRow], path: String, in ledger: any ProvisioningLedger) throws(LedgerError) -> String? {
        let digest = of(rows)
        guard let other = try ledger.doneManifests().first(where: { $0.digest != digest }) else { return nil }
        return "manifest \(path) (rows digest \(digest.prefix(12))) is not the manifest whose rows \(ledger.location) has done: "
            + "\(other.path ?? "another manifest") (rows digest \(other.digest.prefix(12))). Rows are matched by number, so this "
            + "one's would be skipped or mixed with it: give that manifest, or use a new ledger"
    }
}

extension ProvisioningLedger {
    /// The executor of a ledger that has none of its own.
    public var executor: LedgerExecutor { .shared }

    /// Runs `body` (calls to this ledger) on the ledger's ``executor``, off Swift's cooperative
    /// pool, and returns its result.
    public func perform<T: Sendable>(_ body: @Sendable () throws(LedgerError) -> T) async throws(LedgerError) -> T {
        try await LedgerCall(on: executor).run(body)
    }

    /// Starts a session of its own (no run name).
    public func startRun(template: String?, manifest: String?, readers: [String]) throws(LedgerError) -> Int64 {
        try startRun(name: nil, station: nil, template: template, manifest: manifest, readers: readers)
    }

    /// Every attempt, oldest first.
    public func attempts() throws(LedgerError) -> [LedgerAttempt] { try attempts(run: nil) }

    /// A ledger without fencing (a test's stand-in): the attempt recorded as it is.
    public func recordOutcome(_ attempt: LedgerAttempt) throws(LedgerError) -> RecordedAttempt {
        RecordedAttempt(id: try record(attempt), status: attempt.status)
    }

    /// A ledger without leases (a test's stand-in): every claim stays the station's.
    public func renewLease(run: String, row: Int, station: String, epoch: Int64, lease: Duration) throws(LedgerError) -> Bool { true }

    /// A ledger that keeps no void tags (a test's stand-in): none to resolve.
    public func resolveVoid(run: String?, uid: String, as resolution: VoidResolution) throws(LedgerError) -> [LedgerAttempt] { [] }

    /// No sessions: the answer of a ledger that keeps none (a test's stand-in).
    public func sessions(run: String?) throws(LedgerError) -> [LedgerSession] { [] }

    /// Totals over the whole ledger.
    public func stats() throws(LedgerError) -> LedgerStats { try stats(run: nil) }

    /// Refuses a run name the ledger does not hold (a typo must not read as an empty run):
    /// the error names the runs it has.
    public func requireRun(_ name: String) throws(LedgerError) {
        let names = try runNames()
        guard !names.contains(name) else { return }
        throw LedgerError.noSuchRun(name, known: names, in: location)
    }

    /// Every attempt (of the named run, when given) as CSV (header first; RFC 4180 quoting): the
    /// attempt's columns through `status`, then `cause` (empty for a done attempt), then
    /// `station` for a named run.
    public func exportCSV(run: String? = nil) throws(LedgerError) -> String {
        var columns = ["id", "run", "uid", "model", "row", "counter", "summary", "bytes", "verified", "locked", "protected",
                       "error", "started", "finished", "reader", "status", "cause"]
        if run != nil { columns += ["station", "superseded_station", "superseded_uid", "resolution"] }
        var lines = [columns.joined(separator: ",")]
        for a in try attempts(run: run) {
            var values: [String] = [
                String(a.id), String(a.run), a.uid, a.model, a.row.map(String.init) ?? "", a.counter.map(String.init) ?? "",
                a.summary, String(a.bytes), String(a.verified), String(a.locked), String(a.protected), a.error ?? "",
                a.started, a.finished, a.reader, a.status, a.cause ?? "",
            ]
            if run != nil { values += [a.station ?? "", a.supersededStation ?? "", a.supersededUID ?? "", a.resolution ?? ""] }
            lines.append(values.map(csvField).joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Every attempt (of the named run, when given) as JSON lines (stable keys, sorted).
    public func exportJSONL(run: String? = nil) throws(LedgerError) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var out = ""
        for attempt in try attempts(run: run) {
            guard let data = try? encoder.encode(attempt) else { continue }
            out += String(decoding: data, as: UTF8.self) + "\n"
        }
        return out
    }
}

private func csvField(_ value: String) -> String {
    // Scalars, not Characters: "\r\n" is one Character, equal to neither "\n" nor "\r".
    guard value.unicodeScalars.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return value }
    return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}

/// The ledgers' counters (`{n}`): values from 0 to ``maximum``, each handed out once. Both
/// ledgers keep a counter's next value in a signed 64-bit column, so the last value that can be
/// handed out is one less than the largest such number; a counter that has handed it out is
/// used up, and says so, rather than wrapping or trapping.
public enum LedgerCounter {
    /// The largest value a counter hands out: 2^63 − 2 (9223372036854775806).
    public static let maximum = Int(Int64.max - 1)

    /// The refusal of a counter that is used up; `run` names a named run's counter.
    public static func usedUp(run: String?) -> LedgerError {
        var error = LedgerError(
            "\(run.map { "the counter {n} of run '\($0)'" } ?? "the ledger's counter {n}") is used up: it has handed out "
                + "\(maximum), the largest value a ledger holds; use a new ledger or run name")
        error.isCounterUsedUp = true
        return error
    }

    /// A counter's next value as the ledger holds it (nil: none yet). Anything but an integer
    /// (SQLite keeps a number past 2^63 − 1 as a real, and any column may hold text) is refused:
    /// read as "none", it would start the counter again and hand out values twice.
    static func stored(_ value: SQLValue?, run: String?) throws(LedgerError) -> Int? {
        guard let value, value != .null else { return nil }
        guard let integer = value.integer else {
            throw LedgerError(
                "\(run.map { "the counter {n} of run '\($0)'" } ?? "the ledger's counter {n}") holds '\(value.text?.prefix(40) ?? "")', "
                    + "which is no counter value (an integer up to \(Int64.max)): the ledger is damaged")
        }
        return Int(integer)
    }

    /// The value after `value` (handed out now), or the refusal when `value` is past ``maximum``.
    static func next(after value: Int, run: String?) throws(LedgerError) -> Int {
        guard value >= 0, value <= maximum else { throw usedUp(run: run) }
        return value + 1
    }
}

/// Opens the ledger `location` names: a PostgreSQL server for `postgresql://…` (or
/// `postgres://…`), else a SQLite file (created if missing). `readOnly` (commands that only
/// read) opens a SQLite file without writing it (``SQLiteLedger/init(path:lockWait:readOnly:)``).
public func openLedger(_ location: String, lockWait: Duration = .seconds(60), readOnly: Bool = false) throws(LedgerError) -> any ProvisioningLedger {
    if PostgreSQLLocation.isPostgreSQL(location) {
        return try PostgreSQLLedger(PostgreSQLLocation(location))
    }
    return try Ledger(path: location, lockWait: lockWait, readOnly: readOnly)
}

/// What loading a manifest into a run did.
public enum ManifestLoad: Sendable, Hashable {
    /// The rows were loaded.
    case loaded(rows: Int)
    /// The run already had exactly these rows; nothing changed.
    case alreadyLoaded(rows: Int)
}

/// The answer to a row claim.
public enum RowClaim: Sendable, Hashable {
    /// The row is the tag's until the lease ends or the attempt is recorded; `epoch` is the
    /// claim's lease epoch (``LedgerAttempt/epoch``).
    case claimed(ManifestRow, epoch: Int64)
    /// The UID is already done in the run (at any station), or another row holds it.
    case uidTaken(String)
    /// No row is free now; `held` rows are held by stations (they come back if those fail or
    /// their lease ends).
    case noneFree(held: Int)
    /// Every row of the run is done (or the run has no rows).
    case runComplete
}

/// The answer to a counter claim.
public enum CounterClaim: Sendable, Hashable {
    /// The counter value the tag gets; never handed out again.
    case claimed(Int)
    /// The UID is already done in the run.
    case uidTaken
}

/// A named run's progress.
public struct RunProgress: Sendable, Hashable, Codable {
    /// Manifest rows loaded (0 for a template run).
    public var rows: Int
    /// Rows done.
    public var rowsDone: Int
    /// Rows held by stations now.
    public var rowsHeld: Int
    /// Tags done in the run (distinct UIDs).
    public var tagsDone: Int
    /// Failed attempts in the run.
    public var failed: Int
    /// Void tags in the run not yet accounted for (``LedgerAttemptStatus/void``, no
    /// resolution): the run is not complete while there are any.
    public var voidOpen: Int = 0
    /// Per station.
    public var stations: [StationProgress]
}

/// One station's share of a run.
public struct StationProgress: Sendable, Hashable, Codable {
    /// The station's name.
    public var station: String
    /// Tags done.
    public var done: Int
    /// Failed attempts.
    public var failed: Int
    /// Tags per second between its first tag's start and its last tag's end (nil with fewer than two tags).
    public var tagsPerSecond: Double?
    /// Its last attempt's end.
    public var last: String?
}

/// ISO 8601 timestamps as the ledger writes them.
enum LedgerTime {
    static func parse(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }

    /// Tags per second over `[first start, last end]`.
    static func rate(done: Int, first: String?, last: String?) -> Double? {
        guard done >= 2, let first = first.flatMap(parse), let last = last.flatMap(parse) else { return nil }
        let seconds = last.timeIntervalSince(first)
        return seconds > 0 ? Double(done) / seconds : nil
    }
}

/// A manifest row's fields as stored in a run (a JSON array of `[name, value]` pairs), and back.
enum StoredFields {
    static func encode(_ fields: [(name: String, value: String)]) -> String {
        let pairs = fields.map { [$0.name, $0.value] }
        guard let data = try? JSONSerialization.data(withJSONObject: pairs, options: [.sortedKeys]) else { return "[]" }
        return String(decoding: data, as: UTF8.self)
    }

    static func decode(_ text: String) throws(LedgerError) -> [(name: String, value: String)] {
        guard let array = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String]],
              array.allSatisfy({ $0.count == 2 }) else {
            throw LedgerError("a stored manifest row is not a list of [name, value] pairs: \(text.prefix(80))")
        }
        return array.map { (name: $0[0], value: $0[1]) }
    }
}

/// What both ledgers share about a run's stored rows.
enum RunRows {
    /// Refuses `rows` unless they are the rows stored for the run.
    static func compare(stored: [[SQLValue]], with rows: [ManifestRow], run: String) throws(LedgerError) {
        for (index, row) in rows.enumerated() {
            guard index < stored.count else {
                throw LedgerError("run '\(run)' already has \(stored.count) rows from another manifest; this one has \(rows.count) (row \(row.index) is new). Use a new --run name")
            }
            let same = stored[index][column: 0].integer == Int64(row.index) && stored[index][column: 1].integer == Int64(row.line)
                && stored[index][column: 2].text.map { (try? StoredFields.decode($0))?.map { [$0.name, $0.value] } } == row.fields.map { [$0.name, $0.value] }
            guard same else {
                throw LedgerError("run '\(run)' already holds a different manifest: row \(row.index) differs. Use a new --run name")
            }
        }
        if stored.count != rows.count {
            throw LedgerError("run '\(run)' already has \(stored.count) rows from another manifest; this one has \(rows.count). Use a new --run name")
        }
    }

    /// A count as the ledger answers it, kept within 0…2^32 − 1 (a broken or hostile server may
    /// answer anything): the progress arithmetic on counts can then never overflow.
    static func count(_ value: SQLValue) -> Int {
        Int(min(max(value.integer ?? 0, 0), Int64(UInt32.max)))
    }

    /// Void attempts of run `$1` (of the whole ledger when NULL): all, then those not yet accounted for.
    static let voidSQL = """
        SELECT COUNT(*), COUNT(*) FILTER (WHERE resolution IS NULL) FROM attempts WHERE status = 'void' AND ($1 IS NULL OR run_name = $1)
        """

    /// Per station of run `$1`: name, tags done, failed attempts, first start, last end.
    static let stationsSQL = """
        SELECT station, COUNT(DISTINCT uid) FILTER (WHERE status = 'done'), COUNT(*) FILTER (WHERE status = 'failed'),
            MIN(started), MAX(finished) FROM attempts WHERE run_name = $1 GROUP BY station ORDER BY station
        """

    static func progress(rows: [SQLValue], tags: [SQLValue], stations: [[SQLValue]]) -> RunProgress {
        func int(_ values: [SQLValue], _ i: Int) -> Int { i < values.count ? count(values[i]) : 0 }
        return RunProgress(
            rows: int(rows, 0), rowsDone: int(rows, 1), rowsHeld: int(rows, 2), tagsDone: int(tags, 0), failed: int(tags, 1), voidOpen: int(tags, 2),
            stations: stations.map { r in
                let done = count(r[column: 1])
                return StationProgress(
                    station: r[column: 0].text ?? "", done: done, failed: count(r[column: 2]),
                    tagsPerSecond: LedgerTime.rate(done: done, first: r[column: 3].text, last: r[column: 4].text), last: r[column: 4].text)
            })
    }
}
