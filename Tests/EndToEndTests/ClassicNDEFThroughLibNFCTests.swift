import Foundation
import LibNFC
import NDEF
import NFCCore
import NFCTags
import NFCTestSupport
import Testing
import VirtualTags

/// MIFARE Classic NDEF through real libnfc and the PN532 emulator (authentication in the PN532
/// "firmware", READ/WRITE through InDataExchange), and interoperability: a card formatted and
/// written here is read by libfreefare's `mifare-classic-read-ndef`, an independent
/// implementation of AN1304 over libnfc.
@Suite("MIFARE Classic NDEF through real libnfc and the PN532 emulator", .tags(.endToEnd, .emulator), .serialized, .timeLimit(.minutes(10)))
struct ClassicNDEFThroughLibNFCTests {
    /// A 20-byte URI message.
    static func url() throws -> NDEFMessage {
        NDEFMessage(records: [try NDEFPayload.wellKnownTypeURIPayload(url: "https://example.com/abc")])
    }

    /// Opens libnfc on the emulator, selects the card and returns the NDEF platform on a tracing
    /// reader, with the identity libnfc's answers give.
    static func open(_ emulator: EmulatorProcess) async throws -> (LibNFCReader, TracingReader, ClassicNDEFTag) {
        let reader = try await LibNFCReader.open(emulator.connectionString)
        let info = try #require(try await reader.poll(for: [.iso14443A], timeout: .seconds(2)))
        let identity = await ChipIdentification.identify(info, on: reader)
        #expect(identity.model == "MIFARE Classic 1K")
        guard case .iso14443A(let target) = info else { throw NFCTagError(.notSupported, "not type A") }
        let tracing = await TracingReader(reader)
        let tag = MiFareTag(reader: tracing, target: target, identity: identity)
        #expect(tag.mifareFamily == .classic)
        return (reader, tracing, ClassicNDEFTag(tag: tag))
    }

    /// The MIFARE commands the emulator saw through InDataExchange (`D4 40 01 <code>`).
    static func exchanges(_ emulator: EmulatorProcess, code: UInt8) -> Int {
        emulator.trace.filter { $0.contains("> D4 40 01 \(Hex.encode([code]).uppercased()) ") }.count
    }

    @Test("format, query, write and read back through libnfc; the tag file holds the AN1304 layout")
    func formatWriteRead() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("classic.json").path
        let emulator = try await EmulatorProcess.start(["--tag", "classic1k:\(file)"])
        let (reader, tracing, tag) = try await Self.open(emulator)
        let message = try Self.url()

        #expect(try await tag.queryNDEFStatus().status == .notSupported)
        await tracing.reset()
        try await tag.format()
        let formatCommands = await tracing.commands.count
        #expect(formatCommands == 114)
        #expect(try await tag.queryNDEFStatus() == NDEFQuery(status: .readWrite, capacity: 716, messageLength: 0))
        #expect(try await tag.readNDEF() == .empty)

        await tracing.reset()
        try await tag.writeNDEF(message)
        let written = await tracing.commands.map { Array($0.command.array.prefix(2)) }
        #expect(written == [
            [0x60, 3], [0x30, 3], [0x30, 1], [0x30, 2], [0x60, 7], [0x30, 7], [0x30, 4], [0x30, 5],
            [0xA0, 4], [0xA0, 5], [0xA0, 4], [0x30, 4], [0x30, 5],
        ])
        #expect(try await tag.readNDEF() == message)
        await reader.close()
        emulator.stop()

        let state = try TagFile(path: file).load()
        let memory = try Hex.decode(state.memory)
        #expect(Array(memory[16..<20]) == [0x14, 0x01, 0x03, 0xE1])
        #expect(Array(memory[54..<58]) == [0x78, 0x77, 0x88, 0xC1])
        #expect(Array(memory[118..<122]) == [0x7F, 0x07, 0x88, 0x40])
        #expect(Array(memory[64..<66]) == [0x03, 0x14])
    }

    @Test("a wrong key is authenticationFailed through libnfc and the card answers again after it")
    func wrongKey() async throws {
        let emulator = try await EmulatorProcess.start(["--tag", "classic1k"])
        let (reader, _, ndef) = try await Self.open(emulator)
        do {
            try await ndef.tag.authenticate(sector: 2, keyType: .a, key: Bytes([1, 2, 3, 4, 5, 6]))
            Issue.record("accepted")
        } catch {
            #expect(error.code == .authenticationFailed)
            #expect(!error.description.contains("01 02 03 04 05 06"))
        }
        try await ndef.tag.authenticate(sector: 2, keyType: .a, key: Bytes(ClassicNDEFTag.transportKey))
        #expect(try await ndef.tag.readBlock(8) == [UInt8](repeating: 0, count: 16))
        await reader.close()
        emulator.stop()
    }

    @Test("locked through libnfc, the card is read-only and a write sends no WRITE")
    func lockThroughLibNFC() async throws {
        let emulator = try await EmulatorProcess.start(["--tag", "classic1k"])
        let (reader, _, tag) = try await Self.open(emulator)
        let message = try Self.url()
        try await tag.format()
        try await tag.writeNDEF(message)
        try await tag.writeLock()
        #expect(try await tag.queryNDEFStatus().status == .readOnly)
        let before = Self.exchanges(emulator, code: ClassicCommand.write)
        // Format, write and lock sent WRITEs (16 trailers by the lock alone): a count of 0 would
        // mean the trace pattern matches nothing and the check below proves nothing.
        #expect(before >= 16, "only \(before) WRITEs found in the emulator trace")
        await #expect(throws: NFCTagError.self) { try await tag.writeNDEF(message) }
        #expect(Self.exchanges(emulator, code: ClassicCommand.write) == before)
        #expect(try await tag.readNDEF() == message)
        await reader.close()
        emulator.stop()
    }

    @Test("libfreefare's mifare-classic-read-ndef finds the MAD and the NDEF message of a card formatted and written here", ExternalTool.mifareClassicReadNDEF.trait)
    func libfreefareReadsOurCard() async throws {
        let tool = try ExternalTool.mifareClassicReadNDEF.require()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("classic.json").path
        let emulator = try await EmulatorProcess.start(["--tag", "classic1k:\(file)"])
        let (reader, _, tag) = try await Self.open(emulator)
        let message = try Self.url()
        try await tag.format()
        try await tag.writeNDEF(message)
        await reader.close()
        emulator.stop()

        let again = try await EmulatorProcess.start(["--tag", "classic1k:\(file)"])
        defer { again.stop() }
        let output = directory.appendingPathComponent("ndef.bin")
        let run = try await runTool(tool, ["-y", "-o", output.path], against: again, timeout: 20)
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("NDEF Message TLV"), "\(run.output)")
        let extracted = try Data(contentsOf: output)
        #expect([UInt8](extracted) == (try message.encoded()))
    }

    @Test("a transport card written by libfreefare's mifare-classic-write-ndef reads back here", ExternalTool.mifareClassicWriteNDEF.trait)
    func weReadLibfreefareCard() async throws {
        let tool = try ExternalTool.mifareClassicWriteNDEF.require()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("classic.json").path
        let input = directory.appendingPathComponent("ndef.bin")
        let message = try Self.url()
        try Data(try message.encoded()).write(to: input)
        let emulator = try await EmulatorProcess.start(["--tag", "classic1k:\(file)"])
        let run = try await runTool(tool, ["-y", "-i", input.path], against: emulator, timeout: 20)
        #expect(run.status == 0, "\(run.output)")
        emulator.stop()

        let again = try await EmulatorProcess.start(["--tag", "classic1k:\(file)"])
        let (reader, _, tag) = try await Self.open(again)
        #expect(try await tag.readNDEF() == message)
        let query = try await tag.queryNDEFStatus()
        #expect(query.status == .readWrite)
        #expect(query.messageLength == (try message.encoded()).count)
        await reader.close()
        again.stop()
    }
}
