/// Where a Type 2 chip keeps what: page count, user memory, dynamic lock bytes, configuration
/// pages, and what the chip says about itself. One value per chip model, from its datasheet's
/// memory map (NTAG213/215/216 datasheet 8.5; MF0ULx1 datasheet 8.5).
public struct Type2Layout: Sendable, Hashable {
    /// The product name: `NTAG215`, `MIFARE Ultralight EV1 (MF0UL11)`.
    public let productName: String
    /// Pages in memory, configuration included (NTAG213: 45, NTAG215: 135, NTAG216: 231).
    public let totalPages: Int
    /// The free user memory, in pages (NTAG213: 4..<40).
    public let userPages: Range<Int>
    /// The page of the three dynamic lock bytes (NTAG213: `28h`), nil when the chip has none.
    public let dynamicLockPage: Int?
    /// Pages one dynamic lock bit locks (NTAG213, MF0UL21: 2; NTAG215/216: 16).
    public let dynamicLockPagesPerBit: Int
    /// The first configuration page CFG0 (`MIRROR/MOD, RFUI, MIRROR_PAGE, AUTH0`); CFG1
    /// (`ACCESS, …`), PWD and PACK follow it.
    public let configurationPage: Int
    /// The 8 bytes GET_VERSION answers (NTAG21x 10.1; MF0ULx1 9.2).
    public let version: [UInt8]
    /// Whether the chip has the single NTAG21x NFC counter (READ_CNT address 02h, enabled by
    /// NFC_CNT_EN) rather than the three Ultralight EV1 one-way counters.
    public let hasNFCCounter: Bool
    /// Page 3 as delivered.
    public let factoryCapabilityContainer: [UInt8]
    /// Pages 4… as delivered (the rest of user memory is zero).
    public let factoryUserData: [UInt8]
    /// The dynamic lock page as delivered (three lock bytes and the RFUI byte).
    public let factoryDynamicLock: [UInt8]
    /// CFG0 and CFG1 as delivered (8 bytes).
    public let factoryConfiguration: [UInt8]

    /// CFG1, whose byte 0 is ACCESS.
    public var accessPage: Int { configurationPage + 1 }
    /// The password page (write-only: reads as zeros).
    public var passwordPage: Int { configurationPage + 2 }
    /// The PACK page (write-only: reads as zeros).
    public var packPage: Int { configurationPage + 3 }
    /// Number of dynamic lock bits that lock pages.
    public var dynamicLockBitCount: Int {
        guard dynamicLockPage != nil, userPages.upperBound > 16 else { return 0 }
        return (userPages.upperBound - 16 + dynamicLockPagesPerBit - 1) / dynamicLockPagesPerBit
    }

    /// NTAG213: 45 pages, 144 bytes of user memory (pages 04h–27h), dynamic lock bytes at 28h,
    /// CFG at 29h–2Ch, CC `E1 10 12 00` (NTAG213/215/216 datasheet 8.5). Delivered with
    /// a Lock Control TLV `01 03 A0 0C 34` (12 dynamic lock bits at page 28h, 8 bytes per bit)
    /// before the empty NDEF TLV: pages 4–5 `01 03 A0 0C 34 03 00 FE` (datasheet 8.5.6).
    public static let ntag213 = ntag(
        name: "NTAG213", pages: 45, storageSize: 0x0F, ccSize: 0x12, lockPagesPerBit: 2,
        userData: [0x01, 0x03, 0xA0, 0x0C, 0x34, 0x03, 0x00, 0xFE])
    /// NTAG215: 135 pages, 504 bytes of user memory (04h–81h), dynamic lock bytes at 82h, CFG at
    /// 83h–86h, CC `E1 10 3E 00` (datasheet 8.5).
    public static let ntag215 = ntag(name: "NTAG215", pages: 135, storageSize: 0x11, ccSize: 0x3E, lockPagesPerBit: 16)
    /// NTAG216: 231 pages, 888 bytes of user memory (04h–E1h), dynamic lock bytes at E2h, CFG at
    /// E3h–E6h, CC `E1 10 6D 00` (datasheet 8.5).
    public static let ntag216 = ntag(name: "NTAG216", pages: 231, storageSize: 0x13, ccSize: 0x6D, lockPagesPerBit: 16)

    /// MIFARE Ultralight EV1 MF0UL11: 20 pages, 48 bytes of user memory (04h–0Fh), no dynamic
    /// lock bytes, CFG at 10h–13h (MF0ULx1 datasheet 8.5). Page 3 (OTP) is delivered
    /// as zeros: the chip is not NDEF formatted.
    public static let ultralightEV1MF0UL11 = Type2Layout(
        productName: "MIFARE Ultralight EV1 (MF0UL11)", totalPages: 20, userPages: 4..<16,
        dynamicLockPage: nil, dynamicLockPagesPerBit: 2, configurationPage: 0x10,
        version: [0x00, 0x04, 0x03, 0x01, 0x01, 0x00, 0x0B, 0x03], hasNFCCounter: false,
        factoryCapabilityContainer: [0, 0, 0, 0], factoryUserData: [],
        factoryDynamicLock: [], factoryConfiguration: [0x00, 0x00, 0x00, 0xFF, 0x00, 0x05, 0x00, 0x00])
    /// MIFARE Ultralight EV1 MF0UL21: 41 pages, 128 bytes of user memory (04h–23h), dynamic lock
    /// bytes at 24h delivered as `00 00 00 BD` (the fourth byte RFUI, BDh as on NTAG21x: MF0ULx1
    /// datasheet 8.5.2; Flipper Zero's `nfc_data_generator.c` makes MF0UL21 so), CFG at 25h–28h
    /// with CFG0 `00 00 00 FF` (no STRG_MOD_EN on the 17 pF MF0UL21, unlike the MF0ULH21) and
    /// CFG1 `00 05 00 00` (VCTID 05h) (MF0ULx1 datasheet 8.5). Not NDEF formatted.
    public static let ultralightEV1MF0UL21 = Type2Layout(
        productName: "MIFARE Ultralight EV1 (MF0UL21)", totalPages: 41, userPages: 4..<36,
        dynamicLockPage: 0x24, dynamicLockPagesPerBit: 2, configurationPage: 0x25,
        version: [0x00, 0x04, 0x03, 0x01, 0x01, 0x00, 0x0E, 0x03], hasNFCCounter: false,
        factoryCapabilityContainer: [0, 0, 0, 0], factoryUserData: [],
        factoryDynamicLock: [0x00, 0x00, 0x00, 0xBD],
        factoryConfiguration: [0x00, 0x00, 0x00, 0xFF, 0x00, 0x05, 0x00, 0x00])

    /// An NTAG21x layout: user memory from page 4 to the dynamic lock page, then CFG0, CFG1, PWD,
    /// PACK; delivered NDEF formatted with an empty NDEF TLV (`03 00 FE` at page 4 unless
    /// `userData` says otherwise), AUTH0 = FFh, MIRROR = 04h, CFG1 = `00 05 00 00`, dynamic lock
    /// bytes `00 00 00 BD`.
    private static func ntag(
        name: String, pages: Int, storageSize: UInt8, ccSize: UInt8, lockPagesPerBit: Int,
        userData: [UInt8] = [0x03, 0x00, 0xFE, 0x00]
    ) -> Type2Layout
    {
        let lockPage = pages - 5
        return Type2Layout(
            productName: name, totalPages: pages, userPages: 4..<lockPage,
            dynamicLockPage: lockPage, dynamicLockPagesPerBit: lockPagesPerBit, configurationPage: lockPage + 1,
            version: [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, storageSize, 0x03], hasNFCCounter: true,
            factoryCapabilityContainer: [0xE1, 0x10, ccSize, 0x00], factoryUserData: userData,
            factoryDynamicLock: [0x00, 0x00, 0x00, 0xBD],
            factoryConfiguration: [0x04, 0x00, 0x00, 0xFF, 0x00, 0x05, 0x00, 0x00])
    }
}
