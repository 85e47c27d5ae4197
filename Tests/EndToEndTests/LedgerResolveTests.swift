import Foundation
import NFCTestSupport
import Provisioning
import Testing

/// `nfctool ledger resolve` (issue 32) on a SQLite ledger, from a fresh process: a void tag is
/// marked discarded or erased once, read back by Python's sqlite3; usage errors exit 64.
@Suite("ledger resolve: a void tag accounted for", .tags(.endToEnd), .timeLimit(.minutes(2)))
struct LedgerResolveTests {
    /// A SQLite ledger holding run `r` with one row done by station B and A's tag of the same row void.
    static func ledgerWithVoidTag(in directory: URL) throws -> String {
        let path = directory.appendingPathComponent("void.db").path
        let ledger = try Ledger(path: path)
        _ = try ledger.loadManifest(run: "r", rows: [ManifestRow(index: 1, line: 2, fields: [(name: "url", value: "https://ex.io/1")])], source: "m.csv")
        let a = try ledger.startRun(name: "r", station: "A", template: nil, manifest: "m.csv", readers: ["sim:a"])
        let b = try ledger.startRun(name: "r", station: "B", template: nil, manifest: "m.csv", readers: ["sim:b"])
        guard case .claimed(_, let old) = try ledger.claimRow(run: "r", uid: "04A1", station: "A", lease: .milliseconds(1)) else { throw Unexpected() }
        var claim = try ledger.claimRow(run: "r", uid: "04B1", station: "B", lease: .seconds(60))
        let deadline = ContinuousClock.now + .seconds(10)
        while case .noneFree = claim, ContinuousClock.now < deadline { claim = try ledger.claimRow(run: "r", uid: "04B1", station: "B", lease: .seconds(60)) }
        guard case .claimed(_, let new) = claim else { throw Unexpected() }
        func attempt(_ session: Int64, _ uid: String, _ station: String, _ epoch: Int64) -> LedgerAttempt {
            LedgerAttempt(run: session, uid: uid, model: "NTAG215", row: 1, summary: "URI https://ex.io/1", bytes: 20, verified: true,
                          started: Ledger.now(), finished: Ledger.now(), reader: "sim", status: "done", runName: "r", station: station,
                          key: UUID().uuidString, epoch: epoch)
        }
        _ = try ledger.recordOutcome(attempt(b, "04B1", "B", new))
        guard try ledger.recordOutcome(attempt(a, "04A1", "A", old)).isVoid else { throw Unexpected() }
        return path
    }

    struct Unexpected: Error {}

    @Test("a void tag is marked erased once (--json lists it), then there is none left (exit 1); the file says so to sqlite3")
    func resolves() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try await runBlocking { try Self.ledgerWithVoidTag(in: directory) }
        let before = try await runBuiltNFCTool(["ledger", "stats", path, "--run", "r"])
        #expect(before.standardOutput.contains("void:         1 (1 not accounted for") && before.standardOutput.contains("complete:     no"), "\(before.standardOutput)")
        let run = try await runBuiltNFCTool(["ledger", "resolve", path, "--run", "r", "--uid", "04a1", "--erased", "--json"])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.contains("\"resolution\" : \"erased\"") || run.standardOutput.contains("\"resolution\":\"erased\""), "\(run.standardOutput)")
        let stored = try await runTool("/usr/bin/env", ["python3", "-c", "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(\"SELECT uid, status, resolution FROM attempts WHERE status = 'void'\").fetchall())", path],
                                       environment: ProcessInfo.processInfo.environment, timeout: 30)
        #expect(stored.output.trimmingCharacters(in: .whitespacesAndNewlines) == "[('04A1', 'void', 'erased')]")
        let again = try await runBuiltNFCTool(["ledger", "resolve", path, "--run", "r", "--uid", "04A1", "--discarded"])
        #expect(again.status == 1 && again.standardError.contains("no void tag 04A1 left to account for"), "\(again.standardError)")
        let after = try await runBuiltNFCTool(["ledger", "stats", path, "--run", "r"])
        #expect(after.standardOutput.contains("void:         1 (all accounted for)") && !after.standardOutput.contains("complete:     no"), "\(after.standardOutput)")
    }

    @Test("ledger runs and the HTML report show a void tag, open until resolved; ledger stats does not count it as a failure")
    func voidTagShownByRunsAndReport() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try await runBlocking { try Self.ledgerWithVoidTag(in: directory) }
        let runs = try await runBuiltNFCTool(["ledger", "runs", path])
        #expect(runs.standardOutput.contains("r: 2 sessions, 2 attempts, 1 done, 0 failed, 0 counterfeit, 1 void (1 not accounted for)"), "\(runs.standardOutput)")
        let stats = try await runBuiltNFCTool(["ledger", "stats", path, "--run", "r"])
        #expect(!stats.standardOutput.contains("unrecorded"), "a void tag is not a failure: \(stats.standardOutput)")
        let html = directory.appendingPathComponent("r.html").path
        let report = try await runBuiltNFCTool(["ledger", "report", path, "--run", "r", "-o", html])
        #expect(report.status == 0, "\(report.standardError)")
        let page = try String(contentsOfFile: html, encoding: .utf8)
        #expect(page.contains("<dt>Void tags</dt><dd>1 (1 not accounted for: run incomplete)</dd>"), "\(page.prefix(3000))")

        _ = try await runBuiltNFCTool(["ledger", "resolve", path, "--run", "r", "--uid", "04A1", "--discarded"])
        let after = try await runBuiltNFCTool(["ledger", "runs", path])
        #expect(after.standardOutput.contains("1 done, 0 failed, 0 counterfeit, 1 void\n"), "\(after.standardOutput)")
    }

    @Test("usage errors exit 64: no --uid, a UID not in hex, neither or both of --discarded and --erased", arguments: [
        ["--run", "r", "--erased"], ["--uid", "04ZZ", "--erased"], ["--uid", "04A1"], ["--uid", "04A1", "--erased", "--discarded"],
    ])
    func usage(arguments: [String]) async throws {
        let run = try await runBuiltNFCTool(["ledger", "resolve", "/nonexistent.db"] + arguments)
        #expect(run.status == 64 && run.standardError.hasPrefix("Error: "), "\(arguments): \(run.standardError)")
    }
}
