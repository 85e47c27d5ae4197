public import NFCTags
import NFCCore

// Command codes, request flags and error codes: ISO15693Command, ISO15693RequestFlag and
// ISO15693Error in NFCTags (ISO15693Command.swift), shared with the reader side.

/// An NXP ICODE SLIX2 (SL2S2602): ISO/IEC 15693, NFC Forum Type 5, 80 blocks of 4 bytes.
///
/// Frames are requests without CRC: flags, command code, then — when the address flag is
/// set — the UID **least significant byte first, as on the air** (`… 01 04 E0`), then the
/// parameters. Answers are likewise without CRC: flags `00` and data, or flags `01` and an
/// ``ISO15693Error`` code. The Inventory answer is `00`, DSFID, UID LSB first. ``uid`` and
/// ``targetInfo`` hold the UID most significant byte first (`E0 04 01 …`), as users read it.
///
/// State machine (ISO/IEC 15693-3, "VICC states"): ready, quiet (after Stay quiet: no Inventory and no
/// unaddressed request is answered), selected (after Select: requests with the select flag
/// are answered). A request addressed to another UID, or with the select flag while not
/// selected, is not answered. ``powerOn()`` returns to ready; ``halt()`` is Stay quiet.
///
/// Block 79 is the 16-bit counter (``counterBlock``).
///
/// The same class models the other members of the family (``ICodeVariant``: `sim:icode-slix`,
/// `sim:icode-slix-s`, `sim:icode-slix-l`) with their memory and the commands each data sheet
/// lists: passwords (GET RANDOM NUMBER, SET PASSWORD with the XOR of the random number, WRITE and
/// LOCK PASSWORD), PROTECT PAGE and LOCK PAGE PROTECTION CONDITION (SLIX2: protection pointer and
/// extended status; SLIX-S: pages of 4 blocks), GET MULTIPLE BLOCK PROTECTION STATUS, 64-BIT
/// PASSWORD PROTECTION and ENABLE PRIVACY — the security state in ``ICodeSecurityState``. A
/// wrong password silences the chip until ``powerOn()`` (SL2S2602: "it will not execute any
/// following command until a Power-On Reset"); in privacy mode only GET RANDOM NUMBER and SET
/// PASSWORD are answered (nor is Inventory). Assumptions where the data sheets give no value
/// here: a read of a read-protected block is answered error `0F`, a write of a write-protected
/// one `12`, a refused password command `0F`; random numbers come from a 16-bit LFSR; the
/// factory passwords are `00000000`.
///
/// EAS ALARM answers a stand-in EAS sequence (its real bits are in no public source found).
/// Not modelled: the counter's read-password protection, INVENTORY READ, other NXP custom commands (framed with the manufacturer code `04`,
/// answered "not supported"; another manufacturer code is not answered), 16-slot timing (an
/// Inventory with 16 slots is answered as if in the first slot).
public final class ICodeSLIX2: VirtualTag {
    /// Blocks, counter included (Get System Information reports `4F` = 80 − 1).
    public static let blockCount = 80
    /// Bytes per block (reported as `03` = 4 − 1).
    public static let blockSize = 4
    /// Memory size, 320 bytes.
    public static let memorySize = blockCount * blockSize
    /// The IC reference byte of Get System Information, `01` as SLIX2 tags report it (with
    /// 80 blocks of 4 bytes).
    public static let icReference: UInt8 = 0x01
    /// Get System Information's info flags: DSFID, AFI, memory size and IC reference
    /// present (ISO/IEC 15693-3, "Get system information").
    public static let systemInformationFlags: UInt8 = 0x0F
    /// The block holding the 16-bit counter (SL2S2602 data sheet, "Counter"): bytes 0–1 the
    /// value, little-endian. Writing `01 00 00 00` to it increments the counter; any other value
    /// presets it. User memory is therefore blocks 0–78, 316 bytes.
    public static let counterBlock = 79
    /// A fresh NDEF-formatted tag's capability container in block 0 (NFC Forum Type 5 Tag
    /// Technical Specification, "Capability Container"): magic `E1`, version 1.0 with
    /// read/write access `40`, MLEN `27` (the T5T area after the 4-byte CC in 8-byte units:
    /// (316 − 4) / 8 = 39, so it never reaches the counter block; 320 / 8 = `28` would overrun
    /// the memory), `01` (Read Multiple Blocks supported); then an empty NDEF TLV `03 00` and a
    /// terminator `FE`.
    public static let freshNDEFArea: [UInt8] = [0xE1, 0x40, 0x27, 0x01, 0x03, 0x00, 0xFE]

    /// The IC manufacturer code, NXP (`04`): UID byte 2, and the byte custom commands
    /// (`A0`–`DF`) carry before the UID.
    public static let manufacturerCode: UInt8 = 0x04

    /// The chip's name.
    public var modelName: String { variant.model.rawValue }
    /// Which family member this is.
    public let variant: ICodeVariant
    /// Its blocks (``ICodeVariant/blockCount``; 80 on a SLIX2).
    public var blocks: Int { variant.blockCount }
    /// Its memory in bytes.
    public var memoryBytes: Int { variant.blockCount * variant.blockSize }
    /// Passwords, privacy and page protection (persistent), what a tag file keeps beside memory.
    public var security: ICodeSecurityState
    /// The passwords given with SET PASSWORD since power-up (volatile).
    var given: Set<UInt8> = []
    /// The last GET RANDOM NUMBER answer (volatile).
    var random: [UInt8]?
    /// The LFSR behind GET RANDOM NUMBER.
    var lfsr: UInt16
    /// Set by a wrong password: nothing is answered until power-up.
    var silenced = false
    /// The 32-byte originality signature READ SIGNATURE (`BD`) answers: by default a stand-in
    /// derived from the UID that is no valid signature; a value of another length is ignored.
    public var originalitySignature: [UInt8] {
        get { signature }
        set { if newValue.count == 32 { signature = newValue } }
    }
    private var signature: [UInt8] = []
    /// The tag-file attribute holding a given signature, in hex.
    static let signatureAttribute = "signature"

    /// The invalid stand-in signature of a chip with `uid`.
    static func standInSignature(uid: [UInt8]) -> [UInt8] {
        (0..<32).map { i in 0xA5 ^ UInt8(truncatingIfNeeded: i &* 29) ^ uid[i % uid.count] }
    }
    /// The 8-byte UID, most significant byte first (`E0 04 01 …`).
    public let uid: [UInt8]
    /// Data storage format identifier.
    public var dsfid: UInt8
    /// Application family identifier.
    public var afi: UInt8
    /// Whether the AFI is locked (Lock AFI).
    public var afiLocked = false
    /// Whether the DSFID is locked (Lock DSFID).
    public var dsfidLocked = false
    /// Per-block lock state, 80 entries (block security status bit 0): what a tag file
    /// stores beside ``memory``. A shorter value is padded with `false`, a longer one cut.
    public var lockedBlocks: [Bool] {
        get { locks }
        set { locks = (0..<blocks).map { $0 < newValue.count && newValue[$0] } }
    }

    var locks: [Bool]

    /// The 320 bytes of the 80 blocks (user memory, then the counter block), block 0 first:
    /// what a tag file stores. Setting a value of
    /// another length is ignored.
    public var memory: [UInt8] {
        get { storage }
        set { if newValue.count == memoryBytes { storage = newValue } }
    }

    /// Size of a SLIX2's ``tagFileImage``: memory, one lock byte per block, DSFID, AFI, lock flags.
    public static let tagFileImageSize = memorySize + blockCount + 3
    /// Size of this chip's ``tagFileImage``.
    public var tagFileImageSize: Int { memoryBytes + blocks + 3 }

    /// Everything a tag file must keep so that locks survive: the 320 bytes of ``memory``,
    /// then 80 bytes of block security status (`01` locked), DSFID, AFI, and a byte with bit 0
    /// = AFI locked, bit 1 = DSFID locked. Setting a value of another length is ignored.
    public var tagFileImage: [UInt8] {
        get {
            storage + locks.map { $0 ? 1 : 0 } + [dsfid, afi, (afiLocked ? 0x01 : 0) | (dsfidLocked ? 0x02 : 0)]
        }
        set {
            guard newValue.count == tagFileImageSize else { return }
            storage = Array(newValue[0..<memoryBytes])
            locks = newValue[memoryBytes..<memoryBytes + blocks].map { $0 & 0x01 != 0 }
            let tail = memoryBytes + blocks
            dsfid = newValue[tail]
            afi = newValue[tail + 1]
            afiLocked = newValue[tail + 2] & 0x01 != 0
            dsfidLocked = newValue[tail + 2] & 0x02 != 0
        }
    }

    private var storage: [UInt8]
    private var air = ISO15693AirInterface()


    /// ISO 15693 target information: UID (MSB first) and DSFID.
    public var targetInfo: TargetInfo {
        .iso15693(ISO15693Target(uid: Bytes(uid), dsfid: dsfid))
    }

    /// Creates a tag.
    /// - Parameters:
    ///   - uid: 8 bytes, most significant first (`E0 04 01 …`); shorter is zero-padded,
    ///     longer truncated.
    ///   - memory: 320 bytes; when nil or of another length, a fresh NDEF-formatted tag
    ///     (``freshNDEFArea`` then zeros).
    ///   - dsfid: initial DSFID.
    ///   - afi: initial AFI.
    ///   - variant: the family member (default the SLIX2).
    public init(uid: [UInt8], memory: [UInt8]? = nil, dsfid: UInt8 = 0, afi: UInt8 = 0, variant: ICodeVariant = .slix2) {
        self.uid = (0..<8).map { $0 < uid.count ? uid[$0] : 0 }
        self.variant = variant
        signature = Self.standInSignature(uid: self.uid)
        self.dsfid = dsfid
        self.afi = afi
        security = ICodeSecurityState(variant: variant)
        lfsr = UInt16(self.uid[7]) << 8 | UInt16(self.uid[6]) | 1
        let size = variant.blockCount * variant.blockSize
        locks = [Bool](repeating: false, count: variant.blockCount)
        if let memory, memory.count == size {
            storage = memory
        } else {
            let area = Self.freshNDEFArea(for: variant)
            storage = area + [UInt8](repeating: 0, count: size - area.count)
        }
    }

    /// A fresh NDEF-formatted chip's first bytes: ``freshNDEFArea`` on a SLIX2; on the others a
    /// CC with MLEN = (memory − 4) / 8 (NFC Forum Type 5, "Capability Container").
    public static func freshNDEFArea(for variant: ICodeVariant) -> [UInt8] {
        guard variant != .slix2 else { return freshNDEFArea }
        let mlen = UInt8((variant.blockCount * variant.blockSize - 4) / 8)
        return [0xE1, 0x40, mlen, 0x01, 0x03, 0x00, 0xFE]
    }

    /// The IC reference GET SYSTEM INFORMATION answers: `01` on a SLIX2 (as SLIX2 tags report
    /// it), `03` on a SLIX-L (AOSP `I93_IC_REF_ICODE_SLI_L`); `01` and `02` on the SLIX and
    /// SLIX-S are stand-ins (their data sheets give no value).
    public var icReference: UInt8 {
        switch variant {
        case .slix2, .slix: Self.icReference
        case .slixS: 0x02
        case .slixL: 0x03
        case .ntag5Switch, .ntag5LinkOrBoost: 0x01
        }
    }

    /// Answers one request (see the type's documentation for byte order).
    public func respond(to frame: [UInt8]) -> TagAnswer {
        guard frame.count >= 2, !silenced, !security.destroyed else { return .silence }
        let command = frame[1]
        if security.privacy && !(command == ICodeCommand.getRandomNumber || command == ICodeCommand.setPassword) {
            return .silence
        }
        let request: ISO15693AirInterface.Request
        switch air.route(frame, uidOnAir: uidOnAir, manufacturerCode: Self.manufacturerCode) {
        case .silence: return .silence
        case .inventory(let flags, let parameters):
            return air.inventory(flags: flags, parameters: parameters, uidOnAir: uidOnAir, afi: afi, dsfid: dsfid)
        case .request(let given): request = given
        }
        if let answer = air.answerStateCommand(request) { return answer }
        let rest = request.parameters, option = request.option

        switch command {
        case ISO15693Command.readSingleBlock:
            guard let block = rest.first else { return error(ISO15693Error.commandNotRecognized) }
            return readBlocks(first: Int(block), count: 1, option: option)
        case ISO15693Command.readMultipleBlocks:
            guard rest.count >= 2 else { return error(ISO15693Error.commandNotRecognized) }
            return readBlocks(first: Int(rest[0]), count: Int(rest[1]) + 1, option: option)
        case ISO15693Command.writeSingleBlock:
            guard rest.count >= 1 + Self.blockSize else { return error(ISO15693Error.commandNotRecognized) }
            let block = Int(rest[0])
            guard block < blocks else { return error(ISO15693Error.blockNotAvailable) }
            guard !locks[block] else { return error(ISO15693Error.lockedBlockCannotBeChanged) }
            guard mayWrite(block) else { return error(ISO15693Error.lockedBlockCannotBeChanged) }
            var data = Array(rest[1...Self.blockSize])
            if variant == .slix2 && block == Self.counterBlock && data == [0x01, 0x00, 0x00, 0x00] {
                data = Array(storage[block * Self.blockSize..<(block + 1) * Self.blockSize])
                let value = UInt16(data[0]) | UInt16(data[1]) << 8
                let next = value &+ 1
                data[0] = UInt8(next & 0xFF)
                data[1] = UInt8(next >> 8)
            }
            storage.replaceSubrange(block * Self.blockSize..<(block + 1) * Self.blockSize, with: data)
            return ok()
        case ISO15693Command.lockBlock:
            guard let first = rest.first else { return error(ISO15693Error.commandNotRecognized) }
            let block = Int(first)
            guard block < blocks else { return error(ISO15693Error.blockNotAvailable) }
            guard !locks[block] else { return error(ISO15693Error.alreadyLocked) }
            guard mayWrite(block) else { return error(ISO15693Error.lockedBlockCannotBeChanged) }
            locks[block] = true
            return ok()
        case ISO15693Command.getMultipleBlockSecurityStatus:
            guard rest.count >= 2 else { return error(ISO15693Error.commandNotRecognized) }
            let first = Int(rest[0]), count = Int(rest[1]) + 1
            guard first + count <= blocks else { return error(ISO15693Error.blockNotAvailable) }
            return .data([0x00] + (first..<first + count).map { locks[$0] ? 0x01 : 0x00 })
        case ISO15693Command.getSystemInformation:
            let count = UInt8(blocks - 1), size = UInt8(Self.blockSize - 1)
            return .data([0x00, Self.systemInformationFlags] + uidOnAir + [dsfid, afi, count, size, icReference])
        case ISO15693Command.writeAFI:
            guard let value = rest.first else { return error(ISO15693Error.commandNotRecognized) }
            guard !afiLocked else { return error(ISO15693Error.lockedBlockCannotBeChanged) }
            guard !security.afiProtected || hasGiven(.easAFI) else { return error(ISO15693Error.unknown) }
            afi = value
            return ok()
        case ISO15693Command.lockAFI:
            guard !afiLocked else { return error(ISO15693Error.alreadyLocked) }
            guard !security.afiProtected || hasGiven(.easAFI) else { return error(ISO15693Error.unknown) }
            afiLocked = true
            return ok()
        case ISO15693Command.writeDSFID:
            guard let value = rest.first else { return error(ISO15693Error.commandNotRecognized) }
            guard !dsfidLocked else { return error(ISO15693Error.lockedBlockCannotBeChanged) }
            dsfid = value
            return ok()
        case ISO15693Command.lockDSFID:
            guard !dsfidLocked else { return error(ISO15693Error.alreadyLocked) }
            dsfidLocked = true
            return ok()
        case ISO15693Command.nxpReadSignature where variant == .slix2:
            return .data([0x00] + signature)
        case ICodeCommand.getRandomNumber, ICodeCommand.setPassword, ICodeCommand.writePassword, ICodeCommand.lockPassword,
             ICodeCommand.protectPage, ICodeCommand.lockPageProtectionCondition, ICodeCommand.getMultipleBlockProtectionStatus,
             ICodeCommand.enablePrivacy, ICodeCommand.enable64BitPasswordProtection, ICodeCommand.destroy, ICodeCommand.setEAS,
             ICodeCommand.resetEAS, ICodeCommand.lockEAS, ICodeCommand.passwordProtectEASAFI, ICodeCommand.easAlarm, ICodeCommand.writeEASID:
            return securityCommand(command, rest, option: option)
        default:
            return error(ISO15693Error.commandNotSupported)
        }
    }

    /// Power-up: the ready state; given passwords and a wrong password's silence are forgotten.
    public func powerOn() {
        air.state = .ready
        given = []
        random = nil
        silenced = false
    }

    /// False in privacy mode and after DESTROY: an inventory finds nothing.
    public var answersPoll: Bool { !security.privacy && !security.destroyed }

    /// Stay quiet: no more Inventory or unaddressed answers until Reset to ready, Select or
    /// power-up.
    public func halt() { air.state = .quiet }

    // MARK: - Private

    /// The UID as it travels: least significant byte first.
    var uidOnAir: [UInt8] { uid.reversed() }

    func ok() -> TagAnswer { .data([0x00]) }

    func error(_ code: UInt8) -> TagAnswer { .data([0x01, code]) }

    private func readBlocks(first: Int, count: Int, option: Bool) -> TagAnswer {
        guard first + count <= blocks else { return error(ISO15693Error.blockNotAvailable) }
        var answer: [UInt8] = [0x00]
        for block in first..<first + count {
            guard mayRead(block) else { return error(ISO15693Error.unknown) }
            if option { answer.append(locks[block] ? 0x01 : 0x00) }
            answer += storage[block * Self.blockSize..<(block + 1) * Self.blockSize]
        }
        return .data(answer)
    }
}
