import Foundation
import NFCTestSupport
import Testing

/// `nfctool emulate` through real libnfc target mode (`nfc_target_init`,
/// `nfc_target_receive_bytes`, `nfc_target_send_bytes` on `pn532_uart`) against the PN532
/// emulator, whose virtual external reader runs the NFC Forum Type 4 procedures and logs what it
/// read or wrote (`--reader-log`).
@Suite("nfctool emulate through real libnfc target mode", .tags(.endToEnd, .emulator), .serialized, .timeLimit(.minutes(10)))
struct EmulateThroughLibNFCTests {
    /// `https://example.com` as one URI record (prefix 04 "https://").
    static let urlMessage = "D1010C55046578616D706C652E636F6D"
    /// A Text record "Hi there", language en.
    static let textMessage = "D1010B5402656E4869207468657265"

    /// An emulator with an external reader running `procedure`, and its reader log's path.
    static func emulator(_ procedure: String) async throws -> (EmulatorProcess, String) {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("reader-log-\(UUID().uuidString)").path
        return (try await EmulatorProcess.start(["--external-reader", procedure, "--reader-log", log]), log)
    }

    /// The reader log without its timestamps.
    static func readerLog(_ path: String) -> [String] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n")
            .map { line in String(line.split(separator: " ", maxSplits: 2).last ?? "") }
    }

    /// The built nfctool run against `emulator`, libnfc quiet.
    static func nfctool(_ arguments: [String], _ emulator: EmulatorProcess) async throws -> ToolRun {
        let tool = try #require(Executables.built("nfctool"), "nfctool is not built")
        var environment = emulator.libnfcEnvironment
        environment["LIBNFC_LOG_LEVEL"] = "0"
        // A deadline far beyond every run here: a loaded machine stretches process start-up.
        return try await runTool(tool.path, ["emulate"] + arguments + ["--device", emulator.connectionString], environment: environment, timeout: 60)
    }

    @Test("an external reader runs the Type 4 read procedure and reads exactly the message")
    func readerReadsTheMessage() async throws {
        let (emulator, log) = try await Self.emulator("type4-read")
        defer { emulator.stop(); try? FileManager.default.removeItem(atPath: log) }
        let run = try await Self.nfctool(["--url", "https://example.com", "--timeout", "5"], emulator)
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("The reader left after 6 commands.\nIt read the whole message.\nIt wrote nothing.\n"))
        #expect(Self.readerLog(log) == [
            "activated uid 0800B00B atqa 0400 sak 20",
            "> 00A4040007D276000085010100", "< 9000",
            "> 00A4000C02E103", "< 9000",
            "> 00B000000F", "< 000F20008000800406E104080000009000",
            "> 00A4000C02E104", "< 9000",
            "> 00B0000002", "< 00109000",
            "> 00B0000210", "< \(Self.urlMessage)9000",
            "read \(Self.urlMessage)",
            "left",
        ])
        // libnfc's frames: TgInitAsTarget as a PICC (mode 05: passive only, ISO 14443-4 PICC
        // only; ATQA 0004 as libnfc keeps it, UID 00 B0 0B after the hard-wired 08, SAK 20), the
        // commands fetched with TgGetData, answers given with TgSetData, then the release (29).
        let trace = emulator.trace
        #expect(trace.contains { $0.hasSuffix("> D4 8C 05 04 00 00 B0 0B 20 " + Array(repeating: "00", count: 30).joined(separator: " ")) })
        #expect(trace.filter { $0.hasSuffix("> D4 86") }.count == 7)
        #expect(trace.filter { $0.contains("> D4 8E ") }.count == 6)
        #expect(trace.contains { $0.hasSuffix("< D5 87 29") })
    }

    @Test("an external reader writes a message: --save holds exactly what it wrote")
    func readerWritesAndSaveHoldsIt() async throws {
        let (emulator, log) = try await Self.emulator("type4-write:\(Self.textMessage)")
        defer { emulator.stop(); try? FileManager.default.removeItem(atPath: log) }
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let saved = dir.appendingPathComponent("written.ndef")
        let run = try await Self.nfctool(["--url", "https://example.com", "--save", saved.path, "--timeout", "5"], emulator)
        #expect(run.status == 0, "\(run.output)")
        #expect(Self.readerLog(log).suffix(2) == ["wrote 15 bytes", "left"])
        let bytes = try [UInt8](Data(contentsOf: saved))
        #expect(bytes.map { String(format: "%02X", $0) }.joined() == Self.textMessage)
        #expect(run.output.contains("""
            The reader left after 7 commands.
            It wrote a 15-byte message, saved to \(saved.path):
            NDEF message: 1 record, 15 bytes

            Record 1: Text (well-known "T"), payload 11 bytes
              text:       Hi there
            """))
        // UPDATE BINARY NLEN 0000, the message, then NLEN 000F (T4T 2.0 §5.4.3).
        #expect(Self.readerLog(log).filter { $0.hasPrefix("> 00D6") } == [
            "> 00D6000002" + "0000", "> 00D600020F" + Self.textMessage, "> 00D6000002" + "000F",
        ])
    }

    @Test("--read-only refuses the reader's UPDATE BINARY with 6982 and reports it")
    func readOnlyRefusesWrites() async throws {
        let (emulator, log) = try await Self.emulator("type4-write:\(Self.textMessage)")
        defer { emulator.stop(); try? FileManager.default.removeItem(atPath: log) }
        let run = try await Self.nfctool(["--url", "https://example.com", "--read-only", "--json", "--timeout", "5"], emulator)
        #expect(run.status == 0, "\(run.output)")
        #expect(Self.readerLog(log).suffix(4) == ["> 00D60000020000", "< 6982", "refused update-nlen-0 6982", "left"])
        #expect(run.output.contains("\"refusedUpdates\" : 1"))
        #expect(run.output.contains("\"written\" : false"))
        #expect(run.output.contains("\"readMessage\" : false"))
        // The capability container announces write access FF.
        #expect(Self.readerLog(log).contains("< 000F20008000800406E104080000FF9000"))
    }

    @Test("--timeout ends the wait when no reader comes: exit 2, target mode aborted")
    func timeoutWithoutReader() async throws {
        let emulator = try await EmulatorProcess.start(["--tag", "ntag215"])
        defer { emulator.stop() }
        let run = try await Self.nfctool(["--url", "https://example.com", "--timeout", "1.5"], emulator)
        // Its own --timeout ended it (exit 2 and the message), not the test's deadline; how long
        // that took is not checked (process start-up on a loaded machine took 6.4 s once).
        #expect(!run.timedOut)
        #expect(run.status == 2, "\(run.output)")
        #expect(run.output.contains("Error: no reader came within 1.5 s on \(emulator.connectionString)"))
        #expect(emulator.trace.contains { $0.contains("> D4 8C 05") })
    }

    @Test("Ctrl-C (SIGINT) while waiting for a reader ends the emulation cleanly: exit 2, says it was stopped")
    func interrupted() async throws {
        let emulator = try await EmulatorProcess.start(["--tag", "ntag215"])
        defer { emulator.stop() }
        let tool = try #require(Executables.built("nfctool"), "nfctool is not built")
        var environment = emulator.libnfcEnvironment
        environment["LIBNFC_LOG_LEVEL"] = "0"
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("emulate-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errors) }
        let process = Process()
        process.executableURL = tool
        process.arguments = ["emulate", "--url", "https://example.com", "--timeout", "30", "--device", emulator.connectionString]
        process.environment = environment
        process.standardError = try FileHandle(forWritingTo: errors)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // Once target mode has started (TgInitAsTarget on the wire), interrupt.
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, !emulator.trace.contains(where: { $0.contains("> D4 8C 05") }) {
            try await Task.sleep(for: .milliseconds(20))
        }
        kill(process.processIdentifier, SIGINT)
        let end = Date().addingTimeInterval(10)
        while process.isRunning && Date() < end { try await Task.sleep(for: .milliseconds(20)) }
        #expect(!process.isRunning, "nfctool emulate did not stop on SIGINT")
        await reaped(process)
        #expect(process.terminationStatus == 2)
        let log = try String(contentsOf: errors, encoding: .utf8)
        #expect(log.contains("Error: stopped before a reader came"), "\(log)")
    }

    @Test("a scripted reader: every APDU of the file is sent whatever the answers, each answer logged")
    func scriptedReader() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = dir.appendingPathComponent("reader.apdu")
        try Data("# a phone probing the tag\n00A4040007D276000085010100\n00CA000000\n\n00A4000C02E103\n00B000000F\n".utf8).write(to: script)
        let (emulator, log) = try await Self.emulator("script:\(script.path)")
        defer { emulator.stop(); try? FileManager.default.removeItem(atPath: log) }
        let run = try await Self.nfctool(["--text", "Hi", "--timeout", "5"], emulator)
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("The reader left after 4 commands.\nIt wrote nothing.\n"))
        #expect(Array(Self.readerLog(log).dropFirst()) == [
            "> 00A4040007D276000085010100", "< 9000",
            "> 00CA000000", "< 6D00",
            "> 00A4000C02E103", "< 9000",
            "> 00B000000F", "< 000F20008000800406E104080000009000",
            "ran 4 commands", "left",
        ])
    }
}
