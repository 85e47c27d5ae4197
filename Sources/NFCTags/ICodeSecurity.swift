import NFCCore

/// NXP ICODE custom commands for passwords, privacy and page protection, framed with NXP's
/// manufacturer code `04` (``ISO15693Command/nxpManufacturerCode``) before the UID.
///
/// Codes and frames: ICODE SLIX2 data sheet (SL2S2602, 9.5.3 "Custom commands"), ICODE SLIX-S
/// (SL2S5302, 8.4.3), ICODE SLIX (SL2S2002_SL2S2102, 9.4.3); the same codes in Proxmark3's
/// `protocols.h` (`ISO15693_GET_RANDOM_NUMBER` … `ISO15693_64BIT_PASSWORD_PROTECTION`) as a
/// second source.
public enum ICodeCommand {
    /// SET EAS `A2`: turns the Electronic Article Surveillance mode on (SL2S2002 9.4.3 and the
    /// later members; Proxmark3 `ISO15693_SET_EAS`, Flipper `SLIX_CMD_SET_EAS` as second sources).
    public static let setEAS: UInt8 = 0xA2
    /// RESET EAS `A3`: turns EAS mode off.
    public static let resetEAS: UInt8 = 0xA3
    /// LOCK EAS `A4`: freezes the EAS mode as it is. Irreversible.
    public static let lockEAS: UInt8 = 0xA4
    /// EAS ALARM `A5`: with the option flag clear, answered with the EAS sequence while EAS
    /// mode is on, else not at all; with it set, an EAS ID mask length (bits: 0, 8 or 16) and
    /// that much of an EAS ID: mask length 0 is answered with the chip's EAS ID (ICODE SLI-S data
    /// sheet SL2ICS53 8.1.3.16, the three configurations; the SLIX-S/SLIX-L/SLIX2 data sheets,
    /// not at hand here, are taken to carry the command unchanged).
    public static let easAlarm: UInt8 = 0xA5
    /// PASSWORD PROTECT EAS/AFI `A6`: with the option flag clear the EAS commands, with it set
    /// WRITE AFI and LOCK AFI need the EAS/AFI password from then on. Irreversible.
    public static let passwordProtectEASAFI: UInt8 = 0xA6
    /// WRITE EAS ID `A7`: a new 16-bit EAS ID (least significant byte first, as every ISO 15693
    /// value); with EAS password protection on, the EAS/AFI password must have been given; LOCK
    /// EAS freezes it with the EAS mode (SL2ICS53 8.1.3.18 "Write EAS ID"; Flipper
    /// `SLIX_CMD_WRITE_EAS_ID` as a second source of the code).
    public static let writeEASID: UInt8 = 0xA7
    /// GET RANDOM NUMBER `B2`: answered by a 16-bit random number, least significant byte first.
    public static let getRandomNumber: UInt8 = 0xB2
    /// SET PASSWORD `B3`: password identifier, then the password XOR the random number twice.
    public static let setPassword: UInt8 = 0xB3
    /// WRITE PASSWORD `B4`: password identifier, then the new password in plain.
    public static let writePassword: UInt8 = 0xB4
    /// LOCK PASSWORD `B5`: password identifier. Irreversible.
    public static let lockPassword: UInt8 = 0xB5
    /// PROTECT PAGE `B6`: page number (SLIX-S) or protection pointer (SLIX2), then the protection
    /// status.
    public static let protectPage: UInt8 = 0xB6
    /// LOCK PAGE PROTECTION CONDITION `B7`: page number or protection pointer. Irreversible.
    public static let lockPageProtectionCondition: UInt8 = 0xB7
    /// GET MULTIPLE BLOCK PROTECTION STATUS `B8`: first block, number of blocks − 1.
    public static let getMultipleBlockProtectionStatus: UInt8 = 0xB8
    /// DESTROY `B9`. Irreversible.
    public static let destroy: UInt8 = 0xB9
    /// ENABLE PRIVACY `BA`: the privacy password XOR the random number twice.
    public static let enablePrivacy: UInt8 = 0xBA
    /// 64-BIT PASSWORD PROTECTION `BB`: read and write password together from then on.
    /// Irreversible.
    public static let enable64BitPasswordProtection: UInt8 = 0xBB

    /// The commands that change the chip (what `--plan` holds back).
    public static let writeClass: Set<UInt8> = [
        setEAS, resetEAS, lockEAS, passwordProtectEASAFI, writeEASID, writePassword, lockPassword, protectPage, lockPageProtectionCondition, destroy, enablePrivacy,
        enable64BitPasswordProtection,
    ]
    /// The ones that cannot be undone (LOCK PASSWORD, LOCK PAGE PROTECTION CONDITION, DESTROY,
    /// 64-BIT PASSWORD PROTECTION, PASSWORD PROTECT EAS/AFI, LOCK EAS) or that hide the chip
    /// until its password comes (ENABLE PRIVACY): what asks for `--yes`.
    public static let irreversible: Set<UInt8> = [
        lockEAS, passwordProtectEASAFI, lockPassword, lockPageProtectionCondition, destroy, enablePrivacy, enable64BitPasswordProtection,
    ]

    /// The command's name as the data sheets write it.
    public static func name(_ code: UInt8) -> String {
        switch code {
        case setEAS: "SET EAS"
        case resetEAS: "RESET EAS"
        case lockEAS: "LOCK EAS"
        case easAlarm: "EAS ALARM"
        case passwordProtectEASAFI: "PASSWORD PROTECT EAS/AFI"
        case writeEASID: "WRITE EAS ID"
        case getRandomNumber: "GET RANDOM NUMBER"
        case setPassword: "SET PASSWORD"
        case writePassword: "WRITE PASSWORD"
        case lockPassword: "LOCK PASSWORD"
        case protectPage: "PROTECT PAGE"
        case lockPageProtectionCondition: "LOCK PAGE PROTECTION CONDITION"
        case getMultipleBlockProtectionStatus: "GET MULTIPLE BLOCK PROTECTION STATUS"
        case destroy: "DESTROY"
        case enablePrivacy: "ENABLE PRIVACY"
        case enable64BitPasswordProtection: "64-BIT PASSWORD PROTECTION"
        default: "custom command \(hexByte(code))"
        }
    }
}

/// The password identifiers of SET/WRITE/LOCK PASSWORD (SL2S2602 and SL2S5302, "Password
/// identifier" tables; the SLIX has the EAS/AFI one only, SL2S2002 Table 12).
public enum ICodePasswordIdentifier: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `01`: read password.
    case read = 0x01
    /// `02`: write password.
    case write = 0x02
    /// `04`: privacy password.
    case privacy = 0x04
    /// `08`: destroy password.
    case destroy = 0x08
    /// `10`: EAS/AFI password.
    case easAFI = 0x10

    /// `read`, `write`, `privacy`, `destroy`, `EAS/AFI`.
    public var description: String {
        switch self {
        case .read: "read"
        case .write: "write"
        case .privacy: "privacy"
        case .destroy: "destroy"
        case .easAFI: "EAS/AFI"
        }
    }
}

/// A 32-bit ICODE password. Written `Password[31:0]` in the data sheets and in files as 8 hex
/// digits, most significant first; on the air least significant byte first, as every ISO 15693
/// value. Its description never shows it.
public struct ICodePassword: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The value, `Password[31:0]`.
    public let value: UInt32

    /// A password of `value`.
    public init(_ value: UInt32) { self.value = value }

    /// Parses 8 hex digits (spaces ignored).
    /// - Throws: ``NFCTagError/Code/invalidParameter`` otherwise; the message never repeats the input.
    public init(hex text: String) throws(NFCTagError) {
        let digits = text.filter { !$0.isWhitespace }
        guard digits.count == 8, let value = UInt32(digits, radix: 16) else {
            throw NFCTagError(.invalidParameter, "an ICODE password is 8 hex digits")
        }
        self.value = value
    }

    /// The read and write password as delivered, `00000000` (Eccel's ICODE SLIX2 memory
    /// protection guide; the data sheets leave the value to the label maker, so a chip may differ).
    public static let factoryDefault = ICodePassword(0)

    /// The bytes of a password on the air: 4.
    public static let size = 4

    /// The 4 bytes as sent by WRITE PASSWORD: least significant first.
    public var bytesOnAir: [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

    /// The 4 bytes SET PASSWORD and ENABLE PRIVACY send: `Password[31:0] XOR
    /// {Random_Number[15:0], Random_Number[15:0]}` (SL2S2602 9.5.3.2), least significant first;
    /// `random` is the 2 bytes GET RANDOM NUMBER answered, least significant first.
    public func xored(with random: [UInt8]) -> [UInt8] {
        let r = random.count == 2 ? random : [0, 0]
        let air = bytesOnAir
        return [air[0] ^ r[0], air[1] ^ r[1], air[2] ^ r[0], air[3] ^ r[1]]
    }

    /// The password a SET PASSWORD carrying `xored` stands for, given `random`: the inverse of
    /// ``xored(with:)`` (what a chip computes). Nil unless 4 and 2 bytes come.
    public static func recovered(from xored: [UInt8], random: [UInt8]) -> ICodePassword? {
        guard xored.count == 4, random.count == 2 else { return nil }
        let air = [xored[0] ^ random[0], xored[1] ^ random[1], xored[2] ^ random[0], xored[3] ^ random[1]]
        return ICodePassword(air.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * $1.offset) })
    }

    /// `ICodePassword(redacted)`.
    public var description: String { "ICodePassword(redacted)" }
    /// `ICodePassword(redacted)`.
    public var debugDescription: String { description }
}

/// The read and write passwords a protect or unprotect uses, from a password file: `WWWWWWWW`
/// (the write password, also the read password when reads are protected) or
/// `RRRRRRRR:WWWWWWWW` (read, then write). In 64-bit mode the two together are the password.
public struct ICodePasswords: Sendable, Hashable, CustomStringConvertible {
    /// The read password.
    public var read: ICodePassword
    /// The write password.
    public var write: ICodePassword

    /// Both.
    public init(read: ICodePassword, write: ICodePassword) {
        self.read = read
        self.write = write
    }

    /// Parses `WWWWWWWW` or `RRRRRRRR:WWWWWWWW` (hex, spaces ignored).
    /// - Throws: ``NFCTagError/Code/invalidParameter``; the message never repeats the input.
    public init(hex text: String) throws(NFCTagError) {
        let parts = text.filter { !$0.isWhitespace }.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2,
              let first = try? ICodePassword(hex: String(parts[0])),
              let second = parts.count == 2 ? try? ICodePassword(hex: String(parts[1])) : first
        else {
            throw NFCTagError(.invalidParameter, "ICODE passwords are 8 hex digits (write), or read:write as 8:8 hex digits")
        }
        self.init(read: first, write: second)
    }

    /// Both passwords as delivered (``ICodePassword/factoryDefault``).
    public static let factoryDefault = ICodePasswords(read: .factoryDefault, write: .factoryDefault)

    /// `ICodePasswords(redacted)`.
    public var description: String { "ICodePasswords(redacted)" }
}

/// Block protection status bits of GET MULTIPLE BLOCK PROTECTION STATUS (ICODE SLI-S data
/// sheet, "Block protection status"; SL2S5302 and SL2S2602 keep the layout).
public enum ICodeBlockProtection {
    /// b1: the block is locked (LOCK BLOCK).
    public static let locked: UInt8 = 0x01
    /// b2: reading needs the read password.
    public static let readProtected: UInt8 = 0x02
    /// b3: writing needs the write password.
    public static let writeProtected: UInt8 = 0x04
    /// b4: the block's page protection condition is locked.
    public static let protectionLocked: UInt8 = 0x08
}

/// The protection status byte of PROTECT PAGE.
public enum ICodePageProtection {
    /// SLIX-S (SL2S5302, "Protection status", 32-bit mode): `00` public.
    public static let publicPage: UInt8 = 0x00
    /// SLIX-S: `01` read and write protected by the read password.
    public static let readWriteByReadPassword: UInt8 = 0x01
    /// SLIX-S: `10` write protected by the write password.
    public static let writeByWritePassword: UInt8 = 0x10
    /// SLIX-S: `11` read protected by the read password, write by the write password.
    public static let readAndWrite: UInt8 = 0x11
    /// SLIX2 extended protection status (SL2S2602 PROTECT PAGE): bit 0 read protection of the
    /// low page (blocks below the pointer).
    public static let readLow: UInt8 = 0x01
    /// SLIX2: bit 1 write protection of the low page.
    public static let writeLow: UInt8 = 0x02
    /// SLIX2: bit 4 read protection of the high page (from the pointer on).
    public static let readHigh: UInt8 = 0x10
    /// SLIX2: bit 5 write protection of the high page.
    public static let writeHigh: UInt8 = 0x20
}

/// The ICODE SLIX family members whose passwords NFCKit knows, with what each has (the data
/// sheets' command lists and memory organisation), and the NTAG 5 chips, which take the same
/// password commands (GET RANDOM NUMBER, SET PASSWORD with the random number XOR, WRITE and
/// LOCK PASSWORD, PROTECT PAGE with a protection pointer as the SLIX2's; NTP5210, NTP53x2,
/// NTA5332 data sheets, command sets) but read their protection from GET NXP SYSTEM
/// INFORMATION (``NXPSystemInformation``).
public enum ICodeVariant: String, Sendable, Hashable, CaseIterable {
    /// ICODE SLIX (SL2S2002): 28 blocks of 4 bytes; only the EAS/AFI password.
    case slix
    /// ICODE SLIX-S (SL2S5302): 40 blocks of 4 bytes; read, write, privacy, destroy and EAS/AFI
    /// passwords; page protection by pages of 4 blocks; 64-bit mode.
    case slixS
    /// ICODE SLIX-L (SL2S5002): 8 blocks of 4 bytes; privacy, destroy and EAS/AFI passwords.
    case slixL
    /// ICODE SLIX2 (SL2S2602): 80 blocks of 4 bytes (block 79 the counter); every password;
    /// page protection around a protection pointer; 64-bit mode.
    case slix2
    /// NTAG 5 switch (NTP5210): 128 blocks of 4 bytes; read, write, privacy, destroy and
    /// EAS/AFI passwords (GET NXP SYSTEM INFORMATION's feature flags name NFC privacy, destroy,
    /// EAS and AFI protection), area 0 split by the protection pointer NFC_PP_AREA_0H into a low
    /// and a high part, each read/write protectable (NFC_PPC); 32- or 64-bit passwords.
    case ntag5Switch
    /// NTAG 5 link (NTP53x2) or boost (NTA5332): as the switch, with 512 blocks.
    case ntag5LinkOrBoost

    /// The variant of a model; nil for any other chip.
    public init?(model: ChipModel?) {
        switch model {
        case .icodeSLIX: self = .slix
        case .icodeSLIXS: self = .slixS
        case .icodeSLIXL: self = .slixL
        case .icodeSLIX2: self = .slix2
        case .ntag5Switch: self = .ntag5Switch
        case .ntag5LinkOrBoost: self = .ntag5LinkOrBoost
        default: return nil
        }
    }

    /// The model it is.
    public var model: ChipModel {
        switch self {
        case .slix: .icodeSLIX
        case .slixS: .icodeSLIXS
        case .slixL: .icodeSLIXL
        case .slix2: .icodeSLIX2
        case .ntag5Switch: .ntag5Switch
        case .ntag5LinkOrBoost: .ntag5LinkOrBoost
        }
    }

    /// Blocks GET SYSTEM INFORMATION reports (SL2S2002: 896 bits of user memory; SL2S5302: 1280
    /// bits; SL2S5002: 256 bits; SL2S2602: 2528 bits plus the counter block; NTP5210: 512
    /// bytes; NTP53x2 and NTA5332: 2048 bytes).
    public var blockCount: Int {
        switch self {
        case .slix: 28
        case .slixS: 40
        case .slixL: 8
        case .slix2: 80
        case .ntag5Switch: 128
        case .ntag5LinkOrBoost: 512
        }
    }

    /// Bytes per block: 4 on every member.
    public var blockSize: Int { 4 }

    /// The passwords it has.
    public var passwords: Set<ICodePasswordIdentifier> {
        switch self {
        case .slix: [.easAFI]
        case .slixL: [.privacy, .destroy, .easAFI]
        case .slixS, .slix2, .ntag5Switch, .ntag5LinkOrBoost: Set(ICodePasswordIdentifier.allCases)
        }
    }

    /// Whether memory can be password protected (PROTECT PAGE).
    public var hasPageProtection: Bool { self != .slix && self != .slixL }
    /// Whether PROTECT PAGE takes a protection pointer (blocks from it on are the high page)
    /// rather than a page number: the SLIX2 and the NTAG 5 chips.
    public var usesProtectionPointer: Bool { self == .slix2 || isNTAG5 }
    /// Whether it is an NTAG 5 chip (its protection read from GET NXP SYSTEM INFORMATION).
    public var isNTAG5: Bool { self == .ntag5Switch || self == .ntag5LinkOrBoost }
    /// Whether it has ENABLE PRIVACY.
    public var hasPrivacy: Bool { passwords.contains(.privacy) }
    /// Whether it has 64-BIT PASSWORD PROTECTION.
    public var has64BitMode: Bool { hasPageProtection }
    /// Whether it has an EAS ID (WRITE EAS ID, EAS ALARM with the option flag): taken for the
    /// SLIX-S, SLIX-L and SLIX2 as for their predecessor the ICODE SLI-S (SL2ICS53; their own
    /// data sheets' pages on it were not found in the public sources searched); not claimed for
    /// the plain SLIX, whose EAS ALARM is sent in the ICODE SLI form only.
    public var hasEASID: Bool { self != .slix }

    /// SLIX-S protects pages of 4 blocks (SL2S5302 "Memory organization").
    public static let blocksPerPage = 4
}

/// What an ICODE chip's EAS ALARM (``ICodeCommand/easAlarm``) answer says. The answer past its
/// flags byte is the chip's EAS sequence, whose bits no public source found gives, so nothing
/// here depends on more than the flags and (for the EAS ID) the first two bytes after them.
public enum ICodeEASAlarm {
    /// The request parameters that ask for the chip's EAS ID (option flag set): EAS ID mask
    /// length 0, no EAS ID value.
    public static let easIDRequest: [UInt8] = [0x00]

    /// Whether `answer` (flags byte first) is an alarm: any answer without the error flag. A chip
    /// whose EAS mode is off does not answer at all.
    public static func isAlarm(answer: [UInt8]) -> Bool {
        guard let flags = answer.first else { return false }
        return flags & ISO15693ResponseFlag.error == 0
    }

    /// The EAS ID of an answer to EAS ALARM with mask length 0 (flags byte first): bytes 1–2,
    /// least significant first; nil for an error, or fewer than 2 bytes after the flags. Total.
    public static func easID(answer: [UInt8]) -> UInt16? {
        guard isAlarm(answer: answer), answer.count >= 3 else { return nil }
        return UInt16(answer[1]) | UInt16(answer[2]) << 8
    }
}
