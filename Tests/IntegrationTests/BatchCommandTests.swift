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
@Suite("nfctool batch end to end", .serialized)
struct BatchCommandTests {
    static func nfctool() throws -> String {
        try #require(Executables.built("nfctool"), "nfctool is not next to the test runner").path
    }

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
        let run = try runTool(
            try Self.nfctool(),
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
        let export = try runTool(try Self.nfctool(), ["ledger", "export", ledger], environment: ProcessInfo.processInfo.environment)
        #expect(export.output.split(separator: "\n").count == 5)
    }

    @Test("bad input: no data, both data kinds, --lock without --yes, a bad manifest column, a missing ledger to resume")
    func badInput() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let manifest = directory.appendingPathComponent("m.csv").path
        try "url,colour\nhttps://ex.io/a,red\n".write(toFile: manifest, atomically: true, encoding: .utf8)
        for (arguments, status, message) in [
            (["batch"], Int32(64), "give the data"),
            (["batch", "--url", "https://ex.io", "--manifest", manifest], 64, "one of the two"),
            (["batch", "--url", "https://ex.io/{uid}", "--lock"], 64, "--yes"),
            (["batch", "--manifest", manifest], 65, "column 'colour' is not a record option"),
            (["batch", "--url", "https://ex.io", "--resume", directory.appendingPathComponent("none.db").path], 64, "no such ledger"),
            (["batch", "--url", "notaurl"], 64, "scheme"),
        ] {
            let run = try runTool(try Self.nfctool(), arguments, environment: ProcessInfo.processInfo.environment, timeout: 20)
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
        let emulator = try EmulatorProcess(["--tag", "ntag215*8:\(tags)", "--hand-out", "deselect", "--delay-model", "datasheet"])
        defer { emulator.stop() }
        let template = "https://ex.io/t/{uid}?n={n:05}"

        // First run: killed once three tags are done.
        let log = directory.appendingPathComponent("first.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let first = Process()
        first.executableURL = URL(fileURLWithPath: try Self.nfctool())
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
        reap(first)
        let afterKill = try Ledger(path: ledgerPath).attempts().filter { $0.status == "done" }.count
        #expect(afterKill >= 3 && afterKill < 8)

        // Resume: the rest of the stack, then no tag for 2 s ends it.
        let second = try runTool(
            try Self.nfctool(), ["batch", "--device", emulator.connectionString, "--url", template, "--resume", ledgerPath, "--timeout", "2"],
            environment: emulator.libnfcEnvironment, timeout: 60)
        #expect(second.status == 0, "\(second.output)")
        emulator.stop()

        let done = try Ledger(path: ledgerPath).attempts().filter { $0.status == "done" }
        #expect(Set(done.map(\.uid)).count == 8)
        let counters = done.compactMap(\.counter)
        #expect(Set(counters).count == counters.count)
        let files = try await Self.tagFiles(tags)
        #expect(files.count == 8)
        for attempt in done {
            let expected = try Self.url("https://ex.io/t/\(attempt.uid)?n=" + String(format: "%05d", attempt.counter ?? 0))
            #expect(try files[attempt.uid]?.get() == expected, "\(attempt.uid)")
        }
        for (uid, content) in files {
            if case .failure(let error) = content { Issue.record("tag \(uid) does not read: \(error)") }
        }
    }
}
