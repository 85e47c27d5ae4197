import Foundation
import NFCTestSupport
import Testing

/// `nfctool batch` and `nfctool ledger` against ledgers that fail, overflow, belong to another
/// manifest or are no ledger at all, judged from outside: a fresh `nfctool` process (exit status,
/// summary), the ledger read by python3's sqlite3 or psql.
@Suite("nfctool batch and ledger: faults of the ledger", .tags(.endToEnd, .postgres), .serialized, .timeLimit(.minutes(5)))
struct BatchLedgerRefusalTests {

    static var environment: [String: String] { ProcessInfo.processInfo.environment }

    /// Runs python3's sqlite3 on `path`: `script` gets `db` (a connection) and `sys.argv[1]`.
    static func sqlite(_ path: String, _ script: String) async throws -> String {
        let run = try await runPython("import sqlite3, sys\ndb = sqlite3.connect(sys.argv[1])\n" + script + "\ndb.commit()\n", [path])
        #expect(run.status == 0, "python3 failed: \(run.standardOutput)")
        return run.standardOutput
    }

    /// A named run on `ledger` (one station) with a counter template, on a stack of fresh tags in
    /// `tags`.
    static func namedRun(_ ledger: String, tags: String, count: Int, extra: [String] = [], in directory: URL) async throws -> ToolRun {
        try await runTool(
            try Executables.nfctool(),
            ["batch", "--device", "sim:ntag215*4?poll-wait=0&dir=\(tags)", "--ledger", ledger, "--run", "r", "--station", "s",
             "--count", String(count), "--timeout", "5"] + extra,
            environment: environment, timeout: 60, in: directory)
    }

    @Test(
        "a named run whose ledger write fails is FAILED with exit 1, as a run of its own is",
        arguments: [
            ("counter_uses", ["--url", "https://ex.io/{n}"]),
            ("run_rows", ["--manifest", "m.csv"]),
        ])
    func namedRunLedgerErrorFails(table: String, data: [String]) async throws {
        do {
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            try "url\nhttps://ex.io/1\nhttps://ex.io/2\nhttps://ex.io/3\n".write(
                to: directory.appendingPathComponent("m.csv"), atomically: true, encoding: .utf8)
            let ledger = directory.appendingPathComponent("l.db").path
            let first = try await Self.namedRun(ledger, tags: "a", count: 1, extra: data, in: directory)
            #expect(first.status == 0, "\(first.output)")
            // Another connection makes every claim fail from now on.
            let event = table == "run_rows" ? "UPDATE" : "INSERT"
            _ = try await Self.sqlite(ledger, "db.execute(\"CREATE TRIGGER boom BEFORE \(event) ON \(table) BEGIN SELECT RAISE(ABORT, 'boom'); END\")")
            let second = try await Self.namedRun(ledger, tags: "b", count: 3, extra: data, in: directory)
            #expect(second.status == 1, "\(second.output)")
            #expect(second.output.contains("0 done, 1 failed"), "\(second.output)")
            #expect(second.output.contains("ledger error: ledger \(ledger): boom (SQLite 19)"), "\(second.output)")
            #expect(second.output.contains("FAILED 0453494D000002"), "\(second.output)")
        }
    }

    @Test("a named run on PostgreSQL whose ledger write fails is FAILED with exit 1", PostgreSQLTestServer.tool.trait)
    func namedRunLedgerErrorFailsOnPostgreSQL() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await runBlocking { try PostgreSQLTestServer() }
        defer { server.remove() }
        let uri = try server.createDatabase("line")
        let first = try await Self.namedRun(uri, tags: "a", count: 1, extra: ["--url", "https://ex.io/{n}"], in: directory)
        #expect(first.status == 0, "\(first.output)")
        _ = try await runBlocking { try server.psql("""
            CREATE FUNCTION boom() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'boom'; END $$;
            CREATE TRIGGER boom BEFORE INSERT ON counter_uses FOR EACH ROW EXECUTE FUNCTION boom();
            """, database: "line") }
        let second = try await Self.namedRun(uri, tags: "b", count: 3, extra: ["--url", "https://ex.io/{n}"], in: directory)
        #expect(second.status == 1, "\(second.output)")
        #expect(second.output.contains("0 done, 1 failed"), "\(second.output)")
        #expect(second.output.contains("ledger error: ERROR:  boom"), "\(second.output)")
    }

    /// Runs nfctool `batch` with `arguments` in `directory`.
    static func batch(_ arguments: [String], in directory: URL) async throws -> ToolRun {
        try await runTool(try Executables.nfctool(), ["batch"] + arguments, environment: environment, timeout: 60, in: directory)
    }

    @Test("counters at the end of their range: --start/--count past it are usage errors, the last value handed out stops the run (nothing failed), a used-up or damaged ledger is refused on resume and in --plan; never a trap")
    func counterRange() async throws {
        do {
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let last = "9223372036854775806"
            let url = ["--url", "https://ex.io/{n}"]
            for arguments in [
                ["--start", last, "--count", "3", "--plan", "--ledger", "p.db"],
                ["--device", "sim:ntag215*3?poll-wait=0&dir=x", "--start", last, "--count", "2", "--ledger", "x.db"],
                ["--start", "9223372036854775807", "--plan", "--ledger", "p.db"],
                ["--start", "99999999999999999999", "--plan", "--ledger", "p.db"],
            ] {
                let run = try await Self.batch(url + arguments, in: directory)
                #expect(run.status == 64, "\(arguments): \(run.output)")
            }
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("x.db").path))

            // One value left: the first tag gets it, then the run stops (the counter is used up),
            // exit 0, nothing failed (before: a failed tag the ledger did not hold, exit 1).
            let ledger = directory.appendingPathComponent("l.db").path
            let run = try await Self.batch(url + ["--device", "sim:ntag215*3?poll-wait=0&dir=a", "--start", last, "--ledger", ledger, "--timeout", "5"], in: directory)
            #expect(run.status == 0, "\(run.output)")
            #expect(run.output.contains("1 done, 0 failed") && run.output.contains("is used up"), "\(run.output)")
            #expect(try await Self.sqlite(ledger, "print(db.execute(\"SELECT next FROM counters WHERE name = 'n'\").fetchone()[0])") == "9223372036854775807\n")
            #expect(try await Self.sqlite(ledger, "print([r[0] for r in db.execute(\"SELECT counter FROM attempts WHERE status = 'done'\")])") == "[\(last)]\n")

            // Resumed, or planned: refused before the first tag (data error), as often as asked.
            for arguments in [["--device", "sim:ntag215*3?poll-wait=0&dir=b", "--resume", ledger], ["--plan", "--resume", ledger]] {
                let again = try await Self.batch(url + arguments, in: directory)
                #expect(again.status == 65, "\(arguments): \(again.output)")
                #expect(again.output.contains("is used up"), "\(arguments): \(again.output)")
            }
            // A counter past 2^63 - 1 (SQLite keeps it as a real) is no "none yet": refused, not restarted.
            _ = try await Self.sqlite(ledger, "db.execute(\"UPDATE counters SET next = 9223372036854775808 WHERE name = 'n'\")")
            let damaged = try await Self.batch(url + ["--device", "sim:ntag215*3?poll-wait=0&dir=c", "--resume", ledger], in: directory)
            #expect(damaged.status == 1, "\(damaged.output)")
            #expect(damaged.output.contains("the ledger is damaged"), "\(damaged.output)")
        }
    }

    @Test("a named run on PostgreSQL at the end of its counter: the last value handed out stops the run (nothing failed), the run is then refused (data error); never a trap", PostgreSQLTestServer.tool.trait)
    func counterRangeOnPostgreSQL() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await runBlocking { try PostgreSQLTestServer() }
        defer { server.remove() }
        let uri = try server.createDatabase("line")
        @Sendable func station(_ tags: String) async throws -> ToolRun {
            try await Self.batch(
                ["--url", "https://ex.io/{n}", "--start", "9223372036854775806", "--device", "sim:ntag215*3?poll-wait=0&dir=\(tags)",
                 "--ledger", uri, "--run", "r", "--station", "s", "--timeout", "5"], in: directory)
        }
        let first = try await station("a")
        #expect(first.status == 0, "\(first.output)")
        #expect(first.output.contains("1 done, 0 failed") && first.output.contains("is used up"), "\(first.output)")
        let again = try await station("b")
        #expect(again.status == 65, "\(again.output)")
        #expect(again.output.contains("of run 'r' is used up"), "\(again.output)")
        let uses = try await runBlocking { try server.psql("SELECT counter FROM counter_uses WHERE run_name = 'r'", database: "line") }
        #expect(uses.trimmingCharacters(in: .whitespacesAndNewlines) == "9223372036854775806")
    }

    @Test("--resume with another manifest is refused (data error naming both) and writes nothing; the same rows in another file resume")
    func resumeWithAnotherManifest() async throws {
        do {
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            try "url\nhttps://ex.io/m1/1\nhttps://ex.io/m1/2\nhttps://ex.io/m1/3\nhttps://ex.io/m1/4\n".write(
                to: directory.appendingPathComponent("m1.csv"), atomically: true, encoding: .utf8)
            try "url\nhttps://ex.io/m2/1\nhttps://ex.io/m2/2\nhttps://ex.io/m2/3\nhttps://ex.io/m2/4\n".write(
                to: directory.appendingPathComponent("m2.csv"), atomically: true, encoding: .utf8)
            // m1's rows again, laid out otherwise (CR LF, a blank line).
            try "url\r\nhttps://ex.io/m1/1\r\n\r\nhttps://ex.io/m1/2\r\nhttps://ex.io/m1/3\r\nhttps://ex.io/m1/4\r\n".write(
                to: directory.appendingPathComponent("m1-copy.csv"), atomically: true, encoding: .utf8)
            let ledger = directory.appendingPathComponent("l.db").path
            let first = try await Self.batch(["--device", "sim:ntag215*4?poll-wait=0&dir=a", "--manifest", "m1.csv", "--ledger", ledger, "--count", "2"], in: directory)
            #expect(first.status == 0, "\(first.output)")
            let attempts = "print([(r[0], r[1]) for r in db.execute('SELECT row, summary FROM attempts ORDER BY id')])"
            let before = try await Self.sqlite(ledger, attempts)
            for arguments in [["--device", "sim:ntag215*4?poll-wait=0&dir=b"], ["--plan"]] {
                let other = try await Self.batch(arguments + ["--manifest", "m2.csv", "--resume", ledger, "--timeout", "5"], in: directory)
                #expect(other.status == 65, "\(arguments): \(other.output)")
                #expect(other.output.contains("manifest m2.csv") && other.output.contains("m1.csv"), "\(arguments): \(other.output)")
            }
            #expect(try await Self.sqlite(ledger, attempts) == before)
            let same = try await Self.batch(["--device", "sim:ntag215*4?poll-wait=0&dir=c", "--manifest", "m1-copy.csv", "--resume", ledger, "--timeout", "5"], in: directory)
            #expect(same.status == 0, "\(same.output)")
            #expect(try await Self.sqlite(ledger, "print([r[0] for r in db.execute(\"SELECT summary FROM attempts WHERE status = 'done' ORDER BY row\")])")
                == "['URI https://ex.io/m1/1', 'URI https://ex.io/m1/2', 'URI https://ex.io/m1/3', 'URI https://ex.io/m1/4']\n")
        }
    }

    @Test("batch --plan makes no ledger file and prints JSON with --json")
    func planWritesNoLedger() async throws {
        do {
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let plain = try await Self.batch(["--url", "https://ex.io/{n}", "--plan", "--ledger", "run.db", "--count", "2"], in: directory)
            #expect(plain.status == 0 && plain.output.contains("tag 2 (n = 2): URI https://ex.io/2"), "\(plain.output)")
            let json = try await Self.batch(["--url", "https://ex.io/{n}", "--plan", "--json", "--ledger", "run.db", "--count", "2"], in: directory)
            #expect(json.status == 0, "\(json.output)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any], "\(json.output)")
            let tags = try #require(report["tags"] as? [[String: Any]])
            #expect(tags.map { $0["counter"] as? Int } == [1, 2] && (tags.last?["message"] as? String)?.hasPrefix("URI https://ex.io/2 (") == true, "\(json.output)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        }
    }

    /// The file's bytes and its schema as python3's sqlite3 reads them.
    static func snapshot(_ path: String) async throws -> (Data, String) {
        (try Data(contentsOf: URL(fileURLWithPath: path)), try await sqlite(path, "print(db.execute('PRAGMA user_version').fetchone()[0], db.execute('SELECT * FROM sqlite_master').fetchall())"))
    }

    @Test("a SQLite file that is no ledger, or a ledger of a newer schema, is refused untouched; every SQLite error names the file")
    func notALedger() async throws {
        do {
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let other = directory.appendingPathComponent("stickers.db").path
            _ = try await Self.sqlite(other, "db.execute('CREATE TABLE stickers(id INTEGER PRIMARY KEY, name TEXT)'); db.execute(\"INSERT INTO stickers(name) VALUES('a')\")")
            let before = try await Self.snapshot(other)
            for arguments in [
                ["batch", "--device", "sim:ntag215?poll-wait=0&dir=a", "--url", "https://ex.io/{n}", "--ledger", other, "--count", "1"],
                ["batch", "--url", "https://ex.io/{n}", "--plan", "--ledger", other], ["ledger", "stats", other], ["ledger", "export", other],
                ["ledger", "load", "--ledger", other, "--run", "r", "m.csv"],
            ] {
                try "url\nhttps://ex.io/1\n".write(to: directory.appendingPathComponent("m.csv"), atomically: true, encoding: .utf8)
                let run = try await runTool(try Executables.nfctool(), arguments, environment: Self.environment, timeout: 30, in: directory)
                #expect(run.status == 1 && run.output.contains("\(other) is not an nfctool ledger (it has tables stickers)"), "\(arguments): \(run.output)")
            }
            let after = try await Self.snapshot(other)
            #expect(after.0 == before.0 && after.1 == before.1)

            // A ledger of a newer schema.
            let newer = directory.appendingPathComponent("newer.db").path
            #expect(try await Self.batch(["--device", "sim:ntag215?poll-wait=0&dir=b", "--url", "https://ex.io/{n}", "--ledger", newer, "--count", "1"], in: directory).status == 0)
            _ = try await Self.sqlite(newer, "db.execute('PRAGMA user_version = 99')")
            let newerBefore = try await Self.snapshot(newer)
            for arguments in [["batch", "--device", "sim:ntag215?poll-wait=0&dir=c", "--url", "https://ex.io/{n}", "--resume", newer], ["ledger", "stats", newer]] {
                let run = try await runTool(try Executables.nfctool(), arguments, environment: Self.environment, timeout: 30, in: directory)
                #expect(run.status == 1 && run.output.contains("schema version 99, newer than this nfctool's 6"), "\(arguments): \(run.output)")
            }
            let newerAfter = try await Self.snapshot(newer)
            #expect(newerAfter.0 == newerBefore.0 && newerAfter.1 == newerBefore.1)

            // Not a database at all: the error names the file.
            let stats = try await runTool(try Executables.nfctool(), ["ledger", "stats", "m.csv"], environment: Self.environment, timeout: 30, in: directory)
            #expect(stats.status == 1 && stats.output.contains("m.csv: file is not a database"), "\(stats.output)")
        }
    }

    @Test("a read-only ledger is read by ledger stats and ledger export, and left as it was")
    func readOnlyLedger() async throws {
        do {
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let ledger = directory.appendingPathComponent("l.db").path
            #expect(try await Self.batch(["--device", "sim:ntag215*2?poll-wait=0&dir=a", "--url", "https://ex.io/{n}", "--ledger", ledger, "--count", "2"], in: directory).status == 0)
            _ = try await Self.sqlite(ledger, "db.execute('PRAGMA wal_checkpoint(TRUNCATE)')")
            for name in ["l.db-wal", "l.db-shm"] { try? FileManager.default.removeItem(at: directory.appendingPathComponent(name)) }
            // Neither the file nor its directory may be written by the reader (root writes anything: the reader is 'nobody' then).
            try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: ledger)
            try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: directory.path)
            defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path) }
            let before = try Data(contentsOf: URL(fileURLWithPath: ledger))
            func read(_ arguments: [String]) async throws -> ToolRun {
                getuid() == 0
                    ? try await runAsNobody(try Executables.nfctool(), arguments, environment: Self.environment, timeout: 30)
                    : try await runTool(try Executables.nfctool(), arguments, environment: Self.environment, timeout: 30)
            }
            let stats = try await read(["ledger", "stats", ledger])
            #expect(stats.status == 0 && stats.output.contains("tags done:    2"), "\(stats.output)")
            let export = try await read(["ledger", "export", ledger])
            #expect(export.status == 0 && export.output.split(separator: "\n").count == 3, "\(export.output)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: ledger)) == before)
        }
    }

    @Test("a PostgreSQL key=value connection string is a server, as libpq reads it, its password masked in the output and the JSON", PostgreSQLTestServer.tool.trait)
    func keywordConnectionString() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await runBlocking { try PostgreSQLTestServer() }
        defer { server.remove() }
        _ = try server.createDatabase("line")
        let location = "host=127.0.0.1 port = \(server.port) user=postgres password='s3cr et' dbname=line"
        let run = try await Self.batch(["--device", "sim:ntag215*2?poll-wait=0&dir=a", "--url", "https://ex.io/{n}", "--ledger", location, "--run", "r",
                            "--station", "s", "--count", "2", "--json"], in: directory)
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("password=***") && !run.output.contains("s3cr"), "\(run.output)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["a"])
        let done = try await runBlocking { try server.psql("SELECT count(*) FROM attempts WHERE run_name = 'r' AND status = 'done'", database: "line") }
        #expect(done.trimmingCharacters(in: .whitespacesAndNewlines) == "2")
    }

    @Test("a named run's --journal that cannot be written is a usage error before anything is opened")
    func journalCheckedAtStart() async throws {
        do {
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let run = try await Self.batch(
                ["--device", "sim:ntag215*2?poll-wait=0&dir=a", "--url", "https://ex.io/{n}", "--ledger", "l.db", "--run", "r", "--station", "s",
                 "--journal", "missing/j.jsonl", "--count", "1"], in: directory)
            #expect(run.status == 64 && run.output.contains("--journal: the journal missing/j.jsonl cannot be written"), "\(run.output)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        }
    }
}
