import Foundation
import NFCTestSupport
import Testing

/// Issue 29's judgement of traces, with the built nfctool in fresh processes: a trace recorded
/// through real libnfc and the PN532 emulator, replayed with the emulator gone, gives the same
/// standard output byte for byte; a changed command makes the replay diverge with the exchange
/// named; a protect trace does not hold the password's bytes.
@Suite("traces recorded through libnfc replay without the reader", .tags(.endToEnd, .emulator), .serialized, .timeLimit(.minutes(3)))
struct TraceReplayEndToEndTests {
    @Test("write, read, info and dump recorded through libnfc replay byte for byte with the emulator gone; a changed command diverges, named")
    func recordedThroughLibNFCReplays() async throws {
        let directory = try temporaryDirectory()
        let tagFile = directory.appendingPathComponent("tag.json").path
        let commands: [(String, [String])] = [
            ("write", ["write", "--url", "https://example.com/replayed"]),
            ("read", ["read"]),
            ("read-json", ["read", "--json"]),
            ("info", ["info"]),
            ("dump", ["dump"]),
        ]
        var recorded: [String: [UInt8]] = [:]
        do {
            let emulator = try await EmulatorProcess.start(["--tag", "ntag215:\(tagFile)"])
            defer { emulator.stop() }
            for (name, arguments) in commands {
                let trace = directory.appendingPathComponent("\(name).jsonl").path
                let run = try await runBuiltNFCTool(arguments + ["--device", emulator.connectionString, "--trace", trace])
                #expect(run.status == 0, "\(name): \(run.standardError)")
                recorded[name] = Array(run.standardOutput.utf8)
            }
        }
        for (name, arguments) in commands {
            let trace = directory.appendingPathComponent("\(name).jsonl").path
            let header = try #require(try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").first)
            #expect(header.contains("\"libnfc\":\"1."), "\(header)")
            // The emulator answers GetFirmwareVersion as a PN532 v1.6 does.
            #expect(header.contains("\"firmware\":\"PN532 v1.6\""), "\(header)")
            let run = try await runBuiltNFCTool(arguments + ["--device", "replay:" + trace])
            #expect(run.status == 0, "\(name): \(run.standardError)")
            #expect(Array(run.standardOutput.utf8) == recorded[name], "\(name) replayed differently")
        }

        // The read's first FAST_READ changed: the replay stops there, naming the exchange.
        let read = directory.appendingPathComponent("read.jsonl").path
        var lines = try String(contentsOfFile: read, encoding: .utf8).split(separator: "\n").map(String.init)
        let index = try #require(lines.firstIndex { $0.contains("\"command\":\"3A000F\"") })
        lines[index] = lines[index].replacingOccurrences(of: "\"command\":\"3A000F\"", with: "\"command\":\"3A0011\"")
        let changed = directory.appendingPathComponent("changed.jsonl").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: changed, atomically: true, encoding: .utf8)
        let diverged = try await runBuiltNFCTool(["read", "--device", "replay:" + changed])
        #expect(diverged.status == 1)
        #expect(diverged.standardError == "Error: replay diverged at exchange \(index): sent 3A 00 0F, trace has 3A 00 11\n")
        let json = try await runBuiltNFCTool(["read", "--json", "--device", "replay:" + changed])
        #expect(json.status == 1)
        #expect(json.standardOutput.contains("\"message\":\"replay diverged at exchange \(index): sent 3A 00 0F, trace has 3A 00 11\""))
    }

    @Test("a protect trace recorded through libnfc holds no byte of the password (grep), and replays")
    func protectTraceIsRedacted() async throws {
        let directory = try temporaryDirectory()
        let passwordFile = directory.appendingPathComponent("pwd").path
        try "C0FFEE42:5A5A\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
        let trace = directory.appendingPathComponent("protect.jsonl").path
        let output: String
        do {
            let emulator = try await EmulatorProcess.start(["--tag", "ntag215"])
            defer { emulator.stop() }
            let run = try await runBuiltNFCTool(["protect", "--device", emulator.connectionString, "--password-file", passwordFile, "--trace", trace])
            #expect(run.status == 0, "\(run.standardError)")
            output = run.standardOutput
        }
        let grep = try await runTool("/usr/bin/grep", ["-ci", "c0ffee42", trace], environment: [:])
        #expect(grep.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
        // Redacted bytes match any password on replay.
        try "01020304:5A5A\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
        let replay = try await runBuiltNFCTool(["protect", "--device", "replay:" + trace, "--password-file", passwordFile])
        #expect(replay.status == 0, "\(replay.standardError)")
        #expect(replay.standardOutput == output)
    }

    @Test("pn532-emulator --replay plays each trace fixture's tag: a fresh nfctool through real libnfc prints the recorded output, no divergence logged", arguments: TraceFixture.all)
    func emulatorPlaysFixture(_ fixture: TraceFixture) async throws {
        let emulator = try await EmulatorProcess.start(["--replay", fixture.tracePath])
        defer { emulator.stop() }
        let run = try await runBuiltNFCTool(try fixture.arguments() + ["--device", emulator.connectionString])
        #expect(run.status == 0, "\(run.standardError)")
        // The reader is another one: `info` names it where the recording named the recorded one.
        let header = try String(contentsOfFile: fixture.tracePath, encoding: .utf8).prefix { $0 != "\n" }
        let recorded = try #require(header.firstRange(of: "\"connection\":\"").map { header[$0.upperBound...].prefix { $0 != "\"" } })
        let expected = try fixture.expectedOutput().replacingOccurrences(of: "Tag on \(recorded)\n", with: "Tag on \(emulator.connectionString)\n")
        #expect(run.standardOutput == expected)
        #expect(!emulator.trace.contains { $0.contains("diverged") }, "\(emulator.trace.filter { $0.contains("diverged") })")
    }

    @Test("a trace played by pn532-emulator --replay: nfc-list sees the recorded UID; a changed command gets no answer and the emulator logs the exchange", ExternalTool.nfcList.trait)
    func emulatorPlayerDiverges() async throws {
        let fixture = TraceFixture("ntag215-read-url")
        do {
            let emulator = try await EmulatorProcess.start(["--replay", fixture.tracePath])
            defer { emulator.stop() }
            let list = try await runTool(ExternalTool.nfcList.require(), [], against: emulator)
            #expect(list.status == 0, "\(list.output)")
            #expect(list.output.contains("UID (NFCID1): 04  53  49  4d  00  00  01"), "\(list.output)")
            #expect(list.output.contains("ATQA (SENS_RES): 00  44"), "\(list.output)")
        }
        let directory = try temporaryDirectory()
        var lines = try String(contentsOfFile: fixture.tracePath, encoding: .utf8).split(separator: "\n").map(String.init)
        let index = try #require(lines.firstIndex { $0.contains("\"command\":\"3A000F\"") })
        lines[index] = lines[index].replacingOccurrences(of: "\"command\":\"3A000F\"", with: "\"command\":\"3A0011\"")
        let changed = directory.appendingPathComponent("changed.jsonl").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: changed, atomically: true, encoding: .utf8)
        let emulator = try await EmulatorProcess.start(["--replay", changed])
        defer { emulator.stop() }
        let run = try await runBuiltNFCTool(["read", "--device", emulator.connectionString, "--timeout", "2"])
        #expect(run.status != 0, "\(run.output)")
        #expect(emulator.trace.contains { $0.contains("replay diverged at exchange \(index): sent 3A 00 0F, trace has 3A 00 11") },
                "\(emulator.trace.suffix(5))")
    }
}
