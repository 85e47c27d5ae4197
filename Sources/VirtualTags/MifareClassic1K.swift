public import NFCTags
import NFCCore

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

    /// Decodes trailer bytes 6, 7, 8; nil when a bit and its inverted copy disagree: the
    /// "format violation" that blocks the sector (8.7.1).
    public init?(bytes: [UInt8]) {
        guard bytes.count >= 3 else { return nil }
        let b6 = bytes[0], b7 = bytes[1], b8 = bytes[2]
        let c1 = b7 >> 4, c2 = b8 & 0x0F, c3 = b8 >> 4
        let notC1 = b6 & 0x0F, notC2 = b6 >> 4, notC3 = b7 & 0x0F
        guard c1 ^ notC1 == 0x0F, c2 ^ notC2 == 0x0F, c3 ^ notC3 == 0x0F else { return nil }
        conditions = (0..<4).map { i in
            ((c1 >> i) & 1) << 2 | ((c2 >> i) & 1) << 1 | ((c3 >> i) & 1)
        }
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

/// A MIFARE Classic 1K (NXP MF1S50yyX/V1, 4-byte NUID): 16 sectors of 4 blocks of 16 bytes.
///
/// The reader's firmware (PN532 InDataExchange) runs Crypto-1, so the model sees plain
/// frames: ``authenticate(block:keyType:key:)`` checks the key and access bits, then READ,
/// WRITE and the value operations are granted per the sector's access bits (8.7). Frames are
/// the command without CRC. WRITE and the value operations accept both the two-phase form of
/// the datasheet (`A0 b` → ACK, then 16 bytes → ACK; `C1 b` → ACK, then 4 bytes → silence,
/// the passive ACK) and the single frame a PN532's InDataExchange takes (`A0 b` + 16 bytes
/// → ACK; `C1 b` + 4 bytes → ACK, the exchange having succeeded).
///
/// A refused operation answers NAK `4h` (or `0h` while the transfer buffer holds a valid
/// value), Table 10; any error drops the authentication, as the chip returns to idle.
/// ``halt()`` and ``powerOn()`` drop the authentication; the host stops sending to a halted
/// tag until it selects it again.
public final class MifareClassic1K: ClassicVirtualTag {
    /// Blocks per sector.
    public static let blocksPerSector = 4
    /// Sectors.
    public static let sectorCount = 16
    /// Bytes per block.
    public static let blockSize = 16
    /// Total memory: 64 blocks × 16 bytes = 1024.
    public static let memorySize = 1024
    /// The transport key (factory default) for key A and key B.
    public static let transportKey: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
    /// ATQA as it arrives on the air, LSB first: 0x0004 → `04 00` (Table 11, MF1S503yX;
    /// libnfc prints it MSB first, "00 04").
    public static let atqa: [UInt8] = [0x04, 0x00]
    /// SAK `08h` (Table 12).
    public static let sak: UInt8 = 0x08

    /// The chip's name.
    public let modelName = "MIFARE Classic 1K"
    /// The 4-byte NUID.
    public let uid: [UInt8]

    /// The whole EEPROM, 1024 bytes, block 0 first, trailers holding the real keys: what a
    /// tag file stores. Setting a value of another length is ignored.
    public var memory: [UInt8] {
        get { storage }
        set { if newValue.count == Self.memorySize { storage = newValue } }
    }

    private var storage: [UInt8]
    private var authenticated: (sector: Int, keyType: ClassicKeyType)?
    private var pending: PendingCommand?
    private var transferBuffer: (value: Int32, address: UInt8)?

    private enum PendingCommand {
        case write(block: Int)
        case value(command: UInt8, block: Int)
    }

    /// ISO 14443-A target information: the NUID, ATQA `04 00`, SAK `08`, no ATS.
    public var targetInfo: TargetInfo {
        .iso14443A(ISO14443ATarget(uid: Bytes(uid), atqa: Bytes(Self.atqa), sak: Self.sak))
    }

    /// Creates a card.
    /// - Parameters:
    ///   - uid: the 4-byte NUID (shorter is zero-padded, longer truncated).
    ///   - memory: 1024 bytes of initial EEPROM; when nil or of another length, a fresh card:
    ///     block 0 = NUID, BCC, SAK, ATQA and manufacturer data; every trailer
    ///     `FFFFFFFFFFFF FF0780 69 FFFFFFFFFFFF` (transport keys and access bits); data zero.
    public init(uid: [UInt8], memory: [UInt8]? = nil) {
        let nuid = (0..<4).map { $0 < uid.count ? uid[$0] : 0 }
        self.uid = nuid
        if let memory, memory.count == Self.memorySize {
            storage = memory
        } else {
            storage = Self.freshMemory(uid: nuid)
        }
    }

    /// A fresh card's EEPROM (8.6): manufacturer block and transport trailers.
    public static func freshMemory(uid: [UInt8]) -> [UInt8] {
        var memory = [UInt8](repeating: 0, count: memorySize)
        let nuid = (0..<4).map { $0 < uid.count ? uid[$0] : 0 }
        let bcc = nuid.reduce(0, ^)
        let manufacturer: [UInt8] = nuid + [bcc, sak] + atqa + [0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69]
        memory.replaceSubrange(0..<16, with: manufacturer)
        for sector in 0..<sectorCount {
            memory.replaceSubrange(trailerOffset(sector)..<trailerOffset(sector) + 16, with: transportTrailer)
        }
        return memory
    }

    /// A transport sector trailer: key A, `FF 07 80`, GPB `69`, key B.
    public static let transportTrailer: [UInt8] =
        transportKey + ClassicAccessBits.transport.bytes + [0x69] + transportKey

    private static func trailerOffset(_ sector: Int) -> Int { (sector * blocksPerSector + 3) * blockSize }

    /// The access bits of `sector`, nil when the sector is blocked by a format violation.
    public func accessBits(sector: Int) -> ClassicAccessBits? {
        guard (0..<Self.sectorCount).contains(sector) else { return nil }
        let offset = Self.trailerOffset(sector)
        return ClassicAccessBits(bytes: Array(storage[offset + 6..<offset + 9]))
    }

    /// Checks `key` against the sector trailer of `block`'s sector (MF1S50yyX/V1, 10.1).
    /// Fails for a block beyond 63, a wrong key, or a sector blocked by invalid access bits.
    /// When key B is readable (trailer rows `000`, `010`, `001`) the authentication itself
    /// passes but every later access is refused (8.7.2: key B "cannot serve for
    /// authentication").
    public func authenticate(block: UInt8, keyType: ClassicKeyType, key: [UInt8]) -> Bool {
        authenticated = nil
        pending = nil
        let blockNumber = Int(block)
        guard blockNumber < Self.sectorCount * Self.blocksPerSector else { return false }
        let sector = blockNumber / Self.blocksPerSector
        guard accessBits(sector: sector) != nil else { return false }
        let offset = Self.trailerOffset(sector)
        let stored = keyType == .a ? storage[offset..<offset + 6] : storage[offset + 10..<offset + 16]
        guard key.count == 6, Array(stored) == key else { return false }
        authenticated = (sector, keyType)
        return true
    }

    /// Answers READ, WRITE, INCREMENT, DECREMENT, RESTORE, TRANSFER and HLTA (section 10).
    public func respond(to frame: [UInt8]) -> TagAnswer {
        if let pending {
            self.pending = nil
            return completePending(pending, data: frame, singleFrame: false)
        }
        guard let command = frame.first else { return .silence }
        if command == ClassicCommand.halt {
            halt()
            return .silence
        }
        guard frame.count >= 2 else { return refuse() }
        let block = Int(frame[1])
        switch command {
        case ClassicCommand.read:
            return read(block: block)
        case ClassicCommand.write:
            guard isPermitted(block: block, operation: .write) || isWritableTrailer(block) else { return refuse() }
            if frame.count == 2 {
                pending = .write(block: block)
                return .ack
            }
            return completePending(.write(block: block), data: Array(frame.dropFirst(2)), singleFrame: true)
        case ClassicCommand.increment, ClassicCommand.decrement, ClassicCommand.restore:
            let operation: BlockOperation = command == ClassicCommand.increment ? .increment : .decrementTransferRestore
            guard isPermitted(block: block, operation: operation), value(ofBlock: block) != nil else { return refuse() }
            if frame.count == 2 {
                pending = .value(command: command, block: block)
                return .ack
            }
            return completePending(.value(command: command, block: block), data: Array(frame.dropFirst(2)), singleFrame: true)
        case ClassicCommand.transfer:
            guard frame.count == 2, let buffer = transferBuffer,
                isPermitted(block: block, operation: .decrementTransferRestore)
            else { return refuse() }
            write(block: block, bytes: Self.valueBlock(buffer.value, address: buffer.address))
            return .ack
        default:
            return refuse()
        }
    }

    /// Power-up: no authentication, no pending command, transfer buffer invalid.
    public func powerOn() {
        authenticated = nil
        pending = nil
        transferBuffer = nil
    }

    /// HLTA: the authentication is dropped.
    public func halt() {
        authenticated = nil
        pending = nil
        transferBuffer = nil
    }

    // MARK: - Value blocks (8.6.2.1)

    /// A value block: value, inverted value, value (signed 32-bit little-endian), then address,
    /// inverted address, address, inverted address (MF1S50yyX/V1, 8.6.2.1, Figure 8).
    public static func valueBlock(_ value: Int32, address: UInt8) -> [UInt8] {
        let v = UInt32(bitPattern: value)
        let bytes = (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) }
        let inverted = bytes.map { ~$0 }
        return bytes + inverted + bytes + [address, ~address, address, ~address]
    }

    /// The value stored in a block in value-block format, or nil when the format is violated.
    public static func value(fromBlock block: [UInt8]) -> Int32? {
        guard block.count == blockSize else { return nil }
        for i in 0..<4 {
            guard block[i] == block[i + 8], block[i] == ~block[i + 4] else { return nil }
        }
        guard block[12] == block[14], block[13] == block[15], block[12] == ~block[13] else { return nil }
        let raw = (0..<4).reduce(UInt32(0)) { $0 | UInt32(block[$1]) << (8 * $1) }
        return Int32(bitPattern: raw)
    }

    // MARK: - Private

    private enum BlockOperation { case read, write, increment, decrementTransferRestore }

    private func blockBytes(_ block: Int) -> [UInt8] {
        Array(storage[block * Self.blockSize..<(block + 1) * Self.blockSize])
    }

    private func write(block: Int, bytes: [UInt8]) {
        storage.replaceSubrange(block * Self.blockSize..<(block + 1) * Self.blockSize, with: bytes)
    }

    private func value(ofBlock block: Int) -> Int32? {
        Self.value(fromBlock: blockBytes(block))
    }

    private func refuse() -> TagAnswer {
        let code = transferBuffer == nil ? ClassicNAK.invalidOperation : ClassicNAK.invalidOperationBufferValid
        authenticated = nil
        pending = nil
        transferBuffer = nil
        return .nak(code)
    }

    /// The authenticated key for `block`, when the block is in the authenticated sector and
    /// that key may serve (not a readable key B, not a blocked sector).
    private func usableKey(for block: Int) -> (ClassicKeyType, ClassicAccessBits)? {
        guard let auth = authenticated, block >= 0, block < 64, block / Self.blocksPerSector == auth.sector,
            let bits = accessBits(sector: auth.sector)
        else { return nil }
        let trailer = ClassicTrailerAccess.forCondition(bits.condition(ofBlock: 3))
        if auth.keyType == .b && trailer.keyBIsReadable { return nil }
        return (auth.keyType, bits)
    }

    private func isPermitted(block: Int, operation: BlockOperation) -> Bool {
        guard let (key, bits) = usableKey(for: block) else { return false }
        let index = block % Self.blocksPerSector
        if index == 3 { return operation == .read }
        if block == 0 && operation != .read { return false }  // manufacturer block
        let access = ClassicDataBlockAccess.forCondition(bits.condition(ofBlock: index))
        switch operation {
        case .read: return access.read.allows(key)
        case .write: return access.write.allows(key)
        case .increment: return access.increment.allows(key)
        case .decrementTransferRestore: return access.decrementTransferRestore.allows(key)
        }
    }

    private func isWritableTrailer(_ block: Int) -> Bool {
        guard block % Self.blocksPerSector == 3, let (key, bits) = usableKey(for: block) else { return false }
        let access = ClassicTrailerAccess.forCondition(bits.condition(ofBlock: 3))
        return access.writeKeyA.allows(key) || access.writeAccessBits.allows(key) || access.writeKeyB.allows(key)
    }

    private func read(block: Int) -> TagAnswer {
        guard isPermitted(block: block, operation: .read), let (key, bits) = usableKey(for: block) else {
            return refuse()
        }
        var bytes = blockBytes(block)
        if block % Self.blocksPerSector == 3 {
            let access = ClassicTrailerAccess.forCondition(bits.condition(ofBlock: 3))
            bytes.replaceSubrange(0..<6, with: [UInt8](repeating: 0, count: 6))  // key A: never
            if !access.readAccessBits.allows(key) {
                bytes.replaceSubrange(6..<10, with: [UInt8](repeating: 0, count: 4))
            }
            if !access.readKeyB.allows(key) {
                bytes.replaceSubrange(10..<16, with: [UInt8](repeating: 0, count: 6))
            }
        }
        return .data(bytes)
    }

    private func completePending(_ command: PendingCommand, data: [UInt8], singleFrame: Bool) -> TagAnswer {
        switch command {
        case .write(let block):
            guard data.count == Self.blockSize else { return refuse() }
            if block % Self.blocksPerSector == 3 {
                guard let (key, bits) = usableKey(for: block) else { return refuse() }
                let access = ClassicTrailerAccess.forCondition(bits.condition(ofBlock: 3))
                var trailer = blockBytes(block)
                if access.writeKeyA.allows(key) { trailer.replaceSubrange(0..<6, with: data[0..<6]) }
                if access.writeAccessBits.allows(key) { trailer.replaceSubrange(6..<10, with: data[6..<10]) }
                if access.writeKeyB.allows(key) { trailer.replaceSubrange(10..<16, with: data[10..<16]) }
                write(block: block, bytes: trailer)
            } else {
                write(block: block, bytes: data)
            }
            return .ack
        case .value(let command, let block):
            guard data.count == 4, let current = value(ofBlock: block) else { return refuse() }
            let operand = Int32(bitPattern: (0..<4).reduce(UInt32(0)) { $0 | UInt32(data[$1]) << (8 * $1) })
            let address = blockBytes(block)[12]  // the address byte travels with the value
            switch command {
            case ClassicCommand.increment: transferBuffer = (current &+ operand, address)
            case ClassicCommand.decrement: transferBuffer = (current &- operand, address)
            default: transferBuffer = (current, address)
            }
            // Two phases: the passive ACK, no answer within the timeout. One frame: the whole
            // exchange succeeded, as a PN532 reports it.
            return singleFrame ? .ack : .silence
        }
    }
}
