import Foundation
import NDEF
import NFCCore
import NFCTags
import NFCTestSupport
import Provisioning
import Testing
import VirtualTags

/// `nfctool batch` as users run it: the built tool in a subprocess, on simulated stacks and on
/// the PN532 emulator through real libnfc, killed and resumed.
@Suite("nfctool batch end to end", .tags(.endToEnd, .emulator), .serialized, .timeLimit(.minutes(10)))
struct BatchCommandTests {

    /// What every tag file in `directory` holds: UID → message (nil: no message), or a decode
    /// failure as a string.
    static func tagFiles(_ directory: String) async throws -> [String: Result<NDEFMessage, NFCTagError>] {
        var result: [String: Result<NDEFMessage, NFCTagError>] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) where name.hasSuffix(".json") {
            let tag = try TagFile(path: directory + "/" + name).loadTag()
            let reader = SimulatedReader(tags: [tag], emptyFieldWait: .zero)
            let target = try #require(try await reader.poll(for: [.iso14443A], timeout: .zero))
            let uid = Hex.encode(target.identifier, uppercase: true)
            do {
                result[uid] = .success(try await NFCTag.connect(to: target, on: reader).ndef.readNDEF())
            } catch {
                result[uid] = .failure(error)
            }
        }
        return result
    }

    static func url(_ text: String) throws -> NDEFMessage {
        NDEFMessage(records: [try .wellKnownTypeURIPayload(url: text)])
    }

    @Test("a template run on a simulated stack of 4: the summary, the ledger export, every tag file")
    func simulatedStack() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let tags = directory.appendingPathComponent("tags").path
        let ledger = directory.appendingPathComponent("run.db").path
        let run = try await runTool(
            try Executables.nfctool(),
            ["batch", "--device", "sim:ntag215*4?poll-wait=0&dir=\(tags)", "--url", "https://ex.io/t/{uid}?n={n:03}", "--count", "4",
             "--ledger", ledger, "--json"],
            environment: ProcessInfo.processInfo.environment, timeout: 30)
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("\"done\" : 4"), "\(run.output)")
        #expect(run.output.contains("take 0453494D000004 away"))
        let attempts = try Ledger(path: ledger).attempts()
        #expect(attempts.map(\.counter) == [1, 2, 3, 4])
        let files = try await Self.tagFiles(tags)
        for attempt in attempts {
            let expected = try Self.url("https://ex.io/t/\(attempt.uid)?n=" + String(format: "%03d", attempt.counter ?? 0))
            #expect(try files[attempt.uid]?.get() == expected)
        }
        let export = try await runTool(try Executables.nfctool(), ["ledger", "export", ledger], environment: ProcessInfo.processInfo.environment)
        #expect(export.output.split(separator: "\n").count == 5)
    }

    @Test("a run name the ledger lacks is refused by ledger stats and export (exit 64, naming its runs); ledger runs lists them")
    func unknownRunNames() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ledger = directory.appendingPathComponent("run.db").path
        let environment = ProcessInfo.processInfo.environment
        let batch = try await runTool(
            try Executables.nfctool(), ["batch", "--device", "sim:ntag215?poll-wait=0", "--url", "https://ex.io/t/{uid}", "--count", "1", "--ledger", ledger, "--run", "line1"],
            environment: environment, timeout: 30)
        #expect(batch.status == 0, "\(batch.output)")
        for command in [["ledger", "stats"], ["ledger", "export"], ["ledger", "stats", "--json"]] {
            let run = try await runTool(try Executables.nfctool(), command + [ledger, "--run", "line2"], environment: environment, timeout: 30)
            #expect(run.status == 64, "\(command): \(run.output)")
            #expect(run.output.contains("no run named 'line2'") && run.output.contains("its runs: 'line1'"), "\(run.output)")
        }
        let stats = try await runTool(try Executables.nfctool(), ["ledger", "stats", ledger, "--run", "line1"], environment: environment, timeout: 30)
        #expect(stats.status == 0 && stats.output.contains("tags done:    1"), "\(stats.output)")
        let runs = try await runTool(try Executables.nfctool(), ["ledger", "runs", ledger], environment: environment, timeout: 30)
        #expect(runs.status == 0 && runs.output == "line1: 1 sessions, 1 attempts, 1 done, 0 failed, 0 counterfeit\n", "\(runs.output)")
    }

    @Test("bad input: no data, both data kinds, --lock without --yes, a bad manifest column, a missing ledger to resume")
    func badInput() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let manifest = directory.appendingPathComponent("m.csv").path
        try "url,colour\nhttps://ex.io/a,red\n".write(toFile: manifest, atomically: true, encoding: .utf8)
        for (arguments, status, message) in [
            (["batch"], Int32(64), "give the data"),
            (["batch", "--url", "https://ex.io", "--manifest", manifest], 64, "one of the two"),
            (["batch", "--url", "https://ex.io/{uid}", "--lock"], 64, "--yes"),
            (["batch", "--manifest", manifest], 65, "column 'colour' is neither uid nor a record option"),
            (["batch", "--url", "https://ex.io", "--resume", directory.appendingPathComponent("none.db").path], 64, "no such ledger"),
            (["batch", "--url", "notaurl"], 64, "scheme"),
        ] {
            let run = try await runTool(try Executables.nfctool(), arguments, environment: ProcessInfo.processInfo.environment, timeout: 20)
            #expect(run.status == status, "\(arguments): \(run.output)")
            #expect(run.output.contains(message), "\(arguments): \(run.output)")
        }
    }

    @Test("killed with SIGKILL mid-run through libnfc, then resumed: every tag the ledger calls done holds its data, no counter twice, none half-written")
    func killAndResume() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let tags = directory.appendingPathComponent("tags").path
        let ledgerPath = directory.appendingPathComponent("run.db").path
        // A stack long enough that the kill lands mid-run even when this test's look at the log
        // is late on a loaded machine (eight tags, then twenty, were all done before it, in the
        // full suite beside concurrent builds).
        let stack = 40
        let emulator = try await EmulatorProcess.start(["--tag", "ntag215*\(stack):\(tags)", "--hand-out", "deselect", "--delay-model", "datasheet"])
        defer { emulator.stop() }
        let template = "https://ex.io/t/{uid}?n={n:05}"

        // First run: killed once three tags are done.
        let log = directory.appendingPathComponent("first.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let first = Process()
        first.executableURL = URL(fileURLWithPath: try Executables.nfctool())
        first.arguments = ["batch", "--device", emulator.connectionString, "--url", template, "--ledger", ledgerPath]
        first.environment = emulator.libnfcEnvironment
        first.standardError = try FileHandle(forWritingTo: log)
        first.standardOutput = FileHandle.nullDevice
        try first.run()
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if text.components(separatedBy: " done ").count > 3 { break }
            try await Task.sleep(for: .milliseconds(5))
        }
        kill(first.processIdentifier, SIGKILL)
        await reaped(first)
        let afterKill = try Ledger(path: ledgerPath).attempts().filter { $0.status == "done" }.count
        #expect(afterKill >= 3 && afterKill < stack)

        // Resume: the rest of the stack (--count: the tags this process does), its idle timeout
        // only a fallback (a busy machine stretched a 2 s one past the gap between two tags).
        let second = try await runTool(
            try Executables.nfctool(),
            ["batch", "--device", emulator.connectionString, "--url", template, "--resume", ledgerPath, "--count", "\(stack - afterKill)", "--timeout", "30"],
            environment: emulator.libnfcEnvironment, timeout: 60)
        #expect(second.status == 0, "\(second.output)")
        emulator.stop()

        let done = try Ledger(path: ledgerPath).attempts().filter { $0.status == "done" }
        #expect(Set(done.map(\.uid)).count == stack)
        let counters = done.compactMap(\.counter)
        #expect(Set(counters).count == counters.count)
        let files = try await Self.tagFiles(tags)
        #expect(files.count == stack)
        for attempt in done {
            let expected = try Self.url("https://ex.io/t/\(attempt.uid)?n=" + String(format: "%05d", attempt.counter ?? 0))
            #expect(try files[attempt.uid]?.get() == expected, "\(attempt.uid)")
        }
        for (uid, content) in files {
            if case .failure(let error) = content { Issue.record("tag \(uid) does not read: \(error)") }
        }
    }

    /// Starts nfctool with `arguments`, its standard error in a file; returns the process and the
    /// file.
    static func start(_ arguments: [String], environment: [String: String], in directory: URL) throws -> (Process, URL, URL) {
        let errors = directory.appendingPathComponent("stderr-\(UUID().uuidString).log")
        let output = directory.appendingPathComponent("stdout-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Executables.nfctool())
        process.arguments = arguments
        process.environment = environment
        process.standardError = try FileHandle(forWritingTo: errors)
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return (process, errors, output)
    }

    /// Waits until `file` holds more than `count` occurrences of `text`, or 30 s.
    static func waitFor(_ text: String, count: Int, in file: URL) async throws {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if ((try? String(contentsOf: file, encoding: .utf8)) ?? "").components(separatedBy: text).count > count { return }
            try await Task.sleep(for: .milliseconds(5))
        }
        Issue.record("'\(text)' did not appear \(count) times in \(file.lastPathComponent)")
    }

    @Test(
        "Ctrl-C (SIGINT), SIGTERM, SIGHUP: the tag in progress is finished and recorded, the summary printed, exit 128 + the signal; every tag file written is in the ledger",
        arguments: [SIGINT, SIGTERM, SIGHUP])
    func interrupted(signal: Int32) async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ledgerPath = directory.appendingPathComponent("run.db").path
        let tags = directory.appendingPathComponent("tags").path
        let (process, errors, output) = try Self.start(
            ["batch", "--device", "sim:ntag215*1000?poll-wait=0&dir=\(tags)", "--url", "https://ex.io/{uid}/{n}", "--ledger", ledgerPath, "--json"],
            environment: ProcessInfo.processInfo.environment, in: directory)
        try await Self.waitFor(" done ", count: 2, in: errors)
        kill(process.processIdentifier, signal)
        let deadline = Date().addingTimeInterval(20)
        while process.isRunning && Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(!process.isRunning, "nfctool batch did not stop after signal \(signal)")
        await reaped(process)
        let log = try String(contentsOf: errors, encoding: .utf8)
        #expect(process.terminationReason == .exit && process.terminationStatus == 128 + signal, "\(process.terminationStatus): \(log.suffix(400))")
        #expect(log.contains("stopped the batch before it ended"), "\(log.suffix(400))")
        let summary = try String(contentsOf: output, encoding: .utf8)
        #expect(summary.contains("\"stopReason\" : \"interrupted"), "\(summary)")
        #expect(summary.contains("\"stop\" : \"interrupted\""), "\(summary)")
        let attempts = try Ledger(path: ledgerPath).attempts()
        let allDone = attempts.allSatisfy { $0.status == "done" && $0.verified }
        #expect(allDone)
        #expect(summary.contains("\"done\" : \(attempts.count)"), "\(summary) vs \(attempts.count)")
        #expect(attempts.count < 1000)
        // Read from the other side: every tag that holds a message has its done row, and that row's message.
        var written = 0
        for (uid, content) in try await Self.tagFiles(tags) {
            guard case .success(let message) = content, !message.isEmpty else { continue }
            written += 1
            let attempt = attempts.first { $0.uid == uid }
            #expect(attempt != nil, "tag \(uid) was written but the ledger has no row for it")
            if let attempt { #expect(message == (try Self.url("https://ex.io/\(uid)/\(attempt.counter ?? -1)"))) }
        }
        #expect(written == attempts.count)
    }

    @Test("--event-log /dev/full: the run stops after the tags in progress, names the file and exits 1; the ledger holds what the summary says")
    func eventLogFull() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ledgerPath = directory.appendingPathComponent("run.db").path
        let tags = directory.appendingPathComponent("tags").path
        let run = try await runTool(
            try Executables.nfctool(),
            ["batch", "--device", "sim:ntag215*4?poll-wait=0&dir=\(tags)", "--url", "https://ex.io/{uid}/{n}", "--count", "4", "--ledger", ledgerPath,
             "--json", "--event-log", "/dev/full"],
            environment: ProcessInfo.processInfo.environment, timeout: 60)
        #expect(run.status == 1, "\(run.output)")
        #expect(run.output.contains("--event-log /dev/full"), "\(run.output)")
        #expect(!run.output.contains("--events"), "\(run.output)")
        #expect(run.standardOutput.contains("\"stop\" : \"eventLogFailed\""), "\(run.standardOutput)")
        let attempts = try Ledger(path: ledgerPath).attempts()
        #expect(attempts.allSatisfy { $0.status == "done" && $0.verified })
        #expect(run.standardOutput.contains("\"done\" : \(attempts.count)"), "\(run.standardOutput) vs \(attempts.count)")
        #expect(run.standardOutput.contains("\"failed\" : 0"), "\(run.standardOutput)")
        let written = try await Self.tagFiles(tags).values.filter { (try? $0.get().isEmpty) == false }.count
        #expect(written == attempts.count && attempts.count < 4)
    }

    @Test("from --start 9223372036854775806 without --count: one tag done, the run stops 'counter used up', exit 0, nothing failed; the ledger and the tag files agree")
    func counterEnd() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ledgerPath = directory.appendingPathComponent("run.db").path
        let tags = directory.appendingPathComponent("tags").path
        let run = try await runTool(
            try Executables.nfctool(),
            ["batch", "--device", "sim:ntag215*3?poll-wait=0&dir=\(tags)", "--url", "https://ex.io/{n}", "--start", "9223372036854775806",
             "--ledger", ledgerPath, "--json"],
            environment: ProcessInfo.processInfo.environment, timeout: 60)
        #expect(run.status == 0, "\(run.output)")
        #expect(run.standardOutput.contains("\"stop\" : \"counterUsedUp\""), "\(run.standardOutput)")
        #expect(run.standardOutput.contains("used up"), "\(run.standardOutput)")
        #expect(run.standardOutput.contains("\"failed\" : 0") && run.standardOutput.contains("\"done\" : 1"), "\(run.standardOutput)")
        let attempts = try Ledger(path: ledgerPath).attempts()
        #expect(attempts.map(\.counter) == [9_223_372_036_854_775_806] && attempts.allSatisfy { $0.status == "done" })
        let written = try await Self.tagFiles(tags).compactMapValues { try? $0.get() }.filter { !$0.value.isEmpty }
        #expect(written.count == 1)
        #expect(written.values.first == (try Self.url("https://ex.io/9223372036854775806")))
    }

    @Test("two readers at once: every tag once, every counter once")
    func twoReaders() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ledgerPath = directory.appendingPathComponent("run.db").path
        let run = try await runTool(
            try Executables.nfctool(),
            ["batch", "-d", "sim:ntag215*6?poll-wait=0&uid=04A10000000001", "-d", "sim:ntag213*6?poll-wait=0&uid=04B10000000001",
             "--url", "https://ex.io/{n}", "--ledger", ledgerPath, "--timeout", "0.5"],
            environment: ProcessInfo.processInfo.environment, timeout: 30)
        #expect(run.status == 0, "\(run.output)")
        let attempts = try Ledger(path: ledgerPath).attempts()
        #expect(attempts.count == 12)
        #expect(Set(attempts.map(\.uid)).count == 12)
        #expect(Set(attempts.compactMap(\.counter)) == Set(1...12))
    }

    @Test("the reader vanishes mid-run (emulator killed): the run ends, says so, and the ledger holds only verified tags")
    func readerVanishes() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ledgerPath = directory.appendingPathComponent("run.db").path
        let emulator = try await EmulatorProcess.start(["--tag", "ntag215*50", "--hand-out", "deselect", "--delay-model", "datasheet"])
        let (process, errors, _) = try Self.start(
            ["batch", "--device", emulator.connectionString, "--url", "https://ex.io/{uid}/{n}", "--ledger", ledgerPath],
            environment: emulator.libnfcEnvironment, in: directory)
        try await Self.waitFor(" done ", count: 2, in: errors)
        kill(emulator.process.processIdentifier, SIGKILL)
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning && Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(!process.isRunning, "nfctool batch did not end after its reader vanished")
        if process.isRunning { process.terminate() }
        await reaped(process)
        emulator.stop()
        let log = try String(contentsOf: errors, encoding: .utf8)
        #expect(log.contains("reader failed"), "\(log)")
        let attempts = try Ledger(path: ledgerPath).attempts()
        let done = attempts.filter { $0.status == "done" }
        #expect(done.allSatisfy { $0.verified })
        #expect(attempts.filter { $0.status == "done" }.count >= 2)
    }

    @Test(
        "one tag left on the reader, --count 2 --timeout 3: written once, never skipped, ends after its idle timeout with five lines",
        arguments: ["sim:ntag215", "sim:ntag215?presence=field", "sim:ntag215?presence=none"])
    func tagLeftOnReader(device: String) async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ledger = directory.appendingPathComponent("l.db").path
        // The command from the issue, word for word but for the ledger's folder; the process is
        // waited for with a deadline far beyond its idle timeout.
        let run = try await runTool(
            try Executables.nfctool(), ["batch", "--device", device, "--url", "https://ex.io/{n}", "--count", "2", "--ledger", ledger, "--timeout", "3"],
            environment: ProcessInfo.processInfo.environment, timeout: 90)
        #expect(!run.timedOut, "nfctool batch did not end: \(run.output.prefix(600))")
        #expect(run.status == 0, "\(run.output.prefix(600))")
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 5, "\(lines.prefix(12))")
        #expect(lines.filter { $0.contains(" skipped 04") }.isEmpty)
        #expect(lines.filter { $0.contains("done 0453494D000001") }.count == 1)
        #expect(lines.filter { $0.contains("waiting for a tag") }.count == 2)
        #expect(lines.contains { $0.hasPrefix("Batch: 1 done, 0 failed, 0 skipped in ") && $0.contains("(no new tag for 3 s)") }, "\(lines)")
        let attempts = try Ledger(path: ledger).attempts()
        #expect(attempts.map(\.uid) == ["0453494D000001"] && attempts.map(\.counter) == [1])
    }

    @Test("through libnfc and the emulator: a tag left on the reader is written once and polled rarely; taken away and brought back it is refused once; the run ends after its idle timeout")
    func tagLeftOnReaderThroughLibNFC() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let tagFile = directory.appendingPathComponent("tags/0453494d000001.json").path
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("tags"), withIntermediateDirectories: true)
        let emulator = try await EmulatorProcess.start(["--tag", "ntag215:\(tagFile)"])
        defer { emulator.stop() }
        let ledgerPath = directory.appendingPathComponent("l.db").path
        let (process, errors, output) = try Self.start(
            ["batch", "--device", emulator.connectionString, "--url", "https://ex.io/{n}", "--count", "2", "--ledger", ledgerPath, "--timeout", "3"],
            environment: emulator.libnfcEnvironment, in: directory)
        try await Self.waitFor("take 0453494D000001 away", count: 0, in: errors)
        // The tag stays for a while: count the polls (InListPassiveTarget) meanwhile.
        let polls = { emulator.trace.filter { $0.contains("> D4 4A") }.count }
        let before = polls()
        let clock = ContinuousClock()
        let started = clock.now
        try await Task.sleep(for: .seconds(1))
        let whileStaying = polls() - before
        let stayed = clock.now - started
        #expect(whileStaying <= Int(stayed / .milliseconds(100)) + 3, "\(whileStaying) polls in \(stayed)")
        // Taken away until the batch has polled an empty field, then brought back.
        _ = try await emulator.control("remove")
        let deadline = Date().addingTimeInterval(30)
        let removedAt = polls()
        let removed = clock.now
        // Empty polls seen, and the debounce time (0.3 s) well passed: a wait that can only be
        // longer on a loaded machine, never too short.
        while polls() < removedAt + 4 || clock.now - removed < .seconds(1), Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        _ = try await emulator.control("present")
        // The run ends by itself, after its idle timeout.
        while process.isRunning, Date() < deadline.addingTimeInterval(30) { try await Task.sleep(for: .milliseconds(20)) }
        #expect(!process.isRunning, "nfctool batch did not end")
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        await reaped(process)
        emulator.stop()
        #expect(process.terminationStatus == 0)
        let log = try String(contentsOf: errors, encoding: .utf8).split(separator: "\n")
        #expect(log.count == 7, "\(log.prefix(12))")
        #expect(log.filter { $0.contains("skipped 0453494D000001: already provisioned") }.count == 1, "\(log.prefix(12))")
        let summary = try String(contentsOf: output, encoding: .utf8)
        #expect(summary.hasPrefix("Batch: 1 done, 0 failed, 1 skipped in ") && summary.contains("(no new tag for 3 s)"), "\(summary)")
        // The tag file, read afresh, holds what the ledger says.
        let attempts = try Ledger(path: ledgerPath).attempts()
        #expect(attempts.map(\.counter) == [1])
        let files = try await Self.tagFiles(directory.appendingPathComponent("tags").path)
        #expect(try files["0453494D000001"]?.get() == (try Self.url("https://ex.io/1")))
    }

    @Test("four nfctool batch processes, each with its own simulated stack, on one SQLite ledger: none fails with 'locked', no counter twice, every tag file holds what the ledger says")
    func fourProcessesOneLedger() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ledgerPath = directory.appendingPathComponent("shared.db").path
        let perProcess = 25
        let letters = ["A", "B", "C", "D"]
        // All four start at once on a ledger none has created yet.
        var started: [(Process, URL, URL)] = []
        for letter in letters {
            let tags = directory.appendingPathComponent("tags\(letter)").path
            started.append(try Self.start(
                ["batch", "--device", "sim:ntag215*\(perProcess)?poll-wait=0&dir=\(tags)&uid=04\(letter)10000000001",
                 "--url", "https://ex.io/t/{uid}?n={n:04}", "--ledger", ledgerPath, "--count", "\(perProcess)", "--timeout", "5"],
                environment: ProcessInfo.processInfo.environment, in: directory))
        }
        let deadline = Date().addingTimeInterval(120)
        for (process, _, _) in started {
            while process.isRunning, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        }
        for (index, (process, errors, output)) in started.enumerated() {
            #expect(!process.isRunning, "process \(letters[index]) did not end")
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            await reaped(process)
            let log = (try String(contentsOf: errors, encoding: .utf8)) + (try String(contentsOf: output, encoding: .utf8))
            #expect(process.terminationStatus == 0, "\(letters[index]): \(log.suffix(400))")
            #expect(!log.contains("locked"), "\(letters[index]): \(log.suffix(400))")
            #expect(log.contains("Batch: \(perProcess) done, 0 failed"), "\(letters[index]): \(log.suffix(400))")
        }
        // The ledger, read afresh: every tag once, every counter once.
        let done = try Ledger(path: ledgerPath).attempts().filter { $0.status == "done" }
        #expect(done.count == letters.count * perProcess)
        #expect(Set(done.map(\.uid)).count == done.count)
        let counters = done.compactMap(\.counter)
        #expect(Set(counters) == Set(1...(letters.count * perProcess)))
        // Every tag file holds what the ledger says it got.
        var files: [String: Result<NDEFMessage, NFCTagError>] = [:]
        for letter in letters {
            files.merge(try await Self.tagFiles(directory.appendingPathComponent("tags\(letter)").path)) { a, _ in a }
        }
        #expect(files.count == done.count)
        for attempt in done {
            let expected = try Self.url("https://ex.io/t/\(attempt.uid)?n=" + String(format: "%04d", attempt.counter ?? 0))
            #expect(try files[attempt.uid]?.get() == expected, "\(attempt.uid)")
        }
    }
}
