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

    @Test("Type 5: MLEN past the chip's memory is malformedTag at MLEN (2 in the 4-byte CC, 6 in the 8-byte one)")
    func type5MLENPastChip() throws {
        let four = [0xE1, 0x40, 0xFF, 0x01, 0x03, 0x00, 0xFE] + [UInt8](repeating: 0, count: 313)
        let eight = [0xE2, 0x40, 0x00, 0x01, 0x00, 0x00, 0xFF, 0xFF, 0x03, 0x00, 0xFE] + [UInt8](repeating: 0, count: 309)
        #expect { _ = try Type5TLVArea.parse(memory: four, memoryEnd: 320) } throws: { Self.isMalformed($0, at: 2) }
        #expect { _ = try Type5TLVArea.parse(memory: eight, memoryEnd: 320) } throws: { Self.isMalformed($0, at: 6) }
        var fits = four
        fits[2] = 0x27  // 312 bytes after the 4-byte CC: exactly the SLIX2's 320
        #expect(try Type5TLVArea.parse(memory: fits, memoryEnd: 320).capacity == 308)
    }
}
