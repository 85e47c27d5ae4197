import Foundation
import NDEF
import NFCCore
import NFCTags
import NFCTestSupport
import Provisioning
import Testing
import VirtualTags

/// Several stations, one run (issue 15): `nfctool batch` processes, each with two simulated
/// readers, on one run kept by a real PostgreSQL server that the test starts (initdb + pg_ctl,
/// 127.0.0.1, a free port) and stops at the end, also when the test fails. The ledger is read
/// back with psql, the tags from their files.
@Suite("Several stations on one PostgreSQL run", .tags(.endToEnd, .postgres), .serialized, .timeLimit(.minutes(4)), PostgreSQLTestServer.tool.trait)
struct BatchStationsTests {
    /// A run's working directory, server and manifest.
    struct Line {
        let directory: URL
        let server: PostgreSQLTestServer
        let uri: String
        let manifest: String
        let rows: Int

        init(rows: Int) throws {
            _ = try PostgreSQLTestServer.tool.require()
            directory = try temporaryDirectory()
            server = try PostgreSQLTestServer()
            uri = try server.createDatabase("line")
            self.rows = rows
            manifest = directory.appendingPathComponent("wristbands.csv").path
            try (["url,text"] + (1...rows).map { "https://ex.io/w/\(String(format: "%04d", $0)),Band \($0)" })
                .joined(separator: "\n").appending("\n").write(toFile: manifest, atomically: true, encoding: .utf8)
        }

        /// Makes a line off the cooperative pool (the server starts in seconds, more on a loaded machine).
        static func make(rows: Int) async throws -> Line { try await runBlocking { try Line(rows: rows) } }

        /// Starts nfctool with `arguments` under `nice -n 10`, its output in files.
        static func startNice(_ arguments: [String], environment: [String: String], in directory: URL) throws -> (Process, URL, URL) {
            let errors = directory.appendingPathComponent("stderr-\(UUID().uuidString).log")
            let output = directory.appendingPathComponent("stdout-\(UUID().uuidString).log")
            _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
            _ = FileManager.default.createFile(atPath: output.path, contents: nil)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/nice")
            process.arguments = ["-n", "10", try Executables.nfctool()] + arguments
            process.environment = environment
            process.currentDirectoryURL = directory
            process.standardError = try FileHandle(forWritingTo: errors)
            process.standardOutput = try FileHandle(forWritingTo: output)
            process.standardInput = FileHandle.nullDevice
            try process.run()
            return (process, errors, output)
        }

        func remove() {
            server.remove()
            try? FileManager.default.removeItem(at: directory)
        }

        /// `nfctool batch` as station `name` with two simulated stacks of `tags` NTAG215 each,
        /// ending after `idle` seconds without a tag.
        func station(_ name: String, tags: Int, prefix: String, idle: Int = 20, extra: [String] = []) throws -> (Process, URL, URL) {
            let a = directory.appendingPathComponent("tags-\(name)-a").path, b = directory.appendingPathComponent("tags-\(name)-b").path
            // At a lower priority (nice 10): four stations and the server must not starve the
            // rest of the suite, which runs beside them.
            return try Self.startNice(
                ["batch", "--device", "sim:ntag215*\(tags)?poll-wait=0&dir=\(a)&uid=04\(prefix)A0000000001",
                 "--device", "sim:ntag215*\(tags)?poll-wait=0&dir=\(b)&uid=04\(prefix)B0000000001",
                 "--manifest", manifest, "--ledger", uri, "--run", "wristbands", "--station", name, "--timeout", String(idle)] + extra,
                environment: ProcessInfo.processInfo.environment, in: directory)
        }

        /// What psql says about the run: rows done, distinct rows and UIDs among done attempts, and done attempts.
        func counts() async throws -> [String] {
            let server = self.server
            return try await runBlocking { try server.psql("""
                SELECT (SELECT count(*) FROM run_rows WHERE run_name = 'wristbands' AND status = 'done'),
                       count(DISTINCT row), count(DISTINCT uid), count(*)
                FROM attempts WHERE run_name = 'wristbands' AND status = 'done'
                """, database: "line").trimmingCharacters(in: .whitespacesAndNewlines).components(separatedBy: "|") }
        }

        /// Every done attempt (uid, row) as psql reads it.
        func doneAttempts() async throws -> [(uid: String, row: Int)] {
            let server = self.server
            let text = try await runBlocking { try server.psql("SELECT uid, row FROM attempts WHERE run_name = 'wristbands' AND status = 'done' ORDER BY id", database: "line") }
            return text.split(separator: "\n").compactMap { line in
                    let parts = line.split(separator: "|")
                    guard parts.count == 2, let row = Int(parts[1]) else { return nil }
                    return (String(parts[0]), row)
                }
        }

        /// Every tag file of every station, read afresh: UID → message.
        func tagFiles() async throws -> [String: Result<NDEFMessage, NFCTagError>] {
            var files: [String: Result<NDEFMessage, NFCTagError>] = [:]
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) where name.hasPrefix("tags-") {
                files.merge(try await BatchCommandTests.tagFiles(directory.appendingPathComponent(name).path)) { a, _ in a }
            }
            return files
        }

        /// What row `row` of the manifest puts on a tag, in the ledger's words.
        static func expected(_ row: Int) -> String { "URI https://ex.io/w/\(String(format: "%04d", row)); Text \"Band \(row)\"" }

        /// Checks that every done attempt's tag file holds its row's message, no row or UID is
        /// done twice, and every row is done; returns the UIDs the ledger has.
        @discardableResult
        func checkEveryTagHoldsWhatTheLedgerSays() async throws -> Set<String> {
            #expect(try await counts() == ["\(rows)", "\(rows)", "\(rows)", "\(rows)"])
            let files = try await tagFiles()
            let done = try await doneAttempts()
            for attempt in done {
                #expect((try? files[attempt.uid]?.get()).map(BatchCoordinator.describe) == Self.expected(attempt.row), "\(attempt.uid) row \(attempt.row)")
            }
            return Set(done.map(\.uid))
        }
    }

    /// Waits for every process to end (deadline), then returns each one's exit status and log.
    static func finish(_ processes: [(Process, URL, URL)], within seconds: Double) async throws -> [(Int32, String)] {
        let deadline = Date().addingTimeInterval(seconds)
        for (process, _, _) in processes {
            while process.isRunning, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        }
        var results: [(Int32, String)] = []
        for (process, errors, output) in processes {
            let ran = process.isRunning
            if ran { kill(process.processIdentifier, SIGKILL) }
            await reaped(process)
            let log = (try String(contentsOf: errors, encoding: .utf8)) + (try String(contentsOf: output, encoding: .utf8))
            results.append((ran ? -1 : process.terminationStatus, log))
        }
        return results
    }

    /// Waits until `file` holds `text` at least `count` times (deadline 60 s); false if it never did.
    static func waitFor(_ text: String, count: Int = 1, in files: [URL]) async throws -> Bool {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let total = files.reduce(0) { $0 + (((try? String(contentsOf: $1, encoding: .utf8)) ?? "").components(separatedBy: text).count - 1) }
            if total >= count { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    @Test("four stations, two readers each, one run of 400 tags: every row once, every tag file holds what the ledger says; the manifest loaded twice changes nothing")
    func fourStations() async throws {
        let line = try await Line.make(rows: 400)
        defer { line.remove() }
        let nfctool = try Executables.nfctool()
        let environment = ProcessInfo.processInfo.environment
        // Loaded ahead, then again: the second load changes nothing; another manifest is refused.
        let first = try await runTool(nfctool, ["ledger", "load", "--ledger", line.uri, "--run", "wristbands", line.manifest], environment: environment, timeout: 30)
        #expect(first.status == 0 && first.output.contains("400 rows loaded"), "\(first.output)")
        let again = try await runTool(nfctool, ["ledger", "load", "--ledger", line.uri, "--run", "wristbands", line.manifest], environment: environment, timeout: 30)
        #expect(again.status == 0 && again.output.contains("already loaded"), "\(again.output)")
        let other = line.directory.appendingPathComponent("other.csv").path
        try "url\nhttps://ex.io/other\n".write(toFile: other, atomically: true, encoding: .utf8)
        let refused = try await runTool(nfctool, ["ledger", "load", "--ledger", line.uri, "--run", "wristbands", other], environment: environment, timeout: 30)
        #expect(refused.status == 1 && refused.output.contains("already holds a different manifest"), "\(refused.output)")
        let server = line.server
        #expect(try await runBlocking { try server.psql("SELECT count(*) FROM run_rows", database: "line") }.trimmingCharacters(in: .whitespacesAndNewlines) == "400")

        // Four stations (each also loads the same manifest: nothing changes), 2 × 100 tags each
        // (a station may well do more than its quarter on a loaded machine).
        let stations = try ["A", "B", "C", "D"].map { try line.station($0, tags: 100, prefix: $0) }
        let results = try await Self.finish(stations, within: 150)
        var total = 0
        for (index, (status, log)) in results.enumerated() {
            #expect(status == 0, "station \(index): \(log.suffix(600))")
            #expect(log.contains("(the run has no row left)"), "station \(index): \(log.suffix(600))")
            #expect(!log.contains("rows loaded"), "a station loaded the manifest again: \(log.prefix(300))")
            if let range = log.range(of: #"Batch: (\d+) done"#, options: .regularExpression) {
                total += Int(log[range].split(separator: " ")[1]) ?? 0
            }
        }
        #expect(total == 400)
        try await line.checkEveryTagHoldsWhatTheLedgerSays()
        // The operator's run-wide line, and stats per station.
        #expect(results.contains { $0.1.contains("[run wristbands] ") && $0.1.contains("/400 (") })
        let stats = try await runTool(nfctool, ["ledger", "stats", "--ledger", line.uri, "--run", "wristbands"], environment: environment, timeout: 30)
        #expect(stats.output.contains("rows:         400/400 done, 0 held by stations"), "\(stats.output)")
        #expect(stats.output.components(separatedBy: "\nstation ").count == 5, "\(stats.output)")
    }

    @Test("a station SIGKILLed mid-run: started again under its name, its held rows return at once; the run completes with every row once")
    func killedStation() async throws {
        let line = try await Line.make(rows: 80)
        defer { line.remove() }
        // The victim starts first, the others once it is working: started together, the other three
        // took all 80 rows before it had done three on a loaded machine.
        let victim = try line.station("D", tags: 40, prefix: "D")
        #expect(try await Self.waitFor("done 04D", count: 1, in: [victim.1]))
        var stations = try ["A", "B", "C"].map { try line.station($0, tags: 40, prefix: $0) }
        // Killed once it has done a few tags (it is between or inside tags: either way no "done" without a verified tag).
        #expect(try await Self.waitFor("done 04D", count: 3, in: [victim.1]))
        kill(victim.0.processIdentifier, SIGKILL)
        await reaped(victim.0)
        // Back under the same name (fresh tags): anything it held is released at once (a 60 s lease would not end in time).
        stations.append(try line.station("D", tags: 40, prefix: "E"))
        let results = try await Self.finish(stations, within: 120)
        for (status, log) in results { #expect(status == 0, "\(log.suffix(600))") }
        let uids = try await line.checkEveryTagHoldsWhatTheLedgerSays()
        // A tag the killed station wrote but never recorded holds a row another tag also got: at most one per reader.
        let files = try await line.tagFiles()
        let unrecorded = files.filter { uid, message in
            !uids.contains(uid) && ((try? message.get()).map(BatchCoordinator.describe)?.hasPrefix("URI https://ex.io/w/") ?? false)
        }
        #expect(unrecorded.count <= 2 && unrecorded.keys.allSatisfy { $0.hasPrefix("04D") }, "\(unrecorded.keys.sorted())")
    }

    @Test("the server stopped mid-run and started again: stations stop taking tags and say so, keep written tags in their journal, record it when it is back; every row once")
    func serverAway() async throws {
        // 400 rows: the stations must still have work when the test, late on a loaded machine,
        // stops them (with 80 rows, two stations finished the run in 0.8 s before it looked).
        let line = try await Line.make(rows: 400)
        defer { line.remove() }
        // A long idle timeout: a station takes no tag while the server restarts, which took more
        // than 20 s on a loaded machine (the station ended with its journal, as it should).
        let stations = try ["A", "B"].map { try line.station($0, tags: 250, prefix: $0, idle: 120) }
        let logs = stations.map(\.1)
        // Each station has started and done tags (one slow to start could otherwise find the
        // server already gone and, as at any start, exit with the connection error).
        for log in logs { #expect(try await Self.waitFor(" done 04", count: 3, in: [log])) }
        let server = line.server
        // The stations are held while the server goes down, so that they cannot finish the run
        // before it is gone (stopping PostgreSQL can take longer than 70 rows on a loaded machine).
        for station in stations { kill(station.0.processIdentifier, SIGSTOP) }
        try await runBlocking { server.stop() }
        for station in stations { kill(station.0.processIdentifier, SIGCONT) }
        // Each station notices (at its next tag) and says so.
        #expect(try await Self.waitFor("[ledger] UNAVAILABLE", count: 2, in: logs))
        try await runBlocking { try server.start() }
        #expect(try await Self.waitFor("[ledger] back", count: 2, in: logs))
        let results = try await Self.finish(stations, within: 240)
        for (status, log) in results {
            #expect(status == 0, "\(log.suffix(800))")
            #expect(log.contains("Taking no tags until it is back"), "\(log.suffix(800))")
        }
        try await line.checkEveryTagHoldsWhatTheLedgerSays()
        // Every journal was recorded and removed.
        let journals = try FileManager.default.contentsOfDirectory(atPath: line.directory.path).filter { $0.hasPrefix("nfctool-journal-") }
        #expect(journals.isEmpty, "\(journals)")
    }
}
