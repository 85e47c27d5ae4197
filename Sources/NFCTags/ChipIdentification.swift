import NFCCore

/// What a tag is, as far as a reader can tell without keys: the chip model and whether it holds
/// an NDEF-formatted area.
/// The NFC Forum platform (or MIFARE Classic mapping) a chip's NDEF goes through. Encoded as its
/// name (`"Type 2"`), as `nfctool --json` prints it.
public enum NFCPlatform: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// NFC Forum Type 1 (Innovision Jewel, Broadcom Topaz 96/512): ``Type1Tag``.
    case type1 = "Type 1"
    /// NFC Forum Type 2 (NTAG21x, MIFARE Ultralight).
    case type2 = "Type 2"
    /// NFC Forum Type 3 (FeliCa with system code 12FC).
    case type3 = "Type 3"
    /// NFC Forum Type 4 (ISO-DEP with the NDEF Tag Application).
    case type4 = "Type 4"
    /// NFC Forum Type 5 (ISO 15693).
    case type5 = "Type 5"
    /// MIFARE Classic with the MAD-based NDEF mapping (NXP AN1304).
    case mifareClassic = "MIFARE Classic"
    /// None that is known.
    case unknown

    /// The name: `Type 2`, `MIFARE Classic`, `unknown`.
    public var description: String { rawValue }
}

/// The family a chip belongs to, for the behaviour a family shares (commands, memory layout).
public enum ChipFamily: String, Sendable, Hashable, Codable, CaseIterable {
    /// NTAG210/212/213/215/216: GET_VERSION, FAST_READ, READ_SIG, PWD_AUTH, CFG pages.
    case ntag21x
    /// The original MIFARE Ultralight and unknown NXP Type 2 chips.
    case ultralight
    /// MIFARE Ultralight EV1 (MF0UL11, MF0UL21): NTAG21x-like commands.
    case ultralightEV1
    /// MIFARE Ultralight C (MF0ICU2): no GET_VERSION, 3DES mutual authentication, AUTH0/AUTH1.
    case ultralightC
    /// MIFARE Ultralight AES (MF0AES(H)20): GET_VERSION, AES mutual authentication, AUTH0, PROT,
    /// AUTH_LIM.
    case ultralightAES
    /// MIFARE Classic 1K, 4K and Mini.
    case mifareClassic
    /// MIFARE Plus (any security level).
    case mifarePlus
    /// MIFARE DESFire (EV1, EV2, EV3).
    case desfire
    /// NTAG 413/424 DNA.
    case ntagDNA
    /// MIFARE DESFire Light (MF2DL(H)x0): one application with a fixed set of files, AES and EV2
    /// secure messaging only.
    case desfireLight
    /// FeliCa Lite and Lite-S.
    case feliCaLite
    /// NXP ICODE SLI, SLIX, SLIX2, SLIX-S, SLIX-L.
    case icode
    /// Texas Instruments Tag-it HF-I (Plus, Standard, Pro).
    case tagIt
    /// STMicroelectronics ISO 15693 chips (LRI, M24LR, ST25DV, ST25TV).
    case st25
    /// Anything else.
    case other
}

/// The chip models code decides on (a Classic layout, a memory end), so it compares types rather
/// than names. The raw value is the model name identification gives (``ChipIdentity/model``).
public enum ChipModel: String, Sendable, Hashable, CaseIterable {
    /// MIFARE Classic 1K (SAK `08`).
    case mifareClassic1K = "MIFARE Classic 1K"
    /// MIFARE Classic 4K (SAK `18`).
    case mifareClassic4K = "MIFARE Classic 4K"
    /// MIFARE Mini (SAK `09`).
    case mifareMini = "MIFARE Mini"
    /// MIFARE Plus 2K in security level 2 (SAK `10`).
    case mifarePlus2KSL2 = "MIFARE Plus 2K (security level 2)"
    /// MIFARE Plus 4K in security level 2 (SAK `11`).
    case mifarePlus4KSL2 = "MIFARE Plus 4K (security level 2)"
    /// NXP ICODE SLIX2 (type indicator `01`).
    case icodeSLIX2 = "ICODE SLIX2"
    /// NXP ICODE SLIX (SL2S2002; type `01`, indicator `10`).
    case icodeSLIX = "ICODE SLIX"
    /// NXP ICODE SLIX-S (SL2S5302; type `02`).
    case icodeSLIXS = "ICODE SLIX-S"
    /// NXP ICODE SLIX-L (SL2S5002; type `03`).
    case icodeSLIXL = "ICODE SLIX-L"
    /// NXP ICODE DNA (SL2S6002).
    case icodeDNA = "ICODE DNA"
    /// NXP NTAG 5 switch (NTP5210).
    case ntag5Switch = "NTAG 5 switch (NTP5210)"
    /// NXP NTAG 5 link (NTP53x2) or boost (NTA5332): 2048 bytes; nothing public tells the two
    /// apart on the air.
    case ntag5LinkOrBoost = "NTAG 5 link or boost (NTP53x2, NTA5332)"
    /// TI Tag-it HF-I Standard (UID product bits `1100 000`).
    case tagItHFIStandard = "Tag-it HF-I Standard"
    /// TI Tag-it HF-I Pro (UID product bits `1100 010`).
    case tagItHFIPro = "Tag-it HF-I Pro"
}

public struct ChipIdentity: Sendable, Hashable, Codable {
    /// The chip as users know it: `NTAG215`, `MIFARE Ultralight EV1 (MF0UL11)`, `FeliCa Lite-S`.
    public var model: String
    /// The NFC Forum platform it maps to: `Type 2`, `Type 3`, `Type 4`, `Type 5`, `MIFARE Classic`,
    /// or `unknown`.
    public var platform: NFCPlatform
    /// The chip family (``ChipFamily/other`` when it does not matter or is not known).
    public var family: ChipFamily
    /// User memory in bytes, when the model tells.
    public var memoryBytes: Int?
    /// Whether an NDEF capability container / attribute block / application was found; `nil`
    /// when it could not be checked without keys (MIFARE Classic) or on this reader.
    public var hasNDEF: Bool?
    /// ISO 15693: the IC manufacturer named by UID byte 1 (`NXP`, `STMicroelectronics`, or
    /// `unknown (code 16)`); nil for other technologies.
    public var manufacturer: String?
    /// ISO 15693: the IC reference of GET SYSTEM INFORMATION, when answered.
    public var icReference: UInt8?
    /// ISO 15693: bytes per block, from GET (EXTENDED) SYSTEM INFORMATION.
    public var blockSize: Int?
    /// ISO 15693: number of blocks, from GET (EXTENDED) SYSTEM INFORMATION.
    public var blockCount: Int?
    /// ISO 15693: where the model's row in ``ISO15693ChipTable`` comes from.
    public var identificationSource: String?
    /// ISO 15693: for a chip that answers no GET SYSTEM INFORMATION (TI Tag-it HF-I Standard
    /// and Pro), where ``blockCount`` and ``blockSize`` come from instead (the model table's
    /// source); nil when the chip's system information gave them, or nothing did.
    public var memoryFromModelTable: String?
    /// ISO-DEP NXP chips (DESFire, MIFARE Plus, NTAG DNA, DESFire Light): the hardware part of
    /// GetVersion as identification read it (its first frame), so that what depends on the
    /// chip's generation (AuthenticateEV2First on a DESFire EV2 or later:
    /// ``DESFireTag/hardware``) needs no second GetVersion; nil for other chips.
    public var hardwareVersion: DESFireVersion.Part?

    /// Creates an identity.
    public init(model: String, platform: NFCPlatform, family: ChipFamily = .other, memoryBytes: Int? = nil, hasNDEF: Bool? = nil) {
        self.model = model
        self.platform = platform
        self.family = family
        self.memoryBytes = memoryBytes
        self.hasNDEF = hasNDEF
    }

    /// An identity of a known model, named by it.
    public init(_ model: ChipModel, platform: NFCPlatform, family: ChipFamily = .other, memoryBytes: Int? = nil, hasNDEF: Bool? = nil) {
        self.init(model: model.rawValue, platform: platform, family: family, memoryBytes: memoryBytes, hasNDEF: hasNDEF)
    }

    /// The model as a type, when it is one code decides on; nil for any other name.
    public var knownModel: ChipModel? { ChipModel(rawValue: model) }
}

/// Identification rules: SAK and ATQA (NXP AN10833), NTAG/Ultralight GET_VERSION (NTAG21x
/// datasheet 10.1, MF0ULx1 8.3; Ultralight AES's version as ``UltralightAESCommand`` cites it), Ultralight C by AUTHENTICATE after an unanswered GET_VERSION
/// (MF0ICU2 9.5), FeliCa PMm IC type, ICODE UID fields (NXP AN10787).
public enum ChipIdentification {
    /// Names the chip of a selected target, sending the few commands identification needs
    /// (GET_VERSION, SELECT of the NDEF application) and, with `probesNDEF`, one read that
    /// fills ``ChipIdentity/hasNDEF`` (the Type 1 and Type 2 CC, the Type 3 attribute block, the
    /// Type 5 CC).
    /// Callers that run the NDEF detection procedure next anyway pass `false` (``hasNDEF`` then
    /// stays nil) and spare the tag that read. Never fails: what cannot be told is unknown.
    public static func identify(_ target: TargetInfo, on reader: any NFCReader, probesNDEF: Bool = true) async -> ChipIdentity {
        var reselected: TargetInfo?? = nil
        return await identify(target, on: reader, probesNDEF: probesNDEF, reselected: &reselected)
    }

    /// ``identify(_:on:probesNDEF:)``, telling what answered when identification had to select
    /// the tag again (an unanswered GET_VERSION leaves a chip idle): `reselected` is then set to
    /// the target that answered, or to nil when none did. A caller about to write must check it
    /// is still `target`: in a stack or after a swap, another tag may have answered.
    static func identify(
        _ target: TargetInfo, on reader: any NFCReader, probesNDEF: Bool, reselected: inout TargetInfo??
    ) async -> ChipIdentity {
        switch target {
        case .iso14443A(let a):
            if a.sak & 0x20 != 0 { return await identifyISODEP(reader) }
            switch a.sak {
            case 0x00: return await identifyType2(reader, uid: a.uid, probesNDEF: probesNDEF, reselected: &reselected)
            case 0x08: return ChipIdentity(.mifareClassic1K, platform: .mifareClassic, family: .mifareClassic, memoryBytes: 1024)
            case 0x18: return ChipIdentity(.mifareClassic4K, platform: .mifareClassic, family: .mifareClassic, memoryBytes: 4096)
            case 0x09: return ChipIdentity(.mifareMini, platform: .mifareClassic, family: .mifareClassic, memoryBytes: 320)
            case 0x10: return ChipIdentity(.mifarePlus2KSL2, platform: .unknown, family: .mifarePlus, memoryBytes: 2048)
            case 0x11: return ChipIdentity(.mifarePlus4KSL2, platform: .unknown, family: .mifarePlus, memoryBytes: 4096)
            default: return ChipIdentity(model: "ISO 14443-A tag (SAK 0x\(Hex.encode([a.sak])))", platform: .unknown)
            }
        case .felica(let f):
            let icType = f.pmm.count >= 2 ? f.pmm[1] : 0
            var identity: ChipIdentity
            switch icType {
            case 0xF1: identity = ChipIdentity(model: "FeliCa Lite-S", platform: .type3, family: .feliCaLite, memoryBytes: 224)
            case 0xF0: identity = ChipIdentity(model: "FeliCa Lite", platform: .type3, family: .feliCaLite, memoryBytes: 224)
            default: identity = ChipIdentity(model: "FeliCa (IC type 0x\(Hex.encode([icType])))", platform: f.systemCode == Type3SystemCode.ndef ? .type3 : .unknown)
            }
            if probesNDEF { identity.hasNDEF = await type3HasNDEF(f, reader) }
            return identity
        case .iso15693(let v):
            return await identifyType5(v, reader, probesNDEF: probesNDEF)
        case .iso14443B(let b):
            // An ISO-DEP card over type B takes the same APDUs as over type A.
            if b.supportsISODEP { return await identifyISODEP(reader) }
            return ChipIdentity(model: "ISO 14443-B tag", platform: .unknown)
        case .jewel(let j):
            var identity = await identifyType1(reader)
            if probesNDEF { identity.hasNDEF = await type1HasNDEF(j, reader) }
            return identity
        }
    }

    /// Whether a Type 1 tag's CC0 (READ of byte 8) is the NDEF magic number `E1`; nil when the
    /// reader cannot send READ or the tag does not answer it.
    private static func type1HasNDEF(_ target: JewelTarget, _ reader: any NFCReader) async -> Bool? {
        let address = Type1Memory.capabilityContainerAddress
        guard let answer = try? await reader.transceive(Bytes(Type1Frame.read(address: address, uid: target.id.array)), mode: .standard, timeout: .seconds(1)),
              let cc0 = try? Type1Answer.byte(answer.array, address: address)
        else { return nil }
        return cc0 == Type1CapabilityContainer.ndefMagic
    }

    /// Type 1 by the header ROM RID answers (nfcpy's `tt1_broadcom.py`): HR0 HR1 `11 48` Topaz 96
    /// (BCM20203T96, 120 bytes), `12 4C` Topaz 512 (BCM20203T512, 512 bytes); any other
    /// NDEF-capable HR0 a Type 1 tag of the static or dynamic layout.
    private static func identifyType1(_ reader: any NFCReader) async -> ChipIdentity {
        guard let answer = try? await reader.transceive(Bytes(Type1Frame.readIdentification()), mode: .standard, timeout: .seconds(1)),
              let rid = try? Type1Answer.identification(answer.array)
        else { return ChipIdentity(model: "Innovision Jewel / Topaz", platform: .type1) }
        switch (rid.hr0, rid.hr1) {
        case (Type1HeaderROM.staticLayout, Type1HeaderROM.topaz96):
            return ChipIdentity(model: "Topaz 96 (BCM20203T96)", platform: .type1, memoryBytes: Type1Memory.staticSize)
        case (Type1HeaderROM.dynamicLayout, Type1HeaderROM.topaz512):
            return ChipIdentity(model: "Topaz 512 (BCM20203T512)", platform: .type1, memoryBytes: 512)
        default:
            let layout = Type1HeaderROM.isStatic(rid.hr0) ? "static" : "dynamic"
            return ChipIdentity(
                model: "Type 1 tag (HR0 \(hexByte(rid.hr0)) HR1 \(hexByte(rid.hr1)), \(layout) layout)", platform: .type1)
        }
    }

    /// NTAG / Ultralight by GET_VERSION (sent raw: on a PN532, 0x60 through InDataExchange would
    /// be taken for a MIFARE Classic authentication).
    private static func identifyType2(
        _ reader: any NFCReader, uid: Bytes, probesNDEF: Bool, reselected: inout TargetInfo??
    ) async -> ChipIdentity {
        var identity = ChipIdentity(model: "MIFARE Ultralight", platform: .type2, family: .ultralight, memoryBytes: 48)
        let getVersion = Bytes([0x60])
        do {
            try await reader.checkCanSend(getVersion, mode: .raw)
        } catch {
            // The reader cannot send GET_VERSION (a PC/SC reader's generic profile): the model
            // stays unknown rather than guessed; NDEF works from the CC all the same.
            identity = ChipIdentity(model: "Type 2 tag (model unknown: the reader cannot send GET_VERSION)", platform: .type2, family: .other)
            if probesNDEF, let pages = try? await reader.transceive(Bytes([0x30, 0x03]), mode: .standard, timeout: .milliseconds(200)),
               pages.count >= 1 {
                identity.hasNDEF = pages[0] == 0xE1
            }
            return identity
        }
        if let version = await askVersion(reader, getVersion, uid: uid), version.count == 8 {
            identity = type2Identity(version: version.array)
        } else {
            // No answer to GET_VERSION leaves the tag idle: select it again before reading (and
            // tell the caller what answered).
            reselected = .some(try? await reader.poll(for: [.iso14443A], timeout: .milliseconds(200)))
            // Only the same tag is probed: another one that answered (a stack, a swap) is left
            // as it is for the caller to see.
            if case .some(.some(.iso14443A(let again))) = reselected, again.uid == uid {
                if await answersUltralightCAuthenticate(reader) {
                    identity = ChipIdentity(
                        model: ultralightCModel, platform: .type2, family: .ultralightC,
                        memoryBytes: UltralightCMemory.userPages.count * Type2Command.pageSize)
                }
                // Either way the chip is no longer in a state to read: an Ultralight C waits for
                // the second AUTHENTICATE step (anything else sends it idle, MF0ICU2 7.5.6), a
                // plain Ultralight went idle at the unknown command. Halt it and select it again.
                try? await reader.deselect()
                reselected = .some(try? await reader.poll(for: [.iso14443A], timeout: .milliseconds(200)))
            }
        }
        // READ page 3 (capability container): magic 0xE1 means NDEF-formatted (T2T 6.1).
        if probesNDEF, let pages = try? await reader.transceive(Bytes([0x30, 0x03]), mode: .standard, timeout: .milliseconds(200)),
           pages.count >= 1 {
            identity.hasNDEF = pages[0] == 0xE1
        }
        return identity
    }

    /// GET_VERSION's answer, or nil when none came. An RF error (a CRC or parity error, or
    /// silence as a PN53x under libnfc reports it: NFC_ERFTRANS) gets one more try with the
    /// same tag selected again: a chip whose answer was lost answers it then (an NTAG213 was
    /// taken for a 48-byte MIFARE Ultralight), while one that does not know the command (a plain
    /// Ultralight, an Ultralight C) stays silent and the caller probes it further.
    static func askVersion(_ reader: any NFCReader, _ getVersion: Bytes, uid: Bytes) async -> Bytes? {
        do {
            return try await reader.transceive(getVersion, mode: .raw, timeout: .milliseconds(200))
        } catch where error.code == .rfError {
            guard case .iso14443A(let again)? = try? await reader.poll(for: [.iso14443A], timeout: .milliseconds(200)),
                  again.uid == uid else { return nil }
            return try? await reader.transceive(getVersion, mode: .raw, timeout: .milliseconds(200))
        } catch {
            return nil
        }
    }

    /// Names a Type 2 chip from its 8-byte GET_VERSION answer: fixed header `00`, vendor, product
    /// type (`04` NTAG, `03` MIFARE Ultralight), product subtype, major and minor version,
    /// storage size, protocol type (NTAG21x datasheet 10.1; MF0ULx1 datasheet 8.3; NTAG I2C
    /// NT3H1101/1201 datasheet; the plus versions NT3H2111/2211 answer minor version `02` where
    /// NTAG I2C answers `01`: nfcpy's and Proxmark3's tables). The subtype tells chips of one type and size apart: NTAG21x are
    /// `01` (NTAG210/212) or `02` (NTAG213/215/216; `04` the F variants), NTAG I2C is `05`
    /// (same type `04` and, for the 1K, the same size `13` as NTAG216: told apart only here);
    /// Ultralight EV1 is `01` (17 pF) or `02` (50 pF, MF0ULH11/21), with the same memory. A chip of
    /// another vendor answering an NTAG21x version (Proxmark3 names such a vendor-`53` chip
    /// "NTAG 213") is named as compatible with that NTAG: its layout is the NTAG's, and its
    /// signature is not NXP's.
    static func type2Identity(version: [UInt8]) -> ChipIdentity {
        guard version.count == 8 else {
            return ChipIdentity(model: "MIFARE Ultralight", platform: .type2, family: .ultralight, memoryBytes: 48)
        }
        let vendor = version[1], productType = version[2], subtype = version[3], minor = version[5], storage = version[6]
        var identity: ChipIdentity
        switch (productType, subtype, storage) {
        case (0x04, 0x01, 0x0B): identity = ChipIdentity(model: "NTAG210", platform: .type2, family: .ntag21x, memoryBytes: 48)
        case (0x04, 0x01, 0x0E): identity = ChipIdentity(model: "NTAG212", platform: .type2, family: .ntag21x, memoryBytes: 128)
        case (0x04, 0x02, 0x0F), (0x04, 0x04, 0x0F): identity = ChipIdentity(model: "NTAG213", platform: .type2, family: .ntag21x, memoryBytes: 144)
        case (0x04, 0x02, 0x11): identity = ChipIdentity(model: "NTAG215", platform: .type2, family: .ntag21x, memoryBytes: 504)
        case (0x04, 0x02, 0x13), (0x04, 0x04, 0x13): identity = ChipIdentity(model: "NTAG216", platform: .type2, family: .ntag21x, memoryBytes: 888)
        case (0x04, 0x05, 0x13):
            let name = minor == 0x02 ? "NTAG I2C plus 1K (NT3H2111)" : "NTAG I2C 1K (NT3H1101)"
            identity = ChipIdentity(model: name, platform: .type2, family: .ultralight, memoryBytes: 888)
        case (0x04, 0x05, 0x15):
            let name = minor == 0x02 ? "NTAG I2C plus 2K (NT3H2211)" : "NTAG I2C 2K (NT3H1201)"
            identity = ChipIdentity(model: name, platform: .type2, family: .ultralight, memoryBytes: 1904)
        case (0x03, 0x01, 0x0B): identity = ChipIdentity(model: "MIFARE Ultralight EV1 (MF0UL11)", platform: .type2, family: .ultralightEV1, memoryBytes: 48)
        case (0x03, 0x02, 0x0B):
            identity = ChipIdentity(model: "MIFARE Ultralight EV1 (MF0UL11) (MF0ULH11, 50 pF)", platform: .type2, family: .ultralightEV1, memoryBytes: 48)
        case (0x03, 0x01, 0x0E): identity = ChipIdentity(model: "MIFARE Ultralight EV1 (MF0UL21)", platform: .type2, family: .ultralightEV1, memoryBytes: 128)
        case (0x03, 0x02, 0x0E):
            identity = ChipIdentity(model: "MIFARE Ultralight EV1 (MF0UL21) (MF0ULH21, 50 pF)", platform: .type2, family: .ultralightEV1, memoryBytes: 128)
        case (0x03, 0x01, 0x0F) where version[4] == 0x04, (0x03, 0x02, 0x0F) where version[4] == 0x04:
            // Ultralight AES answers major version 04 (UltralightAESCommand.versionMF0AES20).
            let name = subtype == 0x02 ? "\(ultralightAESModel) (MF0AESH20, 50 pF)" : "\(ultralightAESModel) (MF0AES20)"
            identity = ChipIdentity(
                model: name, platform: .type2, family: .ultralightAES,
                memoryBytes: UltralightAESMemory.userPages.count * Type2Command.pageSize)
        default:
            let maker = vendor == nxpManufacturerCode ? "NXP " : ""
            return ChipIdentity(model: "\(maker)Type 2 tag (version \(Hex.encode(version)))", platform: .type2, family: .ultralight)
        }
        if vendor != nxpManufacturerCode {
            guard identity.family == .ntag21x else {
                return ChipIdentity(model: "Type 2 tag (version \(Hex.encode(version)))", platform: .type2, family: .ultralight)
            }
            identity.model += " (compatible chip, vendor 0x\(Hex.encode([vendor])))"
        }
        return identity
    }

    /// NXP's IC manufacturer code (ISO/IEC 7816-6), `04`: the first UID byte and GET_VERSION's vendor byte.
    public static let nxpManufacturerCode: UInt8 = 0x04

    /// The model name of a MIFARE Ultralight C.
    public static let ultralightCModel = "MIFARE Ultralight C"
    /// The model name of a MIFARE Ultralight AES (identification adds the part number).
    public static let ultralightAESModel = "MIFARE Ultralight AES"

    /// Whether the selected chip answers AUTHENTICATE part 1 (`1A 00`) with `AF` and 8 bytes of
    /// ek(RndB), as a MIFARE Ultralight C does (MF0ICU2 7.5.6, 9.5); a plain Ultralight answers
    /// nothing (or a NAK). Leaves the chip unusable until selected again.
    static func answersUltralightCAuthenticate(_ reader: any NFCReader) async -> Bool {
        let command = Bytes([UltralightCCommand.authenticate, UltralightCCommand.keyNumber])
        guard let answer = try? await reader.transceive(command, mode: .standard, timeout: .milliseconds(200)) else { return false }
        return answer.count == 1 + UltralightCAuthentication.randomSize && answer[0] == UltralightCCommand.authenticateContinue
    }

    /// ISO-DEP: the NXP chip by the native GetVersion wrapped in an APDU (`90 60 00 00 00`,
    /// answered by 7 hardware-version bytes and `91 AF` on DESFire, MIFARE Plus EV1+ and NTAG
    /// 4xx DNA; NXP AN11004), then an NFC Forum Type 4 tag when the NDEF Tag Application selects.
    private static func identifyISODEP(_ reader: any NFCReader) async -> ChipIdentity {
        var nxpModel: String?
        var memory: Int?
        var family = ChipFamily.other
        var hardware: DESFireVersion.Part?
        let getVersion = Bytes([0x90, 0x60, 0x00, 0x00, 0x00])
        if let answer = try? await reader.transceive(getVersion, mode: .standard, timeout: .milliseconds(300)),
           answer.count == 9, answer[7] == 0x91, answer[8] == 0xAF, answer[0] == 0x04 {
            (nxpModel, memory) = nxpISODEPModel(type: answer[1], major: answer[3], storage: answer[5])
            hardware = DESFireVersion.Part(bytes: Array(answer.array.prefix(DESFireVersion.Part.length)))
            family = [0x01: ChipFamily.desfire, 0x02: .mifarePlus, 0x04: .ntagDNA, DESFireLight.hardwareType: .desfireLight][answer[1]] ?? .other
        }
        let selectNDEFApplication = Bytes(
            [0x00, Type4Command.select, Type4Command.selectByNameP1, 0x00, UInt8(Type4Command.ndefTagApplicationID.count)]
                + Type4Command.ndefTagApplicationID + [0x00])
        let answer = try? await reader.transceive(selectNDEFApplication, mode: .standard, timeout: .milliseconds(500))
        let ok = answer.map { $0.count >= 2 && $0[$0.count - 2] == 0x90 && $0[$0.count - 1] == 0x00 } ?? false
        var identity = ChipIdentity(
            model: nxpModel ?? (ok ? "NFC Forum Type 4 tag" : "ISO 14443-4 tag"), platform: ok ? .type4 : .unknown,
            family: family, memoryBytes: memory, hasNDEF: ok)
        identity.hardwareVersion = hardware
        return identity
    }

    /// Names an NXP ISO-DEP chip from its GetVersion hardware bytes: type (01 DESFire, 02 MIFARE
    /// Plus, 04 NTAG DNA, 08 DESFire Light), major version (DESFire 00 EV0, 01 EV1, 12 EV2, 33 EV3; NTAG DNA 30 NTAG 424
    /// DNA, 10 NTAG 413 DNA, the chip names NXP and Proxmark3's `hf mfdes info` give) and storage
    /// size (2^(n/2) bytes: 16 → 2K, 18 → 4K, 1A → 8K).
    static func nxpISODEPModel(type: UInt8, major: UInt8, storage: UInt8) -> (String, Int?) {
        let bytes = storage >> 1 < 24 ? 1 << Int(storage >> 1) : nil
        let size = bytes.map { " \($0 / 1024 > 0 ? "\($0 / 1024)K" : "\($0) B")" } ?? ""
        switch type {
        case 0x01:
            let generation = [0x00: "", 0x01: " EV1", 0x12: " EV2", 0x33: " EV3"][major] ?? " (version \(major))"
            return ("MIFARE DESFire\(generation)\(size)", bytes)
        case 0x02: return ("MIFARE Plus\(size)", bytes)
        case DESFireLight.hardwareType: return (DESFireLight.modelName, bytes)
        case 0x04:
            let name = [0x30: "NTAG 424 DNA", 0x10: "NTAG 413 DNA"][major] ?? "NXP NTAG DNA chip (version \(major))"
            return (name, bytes)
        default: return ("NXP ISO-DEP chip (type \(type))", bytes)
        }
    }

    /// Type 3: block 0 of service 000B is the attribute information block (T3T 1.0, 7.1):
    /// version 1.x and a checksum over bytes 0-13 in bytes 14-15.
    private static func type3HasNDEF(_ target: FeliCaTarget, _ reader: any NFCReader) async -> Bool? {
        guard target.idm.count == 8 else { return nil }
        // Read Without Encryption (06): IDm, one service (000B, little-endian), one block (80 00).
        let command = Bytes([0x06] + target.idm.array + [0x01, 0x0B, 0x00, 0x01, 0x80, 0x00])
        guard let answer = try? await reader.transceive(command, mode: .standard, timeout: .milliseconds(300)),
              answer.count == 28, answer[0] == 0x07, answer[9] == 0x00, answer[10] == 0x00
        else { return nil }
        let block = answer[12..<28]
        let checksum = block[0..<14].reduce(0) { $0 + Int($1) }
        return block[0] >> 4 == 1 && checksum == Int(block[14]) << 8 | Int(block[15])
    }

    /// UID bits 37–36, the ICODE type indicator of ICODE type `01` (AN10787): bits 4–3 of UID
    /// byte 3, most significant byte first (`E0 04 01 xx …`).
    public static let icodeTypeIndicatorMask: UInt8 = 0x18
    /// Type indicator `01` (bits 37–36): ICODE SLIX2.
    public static let icodeSLIX2Indicator: UInt8 = 0x08
    /// Type indicator `10` (bits 37–36): ICODE SLIX (and, with ICODE type `02`/`03`, SLIX-S and
    /// SLIX-L).
    public static let icodeSLIXIndicator: UInt8 = 0x10
    /// Type indicator `11` (bits 37–36) of ICODE type `01`: NTAG 5 (Proxmark3 `cmdhf15.c`) and
    /// ICODE DNA (Proxmark3 `tools/recover_pk.py`'s ICODE DNA sample), told apart by memory.
    public static let icodeNTAG5DNAIndicator: UInt8 = 0x18

    /// ISO 15693: GET SYSTEM INFORMATION (`2B`, unaddressed), then EXTENDED GET SYSTEM
    /// INFORMATION (`3B`) when the first is refused, has no memory size or reports 256 blocks
    /// (a saturated count), for the IC reference and the memory; the
    /// chip named by ``ISO15693ChipTable``. A reader that cannot carry either (a PC/SC generic
    /// profile) leaves the memory unknown; the model then comes from the UID alone.
    private static func identifyType5(_ target: ISO15693Target, _ reader: any NFCReader, probesNDEF: Bool) async -> ChipIdentity {
        var memory: ISO15693ChipMemory?
        // A chip the table sizes by its model (Tag-it HF-I Standard, Pro) is not asked.
        let asks = ISO15693ChipTable.modelMemory(uid: target.uid) == nil
        let plain = Bytes([ISO15693RequestFlag.dataRate, ISO15693Command.getSystemInformation])
        let extended = Bytes([ISO15693RequestFlag.dataRate, ISO15693Command.extendedGetSystemInformation, ISO15693ExtendedSystemInfo.decodableRequest])
        if asks, (try? await reader.checkCanSend(plain, mode: .standard)) != nil {
            if let answer = try? await reader.transceive(plain, mode: .standard, timeout: .milliseconds(200)) {
                memory = ISO15693ChipMemory.decode(answer: answer.array, extended: false)
                let refused = memory == nil && answer.count == 2 && answer[0] & ISO15693ResponseFlag.error != 0
                // An ST25DV16K/64K answers without the memory size (more than 256 blocks), an
                // NTAG 5 link with the one-byte count saturated at FF (VivoKey ntag5sensor's
                // capture): the extended form has it (as AOSP's rw_i93_process_sys_info asks ST
                // chips).
                let sizeless = memory != nil && (memory?.blockCount == nil || memory?.blockCount == 256)
                if refused || sizeless,
                   let again = try? await reader.transceive(extended, mode: .standard, timeout: .milliseconds(200)),
                   var found = ISO15693ChipMemory.decode(answer: again.array, extended: true) {
                    found.icReference = found.icReference ?? memory?.icReference
                    memory = found
                }
            }
        }
        var identity = ISO15693ChipTable.identity(uid: target.uid, systemInfo: memory)
        // READ SINGLE BLOCK 0 (flags: high data rate).
        if probesNDEF, let block = try? await reader.transceive(Bytes([0x02, 0x20, 0x00]), mode: .standard, timeout: .milliseconds(200)),
           block.count >= 2, block[0] & 0x01 == 0 {
            identity.hasNDEF = block[1] == 0xE1 || block[1] == 0xE2
        }
        return identity
    }
}
