import Foundation
import NFCTestSupport
import Testing

/// Issue 11: without `--device` and `NFCTOOL_DEVICE` every tag command goes to libnfc's default
/// device, never to the simulator. With no reader it exits 3 having done nothing; with a reader
/// configured as libnfc's default (the PN532 emulator) the work lands on that reader's tag.
@Suite("no --device: libnfc's default device, never the simulator", .tags(.endToEnd, .emulator), .serialized, .timeLimit(.minutes(3)))
struct DefaultDeviceTests {
    /// The environment of a machine with no reader: no NFCTOOL_DEVICE, no LIBNFC_* settings,
    /// libnfc told not to probe serial ports.
    static var noReaderEnvironment: [String: String] {
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("LIBNFC_") && $0.key != "NFCTOOL_DEVICE" }
        environment["LIBNFC_AUTO_SCAN"] = "false"
        environment["LIBNFC_INTRUSIVE_SCAN"] = "false"
        environment["NFCTOOL_PASSWORD"] = "12345678"
        return environment
    }

    @Test("with no reader every tag command exits 3 with the hints, and nothing is created",
          arguments: [
            ["write", "--url", "https://example.com"], ["lock", "--yes"], ["format", "--force", "--yes"], ["erase"],
            ["protect"], ["unprotect"], ["scan"], ["info"], ["read"], ["verify", "--expect-url", "https://example.com"],
            ["dump"], ["apdu", "00A4040007D276000085010100"], ["watch", "--timeout", "1"],
            ["batch", "--url", "https://ex.io/{n}", "--count", "1", "--ledger", "LEDGER"],
          ])
    func noReaderExits3(arguments: [String]) async throws {
        let tool = try #require(Executables.built("nfctool"), "nfctool is not built")
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let ledger = dir.appendingPathComponent("run.db").path
        let run = try await runTool(tool.path, arguments.map { $0 == "LEDGER" ? ledger : $0 }, environment: Self.noReaderEnvironment, timeout: 30)
        #expect(!run.timedOut)
        #expect(run.status == 3, "\(run.output)")
        #expect(run.output.contains("libnfc's default device"), "\(run.output)")
        #expect(run.output.contains("Hints:"), "\(run.output)")
        #expect(!run.output.contains("sim"), "\(run.output)")
        // Nothing happened: not even the ledger file of the batch exists.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == [])
    }

    @Test("an unknown simulator model is a usage error (64), not 'no reader'", arguments: ["scan", "read", "info"])
    func unknownSimulatorModel(command: String) async throws {
        let tool = try #require(Executables.built("nfctool"), "nfctool is not built")
        let run = try await runTool(tool.path, [command, "--device", "sim:nosuchtag"], environment: Self.noReaderEnvironment)
        #expect(run.status == 64, "\(run.output)")
        #expect(run.output.contains("unknown tag model 'nosuchtag'"))
    }

    @Test("nfctool devices exits 3 when it finds no reader, the list and hints still printed")
    func devicesWithoutReader() async throws {
        let tool = try #require(Executables.built("nfctool"), "nfctool is not built")
        let run = try await runTool(tool.path, ["devices"], environment: Self.noReaderEnvironment)
        #expect(run.status == 3)
        #expect(run.output.hasPrefix("No NFC reader found (libnfc "))
        #expect(run.output.contains("Hints:"))
    }

    @Test("with libnfc's default device set to a reader, write without --device lands on that reader's tag file")
    func defaultReaderGetsTheWork() async throws {
        let tool = try #require(Executables.built("nfctool"), "nfctool is not built")
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let tagFile = dir.appendingPathComponent("tag.json")
        let emulator = try await EmulatorProcess.start(["--tag", "ntag215:\(tagFile.path)"])
        defer { emulator.stop() }
        var environment = emulator.libnfcEnvironment   // LIBNFC_DEFAULT_DEVICE=pn532_uart:<pty>
        environment["LIBNFC_LOG_LEVEL"] = "0"
        environment.removeValue(forKey: "NFCTOOL_DEVICE")
        let write = try await runTool(tool.path, ["write", "--url", "https://example.com/default", "--timeout", "5"], environment: environment)
        #expect(write.status == 0, "\(write.output)")
        #expect(emulator.trace.contains { $0.contains("> D4 40 01 A2 ") })
        emulator.stop()
        // Read from the other side: the tag file the emulator saved holds the URL's bytes.
        let saved = try String(contentsOf: tagFile, encoding: .utf8).lowercased()
        let host = Array("example.com/default".utf8).map { String(format: "%02x", $0) }.joined()
        #expect(saved.contains(host), "\(saved)")
    }
}
