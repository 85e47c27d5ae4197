import Foundation
import NFCTestSupport
import Testing

/// `nfctool batch` and `nfctool ledger` against ledgers that fail, overflow, belong to another
/// manifest or are no ledger at all, judged from outside: a fresh `nfctool` process (exit status,
/// summary), the ledger read by python3's sqlite3 or psql.
@Suite("nfctool batch and ledger: faults of the ledger", .serialized, .timeLimit(.minutes(5)))
struct BatchLedgerRefusalTests {
    static func nfctool() throws -> String {
        try #require(Executables.built("nfctool"), "nfctool is not next to the test runner").path
    }

    static var environment: [String: String] { ProcessInfo.processInfo.environment }

    /// Runs python3's sqlite3 on `path`: `script` gets `db` (a connection) and `sys.argv[1]`.
    static func sqlite(_ path: String, _ script: String) throws -> String {
        let run = try runPython("import sqlite3, sys\ndb = sqlite3.connect(sys.argv[1])\n" + script + "\ndb.commit()\n", [path])
        #expect(run.status == 0, "python3 failed: \(run.standardOutput)")
        return run.standardOutput
    }

    /// A named run on `ledger` (one station) with a counter template, on a stack of fresh tags in
    /// `tags`.
    static func namedRun(_ ledger: String, tags: String, count: Int, extra: [String] = [], in directory: URL) throws -> ToolRun {
        try runTool(
            try nfctool(),
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
    func namedRunLedgerErrorFails(table: String, data: [String]) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try "url\nhttps://ex.io/1\nhttps://ex.io/2\nhttps://ex.io/3\n".write(
            to: directory.appendingPathComponent("m.csv"), atomically: true, encoding: .utf8)
        let ledger = directory.appendingPathComponent("l.db").path
        let first = try Self.namedRun(ledger, tags: "a", count: 1, extra: data, in: directory)
        #expect(first.status == 0, "\(first.output)")
        // Another connection makes every claim fail from now on.
        let event = table == "run_rows" ? "UPDATE" : "INSERT"
        _ = try Self.sqlite(ledger, "db.execute(\"CREATE TRIGGER boom BEFORE \(event) ON \(table) BEGIN SELECT RAISE(ABORT, 'boom'); END\")")
        let second = try Self.namedRun(ledger, tags: "b", count: 3, extra: data, in: directory)
        #expect(second.status == 1, "\(second.output)")
        #expect(second.output.contains("0 done, 1 failed"), "\(second.output)")
        #expect(second.output.contains("ledger error: boom"), "\(second.output)")
        #expect(second.output.contains("FAILED 0453494D000002"), "\(second.output)")
    }

    @Test("a named run on PostgreSQL whose ledger write fails is FAILED with exit 1", PostgreSQLTestServer.tool.trait)
    func namedRunLedgerErrorFailsOnPostgreSQL() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await offThePool { try PostgreSQLTestServer() }
        defer { server.remove() }
        let uri = try server.createDatabase("line")
        let first = try await offThePool { try Self.namedRun(uri, tags: "a", count: 1, extra: ["--url", "https://ex.io/{n}"], in: directory) }
        #expect(first.status == 0, "\(first.output)")
        _ = try await offThePool { try server.psql("""
            CREATE FUNCTION boom() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'boom'; END $$;
            CREATE TRIGGER boom BEFORE INSERT ON counter_uses FOR EACH ROW EXECUTE FUNCTION boom();
            """, database: "line") }
        let second = try await offThePool { try Self.namedRun(uri, tags: "b", count: 3, extra: ["--url", "https://ex.io/{n}"], in: directory) }
        #expect(second.status == 1, "\(second.output)")
        #expect(second.output.contains("0 done, 1 failed"), "\(second.output)")
        #expect(second.output.contains("ledger error: ERROR:  boom"), "\(second.output)")
    }
}
