import Foundation
import NDEF
import NFCCore
import NFCTags
import Testing
import VirtualTags

/// The write reads none of the pages it overwrites: the bytes after the new Terminator TLV go
/// to 00, unless the page holds a reserved byte it has not read (then that page is read first
/// and the byte kept). The batch's detection before a write reads pages 0–4 first.
@Suite("Type 2 write: what it reads before writing", .timeLimit(.minutes(1)))
struct Type2WriteWithoutReadingTests {
    /// Page `page`'s 4 bytes, by a raw READ on the reader (not through the code under test).
    static func page(_ page: Int, on reader: SimulatedReader) async throws -> [UInt8] {
        Array(try await reader.transceive(Bytes([Type2Command.read, UInt8(page)])).array.prefix(4))
    }

    @Test("the bytes after the Terminator TLV in the message's last page are written 00, that page not read first")
    func tailZeroed() async throws {
        let (reader, tag) = try await Type2NDEFTests.open(.ntag215)
        // Something left on page 9 (bytes 36-39) by an earlier use of the tag.
        _ = try await reader.transceive(Bytes([Type2Command.write, 9, 0x55, 0x55, 0x55, 0x55]))
        await reader.withField { $0.trace.removeAll() }
        // 20-byte message: TLV on bytes 16-38 (Terminator at 38), byte 39 after it.
        let message = try Type2NDEFTests.url("https://www.example.com/abc")
        try await tag.writeNDEF(message, verify: true)
        let beforeFirstWrite = await Type2NDEFTests.trace(reader).prefix { $0[0] != Type2Command.write }
        #expect(Array(beforeFirstWrite) == [[Type2Command.read, 0], [Type2Command.read, 4]])
        #expect(try await Self.page(9, on: reader).suffix(2) == [0xFE, 0x00])
        let state = try #require(await Type2NDEFTests.state(reader))
        let (_, fresh) = try await Type2NDEFTests.open(.ntag215, state: state)
        #expect(try await fresh.readNDEF() == message)
    }

    @Test("a reserved byte (Memory Control TLV) in the message's last page is read first and kept")
    func reservedByteKept() async throws {
        let (reader, tag) = try await Type2NDEFTests.open(.ntag215)
        // Memory Control TLV `02 03 50 02 03` on bytes 16-20, reserving bytes 40-41 (5 × 8 + 0,
        // 2 bytes); an empty NDEF TLV `03 00` on bytes 21-22, FE after it; bytes 40-41 hold AA BB.
        for (page, bytes) in [(4, [0x02, 0x03, 0x50, 0x02]), (5, [0x03, 0x03, 0x00, 0xFE]), (10, [0xAA, 0xBB, 0x00, 0x00])] as [(Int, [UInt8])] {
            _ = try await reader.transceive(Bytes([Type2Command.write, UInt8(page)] + bytes))
        }
        await reader.withField { $0.trace.removeAll() }
        // A 17-byte message: V on bytes 23-39, Terminator on byte 42 (40-41 reserved), 43 free.
        let message = try Type2NDEFTests.url("https://abcd.example")
        #expect(try message.encoded().count == 17)
        try await tag.writeNDEF(message, verify: true)
        let beforeFirstWrite = await Type2NDEFTests.trace(reader).prefix { $0[0] != Type2Command.write }
        #expect(beforeFirstWrite.contains([Type2Command.read, 8]), "page 10 not read before writing: \(beforeFirstWrite)")
        #expect(try await Self.page(10, on: reader) == [0xAA, 0xBB, 0xFE, 0x00])
        let state = try #require(await Type2NDEFTests.state(reader))
        let (_, fresh) = try await Type2NDEFTests.open(.ntag215, state: state)
        #expect(try await fresh.readNDEF() == message)
    }

    @Test("the detection for a write reads pages 0-4 first, and on as far as a stored message runs; the write then replaces it")
    func detectionForWrite() async throws {
        let old = try Type2NDEFTests.url("https://example.com/" + String(repeating: "o", count: 100))
        let (reader, _) = try await Type2NDEFTests.open(.ntag215, message: old)
        let tag = Type2Tag(reader: reader, usesFastRead: true)
        await reader.withField { $0.trace.removeAll() }
        let detected = try await tag.detectNDEF(forWrite: true)
        #expect(detected.query.messageLength == (try old.encoded().count))
        let reads = await reader.withField { $0.trace.map { Array($0.command) } }
        #expect(reads.first == [Type2Command.fastRead, 0, 4], "\(reads)")
        let new = try Type2NDEFTests.url("https://n.example")
        try await tag.writeNDEF(new, verify: true, detected: detected)
        let state = try #require(await Type2NDEFTests.state(reader))
        let (_, fresh) = try await Type2NDEFTests.open(.ntag215, state: state)
        #expect(try await fresh.readNDEF() == new)
    }
}
