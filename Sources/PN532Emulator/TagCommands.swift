/// ISO/IEC 14443-3 type A commands the emulated firmware recognises in raw frames.
enum ISO14443ACommand {
    /// REQA, `26`, a 7-bit short frame (ISO/IEC 14443-3 §6.3.1): idle tags answer ATQA.
    static let reqa: UInt8 = 0x26
    /// WUPA, `52`, a 7-bit short frame: idle and halted tags answer ATQA.
    static let wupa: UInt8 = 0x52
    /// HLTA, `50 00` (ISO/IEC 14443-3 §6.4.3): the tag goes to HALT and does not answer.
    static let hlta: [UInt8] = [0x50, 0x00]
    /// SEL of cascade levels 1, 2, 3: `93`, `95`, `97` (ISO/IEC 14443-3 §6.5.3.1).
    static let selectCascadeLevels: [UInt8] = [0x93, 0x95, 0x97]
    /// NVB of ANTICOLLISION with no UID bits known: `20`.
    static let anticollisionNVB: UInt8 = 0x20
    /// NVB of SELECT with the whole UID part: `70`.
    static let selectNVB: UInt8 = 0x70
    /// The cascade tag `88` in front of an incomplete UID part (ISO/IEC 14443-3 §6.5.4).
    static let cascadeTag: UInt8 = 0x88
    /// SAK bit 2 (`04`): the UID is not complete, another cascade level follows.
    static let sakUIDIncomplete: UInt8 = 0x04
    /// The longest BitFraming TxLastBits: a short frame has 7 bits.
    static let shortFrameBits: UInt8 = 7
}

/// MIFARE commands the PN532 firmware runs in several RF exchanges through InDataExchange
/// (UM0701-02 §7.3.8, "MIFARE commands"; MF1S50yyX data sheet §12).
enum MIFARECommand {
    /// READ, `30` + block: 16 bytes.
    static let read: UInt8 = 0x30
    /// WRITE, `A0` + block, then 16 bytes; each part answered by a 4-bit ACK. On Ultralight and
    /// NTAG this is COMPATIBILITY_WRITE (the first 4 bytes are written).
    static let write: UInt8 = 0xA0
    /// Ultralight / NTAG WRITE, `A2` + page + 4 bytes.
    static let ultralightWrite: UInt8 = 0xA2
    /// DECREMENT, `C0` + block, then a 4-byte value.
    static let decrement: UInt8 = 0xC0
    /// INCREMENT, `C1` + block, then a 4-byte value.
    static let increment: UInt8 = 0xC1
    /// RESTORE, `C2` + block, then 4 bytes.
    static let restore: UInt8 = 0xC2
    /// TRANSFER, `B0` + block.
    static let transfer: UInt8 = 0xB0
    /// Length of an authentication frame: command, block, key (6), UID (4).
    static let authenticationFrameLength = 12
    /// CIU_Status2 bit 3, MFCrypto1On: set by a successful authentication.
    static let crypto1On: UInt8 = 0x08
}
