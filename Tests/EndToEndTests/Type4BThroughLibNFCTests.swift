import Foundation
import LibNFC
import NFCCore
import NFCTags
import NFCTestSupport
import Testing

/// An NFC Forum Type 4 tag over ISO 14443-B through real libnfc and the PN532 emulator:
/// InListPassiveTarget BrTy 03 (ATQB, ATTRIB), APDUs in InDataExchange frames, and the built
/// nfctool's scan, write, read and info as a user runs them.
@Suite("Type 4 tag over ISO 14443-B through real libnfc and the PN532 emulator", .tags(.endToEnd, .emulator), .serialized, .timeLimit(.minutes(2)))
struct Type4BThroughLibNFCTests {
    /// The built nfctool run against `emulator`, libnfc quiet, `--device` given.
    static func nfctool(_ arguments: [String], _ emulator: EmulatorProcess) async throws -> ToolRun {
        let tool = try #require(Executables.built("nfctool"), "nfctool is not built")
        var environment = emulator.libnfcEnvironment
        environment["LIBNFC_LOG_LEVEL"] = "0"
        return try await runTool(tool.path, arguments + ["--device", emulator.connectionString, "--timeout", "3"], environment: environment)
    }

    @Test("LibNFCReader polls B: the PUPI and ATQB fields arrive; NFCTag identifies an ISO-DEP B card as .iso7816 on Type 4")
    func pollAndConnect() async throws {
        let emulator = try await EmulatorProcess.start(["--tag", "type4b"])
        defer { emulator.stop() }
        let reader = try await LibNFCReader.open(emulator.connectionString)
        let modulations = await reader.supportedModulations
        #expect(modulations.contains(.iso14443B))
        // Polled the way scan polls: every modulation the reader has; A answers nothing.
        let target = try #require(try await reader.poll(for: modulations, timeout: .seconds(2)))
        guard case .iso14443B(let b) = target else {
            Issue.record("not a type B target: \(target)")
            return
        }
        #expect(b.pupi == Bytes([0x0B, 0x53, 0x49, 0x01]))
        #expect(b.applicationData == Bytes([0x00, 0x00, 0x00, 0x00]))
        #expect(b.protocolInfo == Bytes([0x00, 0x81, 0x71]))
        guard case .iso7816(let tag) = try await NFCTag.connect(to: target, on: reader) else {
            Issue.record("an ISO-DEP B card did not connect as .iso7816")
            return
        }
        #expect(tag.identity.platform == .type4)
        #expect(tag.identity.model == "NFC Forum Type 4 tag")
        #expect(try await tag.queryNDEFStatus() == NDEFQuery(status: .readWrite, capacity: 2046, messageLength: 0))
        #expect(await reader.isTargetPresent())
        await reader.close()
        // APDUs went out in InDataExchange frames to target 1, after a type B InListPassiveTarget.
        #expect(emulator.trace.contains { $0.contains("> D4 4A 01 03 00") })
        #expect(emulator.trace.contains { $0.contains("> D4 40 01 00 A4 04 00 07 D2 76 00 00 85 01 01") })
    }

    @Test("nfctool scan, write, read and info on the B tag through libnfc; the tag file holds what was written")
    func nfctoolCommands() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("type4b.json")
        let emulator = try await EmulatorProcess.start(["--tag", "type4b:\(file.path)"])
        defer { emulator.stop() }

        let scan = try await Self.nfctool(["scan"], emulator)
        #expect(scan.status == 0, "\(scan.output)")
        #expect(scan.output.contains("  technology: iso14443b\n"), "\(scan.output)")
        #expect(scan.output.contains("  UID:        0B 53 49 01\n"))
        #expect(scan.output.contains("  app data:   00 00 00 00\n"))
        #expect(scan.output.contains("  protocol:   00 81 71\n"))
        #expect(scan.output.contains("  model:      NFC Forum Type 4 tag (Type 4)\n"))
        #expect(scan.output.contains("  NDEF:       yes\n"))

        let write = try await Self.nfctool(["write", "--url", "https://example.com/b"], emulator)
        #expect(write.status == 0, "\(write.output)")
        #expect(emulator.trace.contains { $0.contains("> D4 40 01 00 D6 ") })

        let read = try await Self.nfctool(["read"], emulator)
        #expect(read.status == 0, "\(read.output)")
        #expect(read.output.contains("uri:        https://example.com/b"), "\(read.output)")

        let info = try await Self.nfctool(["info"], emulator)
        #expect(info.status == 0, "\(info.output)")
        #expect(info.output.contains("ISO 14443-4 B (ISO-DEP)"), "\(info.output)")
        #expect(info.output.contains("NFC Forum Type 4 tag"))

        // From the other side: the tag file's NDEF file is NLEN then the URI record (prefix 04
        // "https://", "example.com/b").
        let state = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any]
        #expect(state?["model"] as? String == "type4b")
        let memory = try #require(state?["memory"] as? String).lowercased()
        let record = "d1010e5504" + Data("example.com/b".utf8).map { String(format: "%02x", $0) }.joined()
        #expect(memory.hasPrefix("0012" + record), "\(memory.prefix(60))")
    }

    @Test("sim:type4b and the emulated B tag scan alike")
    func simulatorAgrees() async throws {
        let tool = try #require(Executables.built("nfctool"), "nfctool is not built")
        let simulated = try await runTool(tool.path, ["scan", "--device", "sim:type4b", "--timeout", "2"], environment: [:])
        let emulator = try await EmulatorProcess.start(["--tag", "type4b"])
        defer { emulator.stop() }
        let emulated = try await Self.nfctool(["scan"], emulator)
        #expect(simulated.status == 0 && emulated.status == 0, "\(simulated.output) \(emulated.output)")
        let body = { (text: String) in text.split(separator: "\n").dropFirst().joined(separator: "\n") }
        #expect(body(simulated.output) == body(emulated.output))
    }
}
