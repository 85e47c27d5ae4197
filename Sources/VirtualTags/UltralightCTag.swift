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
/// The shared part (READ, WRITE, AUTH0, the authentication's state machine) is
/// ``UltralightKeyedTag``; this class adds AUTH1, COMPATIBILITY_WRITE, lock byte 2 and the counter.
public final class UltralightCTag: UltralightKeyedTag<UltralightC3DES> {
    /// The registry name, stored in tag files.
    public static let modelKey = "ultralight-c"

    private var pendingCompatibilityWrite: Int?
    /// The key as it was at the last activation: a written key counts from the next one.
    private var activeKey: [UInt8] = []
    private var activeLockByte2: UInt8 = 0

    /// A factory-fresh chip with a 7-byte UID.
    /// - Precondition: `uid` has 7 bytes.
    public init(uid: [UInt8]) {
        precondition(uid.count == 7, "an Ultralight C UID has 7 bytes")
        var memory = Self.blankMemory(uid: uid, bytes: UltralightCMemory.totalPages * 4)
        memory[UltralightCMemory.auth0Page * 4] = UltralightCMemory.auth0Unprotected
        memory.replaceSubrange(Self.keyRange, with: UltralightCKey.factoryDefault.pageImage)
        super.init(uid: uid, memory: memory, modelKey: Self.modelKey, totalPages: UltralightCMemory.totalPages)
    }

    /// Restores a chip from a tag file's state; nil when its UID or memory does not fit.
    public init?(state: TagState) {
        super.init(
            state: state, modelKey: Self.modelKey, totalPages: UltralightCMemory.totalPages,
            memoryBytes: UltralightCMemory.totalPages * 4)
    }

    /// The 3DES key (Key1 ‖ Key2) pages 2Ch–2Fh hold: each 8-byte half reversed (MF0ICU2 Tables
    /// 10 and 11: Key1 = 00…07h is stored `07 06 05 04`, `03 02 01 00`). Stated here apart from
    /// ``UltralightCKey/pageImage`` so that the two check each other.
    static func key(fromPages image: [UInt8]) -> [UInt8] {
        Array(image[0..<8].reversed()) + Array(image[8..<16].reversed())
    }

    private static let keyRange = (UltralightCMemory.keyPages.lowerBound * 4)..<(UltralightCMemory.keyPages.upperBound * 4)

    /// `MIFARE Ultralight C`.
    override public var modelName: String { ChipIdentification.ultralightCModel }

    // MARK: - hooks

    override var auth0: Int { max(Int(memory[UltralightCMemory.auth0Page * 4]), UltralightCMemory.auth0Lowest) }
    /// AUTH1 bit 0 clear: reads from AUTH0 on need the key too.
    override var readProtected: Bool {
        memory[UltralightCMemory.auth1Page * 4] & UltralightCMemory.auth1WriteOnlyBit == 0
            && !authenticated && auth0 < UltralightCMemory.totalPages
    }
    override var secretPages: Range<Int> { UltralightCMemory.keyPages }
    /// A READ starting in the key pages is refused; key bytes a roll-over reaches read as 00
    /// (the datasheet only says they are never returned).
    override func readable(from page: Int) -> Bool { page < UltralightCMemory.keyPages.lowerBound }

    override func resetSession() {
        super.resetSession()
        pendingCompatibilityWrite = nil
    }

    override func activateState() {
        activeKey = Self.key(fromPages: Array(memory[Self.keyRange]))
        activeLockByte2 = memory[UltralightCMemory.lockPage * 4]
    }

    /// Only key number 00h exists.
    override func authenticationKey(_ keyNumber: UInt8) -> [UInt8]? {
        keyNumber == UltralightCCommand.keyNumber ? activeKey : nil
    }

    /// The 16 data bytes that follow COMPATIBILITY_WRITE's ACK.
    override func interceptPending(_ frame: [UInt8]) -> TagAnswer? {
        guard let page = pendingCompatibilityWrite else { return nil }
        pendingCompatibilityWrite = nil
        guard frame.count == 16 else { return .nak(NTAGAcknowledge.invalidArgument) }
        return write(page: page, Array(frame[0..<4]))
    }

    /// COMPATIBILITY_WRITE (9.4); GET_VERSION (60h) and any other command the chip does not
    /// know: NAK (9.6).
    override func executeOther(_ frame: [UInt8]) -> TagAnswer? {
        guard frame.count == 2, frame[0] == Type2Command.compatibilityWrite else { return nil }
        let page = Int(frame[1])
        guard page >= 2, page < UltralightCMemory.totalPages else { return .nak(NTAGAcknowledge.invalidArgument) }
        pendingCompatibilityWrite = page
        return .ack
    }

    /// Lock byte 2 bits 1, 2, 3, 5, 6, 7 lock the 4-page groups from 10h (bit 0 and bit 4 are
    /// block-locking bits): ``UltralightCMemory/lockByte2Locks(page:lockByte2:)``.
    override func isLockedBeyondStatic(page: Int) -> Bool {
        UltralightCMemory.lockByte2Locks(page: page, lockByte2: activeLockByte2)
    }

    /// Lock bytes 2–3 (7.5.3: bits only set, block-locking bits freeze theirs) and the counter
    /// (7.5.11: the first write sets it, later ones add their low nibble).
    override func writeSpecial(page: Int, _ data: [UInt8]) -> TagAnswer? {
        let offset = page * 4
        switch page {
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
            return nil
        }
        stateRevision += 1
        return .ack
    }
}
