import Foundation
import NFCTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The built `nfctool watch` in a subprocess, running until SIGTERM: against simulated stacks
/// and tag files, and through real libnfc against `pn532-emulator` (tags taken away and brought
/// back, the emulator killed and started again on the same link).
@Suite("nfctool watch end to end", .tags(.endToEnd, .emulator), .serialized, .timeLimit(.minutes(10)))
struct WatchCommandTests {
    static let url = "D1010C55026578616D706C652E636F6D"  // https://www.example.com

    @Test("a simulated stack arrives and leaves tag by tag; SIGTERM ends the watch with status 0")
    func simulatedStack() async throws {
        let watch = try WatchProcess(["--device", "sim:ntag215*3?poll-wait=20&ndef=\(Self.url)", "--json", "--events", "arrive,leave"])
        #expect(await watch.waitForLines(6))
        let status = await watch.terminate()
        #expect(status == 0, "\(watch.standardError)")
        let events = watch.objects.map { "\($0["event"] as? String ?? "?") \($0["uid"] as? String ?? "?")" }
        #expect(events == [
            "arrived 0453494D000001", "left 0453494D000001", "arrived 0453494D000002", "left 0453494D000002",
            "arrived 0453494D000003", "left 0453494D000003",
        ])
        let first = try #require(watch.objects.first)
        #expect(first["model"] as? String == "NTAG215")
        #expect(first["type"] as? String == "Type 2")
        let records = try #require(first["records"] as? [[String: Any]])
        #expect(records.first?["uri"] as? String == "https://www.example.com")
    }

    @Test("SIGINT ends the watch with status 0, a handler's queue dropped; a closed standard output ends it as for any tool")
    func interruptAndClosedOutput() async throws {
        // 50 tags, each handler 1 s: running the queue out would take 50 s; dropping it ends the
        // watch after the running handler at most. 20 s tells the two apart on a loaded machine.
        let watch = try WatchProcess(["--device", "sim:ntag215*50?poll-wait=20", "--exec", "sleep 1"])
        #expect(await watch.waitForLines(3))
        let started = Date()
        #expect(await watch.terminate(SIGINT, within: 30) == 0, "\(watch.standardError)")
        #expect(Date().timeIntervalSince(started) < 20)
        #expect(!watch.standardError.contains("handler"))

        let piped = try await runTool("/bin/sh", ["-c", "'\(try Executables.nfctool())' watch --device 'sim:ntag215*100000?poll-wait=0' | head -n 1"],
                                environment: [:], timeout: 20)
        #expect(!piped.timedOut)
        #expect(piped.output.hasPrefix("arrived 0453494D000001 NTAG215"))
    }

    @Test("a reader that closes the pipe after one line ends the watch quietly with status 0, SIGPIPE ignored or not")
    func readerClosesThePipe() async throws {
        // The status of watch itself, not of head: the group reports it on standard error.
        let pipeline = #"{ "$NFCTOOL" watch --device 'sim:ntag215*100000?poll-wait=0'; echo "watch-status $?" >&2; } | head -n 1"#
        var environment = ProcessInfo.processInfo.environment
        environment["NFCTOOL"] = try Executables.nfctool()
        // This test process ignores SIGPIPE, and so does the shell it starts; env puts the
        // default action back for the second run.
        for command in [["/bin/sh", "-c", pipeline], ["/usr/bin/env", "--default-signal=PIPE", "/bin/sh", "-c", pipeline]] {
            let run = try await runTool(command[0], Array(command.dropFirst()), environment: environment, timeout: 30)
            #expect(!run.timedOut)
            #expect(run.output.hasPrefix("arrived 0453494D000001 NTAG215"), "\(run.output)")
            #expect(run.output.contains("watch-status 0"), "\(command): \(run.output)")
            #expect(!run.output.contains("Error"), "\(run.output)")
        }
    }

    @Test("a tag file whose NDEF TLV is broken is reported unreadable, in JSON and for people; the watch goes on")
    func malformedTagFile() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("broken.json").path
        // A fresh tag file, then an NDEF TLV announcing 4095 bytes on a 496-byte tag.
        let made = try await runTool(try Executables.nfctool(), ["scan", "--device", "sim:ntag215?file=\(file)"], environment: [:])
        #expect(made.status == 0, "\(made.output)")
        var state = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any])
        let memory = try #require(state["memory"] as? String)
        state["memory"] = String(memory.prefix(32)) + "03ff0fff" + String(memory.dropFirst(40))
        try JSONSerialization.data(withJSONObject: state).write(to: URL(fileURLWithPath: file))

        let json = try await runTool(try Executables.nfctool(), ["watch", "--device", "sim:ntag215?file=\(file)&poll-wait=20", "--json", "--timeout", "1"], environment: [:])
        #expect(json.status == 0, "\(json.output)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        #expect(object["event"] as? String == "arrived")
        #expect(object["errorCode"] as? String == "malformedTag")
        #expect(object["records"] == nil)

        let human = try await runTool(try Executables.nfctool(), ["watch", "--device", "sim:ntag215?file=\(file)&poll-wait=20", "--timeout", "1"], environment: [:])
        #expect(human.status == 0)
        #expect(human.output.hasPrefix("arrived 0453494D000001 NTAG215 (Type 2): unreadable: "))
        #expect(human.output.split(separator: "\n").allSatisfy { $0.count <= 80 })
    }

    @Test("a handler that fails and one that hangs are reported and counted; the second is killed at --handler-timeout")
    func failingAndHangingHandlers() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let handler = """
            cat > '\(directory.path)'/"$NFC_UID.json"; echo "$NFC_TYPE|$NFC_MODEL|$NFC_URL" > '\(directory.path)'/"$NFC_UID.env"
            if [ "$NFC_UID" = 0453494D000001 ]; then exit 3; fi
            echo $$ > '\(directory.path)'/hanging.pid; sleep 30; touch '\(directory.path)'/survived
            """
        let run = try await runTool(
            try Executables.nfctool(),
            ["watch", "--device", "sim:ntag215*2?poll-wait=20&ndef=\(Self.url)", "--json", "--exec", handler,
             "--handler-timeout", "1", "--timeout", "2.5"],
            environment: ["PATH": "/usr/bin:/bin"], timeout: 20)
        // Not waited for: the hanging handler sleeps 30 s, past runTool's 20 s limit.
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("nfctool watch: handler for 0453494D000001 failed with exit status 3"))
        #expect(run.output.contains("nfctool watch: handler for 0453494D000002 was killed after 1 s"))
        #expect(run.output.contains("nfctool watch: 2 handlers failed"))
        let stdin = try Data(contentsOf: directory.appendingPathComponent("0453494D000001.json"))
        let object = try #require(try JSONSerialization.jsonObject(with: stdin) as? [String: Any])
        #expect(object["uid"] as? String == "0453494D000001")
        #expect((object["records"] as? [[String: Any]])?.first?["uri"] as? String == "https://www.example.com")
        let environment = try String(contentsOf: directory.appendingPathComponent("0453494D000002.env"), encoding: .utf8)
        #expect(environment == "Type 2|NTAG215|https://www.example.com\n")
        // Killed with its process group before nfctool ended: the handler's shell is gone.
        let pidText = try String(contentsOf: directory.appendingPathComponent("hanging.pid"), encoding: .utf8)
        let pid = try #require(pid_t(pidText.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(kill(pid, 0) == -1 && errno == ESRCH, "the hanging handler \(pid) outlived nfctool watch")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("survived").path))
    }

    @Test("bad --events and --debounce values are usage errors")
    func usage() async throws {
        let events = try await runTool(try Executables.nfctool(), ["watch", "--events", "arrive,depart"], environment: [:])
        #expect(events.status == 64)
        #expect(events.output.contains("--events takes arrive, leave or arrive,leave, not 'depart'"))
        let debounce = try await runTool(try Executables.nfctool(), ["watch", "--debounce", "-5"], environment: [:])
        #expect(debounce.status == 64)
        let reader = try await runTool(try Executables.nfctool(), ["watch", "--device", "pn532_uart:/dev/nfckit-none"], environment: [:])
        #expect(reader.status == 3)
    }

    @Test(
        "a tag left on the reader is reported once until --timeout, whatever the reader says of its presence",
        arguments: ["sim:ntag215", "sim:ntag215?presence=field", "sim:ntag215?presence=none"])
    func tagLeftOnReader(device: String) async throws {
        let run = try await runTool(
            try Executables.nfctool(), ["watch", "--device", device, "--events", "arrive,leave", "--timeout", "2"],
            environment: ProcessInfo.processInfo.environment, timeout: 60)
        #expect(!run.timedOut && run.status == 0, "\(run.output.prefix(600))")
        #expect(run.output.split(separator: "\n") == ["arrived 0453494D000001 NTAG215 (Type 2): empty"], "\(run.output.prefix(600))")
    }

    @Test("through libnfc: a tag left on the emulator is reported once until --timeout and polled rarely")
    func emulatorTagLeftOnReader() async throws {
        let emulator = try await EmulatorProcess.start(["--tag", "ntag215"])
        defer { emulator.stop() }
        let run = try await runTool(
            try Executables.nfctool(), ["watch", "--device", emulator.connectionString, "--events", "arrive,leave", "--timeout", "2"],
            environment: emulator.libnfcEnvironment, timeout: 60)
        #expect(!run.timedOut && run.status == 0, "\(run.output.prefix(600))")
        #expect(run.output.split(separator: "\n") == ["arrived 0453494D000001 NTAG215 (Type 2): empty"], "\(run.output.prefix(600))")
        // Found once, then checked for presence: a handful of InListPassiveTarget, not a poll loop.
        let polls = emulator.trace.filter { $0.contains("> D4 4A") }.count
        #expect(polls <= 10, "\(polls) polls")
    }

    /// Waits (a 30 s fallback) until the watch sends the emulator a command after the trace so
    /// far: having reported what it printed, it is back to checking the field. No settling time.
    static func waitForNextCommand(to emulator: EmulatorProcess) async -> Bool {
        let mark = emulator.trace.filter { $0.contains(" > ") }.count
        return await eventually(within: .seconds(30)) { emulator.trace.filter { $0.contains(" > ") }.count > mark }
    }

    @Test("through libnfc: a tag taken away and brought back, then the next of the stack, each reported once")
    func emulatorRemovePresentNext() async throws {
        let emulator = try await EmulatorProcess.start(["--tag", "ntag215*2", "--uid", "04A1000000000A"])
        defer { emulator.stop() }
        let watch = try WatchProcess(["--device", emulator.connectionString, "--json", "--events", "arrive,leave"],
                                     environment: emulator.libnfcEnvironment)
        #expect(await watch.waitForLines(1))
        #expect(await Self.waitForNextCommand(to: emulator))
        #expect(try await emulator.control("remove").hasPrefix("ok"))
        #expect(await watch.waitForLines(2))
        #expect(try await emulator.control("present").hasPrefix("ok"))
        #expect(await watch.waitForLines(3))
        #expect(await Self.waitForNextCommand(to: emulator))
        #expect(try await emulator.control("next").hasPrefix("ok"))
        #expect(await watch.waitForLines(5))
        #expect(await Self.waitForNextCommand(to: emulator))
        #expect(await watch.terminate() == 0, "\(watch.standardError)")
        let events = watch.objects.map { "\($0["event"] as? String ?? "?") \($0["uid"] as? String ?? "?")" }
        #expect(events == [
            "arrived 04A1000000000A", "left 04A1000000000A", "arrived 04A1000000000A", "left 04A1000000000A",
            "arrived 04A1000000000B",
        ])
        #expect(watch.objects.first?["model"] as? String == "NTAG215")
    }

    @Test("through libnfc: a stack handed out on deselect, tags kept in files, arrives and leaves tag by tag with their messages")
    func emulatorStackHandedOut() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Three tags written first through the simulator's files, then handed to the emulator.
        let written = try await runTool(
            try Executables.nfctool(),
            ["batch", "--device", "sim:ntag215*3?dir=\(directory.path)", "--url", "https://example.com/{n}", "--count", "3", "--ledger", directory.appendingPathComponent("ledger.db").path],
            environment: [:], timeout: 30)
        #expect(written.status == 0, "\(written.output)")
        let emulator = try await EmulatorProcess.start(["--tag", "ntag215*3:\(directory.path)", "--hand-out", "deselect"])
        defer { emulator.stop() }
        let watch = try WatchProcess(["--device", emulator.connectionString, "--json", "--events", "arrive,leave"],
                                     environment: emulator.libnfcEnvironment)
        #expect(await watch.waitForLines(6))
        #expect(await watch.terminate() == 0, "\(watch.standardError)")
        let events = watch.objects.map { "\($0["event"] as? String ?? "?") \($0["uid"] as? String ?? "?")" }
        #expect(events == [
            "arrived 0453494D000001", "left 0453494D000001", "arrived 0453494D000002", "left 0453494D000002",
            "arrived 0453494D000003", "left 0453494D000003",
        ])
        let urls = watch.objects.compactMap { ($0["records"] as? [[String: Any]])?.first?["uri"] as? String }
        #expect(urls.count == 3)
        #expect(Set(urls).count == 3)
    }

    @Test("through libnfc: the emulator killed and started again on the same link; watch reconnects and reports the next tag")
    func emulatorRestarted() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let link = directory.appendingPathComponent("pn532").path
        let first = try await EmulatorProcess.start(["--tag", "ntag213", "--uid", "04B10000000001", "--link", link])
        let watch = try WatchProcess(["--device", "pn532_uart:\(link)", "--json"], environment: first.libnfcEnvironment)
        #expect(await watch.waitForLines(1))
        kill(first.process.processIdentifier, SIGKILL)
        first.stop()
        #expect(await watch.waitForError(containing: "reader lost"))
        let second = try await EmulatorProcess.start(["--tag", "ntag215", "--uid", "04B20000000001", "--link", link])
        defer { second.stop() }
        #expect(await watch.waitForLines(2, within: 20))
        #expect(await watch.terminate() == 0)
        #expect(watch.objects.map { $0["uid"] as? String } == ["04B10000000001", "04B20000000001"])
        #expect(watch.standardError.contains("nfctool watch: reader pn532_uart:\(link) is back"))
    }

}

/// `nfctool watch` running in the background, its output in files read as it grows.
final class WatchProcess {
    let process = Process()
    private let outputURL: URL
    private let errorURL: URL
    private var status: Int32?

    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        let directory = FileManager.default.temporaryDirectory
        outputURL = directory.appendingPathComponent("watch-out-\(UUID().uuidString)")
        errorURL = directory.appendingPathComponent("watch-err-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: try Executables.nfctool())
        process.arguments = ["watch"] + arguments
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: outputURL)
        process.standardError = try FileHandle(forWritingTo: errorURL)
        try process.run()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: outputURL)
        try? FileManager.default.removeItem(at: errorURL)
    }

    var standardOutput: String { (try? String(contentsOf: outputURL, encoding: .utf8)) ?? "" }
    var standardError: String { (try? String(contentsOf: errorURL, encoding: .utf8)) ?? "" }
    var lines: [String] { standardOutput.split(separator: "\n").map(String.init) }
    var objects: [[String: Any]] {
        lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// Waits until standard output has `count` lines.
    func waitForLines(_ count: Int, within seconds: Double = 30) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if lines.count >= count { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return lines.count >= count
    }

    /// Waits until standard error contains `text`.
    func waitForError(containing text: String, within seconds: Double = 30) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if standardError.contains(text) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return standardError.contains(text)
    }

    /// Sends `signal` (SIGTERM) and waits (`seconds`, then SIGKILL and up to 10 s more) for the
    /// exit status, sleeping rather than blocking between looks; -1 when it never came.
    func terminate(_ signal: Int32 = SIGTERM, within seconds: Double = 20) async -> Int32 {
        if let status { return status }
        kill(process.processIdentifier, signal)
        if let value = await exitStatus(within: seconds) { return value }
        kill(process.processIdentifier, SIGKILL)
        return await exitStatus(within: 10) ?? -1
    }

    /// The exit status once the process has exited, looked for every 10 ms for `seconds`.
    private func exitStatus(within seconds: Double) async -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let value = exitStatus() { return value }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return exitStatus()
    }

    /// The exit status once the process has exited (reaped here or by Foundation).
    private func exitStatus() -> Int32? {
        var raw: Int32 = 0
        let reaped = waitpid(process.processIdentifier, &raw, WNOHANG)
        if reaped == process.processIdentifier {
            status = (raw & 0x7F) == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F)
        } else if reaped == -1, !process.isRunning {
            status = process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus
        }
        return status
    }

    /// Ends the process without waiting, for clean-up (`deinit`): SIGTERM, its end waited for
    /// (SIGKILL should it linger) on a thread of its own.
    func stop() {
        guard status == nil else { return }
        if process.isRunning { process.terminate() }
        reapInBackground(process)
    }
}
