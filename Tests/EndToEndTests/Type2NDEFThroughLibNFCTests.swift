import Foundation
import LibNFC
import NDEF
import NFCCore
import NFCTags
import NFCTestSupport
import Testing

/// Type 2 NDEF through real libnfc and the PN532 emulator: what a user with a PN532 gets.
@Suite("Type 2 NDEF through real libnfc and the PN532 emulator", .tags(.endToEnd, .emulator), .serialized, .timeLimit(.minutes(10)))
struct Type2NDEFThroughLibNFCTests {
    @Test("a factory NTAG215 queries as empty read-write; a URL written through libnfc reads back, and is on the tag file")
    func writeAndReadBack() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("tag.json").path
        let emulator = try await EmulatorProcess.start(["--tag", "ntag215:\(file)"])
        let reader = try await LibNFCReader.open(emulator.connectionString)
        let target = try #require(try await reader.poll(for: [.iso14443A], timeout: .seconds(2)))
        let identity = await ChipIdentification.identify(target, on: reader)
        #expect(identity.model == "NTAG215")
        // Identification's GET_VERSION leaves the chip as it was; select again to be sure.
        _ = try await reader.poll(for: [.iso14443A], timeout: .seconds(2))
        let tag = Type2Tag(reader: reader, identity: identity)

        let before = try await tag.queryNDEFStatus()
        #expect(before.status == .readWrite)
        #expect(before.capacity == 492)
        #expect(before.messageLength == 0)
        #expect(try await tag.readNDEF().isEmpty)

        let message = NDEFMessage(records: [try .wellKnownTypeURIPayload(url: "https://example.com/t/04534944000001")])
        try await tag.writeNDEF(message)
        #expect(try await tag.readNDEF() == message)
        await reader.close()
        emulator.stop()

        // A second emulator run on the same tag file: the message is still there.
        let again = try await EmulatorProcess.start(["--tag", "ntag215:\(file)"])
        let reader2 = try await LibNFCReader.open(again.connectionString)
        _ = try #require(try await reader2.poll(for: [.iso14443A], timeout: .seconds(2)))
        #expect(try await Type2Tag(reader: reader2).readNDEF() == message)
        await reader2.close()
    }

    @Test("GET_VERSION's answer lost on the air (PN532 status 02): info in a fresh process asks again and names the NTAG213")
    func lostVersionAnswer() async throws {
        let emulator = try await EmulatorProcess.start(["--tag", "ntag213", "--rf-error-on", "1"])
        defer { emulator.stop() }
        let info = try await runBuiltNFCTool(["info", "--json", "--device", emulator.connectionString])
        #expect(info.status == 0, "\(info.standardError)")
        #expect(info.standardOutput.contains("\"NTAG213\""), "\(info.standardOutput)")
        #expect(!info.standardOutput.contains("MIFARE Ultralight"))
        // GET_VERSION (60) sent raw through InCommunicateThru (D4 42), twice: the lost answer and the one read.
        #expect(emulator.trace.filter { $0.hasSuffix("> D4 42 60") }.count == 2, "\(emulator.trace)")
    }

    @Test("a message one byte over capacity is refused through libnfc before any write")
    func tooBig() async throws {
        let emulator = try await EmulatorProcess.start(["--tag", "ntag213"])
        let reader = try await LibNFCReader.open(emulator.connectionString)
        _ = try #require(try await reader.poll(for: [.iso14443A], timeout: .seconds(2)))
        let tag = Type2Tag(reader: reader)
        let capacity = try await tag.queryNDEFStatus().capacity
        // A MIME record whose encoding is exactly capacity + 1 bytes: header 3, type 10.
        let data = Bytes([UInt8](repeating: 0x41, count: capacity + 1 - 3 - 10))
        let message = NDEFMessage(records: [try .mimeTypePayload(type: "text/plain", data: data)])
        #expect(try message.encoded().count == capacity + 1)
        // WRITE (A2) to target 1 through InDataExchange (D4 40), as the emulator traces it.
        func writes() -> Int { emulator.trace.filter { $0.contains("> D4 40 01 A2 ") }.count }
        // The count sees writes: a small message costs some.
        try await tag.writeNDEF(NDEFMessage(records: [try .wellKnownTypeURIPayload(url: "https://a.example")]))
        let writesBefore = writes()
        #expect(writesBefore > 0)
        await #expect { try await tag.writeNDEF(message) } throws: {
            ($0 as? NFCTagError)?.code == .capacityExceeded
        }
        #expect(writes() == writesBefore)
        await reader.close()
    }
}
