import Foundation
import NFCCore
import NFCTestSupport
import Testing
import VirtualTags

/// MIFARE DESFire Light in fresh `nfctool` processes: on the simulator and through real libnfc
/// and the PN532 emulator, the tag file read between them; nfcpy (an independent Type 4
/// implementation) judges the NDEF on the renamed Light.
@Suite("MIFARE DESFire Light through nfctool, libnfc and nfcpy", .tags(.endToEnd, .emulator), .serialized, .timeLimit(.minutes(10)))
struct DESFireLightEndToEndTests {
    static let url = "https://example.com/desfire-light"

    /// The tag file's NDEF file settings (`settings04`) and the CC's write access byte.
    static func lockState(_ path: String) throws -> (settings: String?, ccWriteAccess: UInt8) {
        let state = try TagFile(path: path).load()
        let memory = try Hex.decode(state.memory)
        return (state.attributes?["settings04"], memory[14])
    }

    @Test("a factory Light (sim:desfire-light): info names it and its factory DF; format refuses (exit 10) naming SetConfiguration; the tag file is byte-identical")
    func factoryRefused() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("light.json").path
        let device = "sim:desfire-light?file=\(file)"
        let info = try await runBuiltNFCTool(["info", "--device", device])
        #expect(info.status == 0, "\(info.output)")
        #expect(info.standardOutput.contains("MIFARE DESFire Light"), "\(info.standardOutput)")
        #expect(info.standardOutput.contains("A00000039656434103F015400000000B (factory name"), "\(info.standardOutput)")
        try TagFile(path: file).save(DESFireLightVirtualTag(uid: hex("04 4C 49 47 48 54 02")).tagState)
        let before = try Data(contentsOf: URL(fileURLWithPath: file))
        let format = try await runBuiltNFCTool(["format", "--device", device, "--yes"])
        #expect(format.status == 10, "\(format.output)")
        #expect(format.output.contains("SetConfiguration"), "\(format.output)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before)
    }

    @Test("a renamed Light on sim:desfire-light-ndef: format, write, read, lock in fresh processes; the tag file holds FF EF and CC FF; write after the lock exits 5, read still works")
    func formatWriteReadLockOnSimulator() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("light.json").path
        let device = "sim:desfire-light-ndef?file=\(file)"
        let formatted = try await runBuiltNFCTool(["format", "--device", device, "--yes"])
        #expect(formatted.status == 0, "\(formatted.output)")
        let written = try await runBuiltNFCTool(["write", "--device", device, "--url", Self.url])
        #expect(written.status == 0, "\(written.output)")
        let read = try await runBuiltNFCTool(["read", "--device", device])
        #expect(read.status == 0 && read.standardOutput.contains(Self.url), "\(read.output)")
        let info = try await runBuiltNFCTool(["info", "--device", device])
        #expect(info.standardOutput.contains("D2760000850101 (renamed for Type 4)"), "\(info.standardOutput)")
        #expect(try Self.lockState(file).settings == "0000E0EE000100")
        let locked = try await runBuiltNFCTool(["lock", "--device", device, "--yes"])
        #expect(locked.status == 0, "\(locked.output)")
        let after = try Self.lockState(file)
        #expect(after.settings == "0000FFEF000100" && after.ccWriteAccess == 0xFF, "\(after)")
        let write = try await runBuiltNFCTool(["write", "--device", device, "--text", "after the lock"])
        #expect(write.status == 5, "\(write.output)")
        let again = try await runBuiltNFCTool(["read", "--device", device])
        #expect(again.status == 0 && again.standardOutput.contains(Self.url), "\(again.output)")
    }

    @Test("lock --plan on a renamed, formatted Light in a fresh process: exit 0, ChangeFileSettings of file 04 (settings enciphered) and the CC's FF listed; the tag file byte-identical; the real lock afterwards still locks")
    func lockPlan() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("light.json").path
        let device = "sim:desfire-light-ndef?file=\(file)"
        for step in [["format", "--yes"], ["write", "--url", Self.url]] {
            let run = try await runBuiltNFCTool([step[0], "--device", device] + step.dropFirst())
            #expect(run.status == 0, "\(step[0]): \(run.output)")
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: file))
        let plan = try await runBuiltNFCTool(["lock", "--device", device, "--plan"])
        #expect(plan.status == 0, "\(plan.output)")
        #expect(plan.standardOutput.contains("ChangeSettings   file 04 (settings enciphered)"), "\(plan.standardOutput)")
        #expect(plan.standardOutput.contains("offset 0x000E    FF"), "\(plan.standardOutput)")
        #expect(plan.standardOutput.contains("2 writes"), "\(plan.standardOutput)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before, "lock --plan changed the tag file")
        let locked = try await runBuiltNFCTool(["lock", "--device", device, "--yes"])
        #expect(locked.status == 0, "\(locked.output)")
        let after = try Self.lockState(file)
        #expect(after.settings == "0000FFEF000100" && after.ccWriteAccess == 0xFF, "\(after)")
    }

    @Test("format --plan on a renamed Light never formatted, in a fresh process: exit 0, NLEN 0000 and the 15-byte CC listed as UPDATE BINARY; the tag file byte-identical; a factory Light's format --plan is refused (exit 10), unchanged")
    func formatPlan() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("light.json").path
        try TagFile(path: file).save(DESFireLightVirtualTag(uid: hex("04 4C 49 47 48 54 03"), renamedForTypeFour: true).tagState)
        let before = try Data(contentsOf: URL(fileURLWithPath: file))
        let plan = try await runBuiltNFCTool(["format", "--device", "sim:desfire-light-ndef?file=\(file)", "--plan"])
        #expect(plan.status == 0, "\(plan.output)")
        #expect(plan.standardOutput.contains("offset 0x0000    00 00"), "\(plan.standardOutput)")
        #expect(plan.standardOutput.contains("offset 0x0000    00 0F 20 00 FF 00 FF 04 06 E1 04 01 00 00 00"), "\(plan.standardOutput)")
        #expect(plan.standardOutput.contains("2 writes"), "\(plan.standardOutput)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before, "format --plan changed the tag file")
        let factory = directory.appendingPathComponent("factory.json").path
        try TagFile(path: factory).save(DESFireLightVirtualTag(uid: hex("04 4C 49 47 48 54 04")).tagState)
        let factoryBefore = try Data(contentsOf: URL(fileURLWithPath: factory))
        let refused = try await runBuiltNFCTool(["format", "--device", "sim:desfire-light?file=\(factory)", "--plan"])
        #expect(refused.status == 10 && refused.output.contains("SetConfiguration"), "\(refused.output)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: factory)) == factoryBefore)
    }

    @Test("lock with a wrong AES application key from --keys: exit 9, the tag file byte-identical, no key digit printed")
    func lockWrongKey() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("light.json").path
        let device = "sim:desfire-light-ndef?file=\(file)"
        let formatted = try await runBuiltNFCTool(["format", "--device", device, "--yes"])
        #expect(formatted.status == 0, "\(formatted.output)")
        let keys = directory.appendingPathComponent("keys.txt")
        try Data("application aes 00112233445566778899AABBCCDDEEFF\n".utf8).write(to: keys)
        let before = try Data(contentsOf: URL(fileURLWithPath: file))
        let locked = try await runBuiltNFCTool(["lock", "--device", device, "--yes", "--keys", keys.path])
        #expect(locked.status == 9, "\(locked.output)")
        #expect(!locked.output.contains("0011223344"), "\(locked.output)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before)
    }

    @Test("format, write, read and lock through libnfc and the PN532 emulator; the tag file read afterwards")
    func throughLibNFC() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("light.json").path
        let emulator = try await EmulatorProcess.start(["--tag", "desfire-light-ndef:\(file)"])
        defer { emulator.stop() }
        let scan = try await runBuiltNFCTool(["scan", "--device", emulator.connectionString])
        #expect(scan.output.contains("MIFARE DESFire Light"), "\(scan.output)")
        let formatted = try await runBuiltNFCTool(["format", "--device", emulator.connectionString, "--yes"])
        #expect(formatted.status == 0, "\(formatted.output)")
        let written = try await runBuiltNFCTool(["write", "--device", emulator.connectionString, "--url", Self.url])
        #expect(written.status == 0, "\(written.output)")
        let read = try await runBuiltNFCTool(["read", "--device", emulator.connectionString])
        #expect(read.status == 0 && read.standardOutput.contains(Self.url), "\(read.output)")
        let locked = try await runBuiltNFCTool(["lock", "--device", emulator.connectionString, "--yes"])
        #expect(locked.status == 0, "\(locked.output)")
        emulator.stop()
        let after = try Self.lockState(file)
        #expect(after.settings == "0000FFEF000100" && after.ccWriteAccess == 0xFF, "\(after)")
        let back = try await runBuiltNFCTool(["read", "--device", "sim:desfire-light-ndef?file=\(file)"])
        #expect(back.standardOutput.contains(Self.url), "\(back.output)")
    }

    @Test("nfcpy reads the URL nfctool wrote to a renamed Light it formatted; nfctool reads the URL nfcpy wrote back", ExternalTool.nfcpy.trait)
    func judgedByNFCPy() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("light.json").path
        let device = "sim:desfire-light-ndef?file=\(file)"
        let formatted = try await runBuiltNFCTool(["format", "--device", device, "--yes"])
        #expect(formatted.status == 0, "\(formatted.output)")
        let written = try await runBuiltNFCTool(["write", "--device", device, "--url", Self.url])
        #expect(written.status == 0, "\(written.output)")
        let run = try await runNFCPy(model: "desfire-light-ndef", tagFile: file, """
            print('type', tag.type)
            print('capacity', tag.ndef.capacity)
            print('writeable', tag.ndef.is_writeable)
            print('uri', tag.ndef.records[0].iri)
            import ndef
            tag.ndef.records = [ndef.UriRecord('https://example.org/light-from-nfcpy')]
            print('rewritten')
            """, timeout: 60)
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("type Type4Tag"), "\(run.output)")
        // The 256-byte NDEF file holds 254 bytes after its 2-byte length.
        #expect(run.output.contains("capacity 254"), "\(run.output)")
        #expect(run.output.contains("writeable True"), "\(run.output)")
        #expect(run.output.contains("uri \(Self.url)"), "\(run.output)")
        #expect(run.output.contains("rewritten"), "\(run.output)")
        let back = try await runBuiltNFCTool(["read", "--device", device])
        #expect(back.status == 0 && back.standardOutput.contains("https://example.org/light-from-nfcpy"), "\(back.output)")
    }
}
