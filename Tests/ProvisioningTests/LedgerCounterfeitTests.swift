import Foundation
import NFCTestSupport
import Provisioning
import Testing

/// The `counterfeit` status (`batch --require-genuine`) on both ledgers, read back by
/// independent clients (Python's sqlite3, psql), and the migration of ledgers made before it:
/// a SQLite ledger of schema version 2 and a PostgreSQL ledger of schema version 1, each built
/// by the independent client with the old schema's text, whose CHECK refuses `counterfeit`.
@Suite("The counterfeit status, on SQLite and on PostgreSQL", .tags(.postgres), .serialized, .timeLimit(.minutes(3)))
struct LedgerCounterfeitTests {
    static func attempt(_ session: Int64, _ uid: String, status: String) -> LedgerAttempt {
        LedgerAttempt(
            run: session, uid: uid, model: "NTAG215", summary: "refused", bytes: 0, verified: false,
            error: status == "done" ? nil : "counterfeit: not a genuine NXP chip (genuine: no)", started: Ledger.now(), finished: Ledger.now(),
            reader: "sim:ntag215", status: status)
    }

    @Test("a counterfeit is recorded with its own status: counted apart from failures, exported, never done", arguments: LedgerKind.available)
    func recorded(kind: LedgerKind) async throws {
        let fixture = try await LedgerFixture.make(kind)
        defer { fixture.remove() }
        let ledger = try fixture.open()
        let session = try ledger.startRun(template: "https://ex.io/{uid}", manifest: nil, readers: ["sim:ntag215"])
        try ledger.record(Self.attempt(session, "04AA", status: "done"))
        try ledger.record(Self.attempt(session, "04CF", status: LedgerAttemptStatus.counterfeit.rawValue))
        #expect(throws: LedgerError.self) { try ledger.record(Self.attempt(session, "04BA", status: "bogus")) }
        let stats = try ledger.stats()
        #expect(stats.failed == 0 && stats.counterfeit == 1 && stats.done == 1 && stats.attempts == 2)
        #expect(try !ledger.isDone(uid: "04CF"))
        #expect(try ledger.exportCSV().split(separator: "\n").contains { $0.contains("04CF") && $0.hasSuffix(",counterfeit,") })
        #expect(try await fixture.read("SELECT status FROM attempts WHERE uid = '04CF'") == "counterfeit")
        #expect(try await fixture.read("SELECT COUNT(*) FROM attempts") == "2")
    }

    @Test("a SQLite ledger of schema version 2 is migrated once: its attempts and ids kept, counterfeit then accepted")
    func sqliteMigration() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("v2.db").path
        // Schema version 2 as it was written, by sqlite3 itself; its CHECK refuses 'counterfeit'.
        let made = try await runPython("""
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            db.executescript('''
            CREATE TABLE runs(id INTEGER PRIMARY KEY, started TEXT NOT NULL, finished TEXT, template TEXT, manifest TEXT, readers TEXT NOT NULL, name TEXT, station TEXT);
            CREATE TABLE attempts(id INTEGER PRIMARY KEY, run INTEGER NOT NULL REFERENCES runs(id), uid TEXT NOT NULL, model TEXT NOT NULL,
                row INTEGER, counter INTEGER, summary TEXT NOT NULL, bytes INTEGER NOT NULL, verified INTEGER NOT NULL,
                locked INTEGER NOT NULL, protected INTEGER NOT NULL, error TEXT, started TEXT NOT NULL,
                finished TEXT NOT NULL, reader TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('done', 'failed')),
                run_name TEXT, station TEXT, key TEXT);
            CREATE INDEX attempts_uid ON attempts(uid, status);
            CREATE UNIQUE INDEX attempts_key ON attempts(key);
            CREATE UNIQUE INDEX attempts_run_done_uid ON attempts(run_name, uid) WHERE status = 'done' AND run_name IS NOT NULL;
            CREATE INDEX attempts_run ON attempts(run_name, station);
            CREATE TABLE counters(name TEXT PRIMARY KEY, next INTEGER NOT NULL);
            CREATE TABLE run_rows(run_name TEXT NOT NULL, row INTEGER NOT NULL, line INTEGER NOT NULL, fields TEXT NOT NULL,
                status TEXT NOT NULL DEFAULT 'free' CHECK (status IN ('free', 'held', 'done')), station TEXT, uid TEXT,
                lease_until INTEGER, source TEXT, PRIMARY KEY(run_name, row));
            CREATE TABLE counter_uses(run_name TEXT NOT NULL, counter INTEGER NOT NULL, uid TEXT NOT NULL, station TEXT NOT NULL, at TEXT NOT NULL,
                PRIMARY KEY(run_name, counter));
            PRAGMA user_version = 2;
            INSERT INTO runs(id, started, readers) VALUES(7, 't', 'sim:ntag215');
            INSERT INTO attempts(id, run, uid, model, row, summary, bytes, verified, locked, protected, started, finished, reader, status, key)
                VALUES(41, 7, '04AA', 'NTAG215', 1, 'URI x', 5, 1, 0, 0, 't', 't', 'sim:ntag215', 'done', 'k1');
            INSERT INTO attempts(id, run, uid, model, summary, bytes, verified, locked, protected, error, started, finished, reader, status)
                VALUES(42, 7, '04CE', 'NTAG215', 'refused', 0, 0, 0, 0, 'counterfeit: not a genuine NXP chip (genuine: no)', 't', 't', 'sim:ntag215', 'failed');
            ''')
            try:
                db.execute("INSERT INTO attempts(run, uid, model, summary, bytes, verified, locked, protected, started, finished, reader, status) VALUES(7, '04XX', 'm', 's', 0, 0, 0, 0, 't', 't', 'r', 'counterfeit')")
                print("old schema took counterfeit")
            except sqlite3.IntegrityError:
                print("old schema refuses counterfeit")
            db.commit()
            """, [path])
        #expect(made.standardOutput == "old schema refuses counterfeit\n")
        do {
            let ledger = try Ledger(path: path)
            try ledger.record(Self.attempt(7, "04CF", status: "counterfeit"))
        }
        _ = try Ledger(path: path)  // a second opening changes nothing
        let stored = try await runPython("""
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            print(db.execute("PRAGMA user_version").fetchone()[0])
            print(db.execute("SELECT id, uid, status, key FROM attempts ORDER BY id").fetchall())
            print(sorted(r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'attempts' AND name NOT LIKE 'sqlite_%'")))
            try:
                db.execute("INSERT INTO attempts(run, uid, model, summary, bytes, verified, locked, protected, started, finished, reader, status) VALUES(7, '04XX', 'm', 's', 0, 0, 0, 0, 't', 't', 'r', 'bogus')")
                print("bogus taken")
            except sqlite3.IntegrityError:
                print("bogus refused")
            """, [path])
        #expect(stored.standardOutput == """
            6
            [(41, '04AA', 'done', 'k1'), (42, '04CE', 'failed', None), (43, '04CF', 'counterfeit', None)]
            ['attempts_key', 'attempts_run', 'attempts_run_done_counter', 'attempts_run_done_uid', 'attempts_uid']
            bogus refused

            """)
        #expect(try Ledger(path: path).isDone(uid: "04AA"))
    }

    @Test("a PostgreSQL ledger of schema version 1 is migrated once: counterfeit then accepted", .enabled(if: LedgerKind.available.contains(.postgresql)))
    func postgresqlMigration() async throws {
        let fixture = try await LedgerFixture.make(.postgresql)
        defer { fixture.remove() }
        let server = try LedgerFixture.server()
        // Schema version 1 as it was (the tables the test touches), by psql.
        _ = try await runBlocking { [database = fixture.database] in
            try server.psql("""
                CREATE TABLE nfctool_schema(version integer NOT NULL);
                INSERT INTO nfctool_schema VALUES(1);
                CREATE TABLE runs(id bigserial PRIMARY KEY, name text, station text, started text NOT NULL, finished text, template text, manifest text,
                    readers text NOT NULL);
                CREATE TABLE attempts(id bigserial PRIMARY KEY, run bigint NOT NULL REFERENCES runs(id), run_name text, station text, key text UNIQUE,
                    uid text NOT NULL, model text NOT NULL, row integer, counter bigint, summary text NOT NULL, bytes integer NOT NULL,
                    verified boolean NOT NULL, locked boolean NOT NULL, protected boolean NOT NULL, error text, started text NOT NULL,
                    finished text NOT NULL, reader text NOT NULL, status text NOT NULL CHECK (status IN ('done', 'failed')));
                CREATE INDEX attempts_uid ON attempts(uid, status);
                CREATE UNIQUE INDEX attempts_run_done_uid ON attempts(run_name, uid) WHERE status = 'done' AND run_name IS NOT NULL;
                CREATE INDEX attempts_run ON attempts(run_name, station);
                CREATE TABLE counters(name text PRIMARY KEY, next bigint NOT NULL);
                CREATE TABLE run_rows(run_name text NOT NULL, row integer NOT NULL, line integer NOT NULL, fields text NOT NULL,
                    status text NOT NULL DEFAULT 'free' CHECK (status IN ('free', 'held', 'done')), station text, uid text,
                    lease_until timestamptz, source text, PRIMARY KEY(run_name, row));
                CREATE INDEX run_rows_open ON run_rows(run_name, row) WHERE status <> 'done';
                CREATE INDEX run_rows_uid ON run_rows(run_name, uid) WHERE uid IS NOT NULL;
                CREATE TABLE counter_uses(run_name text NOT NULL, counter bigint NOT NULL, uid text NOT NULL, station text NOT NULL,
                    at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY(run_name, counter));
                INSERT INTO runs(started, readers) VALUES('t', 'sim:ntag215');
                INSERT INTO attempts(run, uid, model, summary, bytes, verified, locked, protected, started, finished, reader, status)
                    VALUES(1, '04AA', 'NTAG215', 'URI x', 5, true, false, false, 't', 't', 'sim:ntag215', 'done');
                """, database: database)
        }
        #expect(throws: PostgreSQLTestServerError.self) {
            _ = try server.psql("""
                INSERT INTO attempts(run, uid, model, summary, bytes, verified, locked, protected, started, finished, reader, status)
                VALUES(1, '04XX', 'm', 's', 0, false, false, false, 't', 't', 'r', 'counterfeit')
                """, database: fixture.database)
        }
        do {
            let ledger = try fixture.open()
            try ledger.record(Self.attempt(1, "04CF", status: "counterfeit"))
            #expect(try ledger.stats().counterfeit == 1)
        }
        _ = try fixture.open()
        #expect(try await fixture.read("SELECT max(version) FROM nfctool_schema") == "5")
        #expect(try await fixture.read("SELECT string_agg(uid || ':' || status, ',' ORDER BY id) FROM attempts") == "04AA:done,04CF:counterfeit")
    }
}
