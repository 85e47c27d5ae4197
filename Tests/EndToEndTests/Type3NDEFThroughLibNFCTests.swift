import Foundation
import LibNFC
import NDEF
import NFCCore
import NFCTags
import NFCTestSupport
import Testing


/// Type 3 NDEF through real libnfc and the PN532 emulator hosting a virtual FeliCa Lite-S.
@Suite("Type 3 NDEF through real libnfc and the PN532 emulator", .tags(.endToEnd, .emulator), .serialized, .timeLimit(.minutes(10)))
struct Type3NDEFThroughLibNFCTests {
    /// Opens libnfc on `emulator`, polls FeliCa 212 kbit/s and wraps the reader in a tracer.
    static func open(_ emulator: EmulatorProcess) async throws -> (LibNFCReader, TracingReader, FeliCaTag) {
        let reader = try await LibNFCReader.open(emulator.connectionString)
        let target = try #require(try await reader.poll(for: [.felica212], timeout: .seconds(2)))
        guard case .felica(let f) = target else {
            Issue.record("not a FeliCa target: \(target)")
            throw NFCTagError(.notSupported, "not FeliCa")
        }
        let identity = await ChipIdentification.identify(target, on: reader)
        #expect(identity.model == "FeliCa Lite-S")
        #expect(identity.hasNDEF == true)
        let tracer = await TracingReader(reader)
        return (reader, tracer, FeliCaTag(reader: tracer, target: f, identity: identity))
    }

    /// The traced commands in short, as NFCTestSupport's ``type3Summary(_:)`` writes them.
    static func trace(_ tracer: TracingReader) async -> [String] {
        await tracer.commands.map { type3Summary($0.command.array) }
    }

    @Test("query, write and read back a URL through libnfc: the same commands as on the simulator; the tag file keeps it")
    func writeAndReadBack() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("lites.json").path
        let emulator = try await EmulatorProcess.start(["--tag", "felica-lite-s:\(file)"])
        let (reader, tracer, feliCa) = try await Self.open(emulator)
        // libnfc polls with system code FFFF: the Lite-S names its own system, 88B4, as the
        // simulator's tag does for the same Polling; asked for 12FC, it answers 12FC.
        #expect(feliCa.currentSystemCode == 0x88B4)
        #expect(try await feliCa.polling(systemCode: 0x12FC, requestCode: .systemCode).requestData.array == [0x12, 0xFC])
        #expect(try await feliCa.requestSystemCode() == [0x88B4, 0x12FC])
        await tracer.reset()

        let tag = Type3Tag(feliCa: feliCa)
        #expect(tag.isFeliCaLiteS)
        #expect(try await tag.queryNDEFStatus() == NDEFQuery(status: .readWrite, capacity: 208, messageLength: 0))
        #expect(try await tag.readNDEF() == .empty)
        await tracer.reset()

        let message = NDEFMessage(records: [try .wellKnownTypeURIPayload(url: "https://www.example.com/abc")])
        #expect(try message.encoded().count == 20)
        try await tag.writeNDEF(message)
        #expect(await Self.trace(tracer) == ["R 0,1,2,3", "W 0", "W 1", "W 2", "W 0", "R 0,1,2"])
        await tracer.reset()
        #expect(try await tag.readNDEF() == message)
        #expect(await Self.trace(tracer) == ["R 0,1,2,3"])
        await reader.close()
        emulator.stop()

        // A second run on the same tag file: the message is still there.
        let again = try await EmulatorProcess.start(["--tag", "felica-lite-s:\(file)"])
        let (reader2, _, feliCa2) = try await Self.open(again)
        #expect(try await Type3Tag(feliCa: feliCa2).readNDEF() == message)
        await reader2.close()
        again.stop()
    }

    @Test("a message one byte over capacity is refused through libnfc with no Write Without Encryption")
    func tooBig() async throws {
        let emulator = try await EmulatorProcess.start(["--tag", "felica-lite-s"])
        let (reader, tracer, feliCa) = try await Self.open(emulator)
        let tag = Type3Tag(feliCa: feliCa)
        let data = Bytes([UInt8](repeating: 0x41, count: 209 - 3 - 10))
        let message = NDEFMessage(records: [try .mimeTypePayload(type: "text/plain", data: data)])
        #expect(try message.encoded().count == 209)
        await tracer.reset()
        await #expect { try await tag.writeNDEF(message) } throws: { ($0 as? NFCTagError)?.code == .capacityExceeded }
        #expect(await tracer.commands.filter { $0.command.first == Type3Command.writeWithoutEncryption }.isEmpty)
        #expect(await tracer.commands.count == 1)
        await reader.close()
    }

    @Test("libnfc's nfc-read-forum-tag3 reads back the message NFCKit wrote",
          ExternalTool.nfcReadForumTag3.trait)
    func nfcReadForumTag3ReadsOurWrite() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let emulator = try await EmulatorProcess.start(["--tag", "felica-lite-s"])
        defer { emulator.stop() }
        let (reader, _, feliCa) = try await Self.open(emulator)
        // libnfc 1.8's tool reads at most one Check command of Nbr blocks (its loop bound
        // divides the block count by Nbr twice), so longer messages come out cut at 64 bytes:
        // a message under 64 bytes stays inside what it reads.
        let message = NDEFMessage(records: [try .wellKnownTypeURIPayload(url: "https://example.com/t3/" + String(repeating: "x", count: 20))])
        let encoded = try message.encoded()
        #expect(encoded.count > 32 && encoded.count < 64)
        try await Type3Tag(feliCa: feliCa).writeNDEF(message)
        await reader.close()

        let output = directory.appendingPathComponent("t3.ndef")
        let run = try await runTool(ExternalTool.nfcReadForumTag3.require(), ["-o", output.path], against: emulator)
        #expect(!run.timedOut)
        #expect(run.output.contains("* Checksum: ok"), "\(run.output)")
        #expect(run.output.contains("* NDEF message length: \(encoded.count) bytes"), "\(run.output)")
        let written = try Data(contentsOf: output)
        #expect(Array(written) == encoded)
    }

    @Test("writeLock through libnfc: the same 4 commands as on the simulator; nfc-read-forum-tag3 then sees a read-only tag",
          ExternalTool.nfcReadForumTag3.trait)
    func lockThroughLibNFC() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let emulator = try await EmulatorProcess.start(["--tag", "felica-lite-s"])
        defer { emulator.stop() }
        let (reader, tracer, feliCa) = try await Self.open(emulator)
        let tag = Type3Tag(feliCa: feliCa)
        let message = NDEFMessage(records: [try .wellKnownTypeURIPayload(url: "https://www.example.com/abc")])
        try await tag.writeNDEF(message)
        await tracer.reset()
        try await tag.writeLock()
        #expect(await Self.trace(tracer) == ["R 0,88", "W 0", "W 88", "R 0,88"])
        #expect(try await tag.queryNDEFStatus().status == .readOnly)
        await reader.close()

        let run = try await runTool(ExternalTool.nfcReadForumTag3.require(), ["-o", directory.appendingPathComponent("t3.ndef").path], against: emulator)
        #expect(run.output.contains("* NDEF Access Attribute: Read only (0x00)"), "\(run.output)")
        #expect(Array(try Data(contentsOf: directory.appendingPathComponent("t3.ndef"))) == (try message.encoded()))
    }
}
