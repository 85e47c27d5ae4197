import NFCCore

// NTAG 424 DNA Secure Dynamic Messaging (SDM), the "SUN" of a tap: NT4H2421Gx datasheet 9.3
// ("Secure Dynamic Messaging") and NXP AN12196 section 4 (rev. 1.x numbering; 3 in rev. 2.0).
// Both directions: what the chip puts into the NDEF file on a read (for the virtual tag), and
// what a server checks (decrypt the PICC data, recompute the SDMMAC). AES mode only (no LRP).

/// The constants of Secure Dynamic Messaging: lengths, session-vector prefixes, option bits.
public enum NTAG424SDM {
    /// The size of the NTAG 424 DNA NDEF file (file 02) in bytes: every offset lies inside it.
    public static let ndefFileSize = 256
    /// The largest value a 3-byte SDM offset can hold.
    public static let maximumOffset = 0xFF_FFFF
    /// Bytes of the UID the chip mirrors (a 7-byte UID; a random ID is not mirrored).
    public static let uidLength = 7
    /// Bytes of SDMReadCtr (a 24-bit counter, least significant byte first in cryptograms).
    public static let counterLength = 3
    /// The largest SDMReadCtr value.
    public static let counterMaximum: UInt32 = 0xFF_FFFF
    /// Bytes of encrypted PICC data in AES mode (one block).
    public static let encryptedPICCDataLength = 16
    /// Bytes of the truncated SDMMAC.
    public static let macLength = 8
    /// SV1's fixed part (KSesSDMFileReadENC): `C3 3C 00 01 00 80`.
    public static let sessionVector1Prefix: [UInt8] = [0xC3, 0x3C, 0x00, 0x01, 0x00, 0x80]
    /// SV2's fixed part (KSesSDMFileReadMAC): `3C C3 00 01 00 80`.
    public static let sessionVector2Prefix: [UInt8] = [0x3C, 0xC3, 0x00, 0x01, 0x00, 0x80]
    /// The character a mirror's placeholder is written with before the chip replaces it: `0`.
    public static let placeholderCharacter: UInt8 = 0x30

    /// An offset or length as ChangeFileSettings carries it: 3 bytes, least significant first.
    public static func threeBytesLSBFirst(_ value: Int) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF)]
    }

    /// ASCII characters the chip writes for `byteCount` bytes (ASCII encoding mode: two
    /// upper-case hex digits per byte).
    public static func asciiLength(_ byteCount: Int) -> Int { 2 * byteCount }
}

/// SDMOptions bits (ChangeFileSettings, NT4H2421Gx table "SDMOptions").
public enum SDMOptionBits {
    /// UID mirroring.
    public static let uidMirror: UInt8 = 0x80
    /// SDMReadCtr mirroring.
    public static let readCounterMirror: UInt8 = 0x40
    /// SDMReadCtrLimit in use.
    public static let readCounterLimit: UInt8 = 0x20
    /// SDMENCFileData (part of the file encrypted).
    public static let encryptedFileData: UInt8 = 0x10
    /// ASCII encoding mode (the only mode the chip has for SDM).
    public static let asciiEncoding: UInt8 = 0x01
}

/// PICCDataTag bits: the first byte of the plaintext PICC data.
public enum PICCDataTagBits {
    /// The UID follows.
    public static let uidMirror: UInt8 = 0x80
    /// SDMReadCtr follows.
    public static let readCounterMirror: UInt8 = 0x40
    /// Bits 5–4, reserved (zero).
    public static let reserved: UInt8 = 0x30
    /// Bits 3–0: the UID's length.
    public static let uidLengthMask: UInt8 = 0x0F
}
