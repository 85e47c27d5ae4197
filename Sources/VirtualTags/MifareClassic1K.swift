public import NFCTags
import NFCCore

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
    public let modelName = ChipModel.mifareClassic1K.rawValue
    /// The 4-byte NUID.
    public let uid: [UInt8]

    /// The whole EEPROM, 1024 bytes, block 0 first, trailers holding the real keys: what a
    /// tag file stores. Setting a value of another length is ignored.
    public var memory: [UInt8] {
        get { storage }
        set { if newValue.count == Self.memorySize { storage = newValue } }
    }

    private var storage: [UInt8]
    /// Whether a refused authentication left the card idle until the next selection.
    private var isIdle = false
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
        guard !isIdle else { return false }
        authenticated = nil
        pending = nil
        // A refused authentication leaves the card IDLE (MF1S50 datasheet, 8.5): it answers
        // nothing until it is selected again.
        isIdle = true
        let blockNumber = Int(block)
        guard blockNumber < Self.sectorCount * Self.blocksPerSector else { return false }
        let sector = blockNumber / Self.blocksPerSector
        guard accessBits(sector: sector) != nil else { return false }
        let offset = Self.trailerOffset(sector)
        let stored = keyType == .a ? storage[offset..<offset + 6] : storage[offset + 10..<offset + 16]
        guard key.count == 6, Array(stored) == key else { return false }
        authenticated = (sector, keyType)
        isIdle = false
        return true
    }

    /// Answers READ, WRITE, INCREMENT, DECREMENT, RESTORE, TRANSFER and HLTA (section 10).
    public func respond(to frame: [UInt8]) -> TagAnswer {
        if isIdle { return .silence }
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
        isIdle = false
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
        ClassicValueBlock(value: value, address: address).bytes
    }

    /// The value stored in a block in value-block format, or nil when the format is violated.
    public static func value(fromBlock block: [UInt8]) -> Int32? {
        (try? ClassicValueBlock(bytes: block))?.value
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
