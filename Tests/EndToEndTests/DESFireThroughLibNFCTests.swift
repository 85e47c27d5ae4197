import Foundation
import NDEF
import NFCCore
import NFCTestSupport
import Testing
import VirtualTags

/// MIFARE DESFire EV1 as NFC Forum Type 4 (NXP AN11004) in fresh `nfctool` processes, on the
/// simulator and through real libnfc and the PN532 emulator, judged by libfreefare's DESFire
/// tools (an independent implementation of the same command set and application note):
/// libfreefare reads what NFCKit formatted and wrote, NFCKit reads what libfreefare wrote, and
/// `mifare-desfire-info` accepts the virtual chip.
@Suite("MIFARE DESFire EV1 through nfctool, libnfc and libfreefare", .tags(.endToEnd, .emulator), .serialized, .timeLimit(.minutes(10)))
struct DESFireThroughLibNFCTests {
    static let url = "https://example.com/desfire"

    /// The encoded URI message `nfctool write --url` stores for ``url``.
    static func encodedURL() throws -> [UInt8] {
        try NDEFMessage(records: [try NDEFPayload.wellKnownTypeURIPayload(url: url)]).encoded()
    }

    @Test("format, write, read and info in fresh nfctool processes on sim:desfire-ev1, the tag file between them")
    func simulator() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let device = "sim:desfire-ev1?file=\(directory.appendingPathComponent("desfire.json").path)"
        let plan = try await runBuiltNFCTool(["format", "--device", device, "--plan"])
        #expect(plan.status == 0, "\(plan.output)")
        #expect(plan.standardOutput.contains("CreateApplication, native DESFire command CA") && plan.standardOutput.contains("7 writes"), "\(plan.standardOutput)")
        let formatted = try await runBuiltNFCTool(["format", "--device", device, "--yes", "--ndef-size", "2048"])
        #expect(formatted.status == 0, "\(formatted.output)")
        #expect(formatted.standardOutput.contains("2046 bytes free"), "\(formatted.standardOutput)")
        let written = try await runBuiltNFCTool(["write", "--device", device, "--url", Self.url])
        #expect(written.status == 0, "\(written.output)")
        let read = try await runBuiltNFCTool(["read", "--device", device, "--json"])
        #expect(read.status == 0, "\(read.output)")
        #expect(read.standardOutput.contains(Self.url))
        let info = try await runBuiltNFCTool(["info", "--device", device])
        #expect(info.status == 0, "\(info.output)")
        #expect(info.standardOutput.contains("MIFARE DESFire EV1 4K"))
        #expect(info.standardOutput.contains("000001 (NFC Forum Type 4, AN11004)"))
        #expect(info.standardOutput.contains("free memory:  2528 bytes"), "\(info.standardOutput)")
        let again = try await runBuiltNFCTool(["format", "--device", device, "--yes"])
        #expect(again.status == 11, "\(again.output)")
    }

    @Test("a wrong PICC master key from --keys is refused (exit 9), nothing is created, and no key digit is printed")
    func wrongKey() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("desfire.json").path
        let keys = directory.appendingPathComponent("picc.key")
        try Data("# PICC master key\n1122334455667788\n".utf8).write(to: keys)
        let run = try await runBuiltNFCTool(["format", "--device", "sim:desfire-ev1?file=\(file)", "--yes", "--keys", keys.path])
        #expect(run.status == 9, "\(run.output)")
        #expect(!run.output.contains("1122") && !run.output.contains("11 22"))
        let tag = try #require(try TagFile(path: file).loadTag() as? DESFireVirtualTag)
        #expect(tag.image.applications.isEmpty)
    }

    @Test("mifare-desfire-info accepts the virtual chip; libfreefare's read-ndef reads what nfctool formatted and wrote through libnfc",
          ExternalTool.mifareDESFireInfo.trait, ExternalTool.mifareDESFireReadNDEF.trait)
    func libfreefareReadsOurs() async throws {
        let info = try ExternalTool.mifareDESFireInfo.require()
        let readNDEF = try ExternalTool.mifareDESFireReadNDEF.require()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("desfire.json").path
        let emulator = try EmulatorProcess(["--tag", "desfire-ev1:\(file)"])
        defer { emulator.stop() }
        let blank = try await runTool(info, [], against: emulator, timeout: 30)
        #expect(blank.status == 0, "\(blank.output)")
        #expect(blank.output.contains("Storage size:         0x18 (=4096 bytes)") && blank.output.contains("Free memory: 4608 bytes"), "\(blank.output)")
        let formatted = try await runBuiltNFCTool(["format", "--device", emulator.connectionString, "--yes"])
        #expect(formatted.status == 0, "\(formatted.output)")
        let written = try await runBuiltNFCTool(["write", "--device", emulator.connectionString, "--url", Self.url])
        #expect(written.status == 0, "\(written.output)")
        let output = directory.appendingPathComponent("ndef.bin")
        let read = try await runTool(readNDEF, ["-y", "-o", output.path], against: emulator, timeout: 30)
        #expect(read.status == 0, "\(read.output)")
        #expect(read.output.contains("Max NDEF size: 4576 bytes"), "\(read.output)")
        #expect([UInt8](try Data(contentsOf: output)) == (try Self.encodedURL()))
        let after = try await runTool(info, [], against: emulator, timeout: 30)
        #expect(after.status == 0 && after.output.contains("Free memory: 0 bytes"), "\(after.output)")
    }

    @Test("nfctool reads and rewrites a DESFire that libfreefare's create-ndef and write-ndef made; format then leaves it alone",
          ExternalTool.mifareDESFireCreateNDEF.trait, ExternalTool.mifareDESFireWriteNDEF.trait, ExternalTool.mifareDESFireReadNDEF.trait)
    func weReadLibfreefares() async throws {
        let create = try ExternalTool.mifareDESFireCreateNDEF.require()
        let writeNDEF = try ExternalTool.mifareDESFireWriteNDEF.require()
        let readNDEF = try ExternalTool.mifareDESFireReadNDEF.require()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("desfire.json").path
        let emulator = try EmulatorProcess(["--tag", "desfire-ev1:\(file)"])
        defer { emulator.stop() }
        let created = try await runTool(create, ["-y"], against: emulator, timeout: 30)
        #expect(created.status == 0, "\(created.output)")
        let input = directory.appendingPathComponent("in.bin")
        try Data(try Self.encodedURL()).write(to: input)
        let written = try await runTool(writeNDEF, ["-y", "-i", input.path], against: emulator, timeout: 30)
        #expect(written.status == 0, "\(written.output)")
        let read = try await runBuiltNFCTool(["read", "--device", emulator.connectionString, "--json"])
        #expect(read.status == 0, "\(read.output)")
        #expect(read.standardOutput.contains(Self.url), "\(read.standardOutput)")
        // libfreefare sized the NDEF file 4096 bytes (storage 4 KB): the Type 4 path sees 4094 free.
        let info = try await runBuiltNFCTool(["info", "--device", emulator.connectionString])
        #expect(info.standardOutput.contains("capacity:     4094 bytes"), "\(info.standardOutput)")
        let format = try await runBuiltNFCTool(["format", "--device", emulator.connectionString, "--yes"])
        #expect(format.status == 11, "\(format.output)")
        // Rewritten here, read back by libfreefare.
        let rewritten = try await runBuiltNFCTool(["write", "--device", emulator.connectionString, "--text", "über NFCKit"])
        #expect(rewritten.status == 0, "\(rewritten.output)")
        let output = directory.appendingPathComponent("out.bin")
        let again = try await runTool(readNDEF, ["-y", "-o", output.path], against: emulator, timeout: 30)
        #expect(again.status == 0, "\(again.output)")
        let message = try NDEFMessage(bytes: [UInt8](try Data(contentsOf: output)))
        #expect(message.records.count == 1)
        #expect(String(decoding: message.records[0].payload.array.dropFirst(3), as: UTF8.self) == "über NFCKit")
    }
}
