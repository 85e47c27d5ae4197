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

/// What the PN532 firmware adds to the MIFARE commands it runs through InDataExchange (UM0701-02
/// §7.3.8): the command codes themselves are NFCTags' (`ClassicCommand`, `Type2Command`).
enum MIFAREExchange {
    /// Length of an authentication frame: command, block, key (6), UID (4).
    static let authenticationFrameLength = 12
    /// CIU_Status2 bit 3, MFCrypto1On: set by a successful authentication.
    static let crypto1On: UInt8 = 0x08
}
