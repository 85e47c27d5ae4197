// MIFARE Classic command codes, NAK codes and access conditions: shared by the NDEF mapping
// (`ClassicNDEFTag`, `MiFareTag` Classic commands) and the virtual card (`VirtualTags`).

/// MIFARE Classic command codes (NXP MF1S50yyX/V1 datasheet, section 10 "MIFARE Classic
/// commands", Table 13).
public enum ClassicCommand {
    /// AUTHENTICATION with key A, `60` block (run by the reader's firmware: Crypto-1).
    public static let authenticateKeyA: UInt8 = 0x60
    /// AUTHENTICATION with key B, `61` block.
    public static let authenticateKeyB: UInt8 = 0x61
    /// READ, `30` block: answers 16 bytes.
    public static let read: UInt8 = 0x30
    /// WRITE, `A0` block, then 16 bytes (two phases, each acknowledged).
    public static let write: UInt8 = 0xA0
    /// DECREMENT, `C0` block, then a 4-byte operand: block value minus operand into the
    /// transfer buffer.
    public static let decrement: UInt8 = 0xC0
    /// INCREMENT, `C1` block, then a 4-byte operand: block value plus operand into the
    /// transfer buffer.
    public static let increment: UInt8 = 0xC1
    /// RESTORE, `C2` block, then 4 ignored bytes: block value into the transfer buffer.
    public static let restore: UInt8 = 0xC2
    /// TRANSFER, `B0` block: transfer buffer into the block.
    public static let transfer: UInt8 = 0xB0
    /// HLTA, `50 00`.
    public static let halt: UInt8 = 0x50
}

/// The 4-bit NAK codes of MIFARE Classic (MF1S50yyX/V1, 9.3, Table 10).
public enum ClassicNAK {
    /// `0h`: invalid operation, transfer buffer valid.
    public static let invalidOperationBufferValid: UInt8 = 0x0
    /// `1h`: parity or CRC error, transfer buffer valid.
    public static let transmissionErrorBufferValid: UInt8 = 0x1
    /// `4h`: invalid operation, transfer buffer invalid.
    public static let invalidOperation: UInt8 = 0x4
    /// `5h`: parity or CRC error, transfer buffer invalid.
    public static let transmissionError: UInt8 = 0x5
}

/// Which keys an access condition grants (MF1S50yyX/V1, 8.7, Tables 7 and 8: "key A",
/// "key B", "key A|B", "never").
public struct ClassicKeys: OptionSet, Sendable, Hashable {
    /// The raw bits.
    public let rawValue: UInt8
    /// Creates a set from raw bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// Key A grants the operation.
    public static let a = ClassicKeys(rawValue: 1)
    /// Key B grants the operation.
    public static let b = ClassicKeys(rawValue: 2)
    /// "key A|B".
    public static let both: ClassicKeys = [.a, .b]
    /// "never".
    public static let never: ClassicKeys = []

    /// Whether `keyType` is granted.
    public func allows(_ keyType: ClassicKeyType) -> Bool {
        contains(keyType == .a ? .a : .b)
    }
}

/// The access bits of one sector: C1 C2 C3 for each of its 4 blocks, stored in bytes 6–8 of
/// the sector trailer together with their inverted copies (MF1S50yyX/V1, 8.7.1, Figure 10).
public struct ClassicAccessBits: Sendable, Hashable {
    /// For blocks 0…3 of the sector (3 is the trailer) the condition number `C1C2C3` as a
    /// 3-bit value (`C1` is bit 2): the row of Table 7 (trailer) or Table 8 (data blocks).
    public var conditions: [UInt8]

    /// The transport configuration: data blocks `000`, trailer `001` (bytes `FF 07 80`).
    public static let transport = ClassicAccessBits(conditions: [0, 0, 0, 1])

    /// Creates access bits from four 3-bit conditions (extra bits are ignored; missing
    /// entries read as `000`).
    public init(conditions: [UInt8]) {
        self.conditions = (0..<4).map { $0 < conditions.count ? conditions[$0] & 0x07 : 0 }
    }

    /// Decodes trailer bytes 6, 7, 8 (MF1S50yyX/V1, 8.7.1, Figure 10).
    /// - Parameter trailerAddress: the byte address of the trailer in tag memory, so that an
    ///   error names the faulty byte (byte 6 is at `trailerAddress + 6`).
    /// - Throws: ``NFCTagError`` `malformedTag` when fewer than 3 bytes are given, or when a bit
    ///   and its inverted copy disagree: the "format violation" that blocks the sector; the
    ///   offset is the byte holding the inconsistent inverted copy.
    public init(trailerBytes bytes: some Collection<UInt8>, trailerAddress: Int = 0) throws(NFCTagError) {
        let b = Array(bytes)
        guard b.count >= 3 else {
            throw NFCTagError(.malformedTag, at: trailerAddress + 6 + b.count, "access bits need 3 bytes, got \(b.count)")
        }
        let c1 = b[1] >> 4, c2 = b[2] & 0x0F, c3 = b[2] >> 4
        let notC1 = b[0] & 0x0F, notC2 = b[0] >> 4, notC3 = b[1] & 0x0F
        guard c1 ^ notC1 == 0x0F else {
            throw NFCTagError(.malformedTag, at: trailerAddress + 6, "access bits C1 (\(c1)) and their inverted copy (\(notC1)) disagree")
        }
        guard c2 ^ notC2 == 0x0F else {
            throw NFCTagError(.malformedTag, at: trailerAddress + 6, "access bits C2 (\(c2)) and their inverted copy (\(notC2)) disagree")
        }
        guard c3 ^ notC3 == 0x0F else {
            throw NFCTagError(.malformedTag, at: trailerAddress + 7, "access bits C3 (\(c3)) and their inverted copy (\(notC3)) disagree")
        }
        conditions = (0..<4).map { i in
            ((c1 >> i) & 1) << 2 | ((c2 >> i) & 1) << 1 | ((c3 >> i) & 1)
        }
    }

    /// Decodes trailer bytes 6, 7, 8; nil when they are inconsistent (see
    /// ``init(trailerBytes:trailerAddress:)`` for the typed error).
    public init?(bytes: [UInt8]) {
        guard let decoded = try? ClassicAccessBits(trailerBytes: bytes) else { return nil }
        self = decoded
    }

    /// The condition `C1C2C3` of block `index` (0…3) of the sector; `000` out of range.
    public func condition(ofBlock index: Int) -> UInt8 {
        index >= 0 && index < conditions.count ? conditions[index] & 0x07 : 0
    }

    /// Trailer bytes 6, 7, 8 with the inverted copies.
    public var bytes: [UInt8] {
        var c1: UInt8 = 0, c2: UInt8 = 0, c3: UInt8 = 0
        for i in 0..<4 {
            let c = i < conditions.count ? conditions[i] : 0
            c1 |= ((c >> 2) & 1) << i
            c2 |= ((c >> 1) & 1) << i
            c3 |= (c & 1) << i
        }
        return [(~c2 & 0x0F) << 4 | (~c1 & 0x0F), c1 << 4 | (~c3 & 0x0F), c3 << 4 | c2]
    }
}

extension ClassicAccessBits {
    /// Whether no key may change a data block of the sector: each data block's condition
    /// (Table 8) refuses WRITE, INCREMENT and DECREMENT/TRANSFER/RESTORE (a TRANSFER writes).
    public var dataBlocksReadOnly: Bool {
        (0..<3).allSatisfy { block in
            let access = ClassicDataBlockAccess.forCondition(condition(ofBlock: block))
            return access.write == .never && access.increment == .never && access.decrementTransferRestore == .never
        }
    }

    /// Whether some key may still rewrite these access bits (and the GPB) in the trailer
    /// (Table 7): a sector whose bits can change can be made writable again.
    public var trailerAccessBitsWritable: Bool {
        ClassicTrailerAccess.forCondition(condition(ofBlock: 3)).writeAccessBits != .never
    }
}

/// What a data block's access condition grants (MF1S50yyX/V1, 8.7.3, Table 8).
public struct ClassicDataBlockAccess: Sendable, Hashable {
    /// READ.
    public var read: ClassicKeys
    /// WRITE.
    public var write: ClassicKeys
    /// INCREMENT.
    public var increment: ClassicKeys
    /// DECREMENT, TRANSFER, RESTORE.
    public var decrementTransferRestore: ClassicKeys

    /// The row of Table 8 for condition `C1C2C3` (0…7).
    public static func forCondition(_ condition: UInt8) -> ClassicDataBlockAccess {
        switch condition & 0x07 {
        case 0: .init(read: .both, write: .both, increment: .both, decrementTransferRestore: .both)
        case 1: .init(read: .both, write: .never, increment: .never, decrementTransferRestore: .both)
        case 2: .init(read: .both, write: .never, increment: .never, decrementTransferRestore: .never)
        case 3: .init(read: .b, write: .b, increment: .never, decrementTransferRestore: .never)
        case 4: .init(read: .both, write: .b, increment: .never, decrementTransferRestore: .never)
        case 5: .init(read: .b, write: .never, increment: .never, decrementTransferRestore: .never)
        case 6: .init(read: .both, write: .b, increment: .b, decrementTransferRestore: .both)
        default: .init(read: .never, write: .never, increment: .never, decrementTransferRestore: .never)
        }
    }
}

/// What a sector trailer's access condition grants (MF1S50yyX/V1, 8.7.2, Table 7). Key A is
/// never readable.
public struct ClassicTrailerAccess: Sendable, Hashable {
    /// Writing key A.
    public var writeKeyA: ClassicKeys
    /// Reading the access bits and GPB.
    public var readAccessBits: ClassicKeys
    /// Writing the access bits and GPB.
    public var writeAccessBits: ClassicKeys
    /// Reading key B (when granted, key B cannot serve for authentication).
    public var readKeyB: ClassicKeys
    /// Writing key B.
    public var writeKeyB: ClassicKeys

    /// Whether key B is readable, which makes it unusable for authentication (Table 7 note:
    /// rows `000`, `010`, `001`).
    public var keyBIsReadable: Bool { readKeyB != .never }

    /// The row of Table 7 for condition `C1C2C3` (0…7).
    public static func forCondition(_ condition: UInt8) -> ClassicTrailerAccess {
        switch condition & 0x07 {
        case 0: .init(writeKeyA: .a, readAccessBits: .a, writeAccessBits: .never, readKeyB: .a, writeKeyB: .a)
        case 1: .init(writeKeyA: .a, readAccessBits: .a, writeAccessBits: .a, readKeyB: .a, writeKeyB: .a)
        case 2: .init(writeKeyA: .never, readAccessBits: .a, writeAccessBits: .never, readKeyB: .a, writeKeyB: .never)
        case 3: .init(writeKeyA: .b, readAccessBits: .both, writeAccessBits: .b, readKeyB: .never, writeKeyB: .b)
        case 4: .init(writeKeyA: .b, readAccessBits: .both, writeAccessBits: .never, readKeyB: .never, writeKeyB: .b)
        case 5: .init(writeKeyA: .never, readAccessBits: .both, writeAccessBits: .b, readKeyB: .never, writeKeyB: .never)
        case 6: .init(writeKeyA: .never, readAccessBits: .both, writeAccessBits: .never, readKeyB: .never, writeKeyB: .never)
        default: .init(writeKeyA: .never, readAccessBits: .both, writeAccessBits: .never, readKeyB: .never, writeKeyB: .never)
        }
    }
}


extension ClassicAccessBits {
    /// An NFC sector, read-write (AN1304, 6.3.2 and Annex: `7F 07 88`): data blocks `000` (key
    /// A|B read and write), trailer `011` (key B writes keys and access bits; key B is not
    /// readable).
    public static let nfcSectorReadWrite = ClassicAccessBits(conditions: [0, 0, 0, 3])
    /// An NFC sector made read-only (AN1304 read-only state, `07 8F 0F`): data blocks `010`
    /// (key A|B read, never written), trailer `110` (nothing in the trailer is writable any more
    /// with either key): permanent.
    public static let nfcSectorReadOnly = ClassicAccessBits(conditions: [2, 2, 2, 6])
    /// A MAD sector (AN10787 / AN1304, `78 77 88`): data blocks `100` (key A|B read, key B
    /// writes), trailer `011`: the public MAD key A only reads, key B administers.
    public static let madSectorReadWrite = ClassicAccessBits(conditions: [4, 4, 4, 3])
    /// A MAD sector made read-only, as the NFC sectors (`07 8F 0F`).
    public static let madSectorReadOnly = ClassicAccessBits(conditions: [2, 2, 2, 6])
}

/// The sector and block geometry of a MIFARE Classic card (MF1S50yyX/V1 8.6 for 1K, MF1S70yyX/V1
/// 8.6 for 4K, MF1S20yyX/V1 for Mini): sectors of 4 blocks, except sectors 32…39 of the 4K,
/// which have 16. Blocks are 16 bytes; the last block of each sector is its trailer.
public enum ClassicLayout: String, Sendable, Hashable, CaseIterable {
    /// MIFARE Mini: 5 sectors of 4 blocks (320 bytes).
    case mini
    /// MIFARE Classic 1K: 16 sectors of 4 blocks (1024 bytes).
    case classic1K
    /// MIFARE Classic 4K: 32 sectors of 4 blocks, then 8 of 16 (4096 bytes).
    case classic4K

    /// Bytes in a block.
    public static let blockSize = 16

    /// The layout of an identified chip: MIFARE Mini's, a 4K's (MIFARE Classic 4K, MIFARE Plus
    /// 4K), 1K otherwise.
    public init(identity: ChipIdentity) {
        switch identity.knownModel {
        case .mifareClassic4K, .mifarePlus4KSL2: self = .classic4K
        case .mifareMini: self = .mini
        case .mifareClassic1K, .mifarePlus2KSL2, .icodeSLIX2, .icodeSLIX, .icodeSLIXS, .icodeSLIXL, nil: self = .classic1K
        case .icodeDNA, .ntag5Switch, .ntag5LinkOrBoost, .tagItHFIStandard, .tagItHFIPro: self = .classic1K
        }
    }

    /// The number of sectors: 5, 16 or 40.
    public var sectorCount: Int {
        switch self {
        case .mini: 5
        case .classic1K: 16
        case .classic4K: 40
        }
    }

    /// The number of blocks: 20, 64 or 256.
    public var blockCount: Int { firstBlock(ofSector: sectorCount) }

    /// Blocks in `sector`: 16 for sectors 32…39 of a 4K, else 4.
    public func blocks(inSector sector: Int) -> Int { sector >= 32 ? 16 : 4 }

    /// The first block of `sector` (for `sector == sectorCount`, the block count).
    public func firstBlock(ofSector sector: Int) -> Int {
        sector <= 32 ? sector * 4 : 128 + (sector - 32) * 16
    }

    /// The trailer block of `sector`.
    public func trailerBlock(ofSector sector: Int) -> Int { firstBlock(ofSector: sector) + blocks(inSector: sector) - 1 }

    /// The sector holding `block`.
    public func sector(ofBlock block: Int) -> Int { block < 128 ? block / 4 : 32 + (block - 128) / 16 }

    /// Whether `block` is a sector trailer.
    public func isTrailer(_ block: Int) -> Bool { trailerBlock(ofSector: sector(ofBlock: block)) == block }

    /// Which of the four access conditions (C1C2C3 of "block" 0, 1, 2 or 3 = trailer) governs
    /// `block`: its index in a 4-block sector; in a 16-block sector of the 4K, blocks 0–4, 5–9
    /// and 10–14 share conditions 0, 1 and 2 (MF1S70yyX/V1, 8.7.1).
    public func accessGroup(ofBlock block: Int) -> Int {
        let sector = sector(ofBlock: block)
        let index = block - firstBlock(ofSector: sector)
        return blocks(inSector: sector) == 16 ? index / 5 : index
    }

    /// The data blocks of `sector` (its blocks but the trailer; block 0 of sector 0, the
    /// manufacturer block, included).
    public func dataBlocks(ofSector sector: Int) -> Range<Int> {
        firstBlock(ofSector: sector)..<trailerBlock(ofSector: sector)
    }
}

/// A block in value-block format (MF1S50yyX/V1, 8.6.2.1, Figure 8): a signed 32-bit value
/// stored three times (bytes 0–3, inverted in 4–7, again in 8–11, least significant byte
/// first), then an address byte four times (12 and 14 plain, 13 and 15 inverted).
public struct ClassicValueBlock: Sendable, Hashable {
    /// The value.
    public var value: Int32
    /// The address byte (free for the application: e.g. the block number of a backup).
    public var address: UInt8

    /// Creates a value block.
    public init(value: Int32, address: UInt8) {
        self.value = value
        self.address = address
    }

    /// Decodes a 16-byte block.
    /// - Parameter blockAddress: the byte address of the block in tag memory, for the error.
    /// - Throws: ``NFCTagError`` `malformedTag` for a block that is not 16 bytes or breaks the
    ///   format; the offset is the first byte that disagrees with its copy.
    public init(bytes: some Collection<UInt8>, blockAddress: Int = 0) throws(NFCTagError) {
        let block = Array(bytes)
        guard block.count == ClassicLayout.blockSize else {
            throw NFCTagError(.malformedTag, at: blockAddress, "a value block has 16 bytes, not \(block.count)")
        }
        for i in 0..<4 {
            guard block[i + 4] == ~block[i] else {
                throw NFCTagError(.malformedTag, at: blockAddress + i + 4, "value byte \(i) and its inverted copy disagree")
            }
            guard block[i + 8] == block[i] else {
                throw NFCTagError(.malformedTag, at: blockAddress + i + 8, "value byte \(i) and its second copy disagree")
            }
        }
        guard block[13] == ~block[12], block[14] == block[12], block[15] == ~block[12] else {
            let at = block[13] != ~block[12] ? 13 : block[14] != block[12] ? 14 : 15
            throw NFCTagError(.malformedTag, at: blockAddress + at, "the address byte and its copies disagree")
        }
        let raw = (0..<4).reduce(UInt32(0)) { $0 | UInt32(block[$1]) << (8 * $1) }
        self.init(value: Int32(bitPattern: raw), address: block[12])
    }

    /// The 16 bytes.
    public var bytes: [UInt8] {
        let v = UInt32(bitPattern: value)
        let plain = (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) }
        return plain + plain.map { ~$0 } + plain + [address, ~address, address, ~address]
    }
}
