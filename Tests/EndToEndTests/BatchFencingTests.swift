import Foundation
import NDEF
import NFCCore
import NFCTags
import NFCTestSupport
import Provisioning
import Testing

/// Fencing end to end (issue 32): two `nfctool batch` stations on one run kept by a real
/// PostgreSQL server the test starts. Station A reaches the server through a small TCP proxy
/// (``LedgerLinkCut``) that cuts its link at a chosen moment of its first tag — before the
/// claim, during the write, after the verify, during the record — and keeps it cut until station
/// B, on a direct link, has claimed the row (once A's lease ran out) and done it; then A is let
/// go. psql, not nfctool, says what the ledger holds; the tag files say what the tags hold.
@Suite("Fencing: one manifest row is never on two done tags, even after a long partition", .tags(.endToEnd, .postgres), .serialized,
       .timeLimit(.minutes(6)), PostgreSQLTestServer.tool.trait)
struct BatchFencingTests {
    typealias Line = BatchStationsTests.Line

    /// Station `name` on `ledger` with one simulated stack of `tags` NTAG215 (UIDs 04`prefix`…),
    /// a one-second lease, ending after `idle` seconds without a new tag.
    static func station(_ line: Line, _ name: String, ledger: String, tags: Int, prefix: String, idle: Int = 20, extra: [String] = []) throws -> (Process, URL, URL) {
        let idle = extra.contains("--timeout") ? [] : ["--timeout", String(idle)]
        let stack = line.directory.appendingPathComponent("tags-\(name)").path
        return try Line.startNice(
            ["batch", "--device", "sim:ntag215*\(tags)?poll-wait=0&dir=\(stack)&uid=04\(prefix)0000000001", "--manifest", line.manifest,
             "--ledger", ledger, "--run", "wristbands", "--station", name, "--lease", "1"] + idle + extra,
            environment: ProcessInfo.processInfo.environment, in: line.directory)
    }

    /// One value list from psql (rows joined by `;`).
    static func psql(_ line: Line, _ sql: String) async throws -> String {
        let server = line.server
        return try await runBlocking { try server.psql(sql, database: "line") }.trimmingCharacters(in: .whitespacesAndNewlines)
            .replacingOccurrences(of: "\n", with: ";")
    }

    /// Runs the partition: A cut at `moment` of its first tag, B does the row meanwhile, A let
    /// go. Returns A's exit status and output, and B's.
    static func partition(_ line: Line, at moment: LedgerLinkCut.Moment, tagsA: Int = 2, extraA: [String] = []) async throws -> (a: (Int32, String), b: (Int32, String)) {
        let cut = try await LedgerLinkCut.start(to: line.server.port, at: moment, in: line.directory)
        defer { cut.stop() }
        let a = try station(line, "A", ledger: line.server.uri("line").replacingOccurrences(of: ":\(line.server.port)/", with: ":\(cut.port)/"),
                            tags: tagsA, prefix: "A1", extra: extraA)
        // A is cut off at the moment asked for (the proxy says so); it stays cut off while B works.
        let held = try await cut.waitUntilHeld()
        #expect(held, "the link was never cut (\(moment))")
        let b = try station(line, "B", ledger: line.server.uri("line"), tags: 4, prefix: "B1")
        let bResult = try await BatchStationsTests.finish([b], within: 120)[0]
        cut.letGo()
        let aResult = try await BatchStationsTests.finish([a], within: 60)[0]
        return (aResult, bResult)
    }

    @Test("A cut off after its tag is verified, past its lease: B's tag is the row's one done tag, A's is void; A names it, says what to do, and exits 1; resolve accounts for it", .timeLimit(.minutes(3)))
    func voidAfterVerify() async throws {
        let line = try await Line.make(rows: 1)
        defer { line.remove() }
        let (a, b) = try await Self.partition(line, at: .afterVerify)
        #expect(b.0 == 0, "B: \(b.1.suffix(800))")
        #expect(a.0 == 1, "A: \(a.1.suffix(800))")
        // psql: one done tag for the row (B's: its first tag found no free row), one void (A's, naming B's).
        let winner = try await Self.psql(line, "SELECT uid FROM attempts WHERE status = 'done'")
        #expect(winner.hasPrefix("04B1") && winner.count == 14, "\(winner)")
        #expect(try await Self.psql(line, "SELECT status || ' ' || station || ' ' || uid FROM attempts WHERE row = 1 AND status IN ('done', 'void') ORDER BY status")
            == "done B \(winner);void A 04A10000000001")
        #expect(try await Self.psql(line, "SELECT superseded_station || ' ' || superseded_uid || ' ' || COALESCE(resolution, '-') FROM attempts WHERE status = 'void'")
            == "B \(winner) -")
        #expect(try await Self.psql(line, "SELECT station || ' ' || status FROM run_rows") == "B done")
        // A's output names the tag to discard and what to do.
        #expect(a.1.contains("VOID tag 04A10000000001: row 1 of run 'wristbands' went to station B (tag \(winner))"), "\(a.1.suffix(800))")
        #expect(a.1.contains("discard this tag, or erase it with `nfctool erase`"), "\(a.1.suffix(800))")
        #expect(a.1.contains("1 void tag written here"), "\(a.1.suffix(800))")
        // Both tags hold row 1 (A's is the duplicate the operator must discard).
        let files = try await line.tagFiles()
        #expect((try? files["04A10000000001"]?.get()).map(BatchCoordinator.describe) == Line.expected(1))
        #expect((try? files[winner]?.get()).map(BatchCoordinator.describe) == Line.expected(1))
        // The run is not complete until the void tag is accounted for.
        let nfctool = try Executables.nfctool(), environment = ProcessInfo.processInfo.environment
        let stats = try await runTool(nfctool, ["ledger", "stats", "--ledger", line.server.uri("line"), "--run", "wristbands"], environment: environment, timeout: 30)
        #expect(stats.output.contains("void:         1 (1 not accounted for") && stats.output.contains("complete:     no: 1 void tag"), "\(stats.output)")
        let export = try await runTool(nfctool, ["ledger", "export", "--ledger", line.server.uri("line"), "--run", "wristbands"], environment: environment, timeout: 30)
        #expect(export.output.contains(",void,") && export.output.contains(",A,B,\(winner),"), "\(export.output)")
        let resolve = try await runTool(
            nfctool, ["ledger", "resolve", "--ledger", line.server.uri("line"), "--run", "wristbands", "--uid", "04a10000000001", "--discarded"],
            environment: environment, timeout: 30)
        #expect(resolve.status == 0 && resolve.output.contains("void tag 04A10000000001 (row 1 of run 'wristbands'): recorded as discarded"), "\(resolve.output)")
        #expect(try await Self.psql(line, "SELECT resolution FROM attempts WHERE status = 'void'") == "discarded")
        let again = try await runTool(
            nfctool, ["ledger", "resolve", "--ledger", line.server.uri("line"), "--run", "wristbands", "--uid", "04A10000000001", "--erased"],
            environment: environment, timeout: 30)
        #expect(again.status == 1 && again.output.contains("no void tag 04A10000000001 left to account for"), "\(again.output)")
        let after = try await runTool(nfctool, ["ledger", "stats", "--ledger", line.server.uri("line"), "--run", "wristbands"], environment: environment, timeout: 30)
        #expect(after.output.contains("(all accounted for)") && !after.output.contains("complete:     no"), "\(after.output)")
    }

    @Test("with --void-erase, the void tag still on A's reader is erased: its tag file holds no message, and the ledger has it erased", .timeLimit(.minutes(3)))
    func voidErase() async throws {
        let line = try await Line.make(rows: 1)
        defer { line.remove() }
        let (a, b) = try await Self.partition(line, at: .afterVerify, extraA: ["--void-erase"])
        #expect(b.0 == 0, "B: \(b.1.suffix(800))")
        #expect(a.1.contains("VOID tag 04A10000000001 erased (--void-erase)"), "\(a.1.suffix(800))")
        // Accounted for: A exits 0.
        #expect(a.0 == 0, "A: \(a.1.suffix(800))")
        let files = try await line.tagFiles()
        let message = try? files["04A10000000001"]?.get()
        #expect(message != nil && message?.records.allSatisfy { $0.typeNameFormat == .empty } == true, "\(String(describing: message))")
        #expect(try await line.doneAttempts().map(\.row) == [1])
        #expect(try await Self.psql(line, "SELECT status || ' ' || COALESCE(resolution, '-') FROM attempts WHERE status IN ('done', 'void') ORDER BY status")
            == "done -;void erased")
    }

    @Test("cut off as it records (the tag journalled) past its lease, with --void-erase: when the link is back the journal's tag is recorded void, and the tag, still on A's reader, is erased", .timeLimit(.minutes(3)))
    func journalledVoidErased() async throws {
        let line = try await Line.make(rows: 1)
        defer { line.remove() }
        // One tag on A's reader: it stays there after its work.
        let (a, b) = try await Self.partition(line, at: .dropAtRecord, tagsA: 1, extraA: ["--void-erase", "--timeout", "4"])
        #expect(b.0 == 0, "B: \(b.1.suffix(800))")
        #expect(a.1.contains("[ledger] UNAVAILABLE") && a.1.contains("1 tag written but not recorded"), "\(a.1.suffix(800))")
        #expect(a.1.contains("VOID tag 04A10000000001: row 1 of run 'wristbands' went to station B"), "\(a.1.suffix(800))")
        #expect(a.1.contains("VOID tag 04A10000000001 erased (--void-erase)"), "\(a.1.suffix(800))")
        #expect(a.0 == 0 && a.1.contains("Batch: 0 done"), "A: \(a.1.suffix(800))")
        let files = try await line.tagFiles()
        let message = try? files["04A10000000001"]?.get()
        #expect(message != nil && message?.records.allSatisfy { $0.typeNameFormat == .empty } == true, "\(String(describing: message))")
        #expect(try await Self.psql(line, "SELECT status || ' ' || station || ' ' || COALESCE(resolution, '-') FROM attempts WHERE status IN ('done', 'void') ORDER BY status")
            == "done B -;void A erased")
    }

    @Test("wherever the cut falls (before the claim, during the write, after the verify, during the record), no row is done twice and every done tag holds its row",
          .timeLimit(.minutes(3)), arguments: LedgerLinkCut.Moment.sweep)
    func sweep(moment: LedgerLinkCut.Moment) async throws {
        let line = try await Line.make(rows: 1)
        defer { line.remove() }
        let (a, b) = try await Self.partition(line, at: moment)
        // Exactly one done tag for the row, and it holds the row; the run_rows row agrees.
        let done = try await Self.psql(line, "SELECT count(*) || ' ' || count(DISTINCT row) FROM attempts WHERE status = 'done'")
        #expect(done == "1 1", "\(moment): \(done)\nA: \(a.1.suffix(600))\nB: \(b.1.suffix(600))")
        #expect(try await Self.psql(line, "SELECT count(*) FROM run_rows WHERE status = 'done'") == "1")
        let files = try await line.tagFiles()
        for (uid, row) in try await line.doneAttempts() {
            #expect((try? files[uid]?.get()).map(BatchCoordinator.describe) == Line.expected(row), "\(moment): \(uid)")
        }
        // A tag written at A that is not done is void (and said so), or failed before any write.
        let void = try await Self.psql(line, "SELECT count(*) FROM attempts WHERE status = 'void'")
        if void == "1" { #expect(a.1.contains("VOID tag 04A1") && a.0 == 1, "\(moment): \(a.1.suffix(600))") }
        #expect(b.0 == 0 || b.1.contains("VOID") == false, "\(moment): B \(b.1.suffix(600))")
    }
}

/// A TCP proxy (python3) between a station and the PostgreSQL server that cuts the link at one
/// moment of the station's first tag and keeps it cut until ``letGo()``: the station's next
/// bytes (or the server's answer) are held, so the station waits as it would for a server it
/// cannot reach. It recognizes the moment by the statement the station sends.
struct LedgerLinkCut {
    /// Where the cut falls.
    enum Moment: String, CustomTestStringConvertible, Sendable {
        /// The claim statement is held: nothing claimed yet.
        case beforeClaim
        /// The claim went through; whatever the station sends next (a renewal, the record) is held:
        /// the tag is written while the link is cut.
        case duringWrite
        /// The record statement is held: the tag is written and verified, nothing recorded.
        case afterVerify
        /// The record statement reaches the server; its answer is held.
        case duringRecord
        /// The record statement is not sent: the connection is closed (the station journals the
        /// tag), and new connections wait until let go.
        case dropAtRecord

        /// The moments of the sweep (the drop is a test of its own).
        static let sweep: [Moment] = [.beforeClaim, .duringWrite, .afterVerify, .duringRecord]

        var testDescription: String { rawValue }

        /// The proxy's mode and the statement text it waits for.
        var proxy: (mode: String, pattern: String) {
            switch self {
            case .beforeClaim: ("before", "WITH taken AS")
            case .duringWrite: ("next", "WITH taken AS")
            case .afterVerify: ("before", "INSERT INTO attempts")
            case .duringRecord: ("reply", "INSERT INTO attempts")
            case .dropAtRecord: ("drop", "INSERT INTO attempts")
            }
        }
    }

    static let script = """
        import os, signal, socket, sys, threading
        server_port, mode, pattern, directory = int(sys.argv[1]), sys.argv[2], sys.argv[3].encode(), sys.argv[4]
        released = threading.Event()
        # SIGUSR1 lets go: blocked in every thread, taken by the main thread's sigwait.
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
        lock = threading.Lock()
        state = {"armed": True, "next_up": False, "down": False, "cut": False}
        def publish(name, text):
            with open(os.path.join(directory, name + ".tmp"), "w") as f:
                f.write(text)
            os.rename(os.path.join(directory, name + ".tmp"), os.path.join(directory, name))
        def hold(data):
            publish("held", "held\\n")
            sys.stderr.write("held: %r\\n" % data[:200])
            sys.stderr.flush()
            released.wait()
            sys.stderr.write("released\\n")
            sys.stderr.flush()
        def pump(src, dst, upstream):
            try:
                while True:
                    data = src.recv(65536)
                    if not data:
                        break
                    stop = False
                    with lock:
                        if upstream:
                            if state["next_up"]:
                                state["next_up"], stop = False, True
                            elif state["armed"] and pattern in data:
                                state["armed"] = False
                                if mode == "before":
                                    stop = True
                                elif mode == "next":
                                    state["next_up"] = True
                                elif mode == "drop":
                                    state["cut"] = True
                                    publish("held", "dropped\\n")
                                    break
                                else:
                                    state["down"] = True
                        elif state["down"]:
                            state["down"], stop = False, True
                    if stop:
                        hold(data)
                    dst.sendall(data)
            except OSError:
                pass
            finally:
                for s in (src, dst):
                    try:
                        s.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        def connect(client):
            # After a drop, new connections wait until let go (the station finds the server away).
            if state["cut"]:
                released.wait()
            server = socket.create_connection(("127.0.0.1", server_port))
            threading.Thread(target=pump, args=(client, server, True), daemon=True).start()
            threading.Thread(target=pump, args=(server, client, False), daemon=True).start()
        def serve():
            while True:
                client, _ = listener.accept()
                threading.Thread(target=connect, args=(client,), daemon=True).start()
        threading.Thread(target=serve, daemon=True).start()
        publish("port", str(listener.getsockname()[1]))
        signal.sigwait({signal.SIGUSR1})
        released.set()
        threading.Event().wait()
        """

    let process: Process
    let port: Int
    let directory: URL

    /// Starts the proxy to the server on `serverPort`, cutting at `moment`; waits (deadline 30 s) for its port.
    static func start(to serverPort: Int, at moment: Moment, in parent: URL) async throws -> LedgerLinkCut {
        let directory = parent.appendingPathComponent("cut-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, String(serverPort), moment.proxy.mode, moment.proxy.pattern, directory.path]
        process.standardInput = FileHandle.nullDevice
        let log = directory.appendingPathComponent("proxy.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        let portFile = directory.appendingPathComponent("port")
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if let text = try? String(contentsOf: portFile, encoding: .utf8), let port = Int(text) {
                return LedgerLinkCut(process: process, port: port, directory: directory)
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        kill(process.processIdentifier, SIGKILL)
        await reaped(process)
        throw ProxyDidNotStart()
    }

    /// Waits (deadline 60 s) until the proxy holds the link; false if it never did.
    func waitUntilHeld() async throws -> Bool {
        let marker = directory.appendingPathComponent("held").path
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if FileManager.default.fileExists(atPath: marker) { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    /// The proxy never said its port.
    struct ProxyDidNotStart: Error {}

    /// Lets the held bytes through, and everything after.
    func letGo() { kill(process.processIdentifier, SIGUSR1) }

    /// Stops the proxy without waiting (for a `defer`): SIGKILL, its end waited for on a thread
    /// of its own.
    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        reapInBackground(process)
    }
}
