import Foundation
import LibNFC
import NDEF
import NFCCore
import NFCTags
import NFCTestSupport
import Testing

private let oracleScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Oracle/type2_dump_ndef.py")

/// The whole life of an NTAG through real libnfc and the PN532 emulator — write, protect, lock —
/// with the exact commands on the wire, and what libnfc's own tool and ndeflib make of the result.
@Suite("Type 2 write, password and lock through real libnfc and the PN532 emulator", .tags(.endToEnd, .emulator), .serialized, .timeLimit(.minutes(10)))
struct Type2LifecycleThroughLibNFCTests {
    /// The tag on `reader` as ``NFCTag/connect(to:on:commandTimeout:)`` makes it, re-selected
    /// after identification, with the trace cleared.
    static func connect(_ reader: TracingReader, password: NTAGPassword? = nil) async throws -> MiFareTag {
        let target = try #require(try await reader.poll(for: [.iso14443A], timeout: .seconds(2)))
        guard case .miFare(var tag) = try await NFCTag.connect(to: target, on: reader) else {
            throw NFCTagError(.notSupported, "not a MIFARE tag")
        }
        tag.password = password
        _ = try await reader.poll(for: [.iso14443A], timeout: .seconds(2))
        await reader.reset()
        return tag
    }

    static func hexCommands(_ reader: TracingReader) async -> [String] {
        await reader.commands.map { Hex.encode($0.command.prefix($0.command.first == Type2Command.write ? 2 : 3)).uppercased() }
    }

    @Test("a 20-byte URL record on a factory NTAG215: the exact commands, then a password, then a permanent lock")
    func lifecycle() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("tag.json").path
        let emulator = try await EmulatorProcess.start(["--tag", "ntag215:\(file)"])
        defer { emulator.stop() }
        let reader = await TracingReader(try await LibNFCReader.open(emulator.connectionString))

        let tag = try await Self.connect(reader)
        #expect(tag.identity.model == "NTAG215")
        let message = NDEFMessage(records: [try .wellKnownTypeURIPayload(url: "https://example.com/abc")])
        #expect(try message.encoded().count == 20)
        try await tag.writeNDEF(message)
        // FAST_READ pages 0–15 (CC + TLV area), FAST_READ of CFG0/CFG1 (is the area protected?),
        // WRITE pages 5–9 (the factory `03 00` on page 4 reads as an empty message meanwhile),
        // page 4 with L = 20, FAST_READ 4–9 to verify.
        let sent = await Self.hexCommands(reader)
        #expect(sent == [
            "3A000F", "3A8384", "A205", "A206", "A207", "A208", "A209", "A204", "3A0409",
        ], "\(sent)")
        #expect(try await tag.readNDEF() == message)

        // Protect it: writes then need the password; reads do not.
        let password = try NTAGPassword(hex: "A1B2C3D4:5A5A")
        try await #require(tag.type2).setPassword(password)
        let stranger = try await Self.connect(reader)
        #expect(try await stranger.readNDEF() == message)
        await #expect { try await stranger.writeNDEF(message) } throws: { ($0 as? NFCTagError)?.code == .passwordRequired }
        #expect(await reader.commands.filter { $0.command.first == Type2Command.write }.isEmpty)
        let guesser = try await Self.connect(reader, password: try NTAGPassword(hex: "00000000"))
        await #expect { try await guesser.writeNDEF(message) } throws: { ($0 as? NFCTagError)?.code == .authenticationFailed }

        // The owner locks it for good.
        let owner = try await Self.connect(reader, password: password)
        try await owner.writeLock()
        let locked = try await Self.connect(reader, password: password)
        #expect(try await locked.queryNDEFStatus().status == .readOnly)
        await #expect { try await locked.writeNDEF(message) } throws: { ($0 as? NFCTagError)?.code == .readOnly }
        await reader.close()
        emulator.stop()

        // The tag file holds CC3 = 0F and the static lock bytes FF FF.
        let state = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any]
        let memory = try Hex.decode(try #require(state?["memory"] as? String))
        #expect(memory[10] == 0xFF && memory[11] == 0xFF && memory[15] == 0x0F)
    }

    @Test("what we write, nfc-mfultralight dumps and ndeflib decodes; what nfc-mfultralight writes, we read",
          ExternalTool.nfcMfUltralight.trait, ExternalTool.ndeflib.trait)
    func interoperability() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let tool = try ExternalTool.nfcMfUltralight.require()
        let python = try ExternalTool.ndeflib.require()
        let url = "https://example.org/interop/" + String(repeating: "x", count: 200)
        do {
            let emulator = try await EmulatorProcess.start(["--tag", "ntag216"])
            defer { emulator.stop() }
            let reader = await TracingReader(try await LibNFCReader.open(emulator.connectionString))
            let tag = try await Self.connect(reader)
            try await tag.writeNDEF(NDEFMessage(records: [try .wellKnownTypeURIPayload(url: url)]))
            await reader.close()
            let dump = try await runTool(tool, ["r", "ours.mfd"], against: emulator, in: directory)
            #expect(dump.output.contains("0 pages failed"))
        }
        let oracle = try await runTool(
            python, [oracleScript.path, directory.appendingPathComponent("ours.mfd").path],
            environment: ProcessInfo.processInfo.environment)
        #expect(oracle.status == 0, "\(oracle.output)")
        #expect(oracle.output.contains("\"uris\": [\"\(url)\"]"), "\(oracle.output)")

        // Theirs: an image with a two-record message written by nfc-mfultralight.
        let theirs = NDEFMessage(records: [
            try .wellKnownTypeURIPayload(url: "https://example.net/from-libnfc"),
            try .wellKnownTypeTextPayload(string: "written by nfc-mfultralight", locale: "en"),
        ])
        let encoded = try theirs.encoded()
        let emulator = try await EmulatorProcess.start(["--tag", "ntag213"])
        defer { emulator.stop() }
        _ = try await runTool(tool, ["r", "blank.mfd"], against: emulator, in: directory)
        var image = try [UInt8](Data(contentsOf: directory.appendingPathComponent("blank.mfd")))
        // NTAG213 keeps its Lock Control TLV at page 4; the NDEF TLV follows it.
        let tlv = [Type2TLVType.ndefMessage, UInt8(encoded.count)] + encoded + [Type2TLVType.terminator]
        image.replaceSubrange(21..<(21 + tlv.count), with: tlv)
        try Data(image).write(to: directory.appendingPathComponent("theirs.mfd"))
        let write = try await runTool(tool, ["w", "theirs.mfd"], against: emulator, input: "n\nn\nn\nn\n", in: directory)
        #expect(write.output.contains("0 pages failed"), "\(write.output)")
        let reader = await TracingReader(try await LibNFCReader.open(emulator.connectionString))
        let tag = try await Self.connect(reader)
        #expect(try await tag.readNDEF() == theirs)
        await reader.close()
    }
}
