import NDEF
import NFCCore
import NFCTestSupport
import Testing
@testable import NFCTags

/// Capability container and TLV area parsing (NFC Forum Type 2 Tag 1.2, 2.3 and 6.1), on the
/// factory images of the NTAG213/215/216 datasheet (8.5.6) and on malformed images.
/// Tag memory images for the parsing tests.
enum Type2Images {
    /// Tag memory from address 0: 12 bytes of UID/lock, the CC, then `data` padded with zeros
    /// to the data area size.
    static func image(cc: [UInt8], data: [UInt8]) -> [UInt8] {
        let size = Int(cc[2]) * 8
        return [UInt8](repeating: 0, count: 12) + cc + data + [UInt8](repeating: 0, count: max(0, size - data.count))
    }

    static let ntag213 = image(cc: [0xE1, 0x10, 0x12, 0x00], data: [0x01, 0x03, 0xA0, 0x0C, 0x34, 0x03, 0x00, 0xFE])
    static let ntag215 = image(cc: [0xE1, 0x10, 0x3E, 0x00], data: [0x03, 0x00, 0xFE])
    static let ntag216 = image(cc: [0xE1, 0x10, 0x6D, 0x00], data: [0x03, 0x00, 0xFE])

}

@Suite("Type 2 CC and TLV parsing", .timeLimit(.minutes(5)))
struct Type2ParsingTests {
    /// NTAG213: data area CC2 0x12 × 8 = 144 bytes (pages 4–39). The Lock Control TLV
    /// `01 03 A0 0C 34` puts 12 lock bits (2 bytes) at page 0xA × 2^4 = byte 160 (page 40), past the
    /// data area, so nothing inside is reserved. The NDEF TLV starts at byte 21: 144 − 5 = 139
    /// usable bytes; a 1-byte length leaves 139 − 2 = 137.
    @Test("NTAG213 factory image: Lock Control TLV honoured, capacity 137")
    func ntag213() throws {
        let area = try Type2TLVArea.parse(memory: Type2Images.ntag213)
        #expect(area.capabilityContainer.dataAreaSize == 144)
        #expect(area.ndefTLVAddress == 21)
        #expect(area.messageLength == 0)
        #expect(area.reservedAreas == [Type2ReservedArea(kind: .lockBits, addresses: 160..<162, bitCount: 12)])
        #expect(area.capacity == 137)
    }

    /// NTAG215: CC2 0x3E × 8 = 496 bytes. No Lock Control TLV: the default dynamic lock area is
    /// ⌈(496 − 48) / 8⌉ = 56 bits = 7 bytes at byte 512, past the data area. 496 usable bytes from
    /// the T byte; a message ≥ 255 bytes takes a 3-byte length: 496 − 4 = 492.
    @Test("NTAG215 factory image: default dynamic lock area, capacity 492")
    func ntag215() throws {
        let area = try Type2TLVArea.parse(memory: Type2Images.ntag215)
        #expect(area.ndefTLVAddress == 16)
        #expect(area.reservedAreas == [Type2ReservedArea(kind: .lockBits, addresses: 512..<519, bitCount: 56)])
        #expect(area.capacity == 492)
    }

    /// NTAG216: CC2 0x6D × 8 = 872 bytes; 872 − 4 = 868. (The chip has 888 user bytes; the NFC
    /// Forum data area is what CC2 declares.)
    @Test("NTAG216 factory image: capacity 868")
    func ntag216() throws {
        let area = try Type2TLVArea.parse(memory: Type2Images.ntag216)
        #expect(area.capacity == 868)
        // ⌈(872 − 48) / 8⌉ = 103 lock bits = 13 bytes at byte 888.
        #expect(area.reservedAreas == [Type2ReservedArea(kind: .lockBits, addresses: 888..<901, bitCount: 103)])
    }

    @Test("capacity rule at the 1-byte/3-byte length boundary", arguments: [
        (2, 0), (3, 1), (139, 137), (256, 254), (258, 254), (259, 255), (496, 492), (1, 0), (0, 0),
        // The 3-byte length stops at FFFE (FFFF is reserved), however much memory is announced.
        (0xFFFE + 4, 0xFFFE), (0xFFFE + 5, 0xFFFE), (524_280, 0xFFFE),
    ])
    func capacityRule(usable: Int, capacity: Int) {
        #expect(Type2TLVArea.capacity(usableBytes: usable) == capacity)
    }

    @Test("a stored message with a 3-byte length is found")
    func threeByteLength() throws {
        let message = [UInt8](repeating: 0x41, count: 300)
        let area = try Type2TLVArea.parse(
            memory: Type2Images.image(cc: [0xE1, 0x10, 0x3E, 0x00], data: [0x03, 0xFF, 0x01, 0x2C] + message + [0xFE]))
        #expect(area.messageLength == 300)
        #expect(area.lengthFieldSize == 3)
        #expect(area.messageAddresses.first == 20)
    }

    @Test("NULL and Proprietary TLVs are stepped over; a Memory Control TLV reserves bytes inside the data area")
    func memoryControl() throws {
        // Memory Control: position 0x24 → page 2 × 2^4 + 4 = byte 36, 4 bytes, page size 2^4.
        let data: [UInt8] = [0x00, 0x02, 0x03, 0x24, 0x04, 0x04, 0xFD, 0x01, 0x99, 0x03, 0x00, 0xFE]
        let area = try Type2TLVArea.parse(memory: Type2Images.image(cc: [0xE1, 0x10, 0x06, 0x00], data: data))
        #expect(area.ndefTLVAddress == 25)
        #expect(area.reservedAreas == [Type2ReservedArea(kind: .reserved, addresses: 36..<40)])
        // 48-byte data area ends at 64: 64 − 25 − 4 reserved = 35 usable; 35 − 2 = 33.
        #expect(area.ndefAddresses.count == 35)
        #expect(!area.ndefAddresses.contains(36))
        #expect(area.capacity == 33)
    }

    @Test("CC rules: magic, version, size, with the byte offset", arguments: [
        ([0x00, 0x10, 0x12, 0x00], NFCTagError.Code.notNDEFFormatted, 12),
        ([0xE1, 0x20, 0x12, 0x00], .notNDEFFormatted, 13),
        ([0xE1, 0x10, 0x00, 0x00], .malformedTag, 14),
        ([0xE1, 0x10, 0x12, 0xF0], .notNDEFFormatted, 15),
    ] as [([UInt8], NFCTagError.Code, Int)])
    func badCC(cc: [UInt8], code: NFCTagError.Code, offset: Int) {
        let memory = [UInt8](repeating: 0, count: 12) + cc + [0x03, 0x00, 0xFE] + [UInt8](repeating: 0, count: 13)
        #expect {
            _ = try Type2TLVArea.parse(memory: memory)
        } throws: { error in
            let error = error as! NFCTagError
            return error.code == code && error.offset == offset
        }
    }

    @Test("CC3 read-only is parsed as not writable")
    func readOnlyCC() throws {
        let cc = try Type2CapabilityContainer(bytes: [0xE1, 0x10, 0x12, 0x0F])
        #expect(!cc.isWritable)
        #expect(cc.isReadable)
        #expect(cc.bytes == [0xE1, 0x10, 0x12, 0x0F])
    }

    @Test("malformed TLV areas give typed errors with the byte address", arguments: [
        // Lock Control with length 2.
        ([0x01, 0x02, 0xA0, 0x0C, 0x03, 0x00], NFCTagError.Code.malformedTag, 16),
        // NDEF TLV longer than the 16-byte data area.
        ([0x03, 0x20], .malformedTag, 16),
        // Reserved length FF FF FF.
        ([0x03, 0xFF, 0xFF, 0xFF], .malformedTag, 17),
        // Terminator before NDEF.
        ([0xFE, 0x03, 0x00], .notNDEFFormatted, 16),
        // Only NULLs.
        ([], .notNDEFFormatted, 32),
        // Proprietary TLV running past the end.
        ([0xFD, 0x30], .malformedTag, 16),
    ] as [([UInt8], NFCTagError.Code, Int)])
    func badTLV(data: [UInt8], code: NFCTagError.Code, offset: Int) {
        let memory = Type2Images.image(cc: [0xE1, 0x10, 0x02, 0x00], data: data)
        #expect {
            _ = try Type2TLVArea.parse(memory: memory)
        } throws: { error in
            let error = error as! NFCTagError
            return error.code == code && error.offset == offset
        }
    }

    @Test("every truncated prefix of an image fails cleanly", arguments: [Type2Images.ntag213, Type2Images.ntag215])
    func truncatedPrefixes(image: [UInt8]) throws {
        let full = try Type2TLVArea.parse(memory: image)
        // Parsing needs bytes up to the NDEF TLV's length field.
        let needed = full.ndefAddresses[full.lengthFieldSize] + 1
        for count in 0..<needed {
            #expect(throws: NFCTagError.self) { _ = try Type2TLVArea.parse(memory: Array(image.prefix(count))) }
        }
    }

    @Test("every truncated TLV area (data area shorter than the TLVs) fails, never traps")
    func truncatedTLVAreas() {
        let tlvs: [UInt8] = [0x01, 0x03, 0xA0, 0x0C, 0x34, 0xFD, 0x02, 0xAA, 0xBB, 0x03, 0xFF, 0x00, 0x05, 1, 2, 3, 4, 5]
        for count in 0..<tlvs.count {
            // The data area (8 bytes per CC2 unit) holds just `count` TLV bytes and zero padding:
            // a cut TLV either runs past the end or finds no NDEF TLV.
            let memory = [UInt8](repeating: 0, count: 12) + [0xE1, 0x10, 0x01, 0x00] + Array(tlvs.prefix(min(count, 8)))
                + [UInt8](repeating: 0, count: 8 - min(count, 8))
            #expect(throws: NFCTagError.self) { _ = try Type2TLVArea.parse(memory: memory) }
        }
    }
}

/// A Type 2 memory behind the reader seam answering as libnfc does: a WRITE's ACK comes back as
/// an empty answer. Pages in `stuckPages` ignore writes (to provoke a verification mismatch).
struct Type2Memory: ScriptedTag {
    var memory: [UInt8]
    var stuckPages: Set<Int> = []
    var writes = 0

    mutating func answer(_ command: Bytes, mode: TransceiveMode) throws(NFCReaderDeviceError) -> Bytes {
        let c = command.array
        switch c.first {
        case Type2Command.read? where c.count == 2:
            let start = Int(c[1]) * 4
            guard start + 16 <= memory.count else { throw NFCReaderDeviceError(.nak, "out of range", detail: 0) }
            return Bytes(memory[start..<(start + 16)])
        case Type2Command.write? where c.count == 6:
            let page = Int(c[1])
            guard page * 4 + 4 <= memory.count else { throw NFCReaderDeviceError(.nak, "out of range", detail: 0) }
            writes += 1
            if !stuckPages.contains(page) { memory.replaceSubrange((page * 4)..<(page * 4 + 4), with: c[2...]) }
            return Bytes()
        default:
            throw NFCReaderDeviceError(.nak, "unknown command", detail: 0)
        }
    }

    /// A reader holding this memory.
    static func reader(memory: [UInt8], stuckPages: Set<Int> = []) -> ScriptedReader {
        ScriptedReader(tag: Type2Memory(memory: memory, stuckPages: stuckPages), modulations: [.iso14443A])
    }
}

@Suite("Type 2 NDEF over a libnfc-like reader", .timeLimit(.minutes(5)))
struct Type2ReaderSeamTests {
    /// NTAG213 factory image with 16 bytes to spare past the data area (lock/config pages).
    static var ntag213: [UInt8] { Type2Images.ntag213 + [UInt8](repeating: 0, count: 20) }

    /// A short NDEF message: one empty record of TNF unknown with `count` payload bytes.
    static func message(_ count: Int) -> [UInt8] { [0xD5, 0x00, UInt8(count)] + [UInt8](repeating: 0x42, count: count) }

    @Test("an empty WRITE answer counts as the ACK; the message reads back")
    func emptyACK() async throws {
        let reader = Type2Memory.reader(memory: Self.ntag213)
        let tag = Type2Tag(reader: reader)
        let message = try NDEFMessage(bytes: Self.message(20))
        try await tag.writeNDEF(message)
        #expect(try await tag.readNDEF() == message)
        // TLV at 21: 03 17 + 23 bytes + FE = 26 bytes, bytes 21…46 = pages 5–11, once each (the
        // factory `03 00` at 21 is already an empty message: no length-0 write first).
        let state = try #require(await reader.tag(as: Type2Memory.self))
        #expect(state.writes == 7)
        let memory = state.memory
        #expect(Array(memory[21...23]) == [0x03, 23, 0xD5])
        #expect(memory[46] == 0xFE)
        // The Lock Control TLV is untouched.
        #expect(Array(memory[16...20]) == [0x01, 0x03, 0xA0, 0x0C, 0x34])
    }

    @Test("a page that does not take the write is reported by the read-back, with its address")
    func verificationMismatch() async throws {
        let reader = Type2Memory.reader(memory: Self.ntag213, stuckPages: [8])
        let tag = Type2Tag(reader: reader)
        await #expect {
            try await tag.writeNDEF(try NDEFMessage(bytes: Self.message(20)))
        } throws: { error in
            let error = error as! NFCTagError
            return error.code == .verificationFailed && (32..<36).contains(error.offset ?? -1)
        }
    }

    @Test("a NAK during a READ is a tagResponse error carrying the reader error")
    func nakOnRead() async throws {
        // CC claims 255 × 8 bytes but the memory ends early: the walk meets the NAK.
        var memory = Self.ntag213
        memory[14] = 0xFF
        memory.replaceSubrange(16..<21, with: [0x00, 0x00, 0x00, 0x00, 0x00])
        memory.replaceSubrange(21..<24, with: [0x00, 0x00, 0x00])
        let tag = Type2Tag(reader: Type2Memory.reader(memory: memory))
        await #expect {
            _ = try await tag.queryNDEFStatus()
        } throws: { error in
            let error = error as! NFCTagError
            return error.code == .tagResponse && error.readerError?.code == .nak
        }
    }
}
