/// What the host must know of a Type 2 chip model to lock, format and password-protect it: the
/// places of its lock bytes and configuration pages, from the datasheets' memory maps (NTAG210/212
/// datasheet 8.5, NTAG213/215/216 datasheet 8.5, MF0ULx1 datasheet 8.5). Kept apart from the
/// virtual chips' own tables so the two check each other.
public struct Type2ChipProfile: Sendable, Hashable {
    /// The model as identification names it.
    public let model: String
    /// Pages in memory, configuration included.
    public let totalPages: Int
    /// The user memory pages.
    public let userPages: Range<Int>
    /// The page of the three dynamic lock bytes (byte 3 is RFUI), nil when the chip has none.
    public let dynamicLockPage: Int?
    /// Dynamic lock bits that lock pages (bits 0… of lock bytes 0 and 1).
    public let dynamicLockBits: Int
    /// Block-locking bits in dynamic lock byte 2 (they freeze the lock bits).
    public let dynamicBlockLockBits: Int
    /// Pages each dynamic lock bit locks, from page 16 on (NTAG213, NTAG212, MF0UL21: 2;
    /// NTAG215, NTAG216: 16).
    public let dynamicLockPagesPerBit: Int
    /// CFG0 (`MIRROR/MOD, RFUI, MIRROR_PAGE, AUTH0`); CFG1 (`ACCESS, …`), PWD and PACK follow.
    public let configurationPage: Int
    /// The capability container as NXP delivers the chip (page 3).
    public let capabilityContainer: [UInt8]
    /// The empty TLV area as NXP delivers the chip, from page 4 (NTAG213 has a Lock Control TLV
    /// first).
    public let emptyTLVArea: [UInt8]

    /// CFG1, whose byte 0 is ACCESS.
    public var accessPage: Int { configurationPage + 1 }
    /// The page of the 4-byte password (write-only).
    public var passwordPage: Int { configurationPage + 2 }
    /// The page whose bytes 0–1 are PACK (write-only).
    public var packPage: Int { configurationPage + 3 }
    /// The first page the dynamic lock bits lock: 16 (10h); pages 3–15 have the static lock bits.
    public static let dynamicLockFirstPage = 16

    /// The dynamic lock bit that locks `page` when each bit locks `pagesPerBit` pages from page
    /// 16: bit n is bit n mod 8 of dynamic lock byte n / 8 and locks pages 16 + n·pagesPerBit
    /// onwards (NTAG213/215/216 data sheet 8.5.3 "Dynamic Lock Bytes", MF0ULx1 8.5.2; byte 2
    /// holds the block-locking bits, which freeze lock bits and lock no page; NTAG213's 2-page
    /// groups as NXP's answer in the NXP Community thread 399134 shows them). Nil below page 16.
    /// The one place this layout lives on the host side (write pre-check, `lock` report).
    public static func dynamicLockBit(page: Int, pagesPerBit: Int) -> Int? {
        guard page >= dynamicLockFirstPage, pagesPerBit > 0 else { return nil }
        return (page - dynamicLockFirstPage) / pagesPerBit
    }

    /// Whether the dynamic lock bytes `lockBytes` (from byte 0 of ``dynamicLockPage``) lock
    /// `page` on this chip: only user pages from 16 on have a bit
    /// (``dynamicLockBit(page:pagesPerBit:)``, at most ``dynamicLockBits`` of them).
    public func dynamicLockLocks(page: Int, lockBytes: [UInt8]) -> Bool {
        guard dynamicLockPage != nil, page < userPages.upperBound,
              let bit = Self.dynamicLockBit(page: page, pagesPerBit: dynamicLockPagesPerBit),
              bit < dynamicLockBits, bit / 8 < lockBytes.count
        else { return false }
        return lockBytes[bit / 8] & (1 << UInt8(bit % 8)) != 0
    }

    /// Whether the chip has the UID and NFC counter mirror (NTAG213/215/216 datasheet 8.7):
    /// CFG0 byte 0 is then MIRROR (on Ultralight EV1 and NTAG210/212 it is not).
    public var hasMirror: Bool { ["NTAG213", "NTAG215", "NTAG216"].contains(model) }

    /// The profile of an identified Type 2 chip, nil for other chips and for models without one
    /// (plain MIFARE Ultralight, unknown chips).
    public static func named(identity: ChipIdentity) -> Type2ChipProfile? {
        identity.platform == .type2 ? named(identity.model) : nil
    }

    /// The profile of the Type 2 chip model called `model` (`NTAG215`), or nil.
    public static func named(_ model: String) -> Type2ChipProfile? {
        all.first { model.hasPrefix($0.model) }
    }

    /// The longest NDEF message the chip holds as its factory format leaves it: the data area
    /// the capability container declares (CC2 × 8 bytes, within the user pages), less what
    /// stands before the NDEF TLV (NTAG213's Lock Control TLV) and the TLV's own bytes.
    public var factoryNDEFCapacity: Int {
        let area = min(userPages.count * 4, Int(capabilityContainer[2]) * 8)
        let before = emptyTLVArea.firstIndex(of: 0x03) ?? 0
        return Type2TLVArea.capacity(usableBytes: area - before)
    }

    /// Every known profile.
    public static let all: [Type2ChipProfile] = [
        ntag("NTAG210", pages: 20, dynamicLockPage: nil, lockBits: 0, blockBits: 0, cc: 0x06),
        ntag("NTAG212", pages: 41, dynamicLockPage: 0x24, lockBits: 10, blockBits: 5, cc: 0x10),
        ntag(
            "NTAG213", pages: 45, dynamicLockPage: 0x28, lockBits: 12, blockBits: 6, cc: 0x12,
            tlv: [0x01, 0x03, 0xA0, 0x0C, 0x34, 0x03, 0x00, 0xFE]),
        ntag("NTAG215", pages: 135, dynamicLockPage: 0x82, lockBits: 8, blockBits: 4, cc: 0x3E, pagesPerBit: 16),
        ntag("NTAG216", pages: 231, dynamicLockPage: 0xE2, lockBits: 14, blockBits: 7, cc: 0x6D, pagesPerBit: 16),
        ntag("MIFARE Ultralight EV1 (MF0UL11)", pages: 20, dynamicLockPage: nil, lockBits: 0, blockBits: 0, cc: 0x06),
        ntag("MIFARE Ultralight EV1 (MF0UL21)", pages: 41, dynamicLockPage: 0x24, lockBits: 10, blockBits: 5, cc: 0x10),
    ]

    /// User memory from page 4 to the dynamic lock page (or the configuration pages), then CFG0,
    /// CFG1, PWD, PACK: the layout every NTAG21x and Ultralight EV1 shares.
    private static func ntag(
        _ model: String, pages: Int, dynamicLockPage: Int?, lockBits: Int, blockBits: Int, cc: UInt8,
        pagesPerBit: Int = 2, tlv: [UInt8] = [0x03, 0x00, 0xFE]
    ) -> Type2ChipProfile {
        let configurationPage = pages - 4
        return Type2ChipProfile(
            model: model, totalPages: pages, userPages: 4..<(dynamicLockPage ?? configurationPage),
            dynamicLockPage: dynamicLockPage, dynamicLockBits: lockBits, dynamicBlockLockBits: blockBits,
            dynamicLockPagesPerBit: pagesPerBit,
            configurationPage: configurationPage, capabilityContainer: [0xE1, 0x10, cc, 0x00], emptyTLVArea: tlv)
    }
}
