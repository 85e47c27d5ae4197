import Foundation
import NFCCore
import NFCTestSupport
import Testing

/// Issue 29's self-test, with the built nfctool in fresh processes through real libnfc and the
/// PN532 emulator, judged on the emulator's tag file: a self-test leaves a blank and a written
/// NTAG215 byte for byte as they were; the removal step waits for the emulator's remove and
/// put-back; the bundle's trace replays with the emulator gone; a tag that leaves mid-run fails
/// the run and keeps its message.
@Suite("nfctool selftest through libnfc and the PN532 emulator", .tags(.endToEnd, .emulator), .serialized, .timeLimit(.minutes(3)))
struct SelfTestEndToEndTests {
    /// The tag file of an NTAG215 saved by the emulator, written with `url` first when given.
    static func tagFile(in directory: URL, url: String?) async throws -> String {
        let file = directory.appendingPathComponent("tag.json").path
        let emulator = try await EmulatorProcess.start(["--tag", "ntag215:\(file)"])
        defer { emulator.stop() }
        if let url {
            let run = try await runBuiltNFCTool(["write", "--url", url, "--device", emulator.connectionString], timeout: 60)
            #expect(run.status == 0, "\(run.standardError)")
        } else {
            // A format --force writes the blank layout again, so the file exists as the chip's.
            let run = try await runBuiltNFCTool(["read", "--device", emulator.connectionString], timeout: 60)
            #expect(run.status == 0, "\(run.standardError)")
        }
        return file
    }

    @Test("a self-test on a blank and on a written NTAG215 passes and leaves each tag file byte for byte as it was",
          arguments: [nil, "https://example.com/a-message-to-keep"])
    func leavesTagFileAsItWas(url: String?) async throws {
        let directory = try temporaryDirectory()
        let file = try await Self.tagFile(in: directory, url: url)
        let before = try #require(FileManager.default.contents(atPath: file))
        let bundle = directory.appendingPathComponent("bundle").path
        let run: ToolRun
        do {
            let emulator = try await EmulatorProcess.start(["--tag", "ntag215:\(file)"])
            defer { emulator.stop() }
            run = try await runBuiltNFCTool(
                ["selftest", "--no-removal", "--bundle", bundle, "--device", emulator.connectionString], timeout: 90)
        }
        #expect(run.status == 0, "\(run.standardOutput)\(run.standardError)")
        for step in ["identify", "presence", "ndef-read", "page-read", "fast-read", "dump", "write-test", "restore"] {
            #expect(run.standardOutput.split(separator: "\n").contains { $0.hasPrefix(step + " ") && $0.contains(" passed ") }, "\(step): \(run.standardOutput)")
        }
        #expect(run.standardOutput.split(separator: "\n").contains { $0.hasPrefix("removal ") && $0.contains(" skipped ") })
        let after = try #require(FileManager.default.contents(atPath: file))
        #expect(after == before, "the tag file changed")
        // The bundle: the report and a trace of the whole run with its writes.
        let report = try String(contentsOfFile: bundle + "/report.json", encoding: .utf8)
        #expect(report.contains("\"passed\" : true"), "\(report)")
        let trace = try String(contentsOfFile: bundle + "/trace.jsonl", encoding: .utf8)
        #expect(trace.contains("\"command\":\"A2"), "the trace holds no WRITE")

        // The bundle's trace replays in a fresh process with the emulator gone.
        let replay = try await runBuiltNFCTool(["selftest", "--no-removal", "--json", "--device", "replay:" + bundle + "/trace.jsonl"], timeout: 60)
        #expect(replay.status == 0, "\(replay.standardOutput)\(replay.standardError)")
        #expect(replay.standardOutput.contains("\"passed\" : true"))
    }

    @Test("the removal step waits for the tag to be taken away and put back (the emulator's remove and present)")
    func removalStepWaitsForEvents() async throws {
        let directory = try temporaryDirectory()
        let file = try await Self.tagFile(in: directory, url: "https://example.com/removal")
        let before = try #require(FileManager.default.contents(atPath: file))
        let emulator = try await EmulatorProcess.start(["--tag", "ntag215:\(file)"])
        defer { emulator.stop() }
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("LIBNFC_") }
        environment["NFCTOOL_DEVICE"] = emulator.connectionString
        let child = try ChildProcess(try Executables.nfctool(), ["selftest", "--timeout", "60"], environment: environment)
        #expect(await child.waitForOutput(within: .seconds(60)) { _, errors in errors.contains("Take the tag away") })
        #expect(try await emulator.control("remove").hasPrefix("ok"))
        #expect(await child.waitForOutput(within: .seconds(60)) { _, errors in errors.contains("Put the tag back") })
        #expect(try await emulator.control("present").hasPrefix("ok"))
        let run = await child.finish(within: 90)
        #expect(run.status == 0, "\(run.standardOutput)\(run.standardError)")
        #expect(run.standardOutput.split(separator: "\n").contains { $0.hasPrefix("removal ") && $0.contains(" passed ") }, "\(run.standardOutput)")
        emulator.stop()
        #expect(FileManager.default.contents(atPath: file) == before)
    }

    @Test("a tag that leaves the field mid-run fails the self-test (exit not 0) and keeps its message")
    func tagLeavingMidRunFails() async throws {
        let directory = try temporaryDirectory()
        let file = try await Self.tagFile(in: directory, url: "https://example.com/kept")
        let before = try #require(FileManager.default.contents(atPath: file))
        let run: ToolRun
        do {
            // The 12th command to the tag falls in the read paths, before any write.
            let emulator = try await EmulatorProcess.start(["--tag", "ntag215:\(file)", "--leave-after", "12"])
            defer { emulator.stop() }
            run = try await runBuiltNFCTool(["selftest", "--no-removal", "--device", emulator.connectionString], timeout: 90)
        }
        #expect(run.status != 0)
        #expect(run.standardOutput.contains(" failed "), "\(run.standardOutput)")
        #expect(run.standardError.contains("the self-test failed"), "\(run.standardError)")
        #expect(FileManager.default.contents(atPath: file) == before)
        // The message read back in a fresh process is the one written.
        let emulator = try await EmulatorProcess.start(["--tag", "ntag215:\(file)"])
        defer { emulator.stop() }
        let read = try await runBuiltNFCTool(["read", "--device", emulator.connectionString], timeout: 60)
        #expect(read.standardOutput.contains("https://example.com/kept"), "\(read.standardOutput)")
    }

    /// The memory of a tag file, read from its JSON here.
    static func memory(_ path: String) throws -> [UInt8] {
        let data = try #require(FileManager.default.contents(atPath: path), "no tag file \(path)")
        let state = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return try Hex.decode(try #require(state?["memory"] as? String, "no memory in \(path)"))
    }

    @Test("--format on an unformatted Ultralight EV1: refused without --yes (tag unchanged); with --yes the CC and an empty NDEF message are written, the test message restored to empty")
    func formatsBlankTagOnlyWithYes() async throws {
        let directory = try temporaryDirectory()
        let file = directory.appendingPathComponent("tag.json").path
        let emulator = try await EmulatorProcess.start(["--tag", "ultralight:\(file)"])
        defer { emulator.stop() }
        let read = try await runBuiltNFCTool(["read", "--device", emulator.connectionString], timeout: 60)
        #expect(read.status != 0, "an unformatted tag has no message: \(read.standardOutput)")
        let before = try Self.memory(file)
        #expect(Array(before[12..<16]) == [0, 0, 0, 0], "the model is unformatted")

        let refused = try await runBuiltNFCTool(["selftest", "--no-removal", "--format", "--device", emulator.connectionString], timeout: 60)
        #expect(refused.status == 64, "\(refused.standardOutput)\(refused.standardError)")
        #expect(refused.standardError.contains("--yes"))
        #expect(try Self.memory(file) == before)

        let run = try await runBuiltNFCTool(
            ["selftest", "--no-removal", "--format", "--yes", "--device", emulator.connectionString], timeout: 90)
        #expect(run.status == 0, "\(run.standardOutput)\(run.standardError)")
        for step in ["write-test", "restore"] {
            #expect(run.standardOutput.split(separator: "\n").contains { $0.hasPrefix(step + " ") && $0.contains(" passed ") }, "\(step): \(run.standardOutput)")
        }
        let after = try Self.memory(file)
        // Page 3: the Type 2 CC for 48 bytes of data area, read/write; page 4: an empty NDEF TLV.
        #expect(Array(after[12..<16]) == [0xE1, 0x10, 0x06, 0x00])
        #expect(Array(after[16..<19]) == [0x03, 0x00, 0xFE])
        #expect(Array(after[0..<12]) == Array(before[0..<12]), "UID and lock bytes untouched")
    }
}
