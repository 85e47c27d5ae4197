import Testing
import NFCCore
@testable import NFCTags

/// Capability container and TLV area parsing (NFC Forum Type 5 Tag 1.0, 4.3–4.4), ISO 15693
/// Get system information decoding and error codes (ISO/IEC 15693-3, Table 7), on the ICODE
/// SLIX2 image (SL2S2602: 80 blocks of 4 bytes, CC `E1 40 27 01`) and on malformed images.
@Suite("Type 5 CC, TLV and ISO 15693 answer parsing", .timeLimit(.minutes(5)))
struct Type5ParsingTests {
    /// Memory of `size` bytes starting with `prefix`, zeros after.
    static func image(_ prefix: [UInt8], size: Int = 320) -> [UInt8] {
        prefix + [UInt8](repeating: 0, count: max(0, size - prefix.count))
    }

    static let slix2 = image([0xE1, 0x40, 0x27, 0x01, 0x03, 0x00, 0xFE])

    // MARK: - Capability container

    /// `E1 40 27 01`: 1-byte block numbers, version 1.0, read and write granted, T5T area of
    /// 39 × 8 = 312 bytes after the 4-byte CC (bytes 4–315), Read Multiple Blocks supported.
    @Test("the 4-byte CC of a fresh SLIX2 decodes field by field")
    func fourByteCC() throws {
        let cc = try Type5CapabilityContainer(memory: Self.slix2)
        #expect(cc.size == 4)
        #expect(cc.magic == 0xE1 && !cc.usesExtendedCommands)
        #expect(cc.majorVersion == 1 && cc.readAccess == 0 && cc.writeAccess == 0 && cc.isWritable)
        #expect(cc.areaSize == 312 && cc.areaEnd == 316)
        #expect(cc.supportsReadMultipleBlocks && !cc.supportsLockBlock && !cc.needsSpecialFrame)
        #expect(cc.bytes == [0xE1, 0x40, 0x27, 0x01])
    }

    @Test("feature bits: 01 read multiple, 08 lock block, 10 special frame", arguments: [
        (UInt8(0x01), true, false, false), (0x08, false, true, false), (0x10, false, false, true), (0x19, true, true, true),
    ])
    func features(byte: UInt8, multiple: Bool, lock: Bool, special: Bool) throws {
        let cc = try Type5CapabilityContainer(memory: [0xE1, 0x40, 0x10, byte])
        #expect(cc.supportsReadMultipleBlocks == multiple && cc.supportsLockBlock == lock && cc.needsSpecialFrame == special)
    }

    /// MLEN 0 in byte 2: the 8-byte form, MLEN in bytes 6–7 (here 0x0200 × 8 = 4096 bytes), the
    /// area from byte 8.
    @Test("the 8-byte CC form takes MLEN from bytes 6–7 and starts the area at byte 8")
    func eightByteCC() throws {
        let cc = try Type5CapabilityContainer(memory: [0xE2, 0x40, 0x00, 0x01, 0x00, 0x00, 0x02, 0x00])
        #expect(cc.size == 8 && cc.areaSize == 4096 && cc.areaEnd == 4104 && cc.usesExtendedCommands)
        #expect(cc.bytes == [0xE2, 0x40, 0x00, 0x01, 0x00, 0x00, 0x02, 0x00])
    }

    @Test("write access 01, 10 and 11 are all read-only for this mapping", arguments: [UInt8(0x41), 0x42, 0x43])
    func writeAccess(byte1: UInt8) throws {
        let cc = try Type5CapabilityContainer(memory: [0xE1, byte1, 0x27, 0x01])
        #expect(!cc.isWritable)
        #expect(try Type5TLVArea.parse(memory: Self.image([0xE1, byte1, 0x27, 0x01, 0x03, 0x00, 0xFE])).capabilityContainer.writeAccess == byte1 & 3)
    }

    @Test("a CC for the memory size: 4-byte form up to 2040 bytes of area, 8-byte beyond", arguments: [
        (320, 4, 312), (2044, 4, 2040), (2052, 8, 2040), (8192, 8, 8184),
    ])
    func ccForMemory(memory: Int, size: Int, area: Int) throws {
        let cc = Type5CapabilityContainer.forMemory(size: memory, features: 0x01)
        #expect(cc.size == size && cc.areaSize == area)
        #expect(cc.areaEnd <= memory)
        let decoded = try Type5CapabilityContainer(memory: cc.bytes)
        #expect(decoded == cc)
    }

    @Test("CC rules, one negative test each, with the offset at fault", arguments: [
        ([0xE0, 0x40, 0x27, 0x01] as [UInt8], NFCTagError.Code.notNDEFFormatted, 0),
        ([0xE1, 0x80, 0x27, 0x01], .notNDEFFormatted, 1),   // major version 2
        ([0xE1, 0x00, 0x27, 0x01], .notNDEFFormatted, 1),   // major version 0
        ([0xE1, 0x44, 0x27, 0x01], .notNDEFFormatted, 1),   // read access 01
        ([0xE1, 0x40, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00], .malformedTag, 6),  // 8-byte form, MLEN 0
    ])
    func ccRules(bytes: [UInt8], code: NFCTagError.Code, offset: Int) {
        #expect {
            _ = try Type5CapabilityContainer(memory: bytes)
        } throws: { error in
            let error = error as! NFCTagError
            return error.code == code && error.offset == offset
        }
    }

    @Test("every truncated prefix of a CC fails with malformedTag at its end")
    func truncatedCC() {
        let eight: [UInt8] = [0xE1, 0x40, 0x00, 0x01, 0x00, 0x00, 0x01, 0x00]
        for length in 0..<8 {
            #expect {
                _ = try Type5CapabilityContainer(memory: eight.prefix(length))
            } throws: { error in
                let error = error as! NFCTagError
                return error.code == .malformedTag && error.offset == length
            }
        }
    }

    // MARK: - TLV area

    @Test("a fresh SLIX2: empty NDEF TLV at byte 4, capacity 308 (3-byte length over 312 bytes)")
    func freshArea() throws {
        let area = try Type5TLVArea.parse(memory: Self.slix2)
        #expect(area.ndefTLVAddress == 4 && area.lengthFieldSize == 1 && area.messageLength == 0)
        #expect(area.usableBytes == 312 && area.capacity == 308)
    }

    /// A 16-byte area (MLEN 2): 16 usable bytes, 1-byte length: 16 − 2 = 14.
    @Test("a small area's capacity takes T and a 1-byte L off")
    func smallArea() throws {
        let area = try Type5TLVArea.parse(memory: Self.image([0xE1, 0x40, 0x02, 0x00, 0x03, 0x00], size: 20))
        #expect(area.capacity == 14)
    }

    @Test("NULL TLVs are skipped and proprietary TLVs stepped over, with 1- and 3-byte lengths")
    func skipsOtherTLVs() throws {
        let memory = Self.image([0xE1, 0x40, 0x27, 0x01, 0x00, 0x00, 0xFD, 0x02, 0xAA, 0xBB, 0xFD, 0xFF, 0x00, 0x01, 0xCC, 0x03, 0x03, 0xD0, 0x00, 0x00, 0xFE])
        let area = try Type5TLVArea.parse(memory: memory)
        #expect(area.ndefTLVAddress == 15 && area.messageLength == 3 && area.messageAddresses == 17..<20)
        #expect(area.usableBytes == 316 - 15)
    }

    @Test("a 3-byte NDEF length is read big-endian")
    func threeByteLength() throws {
        var memory = Self.slix2
        memory.replaceSubrange(4..<8, with: [0x03, 0xFF, 0x01, 0x2C])
        let area = try Type5TLVArea.parse(memory: memory)
        #expect(area.lengthFieldSize == 3 && area.messageLength == 300 && area.messageAddresses == 8..<308)
    }

    @Test("TLV area rules, one negative test each, with the offset at fault", arguments: [
        // Terminator before any NDEF TLV.
        ([0xE1, 0x40, 0x27, 0x01, 0x00, 0xFE] as [UInt8], NFCTagError.Code.notNDEFFormatted, 5),
        // NDEF length past the area end (area 4…19).
        ([0xE1, 0x40, 0x02, 0x01, 0x03, 0x10], .malformedTag, 5),
        // A proprietary TLV past the area.
        ([0xE1, 0x40, 0x02, 0x01, 0xFD, 0x20], .malformedTag, 5),
        // Reserved length FFFF.
        ([0xE1, 0x40, 0x27, 0x01, 0x03, 0xFF, 0xFF, 0xFF], .malformedTag, 6),
        // A 3-byte length cut by the area end (area 4…11, TLV at 10).
        ([0xE1, 0x40, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xFF], .malformedTag, 11),
        // A TLV type in the area's last byte has no length.
        ([0xE1, 0x40, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xFD], .malformedTag, 11),
    ])
    func areaRules(prefix: [UInt8], code: NFCTagError.Code, offset: Int) {
        #expect {
            _ = try Type5TLVArea.parse(memory: Self.image(prefix))
        } throws: { error in
            let error = error as! NFCTagError
            return error.code == code && error.offset == offset
        }
    }

    @Test("an area of NULL TLVs only has no NDEF TLV")
    func onlyNulls() {
        #expect {
            _ = try Type5TLVArea.parse(memory: Self.image([0xE1, 0x40, 0x01, 0x00], size: 12))
        } throws: { ($0 as! NFCTagError).code == .notNDEFFormatted }
    }

    @Test("every truncated prefix of a TLV area fails without trapping")
    func truncatedArea() {
        let memory = Array(Self.image([0xE1, 0x40, 0x27, 0x01, 0x00, 0xFD, 0x01, 0xAA, 0x03, 0xFF, 0x00, 0x10]).prefix(12))
        for length in 0..<memory.count {
            #expect(throws: NFCTagError.self) { _ = try Type5TLVArea.parse(memory: Array(memory.prefix(length))) }
        }
    }

    @Test("arbitrary memory never traps the TLV parser: an area, or a typed error at an offset inside the memory")
    func noTrap() {
        var parsed = 0, refused = 0
        var state: UInt64 = 0x5EED
        for _ in 0..<3000 {
            var bytes: [UInt8] = [0xE1, 0x40]
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let length = Int(state >> 56)
            for _ in 0..<length {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                bytes.append(UInt8(truncatingIfNeeded: state >> 33))
            }
            do {
                _ = try Type5TLVArea.parse(memory: bytes)
                parsed += 1
            } catch {
                refused += 1
                #expect(!error.reason.isEmpty)
                // Inside the memory given, or at most the end of the T5T area its CC declares
                // (MLEN × 8 bytes after a 4-byte CC): "no NDEF TLV before the area ends here".
                let areaEnd = 4 + Int(bytes.count > 2 ? bytes[2] : 0) * 8
                if let offset = error.offset { #expect((0...max(bytes.count, areaEnd)).contains(offset), "offset \(offset) of \(bytes.count) bytes: \(error)") }
            }
        }
        #expect(parsed + refused == 3000)
        #expect(refused > 0)
    }

    // MARK: - ISO 15693 answers

    static let uid: [UInt8] = [0xE0, 0x04, 0x01, 0x08, 0x53, 0x49, 0x4D, 0x01]

    @Test("Get system information: all four fields, in order, UID turned most significant first")
    func systemInformation() throws {
        let answer: [UInt8] = [0x0F] + Self.uid.reversed() + [0x11, 0x22, 0x4F, 0x03, 0x01]
        let info = try ISO15693SystemInfo(answer: answer)
        #expect(info.uid == Bytes(Self.uid))
        #expect(info.dsfid == 0x11 && info.afi == 0x22 && info.blockCount == 80 && info.blockSize == 4 && info.icReference == 0x01)
        #expect(info.memorySize == 320)
        #expect(info.answer == answer)
    }

    @Test("Get system information: absent fields stay nil, the rest still in order", arguments: [UInt8(0x00), 0x01, 0x02, 0x04, 0x08, 0x05, 0x0A])
    func systemInformationSubsets(flags: UInt8) throws {
        var answer: [UInt8] = [flags] + Self.uid.reversed()
        if flags & 1 != 0 { answer.append(0x11) }
        if flags & 2 != 0 { answer.append(0x22) }
        if flags & 4 != 0 { answer += [0x1B, 0x03] }
        if flags & 8 != 0 { answer.append(0x01) }
        let info = try ISO15693SystemInfo(answer: answer)
        #expect((info.dsfid != nil) == (flags & 1 != 0))
        #expect((info.afi != nil) == (flags & 2 != 0))
        #expect((info.blockCount == 28) == (flags & 4 != 0))
        #expect((info.icReference != nil) == (flags & 8 != 0))
        #expect(info.answer == answer)
    }

    @Test("Get system information: every truncated prefix, trailing bytes and reserved flags fail with the offset")
    func systemInformationNegative() {
        let answer: [UInt8] = [0x0F] + Self.uid.reversed() + [0x11, 0x22, 0x4F, 0x03, 0x01]
        for length in 0..<answer.count {
            #expect {
                _ = try ISO15693SystemInfo(answer: answer.prefix(length))
            } throws: { error in
                let error = error as! NFCTagError
                return error.code == .tagResponse && error.offset == length
            }
        }
        #expect { _ = try ISO15693SystemInfo(answer: answer + [0x00]) } throws: { ($0 as! NFCTagError).offset == answer.count }
        #expect { _ = try ISO15693SystemInfo(answer: [0x1F] + answer.dropFirst()) } throws: { ($0 as! NFCTagError).offset == 0 }
    }

    @Test("Extended get system information: 2-byte block count, IC reference, command list")
    func extendedSystemInformation() throws {
        let answer: [UInt8] = [0x3F] + Self.uid.reversed() + [0x11, 0x22, 0xFF, 0x07, 0x03, 0x51, 0x3F, 0x00, 0x00, 0x00]
        let info = try ISO15693ExtendedSystemInfo(answer: answer)
        #expect(info.uid == Bytes(Self.uid) && info.dsfid == 0x11 && info.afi == 0x22)
        #expect(info.blockCount == 2048 && info.blockSize == 4 && info.icReference == 0x51 && info.usesTwoByteAddressing)
        #expect(info.commandList == Bytes([0x3F, 0x00, 0x00, 0x00]))
        for length in 0..<answer.count {
            #expect {
                _ = try ISO15693ExtendedSystemInfo(answer: answer.prefix(length))
            } throws: { ($0 as! NFCTagError).offset == length }
        }
        #expect { _ = try ISO15693ExtendedSystemInfo(answer: [0x40] + Self.uid) } throws: { ($0 as! NFCTagError).offset == 0 }
        #expect { _ = try ISO15693ExtendedSystemInfo(answer: answer + [1]) } throws: { ($0 as! NFCTagError).offset == answer.count }
    }

    @Test("ISO 15693 error codes: named, 12 is readOnly, the rest tagResponse, the code recoverable", arguments: [
        (UInt8(0x01), "command not supported"), (0x02, "command not recognised"), (0x03, "option not supported"),
        (0x0F, "unknown error"), (0x10, "block not available"), (0x11, "block already locked"),
        (0x12, "block locked, its content cannot be changed"), (0x13, "block not successfully programmed"),
        (0x14, "block not successfully locked"), (0xA7, "custom (manufacturer) error"), (0x20, "reserved error code"),
    ])
    func errorCodes(code: UInt8, meaning: String) {
        #expect(ISO15693Error.meaning(of: code) == meaning)
        let error = ISO15693Error.tagError(code, during: "WRITE SINGLE BLOCK 5", at: 20)
        #expect(error.code == (code == 0x12 ? .readOnly : .tagResponse))
        #expect(error.offset == 20)
        #expect(error.reason.contains(meaning))
        #expect(ISO15693Error.code(in: error) == code)
    }

    @Test("an error that did not come from a tag carries no ISO 15693 code")
    func noCode() {
        #expect(ISO15693Error.code(in: NFCTagError(.connectionLost, "gone")) == nil)
    }
}
