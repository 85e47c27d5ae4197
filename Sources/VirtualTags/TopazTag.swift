import NFCCore
public import NFCTags

/// A Broadcom (Innovision) Topaz, NFC Forum Type 1: the Topaz 96 (static layout, 120 bytes) and
/// the Topaz 512 (dynamic layout, 512 bytes).
///
/// The Broadcom datasheets (BCM20203T96/T512) are not public. What this model does comes from
/// public sources, and is said where it rests on a choice of ours:
/// - header ROM `11 48` / `12 4C` (nfcpy `tt1_broadcom.py`); SENS_RES `0C 00` in the order a
///   PN53x reports it (most significant byte first, as for type A: nfcpy's PN53x test fixture
///   answers InListPassiveTarget BrTy 4 with `0C 00` and the ID, and nfcpy's `activate` takes
///   the second byte on the air, `0C`, for Type 1; NXP's AN10833 gives a Jewel's ATQA as `0C 00`); UID0…UID6 in block 0, RID answering UID0…UID3;
/// - frames as nfcpy's `tt1.py` sends them (command, address, data or zeros, UID0…UID3) and the
///   answers it reads: RID `HR0 HR1 UID0-3`, RALL `HR0 HR1` and blocks 0…E, READ/WRITE-E/
///   WRITE-NE `ADD DATA`, READ8/WRITE-E8/WRITE-NE8 `ADD8` and 8 bytes, RSEG `ADDS` and 128
///   bytes; a frame with another UID, a wrong length, an unknown command, or a block command to
///   the Topaz 96 gets no answer (our choice);
/// - block 0 (UID) and block D (reserved) read-only; LOCK0/LOCK1 (block E bytes 0–1) and OTP
///   (bytes 2–7) only gain bits; bit n of LOCK0/LOCK1 locks block n / 8 + n (0…E); on the Topaz
///   512, bytes 7Ah–7Fh hold 48 dynamic lock bits, bit n locking block 10h + n, as the Lock
///   Control TLV `F2 30 33` of nfcpy's formatter says; lock bits act at once (our choice);
///   a write to a locked byte leaves it and answers what it holds, as nfcpy's WRITE-E8 check
///   expects;
/// - delivered formatted with an empty NDEF message (the layout nfcpy's format writes).
public final class TopazTag: PersistentVirtualTag, NDEFPreloadable {
    /// The two products.
    public enum Model: String, Sendable, CaseIterable {
        /// Topaz 96 (BCM20203T96): static layout.
        case topaz96 = "topaz96"
        /// Topaz 512 (BCM20203T512): dynamic layout.
        case topaz512 = "topaz512"

        /// The memory size in bytes.
        public var memorySize: Int { self == .topaz96 ? Type1Memory.staticSize : 512 }
        /// HR0 and HR1.
        public var headerROM: [UInt8] {
            self == .topaz96 ? [Type1HeaderROM.staticLayout, Type1HeaderROM.topaz96] : [Type1HeaderROM.dynamicLayout, Type1HeaderROM.topaz512]
        }
        /// The product name.
        public var productName: String { self == .topaz96 ? "Topaz 96 (BCM20203T96)" : "Topaz 512 (BCM20203T512)" }
        /// What a format writes from byte 8 on.
        public var formatLayout: [UInt8] { self == .topaz96 ? Type1FormatLayout.staticLayout : Type1FormatLayout.dynamicLayout }
    }

    /// SENS_RES in the order a PN53x reports it, most significant byte first (libnfc's
    /// `nfc-list` shows the same): on the air `00` then `0C`, the platform configuration `0C`
    /// naming Type 1.
    public static let sensRes: [UInt8] = [0x0C, 0x00]
    /// The Topaz 512's dynamic lock bytes (block F, bytes 2–7).
    static let dynamicLockBytes = 0x7A..<0x80

    /// Which product.
    public let model: Model
    /// UID0…UID6.
    public let uid: [UInt8]
    /// All memory, block 0 first.
    public private(set) var memory: [UInt8]
    /// Grows with every change to persistent state.
    public private(set) var stateRevision = 0
    private var idle = false

    /// A delivered chip: UID in block 0, formatted with an empty NDEF message.
    /// - Precondition: `uid` has 7 bytes.
    public init(_ model: Model, uid: [UInt8]) {
        precondition(uid.count == 7, "a Topaz UID has 7 bytes")
        self.model = model
        self.uid = uid
        var memory = [UInt8](repeating: 0, count: model.memorySize)
        memory.replaceSubrange(0..<7, with: uid)
        let layout = model.formatLayout
        memory.replaceSubrange(Type1Memory.capabilityContainerAddress..<(Type1Memory.capabilityContainerAddress + layout.count), with: layout)
        self.memory = memory
    }

    /// Restores a chip from a tag file; nil when the model, UID or memory size does not fit.
    public init?(_ model: Model, state: TagState) {
        guard state.model == model.rawValue, let uid = try? Hex.decode(state.uid), uid.count == 7,
              let memory = try? Hex.decode(state.memory), memory.count == model.memorySize,
              Array(memory[0..<7]) == uid
        else { return nil }
        self.model = model
        self.uid = uid
        self.memory = memory
    }

    /// The product name.
    public var modelName: String { model.productName }
    /// SENS_RES `0C 00` and UID0…UID3.
    public var targetInfo: TargetInfo { .jewel(JewelTarget(sensRes: Bytes(Self.sensRes), id: Bytes(Array(uid[0..<4])))) }
    /// The state a tag file stores.
    public var tagState: TagState { TagState(model: model.rawValue, uid: Hex.encode(uid), memory: Hex.encode(memory)) }

    /// Entering the field.
    public func powerOn() { idle = false }
    /// No HLTA on Type 1: the chip stays silent until it enters the field again.
    public func halt() { idle = true }

    /// Stores `message` in the formatted layout's NDEF TLV, skipping blocks D, E (and F), as a
    /// vendor would deliver it. False when it does not fit.
    @discardableResult
    public func setNDEFMessage(_ message: [UInt8]) -> Bool {
        let layout = model.formatLayout
        let tlvStart = Type1Memory.capabilityContainerAddress + layout.count - 2
        let reserved = model == .topaz96 ? Type1Memory.staticReservedBytes : Type1Memory.dynamicReservedBytes
        let addresses = (tlvStart..<model.memorySize).filter { !reserved.contains($0) }
        let length: [UInt8] = message.count < 0xFF ? [UInt8(message.count)] : [0xFF, UInt8(message.count >> 8), UInt8(message.count & 0xFF)]
        var tlv = [Type2TLVType.ndefMessage] + length + message
        guard tlv.count <= addresses.count else { return false }
        if tlv.count < addresses.count { tlv.append(Type2TLVType.terminator) }
        let start = Type1Memory.capabilityContainerAddress
        memory.replaceSubrange(start..<(start + layout.count), with: layout)
        for (index, byte) in tlv.enumerated() { memory[addresses[index]] = byte }
        stateRevision += 1
        return true
    }

    // MARK: - Commands

    /// Answers one frame (without CRC).
    public func respond(to frame: [UInt8]) -> TagAnswer {
        guard !idle, let command = frame.first else { return .silence }
        let uidLength = Type1Memory.commandUIDLength
        let dynamic = model == .topaz512
        switch (command, frame.count) {
        case (Type1Command.readIdentification, 7):
            return .data(model.headerROM + Array(uid[0..<4]))
        case (Type1Command.readAll, 7), (Type1Command.read, 7), (Type1Command.writeErase, 7), (Type1Command.writeNoErase, 7),
             (Type1Command.readSegment, 14) where dynamic, (Type1Command.read8, 14) where dynamic,
             (Type1Command.writeErase8, 14) where dynamic, (Type1Command.writeNoErase8, 14) where dynamic:
            guard Array(frame.suffix(uidLength)) == Array(uid[0..<uidLength]) else { return .silence }
        default:
            return .silence
        }
        let address = Int(frame[1])
        switch command {
        case Type1Command.readAll:
            return .data(model.headerROM + Array(memory[0..<Type1Memory.staticSize]))
        case Type1Command.read:
            guard address < min(model.memorySize, Type1Memory.byteCommandLimit) else { return .silence }
            return .data([frame[1], memory[address]])
        case Type1Command.writeErase, Type1Command.writeNoErase:
            guard address < min(model.memorySize, Type1Memory.byteCommandLimit) else { return .silence }
            write(address, frame[2], erase: command == Type1Command.writeErase)
            return .data([frame[1], memory[address]])
        case Type1Command.readSegment:
            let start = (address >> 4) * Type1Memory.segmentSize
            guard start < model.memorySize else { return .silence }
            return .data([frame[1]] + Array(memory[start..<(start + Type1Memory.segmentSize)]))
        case Type1Command.read8:
            let start = address * Type1Memory.blockSize
            guard start < model.memorySize else { return .silence }
            return .data([frame[1]] + Array(memory[start..<(start + Type1Memory.blockSize)]))
        default:
            let start = address * Type1Memory.blockSize
            guard start < model.memorySize else { return .silence }
            for offset in 0..<Type1Memory.blockSize {
                write(start + offset, frame[2 + offset], erase: command == Type1Command.writeErase8)
            }
            return .data([frame[1]] + Array(memory[start..<(start + Type1Memory.blockSize)]))
        }
    }

    /// One byte written: erase-then-write or OR, unless the byte is read-only or locked; lock
    /// and OTP bytes only gain bits.
    private func write(_ address: Int, _ value: UInt8, erase: Bool) {
        let block = address / Type1Memory.blockSize
        if block == 0 || Type1Memory.reservedBlock.contains(address) || isLocked(block: block) { return }
        let orOnly = Type1Memory.staticLockBytes.contains(address) || Type1Memory.otpBytes.contains(address)
            || (model == .topaz512 && Self.dynamicLockBytes.contains(address))
        let next = erase && !orOnly ? value : memory[address] | value
        guard next != memory[address] else { return }
        memory[address] = next
        stateRevision += 1
    }

    /// Whether a lock bit keeps `block` from being written. Block E (the lock bytes) and block F
    /// stay writable so that lock bits can always be added.
    private func isLocked(block: Int) -> Bool {
        switch block {
        case 0..<8: return memory[Type1Memory.staticLockBytes.lowerBound] & (1 << block) != 0
        case 8..<14: return memory[Type1Memory.staticLockBytes.lowerBound + 1] & (1 << (block - 8)) != 0
        case 16...:
            let bit = block - 16
            guard model == .topaz512, bit < Self.dynamicLockBytes.count * 8 else { return false }
            return memory[Self.dynamicLockBytes.lowerBound + bit / 8] & (1 << (bit % 8)) != 0
        default: return false
        }
    }
}
