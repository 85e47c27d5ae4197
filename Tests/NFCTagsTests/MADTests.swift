import NFCTags
import Testing

/// The MIFARE Application Directory codec (AN10787), the access bits and value blocks of the
/// MF1S50yyX/V1 datasheet, and the 1K/4K geometry, against known vectors.
@Suite("MAD, access bits, value blocks", .timeLimit(.minutes(5)))
struct MADTests {
    /// MAD1 body (info byte + 15 AIDs) whose AIDs are `n` NFC AIDs then free sectors.
    static func ndefBody(_ n: Int, info: UInt8 = 0x01) -> [UInt8] {
        [info] + (0..<15).flatMap { $0 < n ? [0x03, 0xE1] : [0x00, 0x00] }
    }

    // libfreefare test/test_mad.c: the example of the MAD documentation (CRC 89) and two dumps
    // with 5 and 6 NFC sectors (C4, AB); the all-NFC MAD1 of NFC-formatted 1K cards (14).
    static let crcCases: [([UInt8], UInt8)] = [
        ([0x01, 0x01, 0x08, 0x01, 0x08, 0x01, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x03, 0x10, 0x03, 0x10, 0x02,
          0x10, 0x02, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x11, 0x30], 0x89),
        (ndefBody(5), 0xC4),
        (ndefBody(6), 0xAB),
        (ndefBody(15), 0x14),
    ]

    @Test("MAD CRC-8 (poly 1D, preset C7) matches the documented and real-card vectors", arguments: crcCases)
    func crcVectors(body: [UInt8], crc: UInt8) {
        #expect(body.count == 31)
        #expect(MADDirectory.crc(body) == crc)
    }

    @Test("a CRC appended to its message makes the CRC of the whole 0")
    func crcResidue() {
        for body in [Self.ndefBody(3), Self.ndefBody(15), [0x42]] {
            #expect(MADDirectory.crc(body + [MADDirectory.crc(body)]) == 0)
        }
    }

    @Test("the all-NFC MAD1 encodes as NFC-formatted cards store it: 14 01 03 E1 …")
    func allNFCMAD1() throws {
        let mad = MADDirectory(version: .mad1, infoByte: 0x01, applications: [.reserved] + Array(repeating: .ndef, count: 15))
        let bytes = mad.sector0Bytes
        #expect(Array(bytes[0..<4]) == [0x14, 0x01, 0x03, 0xE1])
        #expect(Array(bytes[16..<32]) == Array([[UInt8]](repeating: [0x03, 0xE1], count: 8).joined()))
        #expect(mad.generalPurposeByte == 0xC1)
        let decoded = try MADDirectory(sector0: bytes)
        #expect(decoded == mad)
        #expect(decoded.ndefSectors == Array(1...15))
        #expect(MADApplicationIdentifier.ndef.description == "E103")
    }

    @Test("a MAD1 whose CRC byte or any other byte is changed is refused at the CRC's address")
    func crcMismatch() throws {
        let good = MADDirectory(version: .mad1, infoByte: 1, applications: [.reserved, .ndef, .ndef]).sector0Bytes
        for position in 0..<32 {
            var bad = good
            bad[position] ^= 0x01
            #expect(throws: NFCTagError.self) { try MADDirectory(sector0: bad) }
            do {
                _ = try MADDirectory(sector0: bad)
            } catch {
                #expect(error.code == .malformedTag)
                #expect(error.offset == 16)
            }
        }
        for count in [0, 16, 31, 33] {
            #expect(throws: NFCTagError.self) { try MADDirectory(sector0: Array(repeating: 0, count: count)) }
        }
    }

    @Test("MAD2 round trip, GPB C2, and the NFC sector run skips sector 16")
    func mad2RoundTrip() throws {
        var apps = [MADApplicationIdentifier](repeating: .ndef, count: 40)
        apps[39] = .free
        let mad = MADDirectory(version: .mad2, infoByte: 0x01, infoByte2: 0x00, applications: apps)
        let decoded = try MADDirectory(sector0: mad.sector0Bytes, sector16: mad.sector16Bytes)
        #expect(decoded == mad)
        #expect(mad.generalPurposeByte == 0xC2)
        #expect(decoded.ndefSectors == Array(1...15) + Array(17...38))
        var bad = try #require(mad.sector16Bytes)
        bad[5] ^= 0xFF
        #expect(throws: NFCTagError.self) { try MADDirectory(sector0: mad.sector0Bytes, sector16: bad) }
    }

    @Test("NFC sectors are the contiguous run from the first NFC AID")
    func contiguousRun() {
        let apps: [MADApplicationIdentifier] = [.reserved, .free, .ndef, .ndef, .free, .ndef]
        #expect(MADDirectory(version: .mad1, applications: apps).ndefSectors == [2, 3])
        #expect(MADDirectory(version: .mad1, applications: [.reserved]).ndefSectors.isEmpty)
    }

    @Test("GPB version and MAD presence", arguments: [
        (UInt8(0xC1), MADDirectory.Version?.some(.mad1)), (0xC2, .mad2), (0x69, nil), (0x41, nil), (0xC3, nil), (0x80, nil),
    ])
    func madGPB(gpb: UInt8, version: MADDirectory.Version?) {
        #expect(MADDirectory.version(generalPurposeByte: gpb) == version)
    }

    @Test("NFC sector GPB: 40 read-write v1.0, 43 read-only")
    func nfcGPB() {
        #expect(ClassicNFCSectorGPB.readWrite.isWritable)
        #expect(ClassicNFCSectorGPB.readWrite.isReadable)
        #expect(ClassicNFCSectorGPB.readWrite.majorVersion == 1)
        #expect(ClassicNFCSectorGPB.readWrite.minorVersion == 0)
        #expect(!ClassicNFCSectorGPB.readOnly.isWritable)
        #expect(ClassicNFCSectorGPB.readWrite.lockingWrites == .readOnly)
        #expect(!ClassicNFCSectorGPB(rawValue: 0x4C).isReadable)
    }

    // MARK: - Access bits

    @Test("named access bit configurations have the bytes of AN1304 and the datasheet", arguments: [
        (ClassicAccessBits.transport, [UInt8]([0xFF, 0x07, 0x80])),
        (.nfcSectorReadWrite, [0x7F, 0x07, 0x88]),
        (.nfcSectorReadOnly, [0x07, 0x8F, 0x0F]),
        (.madSectorReadWrite, [0x78, 0x77, 0x88]),
    ])
    func namedAccessBits(bits: ClassicAccessBits, bytes: [UInt8]) throws {
        #expect(bits.bytes == bytes)
        #expect(try ClassicAccessBits(trailerBytes: bytes) == bits)
    }

    @Test("every one of the 4096 condition combinations encodes and decodes back")
    func accessBitsRoundTrip() throws {
        for combination in 0..<4096 {
            let conditions = (0..<4).map { UInt8((combination >> (3 * $0)) & 7) }
            let bits = ClassicAccessBits(conditions: conditions)
            #expect(try ClassicAccessBits(trailerBytes: bits.bytes) == bits)
        }
    }

    @Test("any single flipped access bit is refused with the trailer byte at fault")
    func accessBitsInconsistent() {
        let good = ClassicAccessBits.nfcSectorReadWrite.bytes
        for bit in 0..<24 {
            var bad = good
            bad[bit / 8] ^= UInt8(1 << (bit % 8))
            do {
                _ = try ClassicAccessBits(trailerBytes: bad, trailerAddress: 112)
                Issue.record("bit \(bit) accepted")
            } catch {
                #expect(error.code == .malformedTag)
                #expect(error.offset == 118 || error.offset == 119)
            }
            #expect(ClassicAccessBits(bytes: bad) == nil)
        }
        #expect(throws: NFCTagError.self) { try ClassicAccessBits(trailerBytes: [0xFF, 0x07]) }
    }

    // MARK: - Value blocks

    @Test("value blocks encode as value, ~value, value, addr ~addr addr ~addr and decode back", arguments: [
        Int32(0), 1, -1, 100, Int32.max, Int32.min, 0x1234_5678,
    ])
    func valueBlockRoundTrip(value: Int32) throws {
        let block = ClassicValueBlock(value: value, address: 0x05)
        let bytes = block.bytes
        #expect(bytes.count == 16)
        #expect(Array(bytes[12..<16]) == [0x05, 0xFA, 0x05, 0xFA])
        #expect(try ClassicValueBlock(bytes: bytes) == block)
    }

    @Test("value 100 at address 5, byte by byte per Figure 8 of the datasheet")
    func valueBlockKnownBytes() {
        #expect(ClassicValueBlock(value: 100, address: 5).bytes == [
            0x64, 0x00, 0x00, 0x00, 0x9B, 0xFF, 0xFF, 0xFF, 0x64, 0x00, 0x00, 0x00, 0x05, 0xFA, 0x05, 0xFA,
        ])
    }

    @Test("changing any byte of a value block is refused with that byte's address or its copy's")
    func valueBlockCorruption() {
        let good = ClassicValueBlock(value: -12345, address: 9).bytes
        for position in 0..<16 {
            var bad = good
            bad[position] ^= 0x10
            do {
                _ = try ClassicValueBlock(bytes: bad, blockAddress: 160)
                Issue.record("byte \(position) accepted")
            } catch {
                #expect(error.code == .malformedTag)
                let offset = (error.offset ?? 0) - 160
                #expect(offset == position || (position < 4 && offset == position + 4) || (position == 12 && offset == 13))
            }
        }
        for count in [0, 15, 17] {
            #expect(throws: NFCTagError.self) { try ClassicValueBlock(bytes: [UInt8](repeating: 0, count: count)) }
        }
    }

    // MARK: - Geometry

    @Test("1K: 16 sectors of 4 blocks; 4K: 32 of 4 then 8 of 16; Mini: 5 of 4")
    func geometry() {
        #expect(ClassicLayout.classic1K.blockCount == 64)
        #expect(ClassicLayout.classic1K.trailerBlock(ofSector: 15) == 63)
        #expect(ClassicLayout.mini.blockCount == 20)
        let big = ClassicLayout.classic4K
        #expect(big.blockCount == 256)
        #expect(big.blocks(inSector: 31) == 4)
        #expect(big.blocks(inSector: 32) == 16)
        #expect(big.firstBlock(ofSector: 32) == 128)
        #expect(big.trailerBlock(ofSector: 32) == 143)
        #expect(big.trailerBlock(ofSector: 39) == 255)
        #expect(big.sector(ofBlock: 127) == 31)
        #expect(big.sector(ofBlock: 128) == 32)
        #expect(big.sector(ofBlock: 255) == 39)
        #expect(big.dataBlocks(ofSector: 33) == 144..<159)
        var trailers = 0
        for block in 0..<big.blockCount where big.isTrailer(block) { trailers += 1 }
        #expect(trailers == 40)
        #expect(ClassicLayout(identity: ChipIdentity(model: "MIFARE Classic 4K", platform: .mifareClassic, family: .mifareClassic)) == .classic4K)
        #expect(ClassicLayout(identity: ChipIdentity(model: "MIFARE Mini", platform: .mifareClassic, family: .mifareClassic)) == .mini)
    }
}
