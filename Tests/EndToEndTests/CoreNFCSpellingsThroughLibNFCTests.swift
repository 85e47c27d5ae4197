import Foundation
import NDEF
import NFCCore
import NFCKit
import NFCTags
import NFCTestSupport
import Testing

/// CoreNFC's spellings of the tag calls (`isAvailable`, `sendMiFareCommand(commandPacket:)`, the
/// FeliCa commands with `Data`) through real libnfc and the PN532 emulator. The answers are
/// checked against the tag file the emulator serves and the datasheets, not against what NFCKit
/// wrote. ISO 15693 is not here: a PN532 has no ISO 15693 (the simulator's tests cover those
/// spellings, Tests/NFCKitTests/CoreNFCTagCommandTests.swift).
@Suite("CoreNFC's tag spellings through real libnfc and the PN532 emulator", .tags(.endToEnd, .emulator), .serialized, .timeLimit(.minutes(5)))
struct CoreNFCSpellingsThroughLibNFCTests {
    /// A tag session on `emulator` polling `option`, with its first tag connected.
    static func connectedTag(
        _ emulator: EmulatorProcess, _ option: NFCTagReaderSession.PollingOption
    ) async throws -> (NFCTagReaderSession, NFCTag) {
        let session = NFCTagReaderSession(pollingOption: option, connection: emulator.connectionString)
        try await session.begin()
        let tags = EventCollector(session.tags)
        #expect(await tags.wait(forCount: 1, within: .seconds(10)))
        let tag = try #require(tags.elements.first)
        try await session.connect(to: tag)
        return (session, tag)
    }

    /// The `memory` of the tag file at `path`, as the emulator saved it.
    static func memory(_ path: String) throws -> [UInt8] {
        let state = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
        return try Hex.decode(try #require(state?["memory"] as? String))
    }

    /// A tag file for `model` made by the simulator, with `ndef` stored when given.
    static func tagFile(_ model: String, in directory: URL, ndef: [UInt8]? = nil) async throws -> String {
        let path = directory.appendingPathComponent("\(model).json").path
        let reader = try await ReaderConnection.open("sim:\(model)?file=\(path)" + (ndef.map { "&ndef=\(Hex.encode($0))" } ?? ""))
        await reader.close()
        return path
    }

    @Test("isAvailable is true for the connected tag and false once the emulator took the tag away")
    func isAvailableFollowsTheField() async throws {
        let emulator = try await EmulatorProcess.start(["--tag", "ntag215"])
        defer { emulator.stop() }
        let (session, tag) = try await Self.connectedTag(emulator, [.iso14443])
        let ndef = tag.ndef
        #expect(try await runBlocking { tag.isAvailable })
        #expect(try await runBlocking { ndef.isAvailable })
        let answer = try await emulator.control("remove")
        #expect(answer.hasPrefix("ok empty"), "\(answer)")
        #expect(try await runBlocking { tag.isAvailable } == false)
        #expect(try await runBlocking { ndef.isAvailable } == false)
        await session.invalidate()
    }

    @Test("sendMiFareCommand(commandPacket:): READ 3 gives pages 3-6 of the tag file, GET_VERSION the NTAG215's version, a READ past the end NFCReaderError 102")
    func miFareCommand() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // D1 01 0E 55 04 "example.com/m": a URI record, so that page 4 on holds known bytes.
        let path = try await Self.tagFile("ntag215", in: directory, ndef: [0xD1, 0x01, 0x0E, 0x55, 0x04] + Array("example.com/m".utf8))
        let memory = try Self.memory(path)
        let emulator = try await EmulatorProcess.start(["--tag", "ntag215:\(path)"])
        defer { emulator.stop() }
        let (session, tag) = try await Self.connectedTag(emulator, [.iso14443])
        guard case .miFare(let miFare) = tag else { Issue.record("not a MIFARE tag: \(tag)"); return }
        let pages = try await miFare.sendMiFareCommand(commandPacket: Data([0x30, 0x03]))
        #expect(Array(pages) == Array(memory[12..<28]))
        // NTAG213/215/216 datasheet §8.5.6: the CC of an NTAG215 is E1 10 3E 00.
        #expect(Array(pages.prefix(4)) == [0xE1, 0x10, 0x3E, 0x00])
        // Datasheet §10.1, Table 28: NTAG215's GET_VERSION answer.
        let version = try await miFare.sendMiFareCommand(commandPacket: Data([0x60]))
        #expect(Array(version) == [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03])
        let readPastTheEnd: @Sendable () async throws -> Data = { try await miFare.sendMiFareCommand(commandPacket: Data([0x30, 0xF0])) }
        do {
            _ = try await readPastTheEnd()
            Issue.record("READ of page F0 answered")
        } catch let error as NFCReaderError {
            #expect(error.code == .readerTransceiveErrorTagResponseError)
        } catch {
            Issue.record("not an NFCReaderError: \(error)")
        }
        // The completion form, on the main actor.
        let (answer, error) = await withCheckedContinuation { continuation in
            miFare.sendMiFareCommand(commandPacket: Data([0x30, 0x04])) { data, error in
                continuation.resume(returning: (data, error.map { "\($0)" }))
            }
        }
        #expect(error == nil)
        #expect(Array(answer) == Array(memory[16..<32]))
        // The commands went to the tag over the wire: InDataExchange (D4 40) to target 1.
        #expect(emulator.trace.contains { $0.contains("> D4 40 01 30 03") })
        await session.invalidate()
    }

    @Test("FeliCa requestService(nodeCodeList:) and readWithoutEncryption(serviceCodeList:blockList:): key versions, status 00 00, the tag file's blocks")
    func feliCaCommands() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try await Self.tagFile("felica-lite-s", in: directory)
        // S_PAD1 (block 1) holds a pattern put in the file here, for the emulator to serve.
        var memory = try Self.memory(path)
        let pattern: [UInt8] = (0..<16).map { UInt8(0xA0 + $0) }
        memory.replaceSubrange(16..<32, with: pattern)
        var state = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        state["memory"] = Hex.encode(memory)
        try JSONSerialization.data(withJSONObject: state).write(to: URL(fileURLWithPath: path))
        let emulator = try await EmulatorProcess.start(["--tag", "felica-lite-s:\(path)"])
        defer { emulator.stop() }
        let (session, tag) = try await Self.connectedTag(emulator, [.iso18092])
        guard case .feliCa(let feliCa) = tag else { Issue.record("not a FeliCa tag: \(tag)"); return }
        // FeliCa Lite-S user's manual: service 000B exists (key version 0000 — Lite-S has no
        // keys per service); 1234 does not (FFFF).
        let versions = try await feliCa.requestService(nodeCodeList: [Data([0x0B, 0x00]), Data([0x34, 0x12])])
        #expect(versions == [Data([0x00, 0x00]), Data([0xFF, 0xFF])])
        let (flags, blocks) = try await feliCa.readWithoutEncryption(
            serviceCodeList: [Data([0x0B, 0x00])], blockList: [Data([0x80, 0x00]), Data([0x80, 0x01])])
        #expect(flags == NFCFeliCaStatusFlag(statusFlag1: Data([0]), statusFlag2: Data([0])))
        #expect(blocks.map { Array($0) } == [Array(memory[0..<16]), pattern])
        // Read Without Encryption (06) went to the tag through libnfc.
        #expect(emulator.trace.contains { $0.contains("> D4 40 01") && $0.contains(" 06 ") })
        await session.invalidate()
    }
}
