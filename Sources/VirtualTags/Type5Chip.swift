public import NFCTags
import NFCCore

/// What a ``Type5Chip`` is: its memory, what its GET SYSTEM INFORMATION says, whether writes and
/// locks need the option flag, and which NXP custom commands it answers. Each profile names the
/// source of its facts and what is assumed where no public source gives a value.
public struct Type5ChipProfile: Sendable, Hashable {
    /// The registry name (`sim:` model, tag files' `"model"`): `tagit-hfi-plus`.
    public var modelKey: String
    /// The chip's name as users know it.
    public var modelName: String
    /// Blocks of memory the chip answers READ SINGLE BLOCK for (what GET SYSTEM INFORMATION
    /// reports, block count − 1, on a chip that has it).
    public var blockCount: Int
    /// The first blocks that are user memory, where an NDEF area goes: all of them but on a
    /// Tag-it HF-I Standard or Pro (8 of 11 or 12).
    public var userBlockCount: Int
    /// Whether the chip answers only INVENTORY, STAY QUIET, READ SINGLE BLOCK, WRITE SINGLE
    /// BLOCK and LOCK BLOCK (AOSP `rw_i93.cc` for the Tag-it HF-I Standard and Pro): any other
    /// request, GET SYSTEM INFORMATION included, is answered error `01`.
    public var singleBlockCommandsOnly: Bool
    /// Bytes per block.
    public var blockSize: Int
    /// The IC reference GET SYSTEM INFORMATION answers; nil leaves the field out (info flag 4
    /// clear).
    public var icReference: UInt8?
    /// Whether write-alike commands (`21`, `22`, `24`, `27`–`2A`) need the option flag: a request
    /// without it is refused with error `03` and changes nothing.
    public var writesNeedOptionFlag: Bool
    /// Whether the chip answers NXP's READ SIGNATURE (`BD`, manufacturer code `04`) with a
    /// 32-byte originality signature.
    public var answersReadSignature: Bool
    /// Whether a fresh chip is NDEF formatted (a CC, an empty NDEF TLV and a Terminator); else
    /// all zeros.
    public var deliveredFormatted: Bool
    /// Whether the chip answers the extended commands (`30`–`33`, `3B`, `3C`: 2-byte block
    /// numbers, ISO/IEC 15693-3:2019), which a memory past block 255 needs.
    public var extendedCommands: Bool
    /// The NTAG 5 whose NXP password commands the chip answers (GET RANDOM NUMBER, SET/WRITE/LOCK
    /// PASSWORD, PROTECT PAGE with the protection pointer, LOCK PAGE PROTECTION CONDITION,
    /// 64-BIT PASSWORD PROTECTION, privacy, DESTROY, EAS; ``ICodeSecurityHost``), with GET NXP
    /// SYSTEM INFORMATION and READ CONFIG of the protection block; nil: none of them.
    public var passwords: ICodeVariant?
    /// GET NXP SYSTEM INFORMATION's four feature bytes when ``passwords`` is set.
    public var nxpFeatureFlags: [UInt8]
    /// Whether the chip is an ST25TV02KC-T that answers ST's READ CONFIGURATION (`A0`, maker
    /// code `02`) of TD_STATUS (FID `03`, PID `06`; ``ST25TVCRegister``) with its tamper loop
    /// (``Type5Chip/tamperOpen``).
    public var tamperDetect: Bool
    /// The first UID of a `sim:` stack.
    public var defaultUID: [UInt8]
    /// One line for help.
    public var summary: String

    /// Texas Instruments Tag-it HF-I Plus (RI-I1x-112, chip and inlays): 64 blocks of 4 bytes
    /// (TI SCBS826 "2048-bit user memory in 64 × 32-bit blocks"; Proxmark3 `cmdhf15.c` "64x32bit"),
    /// UID `E0 07 80 …` (AOSP `I93_UID_TAG_IT_HF_I_PLUS_CHIP`, product bits under mask `FE`);
    /// writes and locks with the option flag (AOSP `rw_i93.cc` "Option must be set for TI tag";
    /// FEIG ID ISC manuals "WR-OPTION = 1"). Assumed here: the refusal of a write without the
    /// flag as error `03` (the sources do not say how the chip answers), GET SYSTEM INFORMATION
    /// without an IC reference, delivery blank.
    public static let tagItHFIPlus = Type5ChipProfile(
        modelKey: "tagit-hfi-plus", modelName: "Tag-it HF-I Plus", blockCount: 64, blockSize: 4, icReference: nil,
        writesNeedOptionFlag: true, answersReadSignature: false, deliveredFormatted: false,
        defaultUID: [0xE0, 0x07, 0x80, 0x00, 0x53, 0x49, 0x4D, 0x01],
        summary: "TI Tag-it HF-I Plus (ISO 15693), 256 bytes in 64 blocks, writes need the option flag, blank")

    /// NXP NTAG 5 switch (NTP5210): 512 bytes of user memory (NTP5210 data sheet, general
    /// description), here as 128 blocks of 4 bytes; UID type `01` with type indicator `11b`
    /// (Proxmark3 `cmdhf15.c`: "NTP53x2/NTP5210/NTA5332 (NTAG 5)"). Passwords and area 0's
    /// protection as the NTAG 5 link's (``passwords``). Assumed here: no IC reference in GET
    /// SYSTEM INFORMATION, delivery NDEF formatted, GET NXP SYSTEM INFORMATION's feature bytes
    /// as the link's but with the host interface `01` (GPIO, no I²C: `ntag5sensor`'s names for
    /// bits 6–5) and no keys. Not modelled: configuration writes, SRAM, session registers,
    /// area 1, AES, the originality signature (answered error `01`).
    public static let ntag5Switch = Type5ChipProfile(
        modelKey: "ntag5", modelName: "NTAG 5 switch (NTP5210)", blockCount: 128, blockSize: 4, icReference: nil,
        writesNeedOptionFlag: false, answersReadSignature: false, deliveredFormatted: true, passwords: .ntag5Switch,
        nxpFeatureFlags: [0xFF, 0xF1, 0x07, 0x20],
        defaultUID: [0xE0, 0x04, 0x01, 0x18, 0x53, 0x49, 0x4D, 0x01],
        summary: "NXP NTAG 5 switch (NTP5210, ISO 15693), 512 bytes, NFC Forum Type 5 formatted")

    /// NXP NTAG 5 link (NTP5312/NTP5332): 2048 bytes of user memory (NTP53x2 data sheet, general
    /// description), 512 blocks of 4 bytes, so the extended commands for blocks past 255; UID
    /// type `01`, type indicator `11b`, as the switch. GET SYSTEM INFORMATION as a real NTAG 5
    /// link answers it (VivoKey `ntag5sensor` `doc/NXP/config-analysis.txt`, two chips captured):
    /// info flags `0F`, memory size `FF 03` (the one-byte block count saturated) and IC reference
    /// `01`; EXTENDED GET SYSTEM INFORMATION gives the real count, `FF 01` (512 blocks). Assumed
    /// here: delivery NDEF formatted (CC `E2 40 FF 01`, by the Type 5 rules for a memory past
    /// 256 blocks).
    public static let ntag5Link = Type5ChipProfile(
        modelKey: "ntag5-link", modelName: "NTAG 5 link (NTP53x2)", blockCount: 512, blockSize: 4, icReference: 0x01,
        writesNeedOptionFlag: false, answersReadSignature: false, deliveredFormatted: true, extendedCommands: true,
        passwords: .ntag5LinkOrBoost, nxpFeatureFlags: [0xFF, 0xF1, 0x07, 0x64],
        defaultUID: [0xE0, 0x04, 0x01, 0x18, 0x4C, 0x4E, 0x4B, 0x01],
        summary: "NXP NTAG 5 link (NTP53x2, ISO 15693), 2048 bytes in 512 blocks (extended commands), Type 5 formatted")

    /// NXP NTAG 5 boost (NTA5332): 2048 bytes (16384 bits) of user memory (NTA5332 data sheet,
    /// general description), 512 blocks of 4 bytes, extended commands, as the link. No public
    /// source shows a boost's GET SYSTEM INFORMATION: it is assumed to answer as the link's but
    /// without an IC reference (info flag 4 clear), so that nothing here claims a value; on the
    /// air nothing public tells a boost from a link (identification names both).
    public static let ntag5Boost = Type5ChipProfile(
        modelKey: "ntag5-boost", modelName: "NTAG 5 boost (NTA5332)", blockCount: 512, blockSize: 4, icReference: nil,
        writesNeedOptionFlag: false, answersReadSignature: false, deliveredFormatted: true, extendedCommands: true,
        passwords: .ntag5LinkOrBoost, nxpFeatureFlags: [0xFF, 0xF1, 0x07, 0x64],
        defaultUID: [0xE0, 0x04, 0x01, 0x18, 0x42, 0x53, 0x54, 0x01],
        summary: "NXP NTAG 5 boost (NTA5332, ISO 15693), 2048 bytes in 512 blocks (extended commands), Type 5 formatted")

    /// NXP ICODE DNA (SL2S6002): 2016 bits of user memory (dotnet/iot `IcodeCardCapacity`,
    /// citing NXP AN11809), 63 blocks of 4 bytes; UID type `01`, type indicator `11b` (the
    /// ICODE DNA sample of Proxmark3 `tools/recover_pk.py`, `E0 04 01 18 …`); READ SIGNATURE
    /// (`BD`) with the ICODE DNA/SLIX2 originality key (Proxmark3 `cmdhf15.c`). Assumed here: no
    /// IC reference, delivery NDEF formatted. Not modelled: AES authentication (ISO/IEC 29167-10
    /// through AUTHENTICATE `35`, answered error `01`: the message layout is in the ISO standard
    /// and NXP's data sheet, not in a public source this model could check against).
    public static let icodeDNA = Type5ChipProfile(
        modelKey: "icode-dna", modelName: "ICODE DNA", blockCount: 63, blockSize: 4, icReference: nil,
        writesNeedOptionFlag: false, answersReadSignature: true, deliveredFormatted: true,
        defaultUID: [0xE0, 0x04, 0x01, 0x18, 0x44, 0x4E, 0x41, 0x01],
        summary: "NXP ICODE DNA (ISO 15693), 252 bytes, READ SIGNATURE (AES authentication not modelled), Type 5 formatted")

    /// Texas Instruments Tag-it HF-I Standard (chip and inlays): 11 blocks of 4
    /// bytes, blocks 0–7 user memory (FEIG ID ISC.MR200 and ID ISC.PR101 manuals, "Number of
    /// blocks 11 (user area: 0…7)"; AOSP `tags_defs.h` I93_TAG_IT_HF_I_STD_CHIP_INLAY_NUM_TOTAL_BLK
    /// 11, _NUM_USER_BLK 8), UID `E0 07 C0 …` (AOSP I93_UID_TAG_IT_HF_I_STD_CHIP_INLAY; FEIG
    /// product ID `1100 000`); only INVENTORY, STAY QUIET, READ/WRITE SINGLE BLOCK and LOCK BLOCK
    /// (AOSP `rw_i93.cc`: "these don't support Get System Information Command"), writes and locks
    /// with the option flag (FEIG "WR-OPTION = 1"). Assumed here: other requests answered error
    /// `01`, a write without the flag error `03`, blocks 8–10 plain memory (TI's description of
    /// them is not public; AOSP reads the AFI from block 10's first byte, which this model does
    /// not tie to the AFI), delivery blank.
    public static let tagItHFIStandard = Type5ChipProfile(
        modelKey: "tagit-hfi-standard", modelName: "Tag-it HF-I Standard", blockCount: 11, blockSize: 4, userBlockCount: 8,
        singleBlockCommandsOnly: true, icReference: nil, writesNeedOptionFlag: true, answersReadSignature: false, deliveredFormatted: false,
        defaultUID: [0xE0, 0x07, 0xC0, 0x00, 0x53, 0x49, 0x4D, 0x01],
        summary: "TI Tag-it HF-I Standard (ISO 15693), 32 bytes of user memory in 8 of 11 blocks, no GET SYSTEM INFORMATION, option flag, blank")

    /// Texas Instruments Tag-it HF-I Pro (chip and inlays): as the Standard with 12 blocks (FEIG ID
    /// ISC.MR200 "Number of blocks 12 (user area: 0 – 7)"; AOSP
    /// I93_TAG_IT_HF_I_PRO_CHIP_INLAY_NUM_TOTAL_BLK 12), UID `E0 07 C4 …` (AOSP
    /// I93_UID_TAG_IT_HF_I_PRO_CHIP_INLAY; FEIG `1100 010`). Not modelled: its KILL (`A4`) and
    /// WRITE SINGLE BLOCK with password (`A5`), which FEIG's manuals describe only as reader
    /// commands (UID, password LSB first, block, data), not as frames on the air, and whose
    /// password setting no public source found describes (answered error `01`).
    public static let tagItHFIPro = Type5ChipProfile(
        modelKey: "tagit-hfi-pro", modelName: "Tag-it HF-I Pro", blockCount: 12, blockSize: 4, userBlockCount: 8,
        singleBlockCommandsOnly: true, icReference: nil, writesNeedOptionFlag: true, answersReadSignature: false, deliveredFormatted: false,
        defaultUID: [0xE0, 0x07, 0xC4, 0x00, 0x53, 0x49, 0x4D, 0x01],
        summary: "TI Tag-it HF-I Pro (ISO 15693), 32 bytes of user memory in 8 of 12 blocks, no GET SYSTEM INFORMATION, option flag, blank (password commands not modelled)")

    /// STMicroelectronics ST25TV02KC-T: 80 blocks of 4 bytes and IC reference `08` (ST's
    /// st25tags library `st25tvc.h`: product code `08`, END_MEM `4F`), UID `E0 02 08 …`
    /// (TheKiwil/CheckTamper tells the chip by these three bytes), and its tamper loop: READ
    /// CONFIGURATION `A0 02` [UID] `03 06` (TD_STATUS) is answered, without a password, `00 30 30`
    /// and `63` (closed) or `6F` (open) as the ST25TV02KC-T in ST's community answer "How to get
    /// the tamper status of ST25TV02KC RFID chip?" (2022) answered it; the loop's state is the tag
    /// file's `tamper` attribute (`open` or `closed`, closed when absent). Assumed here: the first
    /// two TD_STATUS bytes always `30 30` (the captured chip's; their meaning is not in the
    /// sources), any other READ CONFIGURATION answered error `10`, delivery NDEF formatted. Not
    /// modelled: the other registers (areas, passwords, unique tap code, augmented NDEF), GET
    /// RANDOM NUMBER and PRESENT PASSWORD (error `01`), the latching of the loop at power-up.
    public static let st25tv02kc = Type5ChipProfile(
        modelKey: "st25tv02kc", modelName: "ST25TV02KC", blockCount: 0x50, blockSize: 4, icReference: ST25TVCRegister.icReference,
        writesNeedOptionFlag: false, answersReadSignature: false, deliveredFormatted: true, tamperDetect: true,
        defaultUID: [0xE0, 0x02, ST25TVCRegister.icReference, 0x00, 0x53, 0x49, 0x4D, 0x01],
        summary: "STMicroelectronics ST25TV02KC-T (ISO 15693), 320 bytes, tamper loop status (tag file \"tamper\": open/closed), NFC Forum Type 5 formatted")

    /// Every profile, in the order help lists them.
    public static let all: [Type5ChipProfile] = [tagItHFIPlus, tagItHFIStandard, tagItHFIPro, ntag5Switch, ntag5Link, ntag5Boost, icodeDNA, st25tv02kc]

    /// A profile; `userBlockCount` nil means every block; the NTAG 5 settings off unless given.
    public init(
        modelKey: String, modelName: String, blockCount: Int, blockSize: Int, userBlockCount: Int? = nil, singleBlockCommandsOnly: Bool = false,
        icReference: UInt8?, writesNeedOptionFlag: Bool, answersReadSignature: Bool, deliveredFormatted: Bool,
        extendedCommands: Bool = false, passwords: ICodeVariant? = nil, nxpFeatureFlags: [UInt8] = [], tamperDetect: Bool = false,
        defaultUID: [UInt8], summary: String
    ) {
        self.modelKey = modelKey
        self.modelName = modelName
        self.blockCount = blockCount
        self.blockSize = blockSize
        self.userBlockCount = userBlockCount ?? blockCount
        self.singleBlockCommandsOnly = singleBlockCommandsOnly
        self.icReference = icReference
        self.writesNeedOptionFlag = writesNeedOptionFlag
        self.answersReadSignature = answersReadSignature
        self.deliveredFormatted = deliveredFormatted
        self.extendedCommands = extendedCommands
        self.passwords = passwords
        self.nxpFeatureFlags = nxpFeatureFlags
        self.tamperDetect = tamperDetect
        self.defaultUID = defaultUID
        self.summary = summary
    }

    /// Memory size in bytes.
    public var memorySize: Int { blockCount * blockSize }

    /// User memory in bytes (the NDEF area's limit).
    public var userMemorySize: Int { userBlockCount * blockSize }

    /// The requests a chip with ``singleBlockCommandsOnly`` answers (the state commands are the
    /// air interface's).
    static let singleBlockCommands: Set<UInt8> = [
        ISO15693Command.readSingleBlock, ISO15693Command.writeSingleBlock, ISO15693Command.lockBlock,
    ]

    /// A fresh chip's first bytes when ``deliveredFormatted``: CC `E1 40 MLEN 01` (MLEN =
    /// (user memory − 4) / 8 up to `FF`, NFC Forum Type 5, "Capability Container"; Read Multiple
    /// Blocks, unless the chip answers single-block commands only; magic `E2` past 256 blocks:
    /// 2-byte block numbers), an empty NDEF TLV and a Terminator.
    var freshNDEFArea: [UInt8] {
        let magic: UInt8 = blockCount > 256 ? 0xE2 : 0xE1
        return [magic, 0x40, UInt8(min((userMemorySize - 4) / 8, 0xFF)), singleBlockCommandsOnly ? 0x00 : 0x01, 0x03, 0x00, 0xFE]
    }
}

/// A plain ISO 15693 chip with the commands of ISO/IEC 15693-3 NFC Forum Type 5 needs, as a
/// ``Type5ChipProfile`` describes it: `sim:tagit-hfi-plus`, `sim:tagit-hfi-standard`,
/// `sim:tagit-hfi-pro`, `sim:ntag5`, `sim:ntag5-link`, `sim:ntag5-boost`, `sim:icode-dna`,
/// `sim:st25tv02kc`.
///
/// Frames as ``ICodeSLIX2`` takes them (flags, command, UID least significant byte first when
/// addressed, parameters; no CRC). Answered: Inventory, Stay quiet, Select, Reset to ready, Read
/// single and multiple blocks (with the option flag, each block's security status first), Write
/// single block, Lock block, Write and Lock AFI and DSFID, Get system information, Get multiple
/// block security status, their extended forms and EXTENDED GET SYSTEM INFORMATION when the
/// profile has them, READ SIGNATURE when the profile has it, and an ST25TV02KC-T's READ
/// CONFIGURATION of TD_STATUS (``Type5ChipProfile/st25tv02kc``). A request addressed to
/// another UID, or with the select flag while not selected, is not answered. Anything else:
/// error `01`.
public final class Type5Chip: PersistentVirtualTag, NDEFPreloadable {
    /// What chip this is.
    public let profile: Type5ChipProfile
    /// The 8-byte UID, most significant byte first.
    public let uid: [UInt8]
    /// Data storage format identifier.
    public var dsfid: UInt8 = 0
    /// Application family identifier.
    public var afi: UInt8 = 0
    /// Whether the AFI is locked.
    public var afiLocked = false
    /// Whether the DSFID is locked.
    public var dsfidLocked = false
    /// Memory, block 0 first.
    public private(set) var memory: [UInt8]
    /// Lock state per block.
    public private(set) var lockedBlocks: [Bool]
    /// The 32-byte signature READ SIGNATURE answers: by default a stand-in derived from the UID
    /// that is no valid signature; a value of another length is ignored.
    public var originalitySignature: [UInt8] {
        get { signature }
        set { if newValue.count == 32 { signature = newValue } }
    }
    private var signature: [UInt8]
    private var air = ISO15693AirInterface()
    /// Passwords, privacy and area 0's protection when the profile has them (``Type5ChipProfile/passwords``).
    public var security: ICodeSecurityState
    /// The passwords given since power-up (volatile).
    var given: Set<UInt8> = []
    /// The last GET RANDOM NUMBER answer (volatile).
    var random: [UInt8]?
    /// The LFSR behind GET RANDOM NUMBER.
    var lfsr: UInt16
    /// Set by a wrong password: nothing is answered until power-up.
    var silenced = false

    /// The tag-file attribute holding a given signature, in hex.
    static let signatureAttribute = "signature"
    /// The tag-file attribute holding an ST25TV02KC-T's tamper loop: `open` or `closed`.
    public static let tamperAttribute = "tamper"
    /// ST25TV02KC-T (``Type5ChipProfile/tamperDetect``): whether the tamper loop is open.
    public var tamperOpen = false

    /// A factory-fresh chip.
    /// - Parameter uid: 8 bytes, most significant first; shorter is zero-padded, longer cut.
    public init(_ profile: Type5ChipProfile, uid: [UInt8]) {
        self.profile = profile
        self.uid = (0..<8).map { $0 < uid.count ? uid[$0] : 0 }
        signature = ICodeSLIX2.standInSignature(uid: self.uid)
        security = ICodeSecurityState(variant: profile.passwords ?? .slix)
        lfsr = UInt16(self.uid[6]) << 8 | UInt16(self.uid[7]) | 1
        var fresh = [UInt8](repeating: 0, count: profile.memorySize)
        if profile.deliveredFormatted { fresh.replaceSubrange(0..<profile.freshNDEFArea.count, with: profile.freshNDEFArea) }
        memory = fresh
        lockedBlocks = [Bool](repeating: false, count: profile.blockCount)
    }

    /// The chip's name.
    public var modelName: String { profile.modelName }

    /// ISO 15693 target information: UID and DSFID.
    public var targetInfo: TargetInfo { .iso15693(ISO15693Target(uid: Bytes(uid), dsfid: dsfid)) }

    /// Power-up: the ready state; given passwords and a wrong password's silence are forgotten.
    public func powerOn() {
        air.state = .ready
        given = []
        random = nil
        silenced = false
    }

    /// False in privacy mode and after DESTROY: an inventory finds nothing.
    public var answersPoll: Bool { !security.privacy && !security.destroyed }

    /// Stay quiet.
    public func halt() { air.state = .quiet }

    // MARK: - Tag file

    /// Size of ``tagFileImage``: memory, a lock byte per block, DSFID, AFI, lock flags.
    public var tagFileImageSize: Int { profile.memorySize + profile.blockCount + 3 }

    /// Memory, then one byte per block (`01` locked), DSFID, AFI, and a byte with bit 0 = AFI
    /// locked, bit 1 = DSFID locked: the layout of ``ICodeSLIX2/tagFileImage``. A value of another
    /// length is ignored.
    public var tagFileImage: [UInt8] {
        get { memory + lockedBlocks.map { $0 ? 1 : 0 } + [dsfid, afi, (afiLocked ? 0x01 : 0) | (dsfidLocked ? 0x02 : 0)] }
        set {
            guard newValue.count == tagFileImageSize else { return }
            let size = profile.memorySize
            memory = Array(newValue[0..<size])
            lockedBlocks = newValue[size..<size + profile.blockCount].map { $0 & 0x01 != 0 }
            let tail = size + profile.blockCount
            dsfid = newValue[tail]
            afi = newValue[tail + 1]
            afiLocked = newValue[tail + 2] & 0x01 != 0
            dsfidLocked = newValue[tail + 2] & 0x02 != 0
        }
    }

    /// The tag file: UID, ``tagFileImage``, the signature as an attribute when one was given,
    /// an NTAG 5's security state as the ICODE chips keep it (``ICodeSecurityState``) once it
    /// differs from a fresh chip's.
    public var tagState: TagState {
        var attributes = profile.passwords.map { security.attributes(variant: $0) } ?? [:]
        if profile.answersReadSignature && signature != ICodeSLIX2.standInSignature(uid: uid) {
            attributes[Self.signatureAttribute] = Hex.encode(signature)
        }
        if profile.tamperDetect { attributes[Self.tamperAttribute] = tamperOpen ? "open" : "closed" }
        return TagState(
            model: profile.modelKey, uid: Hex.encode(uid), memory: Hex.encode(tagFileImage),
            attributes: attributes.isEmpty ? nil : attributes)
    }

    /// Changes whenever memory, a lock, DSFID, AFI or the security state changes.
    public var stateRevision: Int { Hasher.combined(tagFileImage + signature + [tamperOpen ? 1 : 0], security) }

    /// Restores a chip from its tag file; nil when the model, the UID, the image's length or the
    /// signature does not fit.
    public convenience init?(state: TagState) {
        guard let profile = Type5ChipProfile.all.first(where: { $0.modelKey == state.model }),
              let uid = try? Hex.decode(state.uid), uid.count == 8,
              let image = try? Hex.decode(state.memory), image.count == profile.memorySize + profile.blockCount + 3
        else { return nil }
        self.init(profile, uid: uid)
        tagFileImage = image
        if let variant = profile.passwords {
            guard let restored = ICodeSecurityState(attributes: state.attributes, variant: variant) else { return nil }
            security = restored
        }
        if let text = state.attributes?[Self.signatureAttribute] {
            guard let given = try? Hex.decode(text), given.count == 32 else { return nil }
            signature = given
        }
        if profile.tamperDetect, let text = state.attributes?[Self.tamperAttribute] {
            switch text {
            case "open": tamperOpen = true
            case "closed": tamperOpen = false
            default: return nil
            }
        }
    }

    /// Stores `message` as the NDEF message after the CC (formatting a blank chip first);
    /// false when it does not fit.
    public func setNDEFMessage(_ message: [UInt8]) -> Bool {
        let area = profile.freshNDEFArea
        let tlv: [UInt8] = message.count < 0xFF
            ? [0x03, UInt8(message.count)] + message
            : [0x03, 0xFF, UInt8(message.count >> 8), UInt8(message.count & 0xFF)] + message
        let bytes = Array(area.prefix(4)) + tlv + [0xFE]
        guard bytes.count <= profile.userMemorySize else { return false }
        memory.replaceSubrange(0..<bytes.count, with: bytes)
        return true
    }

    // MARK: - Commands

    /// Answers one request.
    public func respond(to frame: [UInt8]) -> TagAnswer {
        if profile.passwords != nil {
            guard frame.count >= 2, !silenced, !security.destroyed else { return .silence }
            if security.privacy && !(frame[1] == ICodeCommand.getRandomNumber || frame[1] == ICodeCommand.setPassword) { return .silence }
        }
        let request: ISO15693AirInterface.Request
        switch air.route(frame, uidOnAir: uid.reversed(), manufacturerCode: uid[1]) {
        case .silence: return .silence
        case .inventory(let flags, let parameters): return air.inventory(flags: flags, parameters: parameters, uidOnAir: uid.reversed(), afi: afi, dsfid: dsfid)
        case .request(let given): request = given
        }
        if let answer = air.answerStateCommand(request) { return answer }
        if profile.singleBlockCommandsOnly, !Type5ChipProfile.singleBlockCommands.contains(request.command) {
            return error(ISO15693Error.commandNotSupported)
        }
        if profile.writesNeedOptionFlag, !request.option, ISO15693Command.writeClass.contains(request.command) {
            return error(ISO15693Error.optionNotSupported)
        }
        return execute(request.command, request.parameters, option: request.option)
    }

    private func execute(_ command: UInt8, _ rest: [UInt8], option: Bool) -> TagAnswer {
        if let plain = Self.plainForm[command] {
            // An extended command: the same request with a 2-byte block number (least
            // significant byte first) and, for the multiple forms, a 2-byte count.
            guard profile.extendedCommands else { return error(ISO15693Error.commandNotSupported) }
            return executeExtended(plain, rest, option: option)
        }
        if profile.passwords != nil, let answer = ntag5Command(command, rest, option: option) { return answer }
        let size = profile.blockSize
        switch command {
        case ISO15693Command.readSingleBlock:
            guard let block = rest.first else { return error(ISO15693Error.commandNotRecognized) }
            return read(first: Int(block), count: 1, option: option)
        case ISO15693Command.readMultipleBlocks:
            guard rest.count >= 2 else { return error(ISO15693Error.commandNotRecognized) }
            return read(first: Int(rest[0]), count: Int(rest[1]) + 1, option: option)
        case ISO15693Command.writeSingleBlock:
            guard rest.count == 1 + size else { return error(ISO15693Error.commandNotRecognized) }
            let block = Int(rest[0])
            guard block < profile.blockCount else { return error(ISO15693Error.blockNotAvailable) }
            guard !lockedBlocks[block] else { return error(ISO15693Error.lockedBlockCannotBeChanged) }
            guard mayChange(block) else { return error(ISO15693Error.lockedBlockCannotBeChanged) }
            memory.replaceSubrange(block * size..<(block + 1) * size, with: rest[1...])
            return ok
        case ISO15693Command.lockBlock:
            guard let first = rest.first else { return error(ISO15693Error.commandNotRecognized) }
            let block = Int(first)
            guard block < profile.blockCount else { return error(ISO15693Error.blockNotAvailable) }
            guard !lockedBlocks[block] else { return error(ISO15693Error.alreadyLocked) }
            guard mayChange(block) else { return error(ISO15693Error.lockedBlockCannotBeChanged) }
            lockedBlocks[block] = true
            return ok
        case ISO15693Command.getMultipleBlockSecurityStatus:
            guard rest.count >= 2 else { return error(ISO15693Error.commandNotRecognized) }
            let first = Int(rest[0]), count = Int(rest[1]) + 1
            guard first + count <= profile.blockCount else { return error(ISO15693Error.blockNotAvailable) }
            return .data([0x00] + (first..<first + count).map { lockedBlocks[$0] ? 0x01 : 0x00 })
        case ISO15693Command.getSystemInformation:
            var flags = ISO15693SystemInfo.dsfidPresent | ISO15693SystemInfo.afiPresent | ISO15693SystemInfo.memorySizePresent
            var tail: [UInt8] = []
            if let reference = profile.icReference {
                flags |= ISO15693SystemInfo.icReferencePresent
                tail = [reference]
            }
            // Past 256 blocks the one-byte count saturates at FF, as a real NTAG 5 link answers.
            let memorySize = [UInt8(min(profile.blockCount - 1, 0xFF)), UInt8(size - 1)]
            return .data([0x00, flags] + uid.reversed() + [dsfid, afi] + memorySize + tail)
        case ISO15693Command.extendedGetSystemInformation where profile.extendedCommands:
            let known = ISO15693ExtendedSystemInfo.dsfidPresent | ISO15693ExtendedSystemInfo.afiPresent
                | ISO15693ExtendedSystemInfo.memorySizePresent | ISO15693ExtendedSystemInfo.icReferencePresent
            let asked = (rest.first ?? 0) & known
            let given = profile.icReference == nil ? asked & ~ISO15693ExtendedSystemInfo.icReferencePresent : asked
            let count = profile.blockCount - 1
            let addressing = profile.blockCount > 256 ? ISO15693ExtendedSystemInfo.twoByteAddressing : 0
            var answer: [UInt8] = [0x00, given | addressing] + uid.reversed()
            if given & ISO15693ExtendedSystemInfo.dsfidPresent != 0 { answer.append(dsfid) }
            if given & ISO15693ExtendedSystemInfo.afiPresent != 0 { answer.append(afi) }
            if given & ISO15693ExtendedSystemInfo.memorySizePresent != 0 {
                answer += [UInt8(count & 0xFF), UInt8(count >> 8), UInt8(size - 1)]
            }
            if let reference = profile.icReference, given & ISO15693ExtendedSystemInfo.icReferencePresent != 0 { answer.append(reference) }
            return .data(answer)
        case ISO15693Command.writeAFI, ISO15693Command.writeDSFID:
            guard let value = rest.first else { return error(ISO15693Error.commandNotRecognized) }
            let isAFI = command == ISO15693Command.writeAFI
            guard !(isAFI ? afiLocked : dsfidLocked) else { return error(ISO15693Error.lockedBlockCannotBeChanged) }
            guard !isAFI || !security.afiProtected || hasGiven(.easAFI) else { return error(ISO15693Error.unknown) }
            if isAFI { afi = value } else { dsfid = value }
            return ok
        case ISO15693Command.lockAFI:
            guard !afiLocked else { return error(ISO15693Error.alreadyLocked) }
            guard !security.afiProtected || hasGiven(.easAFI) else { return error(ISO15693Error.unknown) }
            afiLocked = true
            return ok
        case ISO15693Command.lockDSFID:
            guard !dsfidLocked else { return error(ISO15693Error.alreadyLocked) }
            dsfidLocked = true
            return ok
        case ISO15693Command.nxpReadSignature where profile.answersReadSignature:
            return .data([0x00] + signature)
        case ST25Command.readConfiguration where profile.tamperDetect:
            guard rest == [ST25TVCRegister.tamperDetectFeature, ST25TVCRegister.tdStatus] else { return error(ISO15693Error.blockNotAvailable) }
            let loop = tamperOpen ? ST25TVCRegister.factoryOpenMessage : ST25TVCRegister.factoryShortMessage
            return .data([0x00, 0x30, 0x30, loop])
        default:
            return error(ISO15693Error.commandNotSupported)
        }
    }

    /// The plain command each extended one stands for.
    private static let plainForm: [UInt8: UInt8] = [
        ISO15693Command.extendedReadSingleBlock: ISO15693Command.readSingleBlock,
        ISO15693Command.extendedWriteSingleBlock: ISO15693Command.writeSingleBlock,
        ISO15693Command.extendedLockBlock: ISO15693Command.lockBlock,
        ISO15693Command.extendedReadMultipleBlocks: ISO15693Command.readMultipleBlocks,
        ISO15693Command.extendedGetMultipleBlockSecurityStatus: ISO15693Command.getMultipleBlockSecurityStatus,
    ]

    /// An extended block command: block numbers and counts of 2 bytes, least significant first.
    private func executeExtended(_ plain: UInt8, _ rest: [UInt8], option: Bool) -> TagAnswer {
        func number(_ at: Int) -> Int? { rest.count >= at + 2 ? Int(rest[at]) | Int(rest[at + 1]) << 8 : nil }
        guard let first = number(0) else { return error(ISO15693Error.commandNotRecognized) }
        let size = profile.blockSize
        switch plain {
        case ISO15693Command.readSingleBlock:
            return read(first: first, count: 1, option: option)
        case ISO15693Command.readMultipleBlocks:
            guard let count = number(2) else { return error(ISO15693Error.commandNotRecognized) }
            return read(first: first, count: count + 1, option: option)
        case ISO15693Command.getMultipleBlockSecurityStatus:
            guard let count = number(2) else { return error(ISO15693Error.commandNotRecognized) }
            guard first + count + 1 <= profile.blockCount else { return error(ISO15693Error.blockNotAvailable) }
            return .data([0x00] + (first...(first + count)).map { lockedBlocks[$0] ? 0x01 : 0x00 })
        case ISO15693Command.writeSingleBlock:
            guard rest.count == 2 + size else { return error(ISO15693Error.commandNotRecognized) }
            guard first < profile.blockCount else { return error(ISO15693Error.blockNotAvailable) }
            guard !lockedBlocks[first] else { return error(ISO15693Error.lockedBlockCannotBeChanged) }
            guard mayChange(first) else { return error(ISO15693Error.lockedBlockCannotBeChanged) }
            memory.replaceSubrange(first * size..<(first + 1) * size, with: rest[2...])
            return ok
        default:
            guard first < profile.blockCount else { return error(ISO15693Error.blockNotAvailable) }
            guard !lockedBlocks[first] else { return error(ISO15693Error.alreadyLocked) }
            guard mayChange(first) else { return error(ISO15693Error.lockedBlockCannotBeChanged) }
            lockedBlocks[first] = true
            return ok
        }
    }

    private var ok: TagAnswer { .data([0x00]) }

    private func error(_ code: UInt8) -> TagAnswer { .data([ISO15693ResponseFlag.error, code]) }

    private func read(first: Int, count: Int, option: Bool) -> TagAnswer {
        guard first + count <= profile.blockCount else { return error(ISO15693Error.blockNotAvailable) }
        var answer: [UInt8] = [0x00]
        let size = profile.blockSize
        for block in first..<first + count {
            guard profile.passwords == nil || mayRead(block) else { return error(ISO15693Error.unknown) }
            if option { answer.append(lockedBlocks[block] ? 0x01 : 0x00) }
            answer += memory[block * size..<(block + 1) * size]
        }
        return .data(answer)
    }
}

extension TagModel {
    /// The ``Type5Chip`` entries: `tagit-hfi-plus`, `tagit-hfi-standard`, `tagit-hfi-pro`,
    /// `ntag5`, `ntag5-link`, `ntag5-boost`, `icode-dna`, `st25tv02kc`.
    static let type5Chips: [TagModel] = Type5ChipProfile.all.map { profile in
        TagModel(
            name: profile.modelKey, summary: profile.summary, uidLength: 8, defaultUID: profile.defaultUID,
            make: { uid, options in
                let tag = Type5Chip(profile, uid: uid)
                if let signature = options.signature { tag.originalitySignature = signature }
                return tag
            },
            restore: { Type5Chip(state: $0) })
    }
}
