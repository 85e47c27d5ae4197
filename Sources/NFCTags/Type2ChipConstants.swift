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

/// The static lock bytes of every Type 2 tag (NFC Forum Type 2 Tag, block 2 bytes 2 and 3;
/// NTAG21x datasheet 8.5.2): byte 0 bits 3…7 lock pages 3…7, byte 1 bits 0…7 lock pages 8…15
/// (bits 0…2 of byte 0 are block-locking bits, which freeze lock bits, not pages).
public enum Type2StaticLock {
    /// The address of the first static lock byte (page 2, byte 2).
    public static let address = 10

    /// The static lock bytes a WRITE of `new` to page 2 leaves over `current`: bits are only
    /// set, and a block-locking bit freezes its lock bits (NTAG21x datasheet 8.5.2; Type 2 Tag
    /// 1.2, 8.1): BL-CC (byte 0 bit 0) freezes L-CC (bit 3), BL9-4 (bit 1) freezes L4…L7 and
    /// L8, L9, BL15-10 (bit 2) freezes L10…L15.
    public static func afterWrite(of new: (UInt8, UInt8), over current: (UInt8, UInt8)) -> (UInt8, UInt8) {
        var allowed0: UInt8 = 0xFF, allowed1: UInt8 = 0xFF
        if current.0 & 0x01 != 0 { allowed0 &= ~0x08 }
        if current.0 & 0x02 != 0 { allowed0 &= ~0xF0; allowed1 &= ~0x03 }
        if current.0 & 0x04 != 0 { allowed1 &= ~0xFC }
        return (current.0 | (new.0 & allowed0), current.1 | (new.1 & allowed1))
    }

    /// The pages 3…15 that `lockBytes` leave writable.
    public static func unlockedPages(lockBytes: (UInt8, UInt8)) -> [Int] {
        (3...15).filter { !locks(page: $0, lockBytes: lockBytes) }
    }

    /// Whether the static lock bytes `lockBytes` (the two bytes at ``address``) make `page`
    /// read-only; pages outside 3…15 are not theirs.
    public static func locks(page: Int, lockBytes: (UInt8, UInt8)) -> Bool {
        switch page {
        case 3...7: return lockBytes.0 & (1 << UInt8(page)) != 0
        case 8...15: return lockBytes.1 & (1 << UInt8(page - 8)) != 0
        default: return false
        }
    }
}
