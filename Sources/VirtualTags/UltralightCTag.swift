import NFCCore
import NFCCrypto
public import NFCTags

/// An NXP MIFARE Ultralight C (MF0ICU2), as its datasheet (Rev. 3.3) describes it.
///
/// Memory (7.5): 48 pages — UID and static lock bytes (pages 0–2), the OTP page 3, user memory
/// 04h–27h, lock bytes 2–3 (28h), the 16-bit counter (29h), AUTH0 (2Ah), AUTH1 (2Bh) and the
/// 3DES key (2Ch–2Fh, each half byte-reversed, never readable). Delivered as Table 13 says: user
/// memory zero (the datasheet leaves it undefined), AUTH0 30h (nothing protected), the key
/// `BREAKMEIFYOUCAN!`; not NDEF formatted (page 3 zero) unless a message is preloaded.
///
/// Commands: READ (roll-over), WRITE, COMPATIBILITY_WRITE and AUTHENTICATE (`1A 00`, then `AF`
/// ‖ ek(RndA ‖ RndB′), answered `00` ‖ ek(RndA′), 7.5.6). GET_VERSION, like any unknown
/// command, sends the chip idle after a NAK. Rules: static lock bits with block-locking bits
/// (7.5.2), the OTP page (7.5.4), lock byte 2's 4-page lock bits from page 10h with its two
/// block-locking bits (7.5.3; lock byte 3 is stored, OR-ed, not enforced here), AUTH0/AUTH1
/// enforced until the mutual authentication succeeds, a written key taking effect at the next
/// activation (7.5.7), the counter's first write and later increments (7.5.11). RndB comes from
/// the system's secure random source.
public final class UltralightCTag: PersistentVirtualTag, ActivatableVirtualTag, NDEFPreloadable {
    /// The registry name, stored in tag files.
    public static let modelKey = "ultralight-c"

    /// The 7-byte UID.
    public let uid: [UInt8]
    /// All 48 pages as stored (the key pages with their real bytes), for tests and tag files.
    public private(set) var memory: [UInt8]
    /// Where RndB comes from (8 bytes each call); the system's secure source unless a test
    /// replays a worked example.
    public var random: () -> [UInt8] = UltralightCAuthentication.systemRandom
    /// Grows with every change to persistent state.
    public private(set) var stateRevision = 0

    // Volatile state.
    private var idle = false
    private var authenticated = false
    /// RndB and ek(RndB) between the two AUTHENTICATE steps.
    private var pendingAuthentication: (rndB: [UInt8], encrypted: [UInt8])?
    private var pendingCompatibilityWrite: Int?
    /// The key as it was at the last activation: a written key counts from the next one.
    private var activeKey: [UInt8] = []
    private var activeStaticLock: [UInt8] = [0, 0]
    private var activeLockByte2: UInt8 = 0

    /// A factory-fresh chip with a 7-byte UID.
    /// - Precondition: `uid` has 7 bytes.
    public init(uid: [UInt8]) {
        precondition(uid.count == 7, "an Ultralight C UID has 7 bytes")
        self.uid = uid
        var memory = [UInt8](repeating: 0, count: UltralightCMemory.totalPages * 4)
        memory.replaceSubrange(0..<9, with: Type2Chip.serialNumberBytes(uid: uid))
        memory[9] = 0x48  // internal byte
        memory[UltralightCMemory.auth0Page * 4] = UltralightCMemory.auth0Unprotected
        memory.replaceSubrange(Self.keyRange, with: UltralightCKey.factoryDefault.pageImage)
        self.memory = memory
        activate()
    }

    /// Restores a chip from a tag file's state; nil when its UID or memory does not fit.
    public init?(state: TagState) {
        guard state.model == Self.modelKey, let uid = try? Hex.decode(state.uid), uid.count == 7,
              let memory = try? Hex.decode(state.memory), memory.count == UltralightCMemory.totalPages * 4,
              Array(memory[0..<9]) == Type2Chip.serialNumberBytes(uid: uid)
        else { return nil }
        self.uid = uid
        self.memory = memory
        activate()
    }

    /// The 3DES key (Key1 ‖ Key2) pages 2Ch–2Fh hold: each 8-byte half reversed (MF0ICU2 Tables
    /// 10 and 11: Key1 = 00…07h is stored `07 06 05 04`, `03 02 01 00`). Stated here apart from
    /// ``UltralightCKey/pageImage`` so that the two check each other.
    static func key(fromPages image: [UInt8]) -> [UInt8] {
        Array(image[0..<8].reversed()) + Array(image[8..<16].reversed())
    }

    private static let keyRange = (UltralightCMemory.keyPages.lowerBound * 4)..<(UltralightCMemory.keyPages.upperBound * 4)

    /// `MIFARE Ultralight C`.
    public var modelName: String { ChipIdentification.ultralightCModel }
    /// ATQA `44 00`, SAK `00`, the 7-byte UID (MF0ICU2 8.2).
    public var targetInfo: TargetInfo {
        .iso14443A(ISO14443ATarget(uid: Bytes(uid), atqa: [0x44, 0x00], sak: 0x00))
    }
    /// The state a tag file stores.
    public var tagState: TagState { TagState(model: Self.modelKey, uid: Hex.encode(uid), memory: Hex.encode(memory)) }
    /// Whether the mutual authentication succeeded since the last activation.
    public var isAuthenticated: Bool { authenticated }

    /// Entering the field.
    public func powerOn() { activate() }
    /// HLTA: nothing is answered until the chip is activated again.
    public func halt() {
        activate()
        idle = true
    }
    /// REQA/WUPA and selection: authentication reset, lock bits and a written key take effect.
    public func activate() {
        idle = false
        authenticated = false
        pendingAuthentication = nil
        pendingCompatibilityWrite = nil
        activeKey = Self.key(fromPages: Array(memory[Self.keyRange]))
        activeStaticLock = [memory[10], memory[11]]
        activeLockByte2 = memory[UltralightCMemory.lockPage * 4]
    }

    /// Stores `message` in an NDEF TLV at page 4 with the capability container of AN1303
    /// (`E1 10 12 00`: 144 bytes, read/write), as a vendor delivers a formatted chip. False
    /// when it does not fit.
    @discardableResult
    public func setNDEFMessage(_ message: [UInt8]) -> Bool {
        let length: [UInt8] =
            message.count < 0xFF ? [UInt8(message.count)] : [0xFF, UInt8(message.count >> 8), UInt8(message.count & 0xFF)]
        let tlv = [0x03] + length + message + [0xFE]
        let start = UltralightCMemory.userPages.lowerBound * 4, end = UltralightCMemory.userPages.upperBound * 4
        guard start + tlv.count <= end else { return false }
        memory.replaceSubrange(12..<16, with: [0xE1, 0x10, UInt8(UltralightCMemory.userPages.count * 4 / 8), 0x00])
        memory.replaceSubrange(start..<end, with: tlv + [UInt8](repeating: 0, count: end - start - tlv.count))
        stateRevision += 1
        return true
    }

    // MARK: - Commands

    /// Answers a frame (without CRC). A NAK sends the chip idle, authentication lost (9.1).
    public func respond(to frame: [UInt8]) -> TagAnswer {
        let answer = execute(frame)
        if case .nak = answer {
            idle = true
            authenticated = false
            pendingAuthentication = nil
            pendingCompatibilityWrite = nil
        }
        return answer
    }

    private func execute(_ frame: [UInt8]) -> TagAnswer {
        if idle { return .silence }
        if let pending = pendingAuthentication {
            pendingAuthentication = nil
            guard frame.count == 17, frame[0] == UltralightCCommand.authenticateContinue else { return goIdle() }
            return finishAuthentication(pending, Array(frame[1...]))
        }
        if let page = pendingCompatibilityWrite {
            pendingCompatibilityWrite = nil
            guard frame.count == 16 else { return .nak(NTAGAcknowledge.invalidArgument) }
            return write(page: page, Array(frame[0..<4]))
        }
        guard let command = frame.first else { return goIdle() }
        switch (command, frame.count) {
        case (Type2Command.read, 2):
            return read(from: Int(frame[1]))
        case (Type2Command.write, 6):
            return write(page: Int(frame[1]), Array(frame[2..<6]))
        case (Type2Command.compatibilityWrite, 2):
            let page = Int(frame[1])
            guard page >= 2, page < UltralightCMemory.totalPages else { return .nak(NTAGAcknowledge.invalidArgument) }
            pendingCompatibilityWrite = page
            return .ack
        case (UltralightCCommand.authenticate, 2):
            guard frame[1] == UltralightCCommand.keyNumber else { return .nak(NTAGAcknowledge.invalidArgument) }
            return startAuthentication()
        default:
            // GET_VERSION (60h) and any other command the chip does not know: NAK (9.6).
            return .nak(NTAGAcknowledge.invalidArgument)
        }
    }

    private func goIdle() -> TagAnswer {
        idle = true
        authenticated = false
        return .silence
    }

    // MARK: access

    private var auth0: Int { max(Int(memory[UltralightCMemory.auth0Page * 4]), UltralightCMemory.auth0Lowest) }
    private var readProtected: Bool {
        memory[UltralightCMemory.auth1Page * 4] & UltralightCMemory.auth1WriteOnlyBit == 0
            && !authenticated && auth0 < UltralightCMemory.totalPages
    }

    /// READ: four pages from `start`, rolling over to page 0 past page 2Fh — or past AUTH0−1
    /// when reading is protected. A READ starting in the key pages is refused; key bytes a
    /// roll-over reaches read as 00 (the datasheet only says they are never returned).
    private func read(from start: Int) -> TagAnswer {
        guard start < UltralightCMemory.keyPages.lowerBound else { return .nak(NTAGAcknowledge.invalidArgument) }
        var end = UltralightCMemory.totalPages
        if readProtected {
            guard start < auth0 else { return .nak(NTAGAcknowledge.invalidArgument) }
            end = auth0
        }
        var out = [UInt8]()
        for i in 0..<4 {
            let page = (start + i) % end
            out += UltralightCMemory.keyPages.contains(page) ? [0, 0, 0, 0] : Array(memory[(page * 4)..<(page * 4 + 4)])
        }
        return .data(out)
    }

    /// Whether active lock bits make `page` read-only: static bits for 3…15; lock byte 2 bits
    /// 1, 2, 3, 5, 6, 7 for the 4-page groups from 10h (bit 0 and bit 4 are block-locking bits).
    private func isLocked(page: Int) -> Bool {
        if (3...15).contains(page) {
            return Type2StaticLock.locks(page: page, lockBytes: (activeStaticLock[0], activeStaticLock[1]))
        }
        if (0x10..<0x28).contains(page) {
            let bit = Self.lockByte2Bits[(page - 0x10) / 4]
            return activeLockByte2 & (1 << bit) != 0
        }
        return false
    }

    /// The lock bit of lock byte 2 for each 4-page group 10h–13h … 24h–27h.
    private static let lockByte2Bits: [UInt8] = [1, 2, 3, 5, 6, 7]

    /// WRITE / COMPATIBILITY_WRITE of one page (9.3, 9.4).
    private func write(page: Int, _ data: [UInt8]) -> TagAnswer {
        guard page >= 2, page < UltralightCMemory.totalPages else { return .nak(NTAGAcknowledge.invalidArgument) }
        if page >= auth0, !authenticated { return .nak(NTAGAcknowledge.invalidArgument) }
        if isLocked(page: page) { return .nak(NTAGAcknowledge.invalidArgument) }
        let offset = page * 4
        switch page {
        case 2:
            let (lock0, lock1) = Type2StaticLock.afterWrite(of: (data[2], data[3]), over: (memory[10], memory[11]))
            memory[10] = lock0
            memory[11] = lock1
        case 3:
            for i in 0..<4 { memory[offset + i] |= data[i] }
        case UltralightCMemory.lockPage:
            var allowed: UInt8 = 0xFF
            let current = memory[offset]
            if current & 0x01 != 0 { allowed &= ~0x0E }
            if current & 0x10 != 0 { allowed &= ~0xE0 }
            memory[offset] |= data[0] & allowed
            memory[offset + 1] |= data[1]
        case UltralightCMemory.counterPage:
            let value = Int(memory[offset]) | Int(memory[offset + 1]) << 8
            let written = Int(data[0]) | Int(data[1]) << 8
            let next = value == 0 ? written : value + Int(data[0] & 0x0F)
            guard written != 0 || value != 0, next <= 0xFFFF else { return .nak(NTAGAcknowledge.invalidArgument) }
            memory[offset] = UInt8(next & 0xFF)
            memory[offset + 1] = UInt8(next >> 8)
        default:
            memory.replaceSubrange(offset..<(offset + 4), with: data)
        }
        stateRevision += 1
        return .ack
    }

    // MARK: authentication

    private func startAuthentication() -> TagAnswer {
        let rndB = random()
        guard rndB.count == UltralightCAuthentication.randomSize,
              let encrypted = try? TripleDES.encryptCBC(key: Bytes(activeKey), iv: Bytes([UInt8](repeating: 0, count: 8)), Bytes(rndB))
        else { return .nak(NTAGAcknowledge.invalidArgument) }
        pendingAuthentication = (rndB, encrypted.array)
        return .data([UltralightCCommand.authenticateContinue] + encrypted.array)
    }

    /// Deciphers ek(RndA ‖ RndB′) with the IV ek(RndB), checks RndB′, and answers ek(RndA′) with
    /// the IV of the last block received; a wrong RndB′ (a wrong key) is a NAK.
    private func finishAuthentication(_ pending: (rndB: [UInt8], encrypted: [UInt8]), _ message: [UInt8]) -> TagAnswer {
        guard let plain = try? TripleDES.decryptCBC(key: Bytes(activeKey), iv: Bytes(pending.encrypted), Bytes(message)).array,
              plain.count == 16
        else { return .nak(NTAGAcknowledge.invalidArgument) }
        let rndA = Array(plain[0..<8]), rotatedRndB = Array(plain[8..<16])
        guard rotatedRndB == Array(pending.rndB[1...]) + [pending.rndB[0]] else { return .nak(NTAGAcknowledge.invalidArgument) }
        let rotatedRndA = Array(rndA[1...]) + [rndA[0]]
        guard let answer = try? TripleDES.encryptCBC(key: Bytes(activeKey), iv: Bytes(Array(message[8..<16])), Bytes(rotatedRndA))
        else { return .nak(NTAGAcknowledge.invalidArgument) }
        authenticated = true
        return .data([UltralightCCommand.authenticateDone] + answer.array)
    }
}
