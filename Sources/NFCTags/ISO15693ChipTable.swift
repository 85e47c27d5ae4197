public import NFCCore

/// One row of ``ISO15693ChipTable``: which ISO 15693 chip a UID (and, for some makers, the IC
/// reference of GET SYSTEM INFORMATION) names, and where that is written.
///
/// A row matches when UID byte 1 (most significant byte first: `E0 mm …`) is ``manufacturer``,
/// UID byte 2 masked with ``uidByte2Mask`` is ``uidByte2``, UID byte 3 masked with
/// ``uidByte3Mask`` is ``uidByte3``, and — when ``icReference`` is set — the IC reference masked
/// with ``icReferenceMask`` is that value (a chip whose system information has none matches no
/// such row). A mask of `00` matches anything.
public struct ISO15693ChipRow: Sendable, Hashable {
    /// The IC manufacturer code (UID byte 1; ISO/IEC 7816-6).
    public var manufacturer: UInt8
    /// Mask applied to UID byte 2.
    public var uidByte2Mask: UInt8
    /// UID byte 2 after the mask.
    public var uidByte2: UInt8
    /// Mask applied to UID byte 3.
    public var uidByte3Mask: UInt8
    /// UID byte 3 after the mask.
    public var uidByte3: UInt8
    /// Mask applied to the IC reference.
    public var icReferenceMask: UInt8
    /// The IC reference after the mask; nil when the row does not look at it.
    public var icReference: UInt8?
    /// The block count GET (EXTENDED) SYSTEM INFORMATION must report; nil when the row does not
    /// look at it. For makers whose chips share one UID field (NXP's type indicator `11b`:
    /// NTAG 5 and ICODE DNA) and whose IC references are not in a public source.
    public var blockCount: Int?
    /// The memory of a chip that answers no GET (EXTENDED) SYSTEM INFORMATION, as its model
    /// has it; nil for every chip that can be asked (its memory then comes from the chip alone).
    /// Identification and `format` send neither command to such a chip (as AOSP's rw_i93 does
    /// not).
    public var modelMemory: ISO15693ChipMemory?
    /// The chip's name.
    public var model: String
    /// The family the chip's behaviour follows.
    public var family: ChipFamily
    /// Where the row's values are written (data sheet section; second source).
    public var source: String

    /// Creates a row.
    public init(
        manufacturer: UInt8, uidByte2Mask: UInt8 = 0, uidByte2: UInt8 = 0, uidByte3Mask: UInt8 = 0, uidByte3: UInt8 = 0,
        icReferenceMask: UInt8 = 0xFF, icReference: UInt8? = nil, blockCount: Int? = nil, modelMemory: ISO15693ChipMemory? = nil,
        model: String, family: ChipFamily = .other, source: String
    ) {
        self.manufacturer = manufacturer
        self.uidByte2Mask = uidByte2Mask
        self.uidByte2 = uidByte2
        self.uidByte3Mask = uidByte3Mask
        self.uidByte3 = uidByte3
        self.icReferenceMask = icReferenceMask
        self.icReference = icReference
        self.blockCount = blockCount
        self.modelMemory = modelMemory
        self.model = model
        self.family = family
        self.source = source
    }

    /// Whether the row names the chip with `uid` (most significant byte first, 8 bytes),
    /// `icReference` and `blockCount` (a row with ``blockCount`` set needs it reported).
    public func matches(uid: Bytes, icReference reference: UInt8?, blockCount count: Int? = nil) -> Bool {
        guard uid.count == 8, uid[1] == manufacturer, uid[2] & uidByte2Mask == uidByte2, uid[3] & uidByte3Mask == uidByte3 else {
            return false
        }
        if let blockCount, blockCount != count { return false }
        guard let icReference else { return true }
        guard let reference else { return false }
        return reference & icReferenceMask == icReference
    }
}

/// An ISO 15693 IC manufacturer: the code in UID byte 1.
public struct ISO15693Manufacturer: Sendable, Hashable {
    /// The code (ISO/IEC 7816-6).
    public var code: UInt8
    /// The maker's name.
    public var name: String
    /// Where the code is written.
    public var source: String
}

/// Which ISO 15693 chip a tag is, from its UID and system information: one table, each row
/// naming its source. Memory size and block size are not in it: they come from GET (EXTENDED)
/// SYSTEM INFORMATION (``ISO15693SystemInfo``), so that a chip the table does not know, or a
/// variant with another memory, is still read as a plain NFC Forum Type 5 tag.
///
/// Sources: the UID layout `E0`, manufacturer, then the maker's fields (ISO/IEC 15693-3, "Unique
/// identifier"); NXP's ICODE type byte and type indicator bits 37–36 (NXP AN10787 "ICODE UID
/// format"; SL2S2602 and SL2S2002 data sheets, "Unique identifier"); TI's product bits in UID byte
/// 2 and ST's and onsemi's IC references, as Android's NFC stack reads them (AOSP system/nfc
/// `tags_defs.h`, `I93_UID_*` and `I93_IC_REF_*`, and `rw_i93_get_product_version`).
public enum ISO15693ChipTable {
    /// The AOSP file this table cross-checks against.
    static let aosp = "AOSP system/nfc tags_defs.h"

    /// The IC manufacturers named here.
    public static let manufacturers: [ISO15693Manufacturer] = [
        ISO15693Manufacturer(code: 0x02, name: "STMicroelectronics", source: "ISO/IEC 7816-6 register; \(aosp) I93_UID_IC_MFG_CODE_STM"),
        ISO15693Manufacturer(code: 0x04, name: "NXP", source: "ISO/IEC 7816-6 register; \(aosp) I93_UID_IC_MFG_CODE_NXP; SL2S2602 UID"),
        ISO15693Manufacturer(code: 0x07, name: "Texas Instruments", source: "ISO/IEC 7816-6 register; \(aosp) I93_UID_IC_MFG_CODE_TI"),
        ISO15693Manufacturer(code: 0x67, name: "onsemi", source: "ISO/IEC 7816-6 register; \(aosp) I93_UID_IC_MFG_CODE_ONS"),
    ]

    /// The rows, most specific first: the first that matches names the chip.
    public static let rows: [ISO15693ChipRow] = nxpRows + tiRows + stRows + onsemiRows

    static let nxpRows: [ISO15693ChipRow] = {
        func icode(_ type: UInt8, _ indicator: UInt8?, _ model: String, _ source: String) -> ISO15693ChipRow {
            ISO15693ChipRow(
                manufacturer: 0x04, uidByte2Mask: 0xFF, uidByte2: type, uidByte3Mask: indicator == nil ? 0 : ChipIdentification.icodeTypeIndicatorMask,
                uidByte3: indicator ?? 0, model: model, family: .icode, source: source)
        }
        // Type 01 with indicator 11b: Proxmark3 cmdhf15.c names it NTAG 5 (NTP53x2/NTP5210/
        // NTA5332), its tools/recover_pk.py files an ICODE DNA sample under it (E0 04 01 18 …).
        // Their IC references are in no public source found, so the memory size tells them apart.
        func sharedIndicator(_ blocks: Int?, _ model: String, _ why: String) -> ISO15693ChipRow {
            ISO15693ChipRow(
                manufacturer: 0x04, uidByte2Mask: 0xFF, uidByte2: 0x01, uidByte3Mask: ChipIdentification.icodeTypeIndicatorMask,
                uidByte3: ChipIdentification.icodeNTAG5DNAIndicator, blockCount: blocks, model: model, family: .icode,
                source: "type 01, indicator 11b: Proxmark3 client/src/cmdhf15.c (NTAG 5), tools/recover_pk.py (ICODE DNA sample); \(why)")
        }
        return [
            icode(0x01, ChipIdentification.icodeSLIX2Indicator, ChipModel.icodeSLIX2.rawValue, "SL2S2602 UID (type 01, indicator 01b); AN10787"),
            icode(0x01, ChipIdentification.icodeSLIXIndicator, ChipModel.icodeSLIX.rawValue, "SL2S2002 UID (type 01, indicator 10b); AN10787"),
            icode(0x01, 0x00, "ICODE SLI", "AN10787 (type 01, indicator 00b); \(aosp) I93_UID_ICODE_SLI"),
            sharedIndicator(63, ChipModel.icodeDNA.rawValue, "2016 bits of user memory: dotnet/iot IcodeCardCapacity after NXP AN11809"),
            sharedIndicator(128, ChipModel.ntag5Switch.rawValue, "512 bytes of memory: NTP5210 data sheet, general description"),
            sharedIndicator(512, ChipModel.ntag5LinkOrBoost.rawValue, "2048 bytes of user memory: NTA5332 data sheet, general description"),
            sharedIndicator(nil, "ICODE DNA or NTAG 5", "the memory GET SYSTEM INFORMATION reported names neither"),
            icode(0x01, nil, "NXP ICODE (SLIX family, unknown type indicator)", "AN10787 (type 01)"),
            icode(0x02, ChipIdentification.icodeSLIXIndicator, ChipModel.icodeSLIXS.rawValue, "SL2S5302 UID (type 02, indicator 10b); \(aosp) I93_UID_ICODE_SLI_S"),
            icode(0x02, nil, "ICODE SLI-S", "\(aosp) I93_UID_ICODE_SLI_S (type 02)"),
            icode(0x03, ChipIdentification.icodeSLIXIndicator, ChipModel.icodeSLIXL.rawValue, "SL2S5002 UID (type 03, indicator 10b); \(aosp) I93_UID_ICODE_SLI_L"),
            icode(0x03, nil, "ICODE SLI-L", "\(aosp) I93_UID_ICODE_SLI_L (type 03)"),
        ]
    }()

    /// The user memory of a Tag-it HF-I Standard or Pro, which answer no GET SYSTEM
    /// INFORMATION: 8 blocks of 4 bytes (AOSP `tags_defs.h` I93_TAG_IT_HF_I_STD_PRO_CHIP_INLAY_
    /// NUM_USER_BLK and _BLK_SIZE, set by `rw_i93_get_product_version` "these don't support Get
    /// System Information Command"; FEIG ID ISC.MR200 manual: "8 * 4 Byte = 256 Bit user data",
    /// user area blocks 0–7 of 11 (Standard) or 12 (Pro)).
    public static let tagItStandardProMemory = ISO15693ChipMemory(icReference: nil, blockCount: 8, blockSize: 4)

    /// Where ``tagItStandardProMemory`` comes from, as `info` names it.
    public static let tagItStandardProMemorySource =
        "\(aosp) I93_TAG_IT_HF_I_STD_PRO_CHIP_INLAY_NUM_USER_BLK 8 × _BLK_SIZE 4; FEIG ID ISC.MR200 (user area 0–7)"

    static let tiRows: [ISO15693ChipRow] = [
        (0x00, "Tag-it HF-I Plus (inlay)", "I93_UID_TAG_IT_HF_I_PLUS_INLAY", false),
        (0x80, "Tag-it HF-I Plus", "I93_UID_TAG_IT_HF_I_PLUS_CHIP", false),
        (0xC0, ChipModel.tagItHFIStandard.rawValue, "I93_UID_TAG_IT_HF_I_STD_CHIP_INLAY", true),
        (0xC4, ChipModel.tagItHFIPro.rawValue, "I93_UID_TAG_IT_HF_I_PRO_CHIP_INLAY", true),
    ].map { value, model, name, sizedByModel in
        ISO15693ChipRow(
            manufacturer: 0x07, uidByte2Mask: 0xFE, uidByte2: value, modelMemory: sizedByModel ? tagItStandardProMemory : nil, model: model,
            family: .tagIt, source: "\(aosp) \(name) (UID bits 48–42); Proxmark3 client/src/cmdhf15.c; FEIG ID ISC manuals (product ID)")
    } + [
        // Proxmark3's table has a Plus chip at 0001b in bits 48–45, which AOSP's mask FE does not
        // match (AOSP says 1000 000b for the chip): both sources kept, AOSP's rows first.
        ISO15693ChipRow(
            manufacturer: 0x07, uidByte2Mask: 0xF0, uidByte2: 0x10, model: "Tag-it HF-I Plus", family: .tagIt,
            source: "Proxmark3 client/src/cmdhf15.c (E0 07 1x: \"Tag-it HF-I Plus Chip; 64x32bit\")"),
    ]

    static let stRows: [ISO15693ChipRow] = [
        (0xFF, 0x24, "ST25DV04K", "I93_IC_REF_STM_ST25DV04K"),
        (0xFF, 0x26, "ST25DV16K or ST25DV64K", "I93_IC_REF_STM_ST25DVHIK"),
        (0xFF, 0x5A, "M24LR04E-R", "I93_IC_REF_STM_M24LR04E_R"),
        (0xFF, 0x4E, "M24LR16E-R", "I93_IC_REF_STM_M24LR16E_R"),
        (0xFF, 0x5E, "M24LR64E-R", "I93_IC_REF_STM_M24LR64E_R"),
        (0xFC, 0x40, "LRI1K", "I93_IC_REF_STM_LRI1K"),
        (0xFC, 0x20, "LRI2K", "I93_IC_REF_STM_LRI2K"),
        (0xFC, 0x28, "LRIS2K", "I93_IC_REF_STM_LRIS2K"),
        (0xFC, 0x44, "LRIS64K", "I93_IC_REF_STM_LRIS64K"),
        (0xFC, 0x2C, "M24LR64-R", "I93_IC_REF_STM_M24LR64_R"),
    ].map { mask, value, model, name in
        ISO15693ChipRow(
            manufacturer: 0x02, icReferenceMask: mask, icReference: value, model: model, family: .st25,
            source: "\(aosp) \(name) (IC reference of GET SYSTEM INFORMATION)")
    } + [
        (0x23, "ST25TV02K or ST25TV512"), (0x08, "ST25TV02KC or ST25TV512C"), (0x25, "ST25DV04K (J)"),
        (0x27, "ST25DV16K or ST25DV64K (J)"),
    ].map { value, model in
        ISO15693ChipRow(
            manufacturer: 0x02, icReference: value, model: model, family: .st25,
            source: "\(st25SDK) (IC reference \(hexByte(value)))")
    }

    /// ST's own identification, the second source for ST chips: the ST25 SDK's
    /// `TagHelper.getType5ProductId` (IC reference, then the block count of EXTENDED GET SYSTEM
    /// INFORMATION where one reference names several chips).
    static let st25SDK = "ST25 SDK TagHelper getType5ProductId"

    /// The IC references of the ST25DV04K/16K/64K (`24`–`27`, I²C and J versions; ST25 SDK
    /// `identifyST25DVProduct`; AOSP has `24` and `26`): the chips with area passwords.
    public static let st25DVICReferences: Set<UInt8> = [0x24, 0x25, 0x26, 0x27]

    /// Chips one IC reference names together, told apart by their block count (ST25 SDK
    /// `identifyST25DVProduct`, and ST25TV02K 64 / ST25TV512 16 blocks for reference `23`;
    /// ST25TV02KC 80 / ST25TV512C 16 for reference `08`, ST's st25tags library `st25tvc.h`
    /// END_MEM `4F`/`0F`): IC reference, blocks, model, and the source of the block count.
    public static let stModelsByMemory: [(icReference: UInt8, blocks: Int, model: String, source: String)] = ([
        (0x24, 0x80, "ST25DV04K"), (0x25, 0x80, "ST25DV04K"),
        (0x26, 0x200, "ST25DV16K"), (0x27, 0x200, "ST25DV16K"),
        (0x26, 0x800, "ST25DV64K"), (0x27, 0x800, "ST25DV64K"),
        (0x23, 0x40, "ST25TV02K"), (0x23, 0x10, "ST25TV512"),
        (0x08, 0x10, "ST25TV512C"),
    ] as [(UInt8, Int, String)]).map { ($0.0, $0.1, $0.2, st25SDK) } + [
        (0x08, 0x50, "ST25TV02KC", "ST st25tags st25tvc.h END_MEM 4F"),
    ]

    static let onsemiRows: [ISO15693ChipRow] = [
        (0x1A, "N36RW02", "I93_IC_REF_ONS_N36RW02"), (0x2A, "N24RF04", "I93_IC_REF_ONS_N24RF04"),
        (0x2E, "N24RF04E", "I93_IC_REF_ONS_N24RF04E"), (0x4A, "N24RF16", "I93_IC_REF_ONS_N24RF16"),
        (0x4E, "N24RF16E", "I93_IC_REF_ONS_N24RF16E"), (0x6A, "N24RF64", "I93_IC_REF_ONS_N24RF64"),
        (0x6E, "N24RF64E", "I93_IC_REF_ONS_N24RF64E"),
    ].map { value, model, name in
        ISO15693ChipRow(
            manufacturer: 0x67, icReference: value, model: model, source: "\(aosp) \(name) (IC reference of GET SYSTEM INFORMATION)")
    }

    /// The maker whose code is `code`, if the table knows it.
    public static func manufacturer(_ code: UInt8) -> ISO15693Manufacturer? {
        manufacturers.first { $0.code == code }
    }

    /// The first row naming the chip with `uid` (most significant byte first), `icReference` and
    /// `blockCount` (what GET SYSTEM INFORMATION reported).
    public static func row(uid: Bytes, icReference: UInt8?, blockCount: Int? = nil) -> ISO15693ChipRow? {
        guard uid.count == 8, uid[0] == 0xE0 else { return nil }
        return rows.first { $0.matches(uid: uid, icReference: icReference, blockCount: blockCount) }
    }

    /// The memory the model table gives the chip with `uid` because it answers no GET SYSTEM
    /// INFORMATION (``ISO15693ChipRow/modelMemory``); nil for every other chip.
    public static func modelMemory(uid: Bytes) -> ISO15693ChipMemory? {
        row(uid: uid, icReference: nil)?.modelMemory
    }

    /// The identity of an ISO 15693 chip: its model from ``row(uid:icReference:)`` (else
    /// `<maker> ISO 15693 tag`, or `ISO 15693 tag`), its memory from `systemInfo`, or — for a
    /// chip that answers no GET SYSTEM INFORMATION — from its row's ``ISO15693ChipRow/modelMemory``,
    /// marked in ``ChipIdentity/memoryFromModelTable``. Total: any UID and any system
    /// information give an identity.
    public static func identity(uid: Bytes, systemInfo: ISO15693ChipMemory?) -> ChipIdentity {
        var identity = ChipIdentity(model: "ISO 15693 tag", platform: .type5)
        let maker = uid.count == 8 && uid[0] == 0xE0 ? manufacturer(uid[1]) : nil
        identity.manufacturer = maker?.name ?? (uid.count == 8 && uid[0] == 0xE0 ? "unknown (code \(hexByte(uid[1])))" : nil)
        if let maker { identity.model = "\(maker.name) ISO 15693 tag" }
        if let row = row(uid: uid, icReference: systemInfo?.icReference, blockCount: systemInfo?.blockCount) {
            identity.model = row.model
            identity.family = row.family
            identity.identificationSource = row.source
            if row.family == .st25, let reference = systemInfo?.icReference, let blocks = systemInfo?.blockCount,
               let named = stModelsByMemory.first(where: { $0.icReference == reference && $0.blocks == blocks }) {
                identity.model = named.model
                identity.identificationSource = "\(row.source); \(named.blocks) blocks: \(named.source)"
            }
        } else if let maker {
            identity.identificationSource = maker.source
        }
        var systemInfo = systemInfo
        if systemInfo?.blockCount == nil, let modelMemory = modelMemory(uid: uid) {
            systemInfo = ISO15693ChipMemory(icReference: systemInfo?.icReference, blockCount: modelMemory.blockCount, blockSize: modelMemory.blockSize)
            identity.memoryFromModelTable = tagItStandardProMemorySource
        }
        if let systemInfo {
            identity.icReference = systemInfo.icReference
            identity.blockSize = systemInfo.blockSize
            identity.blockCount = systemInfo.blockCount
            if let count = systemInfo.blockCount, let size = systemInfo.blockSize { identity.memoryBytes = count * size }
        }
        return identity
    }
}

/// What identification keeps of GET (EXTENDED) SYSTEM INFORMATION: the IC reference and the
/// memory's shape, either of which a chip may leave out.
public struct ISO15693ChipMemory: Sendable, Hashable {
    /// The IC reference byte, when answered.
    public var icReference: UInt8?
    /// Number of blocks, when answered.
    public var blockCount: Int?
    /// Bytes per block, when answered.
    public var blockSize: Int?

    /// Creates it.
    public init(icReference: UInt8?, blockCount: Int?, blockSize: Int?) {
        self.icReference = icReference
        self.blockCount = blockCount
        self.blockSize = blockSize
    }

    /// From GET SYSTEM INFORMATION.
    public init(_ info: ISO15693SystemInfo) {
        self.init(icReference: info.icReference, blockCount: info.blockCount, blockSize: info.blockSize)
    }

    /// From EXTENDED GET SYSTEM INFORMATION.
    public init(_ info: ISO15693ExtendedSystemInfo) {
        self.init(icReference: info.icReference, blockCount: info.blockCount, blockSize: info.blockSize)
    }

    /// Decodes the answer of GET SYSTEM INFORMATION (`extended` false) or EXTENDED GET SYSTEM
    /// INFORMATION, response flags byte included: nil for an error response or an answer that
    /// does not decode (``ISO15693SystemInfo/init(answer:)``). Total on any bytes.
    public static func decode(answer: [UInt8], extended: Bool) -> ISO15693ChipMemory? {
        guard let flags = answer.first, flags & ISO15693ResponseFlag.error == 0 else { return nil }
        let body = answer.dropFirst()
        if extended {
            return (try? ISO15693ExtendedSystemInfo(answer: body)).map(ISO15693ChipMemory.init)
        }
        return (try? ISO15693SystemInfo(answer: body)).map(ISO15693ChipMemory.init)
    }
}
