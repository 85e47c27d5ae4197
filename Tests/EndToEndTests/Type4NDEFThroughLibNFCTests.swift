import Foundation
import LibNFC
import NDEF
import NFCCore
import NFCTags
import NFCTestSupport
import Testing

/// Type 4 NDEF through real libnfc and the PN532 emulator: the PN532 firmware (emulated) frames
/// the APDUs in ISO-DEP blocks, as with a real reader.
@Suite("Type 4 NDEF through real libnfc and the PN532 emulator", .tags(.endToEnd, .emulator), .serialized, .timeLimit(.minutes(10)))
struct Type4NDEFThroughLibNFCTests {
    @Test("query, a 200-byte message written and read back in chunks through libnfc, persisted in the tag file")
    func writeAndReadBack() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("type4.json").path
        let emulator = try await EmulatorProcess.start(["--tag", "type4:\(file)"])
        let libnfc = try await LibNFCReader.open(emulator.connectionString)
        let reader = await TracingReader(libnfc)
        let target = try #require(try await reader.poll(for: [.iso14443A], timeout: .seconds(2)))
        guard case .iso7816(let tag) = try await NFCTag.connect(to: target, on: reader) else {
            Issue.record("the Type 4 tag did not connect as an ISO 7816 tag")
            return
        }
        #expect(tag.identity.platform == .type4)
        #expect(try await tag.queryNDEFStatus() == NDEFQuery(status: .readWrite, capacity: 2046, messageLength: 0))
        #expect(try await tag.readNDEF().isEmpty)

        let message = NDEFMessage(records: [try .wellKnownTypeURIPayload(url: "https://example.com/" + String(repeating: "t", count: 180))])
        let length = try message.encoded().count
        #expect(length > 0x3B && length > 64)  // more than MLe, MLc and the 64-byte ISO-DEP frame (FSCI 5)
        await reader.reset()
        try await tag.writeNDEF(message)
        let commands = await reader.commands.map(\.command)
        // 4 APDUs of detection, a 1-byte READ BINARY of the last byte to write (the file is as large
        // as the CC says), NLEN 0, the data in MLc (52-byte) chunks, NLEN, read-back in MLe (59-byte) chunks.
        let updates = commands.filter { $0.count > 1 && $0[1] == Type4Command.updateBinary }
        #expect(updates.count == 2 + (length + 51) / 52)
        #expect(commands.count == 4 + 1 + updates.count + (length + 2 + 58) / 59)
        #expect(updates.first?.array == [0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00])
        #expect(updates.last?.array == [0x00, 0xD6, 0x00, 0x00, 0x02, UInt8(length >> 8), UInt8(length & 0xFF)])
        #expect(try await tag.readNDEF() == message)
        #expect(try await tag.queryNDEFStatus().messageLength == length)
        await libnfc.close()
        emulator.stop()

        // A second emulator run on the same tag file: the message is still there.
        let again = try await EmulatorProcess.start(["--tag", "type4:\(file)"])
        let reader2 = try await LibNFCReader.open(again.connectionString)
        _ = try #require(try await reader2.poll(for: [.iso14443A], timeout: .seconds(2)))
        #expect(try await Type4Tag(reader: reader2).readNDEF() == message)
        await reader2.close()
    }

    @Test("an oversize message is refused through libnfc with no UPDATE BINARY on the wire")
    func refusedBeforeWriting() async throws {
        let emulator = try await EmulatorProcess.start(["--tag", "type4"])
        let reader = try await LibNFCReader.open(emulator.connectionString)
        _ = try #require(try await reader.poll(for: [.iso14443A], timeout: .seconds(2)))
        let tag = Type4Tag(reader: reader)
        // UPDATE BINARY (D6) to target 1 through InDataExchange (D4 40), as the emulator traces it.
        func updates() -> Int { emulator.trace.filter { $0.contains("> D4 40 01 00 D6 ") }.count }
        try await tag.writeNDEF(NDEFMessage(records: [try .wellKnownTypeURIPayload(url: "https://a.example")]))
        let before = updates()
        #expect(before == 3)
        let capacity = try await tag.queryNDEFStatus().capacity
        let data = Bytes([UInt8](repeating: 0x41, count: capacity + 5 - 6 - 10))  // long record: header 6, type 10
        let tooBig = NDEFMessage(records: [try .mimeTypePayload(type: "text/plain", data: data)])
        #expect(try tooBig.encoded().count == capacity + 5)
        await #expect { try await tag.writeNDEF(tooBig) } throws: {
            ($0 as? NFCTagError)?.code == .capacityExceeded && ($0 as? NFCTagError)?.reason.hasSuffix("by 5 bytes") == true
        }
        #expect(updates() == before)
        await reader.close()
    }
}
