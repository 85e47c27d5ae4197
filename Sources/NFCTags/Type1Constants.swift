/// Command codes of the NFC Forum Type 1 Tag (Innovision Jewel, Broadcom Topaz): the first byte
/// of every frame. The frames themselves are built by ``Type1Frame``.
///
/// Sources: nfcpy's `nfc/tag/tt1.py` (frame layout with the 4-byte UID at the end) and libnfc
/// 1.8's `utils/jewel.h` (`TC_*` codes). The NFC Forum Type 1 Tag Operation specification and
/// the Broadcom Topaz datasheets (BCM20203T96/T512) are not public.
public enum Type1Command {
    /// RID (`78`): header ROM HR0 HR1 and UID0…UID3, the one command sent without a UID.
    public static let readIdentification: UInt8 = 0x78
    /// RALL (`00`): HR0 HR1 and the 120 bytes of blocks 0…E.
    public static let readAll: UInt8 = 0x00
    /// READ (`01`): one byte of blocks 0…F; the address is block × 8 + byte.
    public static let read: UInt8 = 0x01
    /// WRITE-E (`53`): erase then write one byte of blocks 0…F.
    public static let writeErase: UInt8 = 0x53
    /// WRITE-NE (`1A`): write one byte without erasing: the bits set are OR-ed in.
    public static let writeNoErase: UInt8 = 0x1A
    /// RSEG (`10`): one 128-byte segment (dynamic layout); the segment number is the upper nibble.
    public static let readSegment: UInt8 = 0x10
    /// READ8 (`02`): one 8-byte block (dynamic layout).
    public static let read8: UInt8 = 0x02
    /// WRITE-E8 (`54`): erase then write one 8-byte block (dynamic layout).
    public static let writeErase8: UInt8 = 0x54
    /// WRITE-NE8 (`1B`): write one 8-byte block without erasing (dynamic layout).
    public static let writeNoErase8: UInt8 = 0x1B

    /// Whether `code` is one of the dynamic-layout commands with 8-byte data (READ8, WRITE-E8,
    /// WRITE-NE8) or RSEG: the commands a PN53x's firmware does not carry (nfcpy's `clf/pn532.py`
    /// drives the chip's contactless unit by hand for them).
    public static func needsDynamicCommandSet(_ code: UInt8) -> Bool {
        code == read8 || code == writeErase8 || code == writeNoErase8 || code == readSegment
    }
}

/// The memory map of a Type 1 tag: 8-byte blocks, static memory in blocks 0…E (120 bytes), the
/// dynamic layout adding block F and 128-byte segments from byte 128.
public enum Type1Memory {
    /// Bytes per block.
    public static let blockSize = 8
    /// Bytes per segment (RSEG).
    public static let segmentSize = 128
    /// The static memory RALL returns: blocks 0…E.
    public static let staticSize = 120
    /// The highest byte address READ and WRITE-E/NE reach (block F, byte 7): the address byte
    /// has 7 bits.
    public static let byteCommandLimit = 128
    /// Where the capability container starts (block 1, byte 0).
    public static let capabilityContainerAddress = 8
    /// Where the TLV area starts (block 1, byte 4).
    public static let dataAreaAddress = 12
    /// Block D (bytes 104…111): reserved for the manufacturer.
    public static let reservedBlock = 104..<112
    /// LOCK0 and LOCK1 (block E, bytes 0–1): bit n of LOCK0 locks block n, bit n of LOCK1 block
    /// 8 + n (blocks 0…E).
    public static let staticLockBytes = 112..<114
    /// OTP0…OTP5 (block E, bytes 2–7).
    public static let otpBytes = 114..<120
    /// Bytes the NDEF data area never uses on the static layout (blocks D and E).
    public static let staticReservedBytes = 104..<120
    /// Bytes the NDEF data area never uses on the dynamic layout (blocks D, E and F).
    public static let dynamicReservedBytes = 104..<128
    /// The 4 UID bytes every command but RID carries, from the UID in block 0.
    public static let commandUIDLength = 4
}

/// Header ROM byte HR0 (RID and RALL answers): the upper nibble `1` says the tag is an NFC
/// Forum Type 1 Tag able to hold NDEF; the lower nibble `1` the static layout (120 bytes),
/// anything else the dynamic layout. HR1 names the product (nfcpy's `tt1_broadcom.py`).
public enum Type1HeaderROM {
    /// HR0 of a Topaz 96 (static layout).
    public static let staticLayout: UInt8 = 0x11
    /// HR0 of a Topaz 512 (dynamic layout).
    public static let dynamicLayout: UInt8 = 0x12
    /// HR1 of a Topaz 96 (BCM20203T96).
    public static let topaz96: UInt8 = 0x48
    /// HR1 of a Topaz 512 (BCM20203T512).
    public static let topaz512: UInt8 = 0x4C

    /// Whether HR0 names an NDEF-capable Type 1 tag (upper nibble 1).
    public static func isNDEFCapable(_ hr0: UInt8) -> Bool { hr0 >> 4 == 1 }
    /// Whether HR0 names the static layout (lower nibble 1).
    public static func isStatic(_ hr0: UInt8) -> Bool { hr0 & 0x0F == 1 }
}

/// The capability container of a Type 1 tag: block 1, bytes 0–3 (nfcpy's `tt1.py`).
public struct Type1CapabilityContainer: Sendable, Hashable {
    /// CC0, the NDEF magic number `E1`.
    public static let ndefMagic: UInt8 = 0xE1
    /// CC1 written by a format: mapping version 1.0.
    public static let version10: UInt8 = 0x10
    /// CC3 write-access nibble that denies writing.
    public static let writeAccessDenied: UInt8 = 0x0F

    /// CC1: the mapping version; the major version (upper nibble) must be 1.
    public var version: UInt8
    /// (CC2 + 1) × 8: the tag memory size in bytes (120 for `0E`, 512 for `3F`).
    public var memorySize: Int
    /// CC3: read access (upper nibble) and write access (lower nibble), 0 granting each.
    public var access: UInt8

    /// Whether CC3 grants writing.
    public var isWritable: Bool { access & 0x0F == 0 }

    /// Decodes CC0…CC3.
    /// - Throws: ``NFCTagError`` `malformedTag` when fewer than 4 bytes are given (offset 8 +
    ///   count), `notNDEFFormatted` when CC0 is not `E1` (offset 8) or the major version is not 1
    ///   (offset 9).
    public init(bytes: some Collection<UInt8>) throws(NFCTagError) {
        let cc = Array(bytes)
        let base = Type1Memory.capabilityContainerAddress
        guard cc.count >= 4 else {
            throw NFCTagError(.malformedTag, at: base + cc.count, "capability container needs 4 bytes, got \(cc.count)")
        }
        guard cc[0] == Self.ndefMagic else {
            throw NFCTagError(.notNDEFFormatted, at: base, "CC0 is \(hexByte(cc[0])), not the NDEF magic number E1")
        }
        guard cc[1] >> 4 == 1 else {
            throw NFCTagError(.notNDEFFormatted, at: base + 1, "mapping version \(cc[1] >> 4).\(cc[1] & 0xF) is not 1.x")
        }
        version = cc[1]
        memorySize = (Int(cc[2]) + 1) * Type1Memory.blockSize
        access = cc[3]
    }
}

/// The bytes a format writes from the capability container on (nfcpy's `tt1_broadcom.py`): the
/// CC, on the dynamic layout a Lock Control TLV (`F2 30 33`: 48 lock bits at byte 7Ah, each
/// locking 8 bytes) and a Memory Control TLV (`F0 02 03`: bytes 78h–79h reserved), then an
/// empty NDEF TLV.
public enum Type1FormatLayout {
    /// Topaz 96: `E1 10 0E 00`, `03 00`.
    public static let staticLayout: [UInt8] = [0xE1, 0x10, 0x0E, 0x00, 0x03, 0x00]
    /// Topaz 512: `E1 10 3F 00`, `01 03 F2 30 33`, `02 03 F0 02 03`, `03 00`.
    public static let dynamicLayout: [UInt8] = [
        0xE1, 0x10, 0x3F, 0x00, 0x01, 0x03, 0xF2, 0x30, 0x33, 0x02, 0x03, 0xF0, 0x02, 0x03, 0x03, 0x00,
    ]
}

