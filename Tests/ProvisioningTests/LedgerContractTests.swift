import Foundation
import NFCTestSupport
import Provisioning
import Testing

/// The ledgers under test: SQLite always; PostgreSQL where a server can be started (in CI it
/// must be: ``ExternalTool``'s policy — there the PostgreSQL cases run and fail when it is missing).
enum LedgerKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite, postgresql

    var testDescription: String { rawValue }

    static var available: [LedgerKind] {
        if TestSelection.isFast { return [.sqlite] }  // Scripts/test --fast starts no server
        return PostgreSQLTestServer.tool.isAvailable || isContinuousIntegration ? [.sqlite, .postgresql] : [.sqlite]
    }
}

/// A fresh ledger of one kind: a SQLite file in a temporary directory, or a new database on the
/// test process's PostgreSQL server; and a way to read it back with an independent client
/// (Python's sqlite3, or psql).
struct LedgerFixture {
    let kind: LedgerKind
    /// The `--ledger` value: the file, or the database's URI.
    let location: String
    let directory: URL
    let database: String

    /// The PostgreSQL server all the contract tests share (one per test process, stopped at exit).
    nonisolated(unsafe) static var sharedServer: PostgreSQLTestServer?
    static let serverLock = NSLock()

    static func server() throws -> PostgreSQLTestServer {
        serverLock.lock()
        defer { serverLock.unlock() }
        if let sharedServer { return sharedServer }
        let server = try PostgreSQLTestServer()
        sharedServer = server
        atexit { LedgerFixture.sharedServer?.remove() }
        return server
    }

    init(_ kind: LedgerKind) throws {
        self.kind = kind
        directory = try temporaryDirectory()
        switch kind {
        case .sqlite:
            location = directory.appendingPathComponent("ledger.db").path
            database = ""
        case .postgresql:
            _ = try PostgreSQLTestServer.tool.require()
            database = "t" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
            location = try Self.server().createDatabase(database)
        }
    }

    func open() throws -> any ProvisioningLedger { try openLedger(location) }

    /// Makes a fixture off the cooperative pool (starting the server blocks for seconds).
    static func make(_ kind: LedgerKind) async throws -> LedgerFixture { try await runBlocking { try LedgerFixture(kind) } }

    /// ``independent(_:)``.
    func read(_ sql: String) async throws -> String { try await independent(sql) }

    /// One value from `sql`, read by an independent client.
    func independent(_ sql: String) async throws -> String {
        switch kind {
        case .sqlite:
            let run = try await runTool("/usr/bin/env", ["python3", "-c", "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])", location, sql],
                                  environment: ProcessInfo.processInfo.environment, timeout: 30)
            return run.output.trimmingCharacters(in: .whitespacesAndNewlines)
        case .postgresql:
            let database = database
            return try await runBlocking { try Self.server().psql(sql, database: database) }.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}

/// One test suite, run against both ledgers (issue 15): whatever the ledger is kept in, counters
/// and rows are handed out once, a UID done in a run is refused at any station, a held row
/// comes back when its lease ends or its station restarts, a manifest loads once.
@Suite("The ledger contract, on SQLite and on PostgreSQL", .tags(.postgres), .serialized, .timeLimit(.minutes(3)))
struct LedgerContractTests {
    static func attempt(_ session: Int64, _ uid: String, run: String? = nil, station: String? = nil, row: Int? = nil, counter: Int? = nil,
                        status: String = "done", key: String? = nil) -> LedgerAttempt {
        LedgerAttempt(
            run: session, uid: uid, model: "NTAG215", row: row, counter: counter, summary: "URI https://ex.io/\(uid)", bytes: 24,
            verified: status == "done", error: status == "done" ? nil : "tag lost", started: Ledger.now(), finished: Ledger.now(),
            reader: "sim:ntag215", status: status, runName: run, station: station, key: key)
    }

    static func rows(_ count: Int, prefix: String = "https://ex.io/r/") -> [ManifestRow] {
        (1...count).map { ManifestRow(index: $0, line: $0 + 1, fields: [(name: "url", value: "\(prefix)\($0)"), (name: "text", value: "Row \($0), \"quoted\"")]) }
    }

    @Test("attempts, stats and exports survive reopening; an attempt recorded twice with one key is recorded once", arguments: LedgerKind.available)
    func recordsAndReads(kind: LedgerKind) async throws {
        let fixture = try await LedgerFixture.make(kind)
        defer { fixture.remove() }
        do {
            let ledger = try fixture.open()
            let session = try ledger.startRun(template: "https://ex.io/{uid}", manifest: nil, readers: ["sim:ntag215"])
            try ledger.record(Self.attempt(session, "04AA", row: 1))
            try ledger.record(Self.attempt(session, "04BB", row: 2, status: "failed"))
            let first = try ledger.record(Self.attempt(session, "04CC, \"x\"", row: 3, key: "k-1"))
            #expect(try ledger.record(Self.attempt(session, "04CC, \"x\"", row: 3, key: "k-1")) == first)
            try ledger.finishRun(session)
        }
        let ledger = try fixture.open()
        #expect(try ledger.doneRows() == [1, 3])
        #expect(try ledger.isDone(uid: "04aa"))
        #expect(try !ledger.isDone(uid: "04BB"))
        #expect(try ledger.stats() == LedgerStats(runs: 1, attempts: 3, done: 2, failed: 1, locked: 0, nextCounter: nil))
        let csv = try ledger.exportCSV().split(separator: "\n")
        #expect(csv.count == 4 && csv[3].contains("\"04CC, \"\"x\"\"\""))
        #expect(try await fixture.read("SELECT COUNT(*) FROM attempts") == "3")
    }

    @Test("counters: two connections drawing at once never get the same value; a run's counter is recorded with the UID that got it", arguments: LedgerKind.available)
    func countersOnce(kind: LedgerKind) async throws {
        let fixture = try await LedgerFixture.make(kind)
        defer { fixture.remove() }
        let a = try fixture.open(), b = try fixture.open()
        let values = try await withThrowingTaskGroup(of: [Int].self) { group in
            for worker in 0..<4 {
                let ledger = worker % 2 == 0 ? a : b
                group.addTask {
                    try await runBlocking { try (0..<25).map { i in
                        if worker < 2 { return try ledger.allocateCounter(start: 100) }
                        guard case .claimed(let n) = try ledger.claimCounter(run: "r1", uid: "04\(worker)\(i)", station: "s\(worker)", start: 1) else { return -1 }
                        return n
                    } }
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(Set(values.filter { $0 >= 100 }) == Set(100..<150))
        #expect(Set(values.filter { $0 < 100 }) == Set(1...50))
        #expect(try await fixture.read("SELECT COUNT(DISTINCT counter) FROM counter_uses WHERE run_name = 'r1'") == "50")
        // A UID done in the run gets no counter, at any station.
        let session = try a.startRun(name: "r1", station: "s0", template: "{n}", manifest: nil, readers: [])
        try a.record(Self.attempt(session, "04DONE", run: "r1", station: "s0", counter: 51))
        #expect(try b.claimCounter(run: "r1", uid: "04done", station: "s1", start: 1) == .uidTaken)
    }

    @Test("a manifest loads once: the same rows again change nothing, different rows under the same run are refused", arguments: LedgerKind.available)
    func manifestLoadsOnce(kind: LedgerKind) async throws {
        let fixture = try await LedgerFixture.make(kind)
        defer { fixture.remove() }
        let ledger = try fixture.open()
        #expect(try ledger.loadManifest(run: "line1", rows: Self.rows(30), source: "m.csv") == .loaded(rows: 30))
        #expect(try ledger.loadManifest(run: "line1", rows: Self.rows(30), source: "m.csv") == .alreadyLoaded(rows: 30))
        #expect(throws: LedgerError.self) { try ledger.loadManifest(run: "line1", rows: Self.rows(30, prefix: "https://other/"), source: "x.csv") }
        #expect(throws: LedgerError.self) { try ledger.loadManifest(run: "line1", rows: Self.rows(31), source: "m.csv") }
        #expect(try await fixture.read("SELECT COUNT(*) FROM run_rows WHERE run_name = 'line1'") == "30")
        #expect(try ledger.loadManifest(run: "line2", rows: Self.rows(5), source: "m.csv") == .loaded(rows: 5))
        // The fields come back as loaded, quotes and commas included.
        let session = try ledger.startRun(name: "line1", station: "a", template: nil, manifest: "m.csv", readers: [])
        _ = session
        guard case .claimed(let row, _) = try ledger.claimRow(run: "line1", uid: "04A1", station: "a", lease: .seconds(30)) else {
            Issue.record("no row claimed")
            return
        }
        #expect(row == Self.rows(1)[0])
    }

    @Test("row claims: four stations claiming at once get every row once; a done UID is refused at any station; a failed tag's row comes back", arguments: LedgerKind.available)
    func rowClaims(kind: LedgerKind) async throws {
        let fixture = try await LedgerFixture.make(kind)
        defer { fixture.remove() }
        let loader = try fixture.open()
        _ = try loader.loadManifest(run: "r", rows: Self.rows(40), source: "m.csv")
        let stations = try (0..<4).map { _ in try fixture.open() }
        let claimed = try await withThrowingTaskGroup(of: [Int].self) { group in
            for (s, ledger) in stations.enumerated() {
                group.addTask { try await runBlocking {
                    let session = try ledger.startRun(name: "r", station: "st\(s)", template: nil, manifest: "m.csv", readers: [])
                    var rows: [Int] = []
                    var i = 0
                    while true {
                        i += 1
                        let uid = String(format: "04%02X%04X", s, i)
                        switch try ledger.claimRow(run: "r", uid: uid, station: "st\(s)", lease: .seconds(60)) {
                        case .claimed(let row, _):
                            rows.append(row.index)
                            try ledger.record(Self.attempt(session, uid, run: "r", station: "st\(s)", row: row.index))
                        case .runComplete: return rows
                        case .noneFree, .uidTaken: continue
                        }
                    }
                } }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(claimed.sorted() == Array(1...40))
        #expect(try await fixture.read("SELECT COUNT(*) FROM run_rows WHERE run_name = 'r' AND status = 'done'") == "40")
        let progress = try loader.progress(run: "r")
        #expect(progress.rows == 40 && progress.rowsDone == 40 && progress.tagsDone == 40 && progress.stations.map(\.done).reduce(0, +) == 40)
        // A UID done in the run is refused at another station.
        _ = try loader.loadManifest(run: "r2", rows: Self.rows(3), source: "m.csv")
        let s0 = try stations[0].startRun(name: "r2", station: "st0", template: nil, manifest: nil, readers: [])
        guard case .claimed(let row, _) = try stations[0].claimRow(run: "r2", uid: "04AB", station: "st0", lease: .seconds(60)) else {
            Issue.record("no row")
            return
        }
        // Held: another station is refused the same UID while the row is being written.
        if case .uidTaken = try stations[1].claimRow(run: "r2", uid: "04AB", station: "st1", lease: .seconds(60)) {} else {
            Issue.record("a UID held at st0 was given a row at st1")
        }
        // Failed: the row is free again and the next claim gets it.
        try stations[0].record(Self.attempt(s0, "04AB", run: "r2", station: "st0", row: row.index, status: "failed"))
        guard case .claimed(let again, _) = try stations[1].claimRow(run: "r2", uid: "04AB", station: "st1", lease: .seconds(60)) else {
            Issue.record("the failed tag's row did not come back")
            return
        }
        #expect(again.index == row.index)
        try stations[1].record(Self.attempt(s0, "04AB", run: "r2", station: "st1", row: again.index))
        if case .uidTaken = try stations[2].claimRow(run: "r2", uid: "04ab", station: "st2", lease: .seconds(60)) {} else {
            Issue.record("a UID done at st1 was given a row at st2")
        }
    }

    @Test("a held row returns when its lease ends, or at once when its station restarts", arguments: LedgerKind.available)
    func leases(kind: LedgerKind) async throws {
        let fixture = try await LedgerFixture.make(kind)
        defer { fixture.remove() }
        let a = try fixture.open(), b = try fixture.open()
        _ = try a.loadManifest(run: "r", rows: Self.rows(2), source: "m.csv")
        guard case .claimed(let first, _) = try a.claimRow(run: "r", uid: "04A1", station: "a", lease: .milliseconds(300)),
              case .claimed(let second, _) = try a.claimRow(run: "r", uid: "04A2", station: "a", lease: .seconds(600)) else {
            Issue.record("no rows")
            return
        }
        #expect(try b.claimRow(run: "r", uid: "04B1", station: "b", lease: .seconds(60)) == .noneFree(held: 2))
        // The short lease ends: the row is b's (waited for with a deadline, not a fixed pause).
        let deadline = ContinuousClock.now + .seconds(10)
        var got: RowClaim = .noneFree(held: 2)
        while ContinuousClock.now < deadline {
            got = try b.claimRow(run: "r", uid: "04B1", station: "b", lease: .seconds(60))
            if case .claimed = got { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        guard case .claimed(let taken, let epoch) = got else {
            Issue.record("the row whose lease ended was not claimed again: \(got)")
            return
        }
        #expect(taken == first && epoch == 2)
        // Station a restarts: its other row is released at once.
        #expect(try a.releaseClaims(run: "r", station: "a") == 1)
        guard case .claimed(let released, _) = try b.claimRow(run: "r", uid: "04B2", station: "b", lease: .seconds(60)) else {
            Issue.record("the released row was not claimed")
            return
        }
        #expect(released == second)
        #expect(try await fixture.read("SELECT COUNT(*) FROM run_rows WHERE run_name = 'r' AND station = 'b'") == "2")
    }

    @Test("a session's manifest digest is kept; the manifests of done rows are those of sessions without a run name that did rows", arguments: LedgerKind.available)
    func manifestDigests(kind: LedgerKind) async throws {
        let fixture = try await LedgerFixture.make(kind)
        defer { fixture.remove() }
        let ledger = try fixture.open()
        let m1 = ManifestDigest.of(Self.rows(3)), m2 = ManifestDigest.of(Self.rows(3, prefix: "https://ex.io/other/"))
        #expect(m1 != m2 && m1 == ManifestDigest.of(Self.rows(3)))
        let idle = try ledger.startRun(template: nil, manifest: "m2.csv", readers: [])
        try ledger.setManifestDigest(m2, session: idle)  // no row done: not a manifest of done rows
        let session = try ledger.startRun(template: nil, manifest: "m1.csv", readers: [])
        try ledger.setManifestDigest(m1, session: session)
        try ledger.record(Self.attempt(session, "04AA", row: 1))
        let named = try ledger.startRun(name: "r", station: "s", template: nil, manifest: "m2.csv", readers: [])
        try ledger.setManifestDigest(m2, session: named)
        try ledger.record(Self.attempt(named, "04BB", run: "r", station: "s", row: 1))
        #expect(try ledger.doneManifests() == [RecordedManifest(path: "m1.csv", digest: m1)])
        #expect(try await fixture.read("SELECT manifest_digest FROM runs WHERE id = \(session)") == m1)
        #expect(try ManifestDigest.conflict(Self.rows(3), path: "m1.csv", in: ledger) == nil)
        #expect(try ManifestDigest.conflict(Self.rows(3, prefix: "https://ex.io/other/"), path: "m2.csv", in: ledger)?.contains("m1.csv") == true)
    }

    @Test("a ledger's run names come from sessions, loaded manifests and attempts; a name it lacks is refused, naming those it has", arguments: LedgerKind.available)
    func runNamesAndUnknownRuns(kind: LedgerKind) async throws {
        let fixture = try await LedgerFixture.make(kind)
        defer { fixture.remove() }
        let ledger = try fixture.open()
        #expect(try ledger.runNames().isEmpty)
        _ = try ledger.startRun(template: nil, manifest: nil, readers: [])  // a session without a name
        _ = try ledger.loadManifest(run: "loaded", rows: Self.rows(2), source: "m.csv")
        let session = try ledger.startRun(name: "worked", station: "s", template: "{n}", manifest: nil, readers: [])
        try ledger.record(Self.attempt(session, "04CC", run: "worked", station: "s", counter: 1))
        #expect(try ledger.runNames() == ["loaded", "worked"])
        #expect(try await fixture.read("SELECT COUNT(*) FROM (SELECT name FROM runs WHERE name IS NOT NULL UNION SELECT run_name FROM run_rows) AS n") == "2")
        try ledger.requireRun("worked")
        try ledger.requireRun("loaded")
        let error = #expect(throws: LedgerError.self) { try ledger.requireRun("workd") }
        #expect(error?.message.contains("no run named 'workd'") == true)
        #expect(error?.message.contains("'loaded', 'worked'") == true)
    }
}

/// PostgreSQL connection strings in messages: a password never shows.
@Suite("PostgreSQL locations and errors", .tags(.postgres), .timeLimit(.minutes(1)))
struct PostgreSQLLocationTests {
    @Test("a URI's password is redacted, in user info or as a parameter; a URI without one is unchanged")
    func redaction() {
        #expect(PostgreSQLLocation("postgresql://ops:s3cr%40t@db.example:5433/line?sslmode=require").redacted
            == "postgresql://ops:***@db.example:5433/line?sslmode=require")
        #expect(PostgreSQLLocation("postgresql://ops@db/line?password=hunter2&sslmode=require").redacted == "postgresql://ops@db/line?password=***&sslmode=require")
        #expect(PostgreSQLLocation("postgresql://ops@db:5432/line").redacted == "postgresql://ops@db:5432/line")
        #expect(PostgreSQLLocation.isPostgreSQL("postgres://x/y") && !PostgreSQLLocation.isPostgreSQL("run.db"))
    }

    @Test("a server nobody listens on: the error says the ledger is unavailable, with SQLSTATE 08001, and never the password")
    func unreachable() throws {
        let port = try PostgreSQLTestServerPort.free()
        #expect { _ = try openLedger("postgresql://ops:topsecret@127.0.0.1:\(port)/line") } throws: { error in
            guard let error = error as? LedgerError else { return false }
            return error.isUnavailable && error.sqlState == "08001" && !error.description.contains("topsecret")
                && error.description.contains("postgresql://ops:***@127.0.0.1")
        }
    }
}

/// A port nobody listens on, for the unreachable-server test.
enum PostgreSQLTestServerPort {
    static func free() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
