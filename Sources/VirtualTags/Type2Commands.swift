/// The command codes a Type 2 chip (NTAG21x, MIFARE Ultralight EV1) understands, as the first
/// byte of a frame (NXP NTAG213/215/216 datasheet, section 10 "NTAG commands"; MF0ULx1
/// datasheet, section 9 "Ultralight EV1 command set").
public enum NTAGCommand {
    /// GET_VERSION (`60`): 8 bytes identifying vendor, type and storage size (NTAG21x 10.1).
    public static let getVersion: UInt8 = 0x60
    /// READ (`30 addr`): 16 bytes, four pages, rolling over at the end of memory (NTAG21x 10.2).
    public static let read: UInt8 = 0x30
    /// FAST_READ (`3A start end`): pages start…end inclusive (NTAG21x 10.3).
    public static let fastRead: UInt8 = 0x3A
    /// WRITE (`A2 addr d0 d1 d2 d3`): one page, answered by ACK or NAK (NTAG21x 10.4).
    public static let write: UInt8 = 0xA2
    /// COMPATIBILITY_WRITE (`A0 addr`, then 16 bytes of which the first 4 are written)
    /// (NTAG21x 10.5).
    public static let compatibilityWrite: UInt8 = 0xA0
    /// READ_CNT (`39 addr`): a 24-bit counter, least significant byte first (NTAG21x 10.6;
    /// MF0ULx1 9.10).
    public static let readCounter: UInt8 = 0x39
    /// INCR_CNT (`A5 addr d0 d1 d2 d3`): adds to a one-way counter (MF0ULx1 9.11 only).
    public static let incrementCounter: UInt8 = 0xA5
    /// CHECK_TEARING_EVENT (`3E addr`): whether the last counter increment was torn; BDh = not
    /// torn (MF0ULx1 9.12 only).
    public static let checkTearingEvent: UInt8 = 0x3E
    /// VCSL (`4B` + 16-byte installation identifier + 4-byte PCD capabilities): answers the
    /// VCTID byte (MF0ULx1 9.13 only).
    public static let virtualCardSelectLast: UInt8 = 0x4B
    /// PWD_AUTH (`1B p0 p1 p2 p3`): answers the 2-byte PACK (NTAG21x 10.7).
    public static let passwordAuthenticate: UInt8 = 0x1B
    /// READ_SIG (`3C 00`): the 32-byte originality signature (NTAG21x 10.8).
    public static let readSignature: UInt8 = 0x3C
}

/// The 4-bit acknowledge and NAK values of a Type 2 chip (NTAG21x datasheet 9.3).
public enum NTAGAcknowledge {
    /// ACK (`A`): the command succeeded.
    public static let ack: UInt8 = 0xA
    /// NAK `0`: invalid argument (an invalid page address, a locked or protected page, a wrong
    /// password).
    public static let invalidArgument: UInt8 = 0x0
    /// NAK `1`: parity or CRC error.
    public static let crcError: UInt8 = 0x1
    /// NAK `4`: invalid authentication counter overflow (AUTHLIM reached, counter overflow).
    public static let counterOverflow: UInt8 = 0x4
    /// NAK `5`: EEPROM write error.
    public static let eepromWriteError: UInt8 = 0x5
}

/// Bits of the ACCESS configuration byte (NTAG21x datasheet 8.5.7; MF0ULx1 8.5.7).
public enum NTAGAccess {
    /// PROT (bit 7): 1 = read and write access are password protected, 0 = only write access.
    public static let readProtection: UInt8 = 0x80
    /// CFGLCK (bit 6): the configuration pages are permanently locked (PWD and PACK excepted).
    public static let configurationLock: UInt8 = 0x40
    /// NFC_CNT_EN (bit 4, NTAG21x only): the NFC counter counts the first READ/FAST_READ after
    /// each power-on.
    public static let nfcCounterEnabled: UInt8 = 0x10
    /// NFC_CNT_PWD_PROT (bit 3, NTAG21x only): READ_CNT needs a prior PWD_AUTH.
    public static let nfcCounterPasswordProtected: UInt8 = 0x08
    /// AUTHLIM (bits 2…0): the number of wrong passwords allowed; 0 = unlimited.
    public static let authenticationLimitMask: UInt8 = 0x07
}
