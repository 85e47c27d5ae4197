import NFCTags
import Testing

/// The chip bounds of the Type 2 and Type 5 parsers: a CC or MLEN announcing more memory than
/// the identified chip has is refused at the offending byte (docs/robustness.md, rule 2).
@Suite("Chip-bounded Type 2 and Type 5 parsing", .timeLimit(.minutes(1)))
struct ChipBoundTests {
    /// NTAG213-sized memory (160 bytes up to the end of user memory) with CC2 and the TLVs.
    static func type2(cc2: UInt8, tlvs: [UInt8]) -> [UInt8] {
        var memory = [UInt8](repeating: 0, count: 12) + [0xE1, 0x10, cc2, 0x00] + tlvs
        memory += [UInt8](repeating: 0, count: max(0, 160 - memory.count))
        return memory
    }

    static func isMalformed(_ error: any Error, at offset: Int) -> Bool {
        guard let error = error as? NFCTagError else { return false }
        return error.code == .malformedTag && error.offset == offset
    }

    @Test("Type 2: CC2 FF on a 144-byte chip is malformedTag at offset 14; the true CC2 12 parses")
    func type2CCPastChip() throws {
        #expect {
            _ = try Type2TLVArea.parse(memory: Self.type2(cc2: 0xFF, tlvs: [0x03, 0x00, 0xFE]), userMemoryEnd: 160)
        } throws: { Self.isMalformed($0, at: 14) }
        // Without the bound the lie goes unnoticed: the area claims 2040 bytes.
        #expect(try Type2TLVArea.parse(memory: Self.type2(cc2: 0xFF, tlvs: [0x03, 0x00, 0xFE])).capabilityContainer.dataAreaSize == 2040)
        let area = try Type2TLVArea.parse(memory: Self.type2(cc2: 0x12, tlvs: [0x03, 0x00, 0xFE]), userMemoryEnd: 160)
        #expect(area.capacity == 142)
    }

    @Test("Type 5: the walk is cut at the chip's memory (MLEN may overstate it); a TLV running past the memory is malformedTag")
    func type5MLENPastChip() throws {
        let four = [0xE1, 0x40, 0xFF, 0x01, 0x03, 0x00, 0xFE] + [UInt8](repeating: 0, count: 309)
        let area = try Type5TLVArea.parse(memory: four, memoryEnd: 316)
        #expect(area.capabilityContainer.areaEnd == 2044)
        #expect(area.capacity == 308)  // 312 usable bytes up to 316, not 2040
        // An NDEF TLV of 65 534 bytes behind an 8-byte CC with MLEN FFFF: refused at its length.
        let eight = [0xE2, 0x40, 0x00, 0x01, 0x00, 0x00, 0xFF, 0xFF, 0x03, 0xFF, 0xFF, 0xFE] + [UInt8](repeating: 0, count: 304)
        #expect { _ = try Type5TLVArea.parse(memory: eight, memoryEnd: 316) } throws: { Self.isMalformed($0, at: 9) }
        // NULL TLVs to the end of memory: no NDEF TLV where the memory ends, not a read past it.
        let nulls = [0xE2, 0x40, 0x00, 0x01, 0x00, 0x00, 0xFF, 0xFF] + [UInt8](repeating: 0, count: 308)
        #expect { _ = try Type5TLVArea.parse(memory: nulls, memoryEnd: 316) } throws: { error in
            (error as? NFCTagError)?.code == .notNDEFFormatted && (error as? NFCTagError)?.offset == 316
        }
    }

    /// A Type 5 tag of a model whose memory size is not known (no chip bound) announcing MLEN
    /// FFFF: its capacity was 524 276 bytes, so a message of 64 KiB passed the capacity check
    /// and trapped encoding its TLV length, and one of exactly 65 535 bytes was written with
    /// the reserved length FF FF FF.
    @Test("Type 5: MLEN FFFF on an unknown chip gives a capacity the 3-byte TLV length can hold (FFFE)")
    func type5CapacityWithinTLVLength() throws {
        let memory: [UInt8] = [0xE1, 0x40, 0x00, 0x01, 0x00, 0x00, 0xFF, 0xFF, 0x03, 0x00, 0xFE]
        let area = try Type5TLVArea.parse(memory: memory)
        #expect(area.capacity == 0xFFFE)
    }
}
