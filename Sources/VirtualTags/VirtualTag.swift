public import NFCTags

/// A chip model: answers the frames a reader sends as the datasheet says the chip does.
///
/// Hosted by the in-process simulator (`SimulatedReader`) and by the PN532 emulator. A model is
/// a class owned by one host (an actor or one thread); it is not shared across threads.
public protocol VirtualTag: AnyObject {
    /// The chip's name as users know it: `NTAG215`, `FeliCa Lite-S`.
    var modelName: String { get }
    /// What selecting the tag yields (UID/ATQA/SAK/ATS, IDm/PMm/system code, 15693 UID).
    var targetInfo: TargetInfo { get }
    /// Answers one frame. For ISO 14443-A the frame is the command without CRC (e.g. `30 04`,
    /// READ page 4); for FeliCa the command without the length byte; for ISO 15693 the request
    /// without CRC (flags, command, …).
    func respond(to frame: [UInt8]) -> TagAnswer
    /// The tag enters the field: volatile state (authentication, selected file) is reset.
    func powerOn()
    /// HLTA / DESELECT: the tag stops answering until selected again.
    func halt()
    /// Whether the tag answers a reader's poll (anticollision, inventory): false for a chip that
    /// hides, as an ICODE chip in privacy mode ignores INVENTORY (SL2S2602 "Privacy mode"); the
    /// readers then find no tag, while frames sent to the field unaddressed still reach it.
    var answersPoll: Bool { get }
}

extension VirtualTag {
    /// True: most chips answer every poll.
    public var answersPoll: Bool { true }
}

/// A chip's answer to one frame.
public enum TagAnswer: Sendable, Hashable {
    /// Response bytes (without CRC).
    case data([UInt8])
    /// The 4-bit ACK (0xA) of ISO 14443-3 / NTAG WRITE.
    case ack
    /// A 4-bit NAK: 0x0 invalid argument, 0x1 CRC error, 0x4 authentication/counter, 0x5 EEPROM
    /// write error (NTAG21x datasheet, 9.3).
    case nak(UInt8)
    /// No answer: the reader times out (e.g. an unknown command on NTAG21x, which goes idle).
    case silence
}

/// An ISO-DEP (ISO 14443-4) tag: the reader's firmware does the block framing, the model sees
/// APDUs.
public protocol ISODEPVirtualTag: VirtualTag {
    /// The answer to RATS.
    var ats: [UInt8] { get }
    /// Answers one command APDU with a response APDU (data + SW1 SW2).
    func respond(toAPDU apdu: [UInt8]) -> [UInt8]
}

/// A MIFARE Classic tag: the reader's firmware runs Crypto-1; the model checks keys and access
/// bits.
public protocol ClassicVirtualTag: VirtualTag {
    /// Authenticates the sector of `block` with a key; later READ (0x30) / WRITE (0xA0) of that
    /// sector's blocks are allowed per its access bits.
    func authenticate(block: UInt8, keyType: ClassicKeyType, key: [UInt8]) -> Bool
}
