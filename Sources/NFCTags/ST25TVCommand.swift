import NFCCore

/// STMicroelectronics ST25TV02K / ST25TV512 custom commands and registers beyond the ST25DV's
/// (``ST25Command``: READ/WRITE CONFIGURATION `A0`/`A1`, WRITE PASSWORD `B1`, PRESENT PASSWORD
/// `B3` are the same codes, framed the same way with ST's `02`).
///
/// Sources: ST's ST25 SDK (Java, `Iso15693CustomCommand`, `ST25TVTag`, `TagHelper`, and its
/// ST25TV tests, which spell out the expected frames) for the codes, register pointers, password
/// numbers and the cover coding; the ST25TV02K/ST25TV512 data sheet (DS12074) for the 32-bit
/// encrypted passwords, the kill and untraceable modes and KILL needing the option flag at 0.
/// ST's own description of the password encryption is a technical note given under NDA only (ST
/// community answer, 2018); the XOR below is the ST25 SDK's, and the one the ST25TV02KC data
/// sheet (DS13304) publishes for its successor.
public enum ST25TVCommand {
    /// GET RANDOM NUMBER `B4`: answered by 2 bytes, the cover for the next PRESENT PASSWORD.
    public static let getRandomNumber: UInt8 = 0xB4
    /// KILL `A6`: access code `00` and the 4 covered kill-password bytes; the chip never answers
    /// again. The option flag must be 0 (DS12074).
    public static let kill: UInt8 = 0xA6
    /// ENABLE UNTRACEABLE (the ST25 SDK's "confidential mode") `BA`: access code `00` and the 4
    /// covered bytes of password 0.
    public static let enableUntraceable: UInt8 = 0xBA
    /// The access code KILL and ENABLE UNTRACEABLE carry before the password.
    public static let accessCode: UInt8 = 0x00

    /// Password 0: kill and untraceable (32 bits).
    public static let killPassword: UInt8 = 0
    /// Password 1: area 1 (32 bits with two areas; with one area, passwords 1 and 2 make its 64).
    public static let area1Password: UInt8 = 1
    /// Password 2: area 2 (32 bits).
    public static let area2Password: UInt8 = 2
    /// Password 3: the configuration (32 bits); WRITE CONFIGURATION needs its session.
    public static let configurationPassword: UInt8 = 3

    /// The IC reference of GET SYSTEM INFORMATION (ST25TV02K and ST25TV512, told apart by
    /// block count; ST25 SDK `TagHelper`).
    public static let icReference: UInt8 = 0x23

    /// The command's name.
    public static func name(_ code: UInt8) -> String? {
        switch code {
        case getRandomNumber: "GET RANDOM NUMBER"
        case kill: "KILL"
        case enableUntraceable: "ENABLE UNTRACEABLE"
        default: nil
        }
    }
}

/// ST25TV02K configuration registers, reached with READ/WRITE CONFIGURATION and a 1-byte pointer
/// (ST25 SDK `ST25TVTag.ST25TV_REGISTER_*`).
public enum ST25TVRegister {
    /// `00` area 1 security attribute: bits 1–0 area 1's protection (as area 2's,
    /// ``ST25TVAreaSecurity``), bit 2 MEM_ORG (1 one user area behind the 64-bit password 1,
    /// 0 two areas of 32 blocks), bits 7–3 RFU (ST25 SDK `ST25TVRegisterArea1SecurityAttribute`;
    /// ST's st25tags library `st25dv_pwm.c`, `SYS_A1SA_MEM_ORG_SHIFT` and
    /// `SYS_AxSA_RW_PROTECTION_BITMASK`).
    public static let area1Security: UInt8 = 0x00
    /// `01` area 2 security attribute: bits 1–0 `00` open, `01` write with password 2, `10` read
    /// and write with it, `11` read with it and write never (ST25 SDK
    /// `ST25TVRegisterArea2SecurityAttribute`).
    public static let area2Security: UInt8 = 0x01
    /// `02` EAS security activation.
    public static let easSecurity: UInt8 = 0x02
    /// `03` counter configuration.
    public static let counterConfiguration: UInt8 = 0x03
    /// `04` counter value.
    public static let counter: UInt8 = 0x04
    /// `05` tamper configuration.
    public static let tamperConfiguration: UInt8 = 0x05
    /// `06` LOCK_CFG: bit 0 set locks every configuration register for good.
    public static let lockConfiguration: UInt8 = 0x06
    /// `07` key ID.
    public static let keyID: UInt8 = 0x07
    /// The registers there are.
    public static let all: ClosedRange<UInt8> = area1Security...keyID

    /// Bit 2 of the area 1 attribute, MEM_ORG: set, one user area (the whole memory, 64-bit
    /// password 1); clear, two areas of 32 blocks each.
    public static let singleAreaBit: UInt8 = 0x04
    /// Bits 1–0 of either area attribute: the area's protection (``ST25TVAreaSecurity``).
    public static let protectionMask: UInt8 = 0x03
    /// The first block of area 2 with two areas (ST25 SDK `ST25TVTag.getAreaOffsetInBlocks`).
    public static let area2FirstBlock = 32

    /// The block count of the chip whose area boundary ``area2FirstBlock`` is known for (the
    /// ST25TV02K's 64 blocks); on the ST25TV512 (16 blocks) where area 2 begins is not public.
    public static let boundaryKnownBlockCount = 64

    /// The first block of `area` (1 or 2) on a chip of `blockCount` blocks: area 1 begins at 0;
    /// area 2 at ``area2FirstBlock`` on the ST25TV02K, `nil` elsewhere (not public).
    public static func firstBlock(ofArea area: Int, blockCount: Int?) -> Int? {
        if area == 1 { return 0 }
        return blockCount == boundaryKnownBlockCount ? area2FirstBlock : nil
    }

    /// What the area attributes and LOCK_CFG say, in words (total: every byte has a text). Block
    /// ranges are named only for a chip of ``boundaryKnownBlockCount`` blocks (`blockCount`).
    public static func summary(area1: UInt8, area2: UInt8, lockConfiguration: UInt8, blockCount: Int? = boundaryKnownBlockCount) -> String {
        let lock = lockConfiguration & 0x01 != 0 ? "configuration locked for good" : "configuration writable with password 3"
        let area1Text = ST25TVAreaSecurity(area1).text(password: 1)
        if area1 & singleAreaBit != 0 {
            return "area 1 attribute \(hexByte(area1)): one area (64-bit password 1), \(area1Text); \(lock)"
        }
        let ranges = blockCount == boundaryKnownBlockCount
            ? (" (blocks 0–\(area2FirstBlock - 1))", " (blocks \(area2FirstBlock) on)")
            : ("", " (where it begins on this chip is not public)")
        return "area 1 attribute \(hexByte(area1)): two areas; area 1\(ranges.0): \(area1Text); area 2\(ranges.1): "
            + "\(ST25TVAreaSecurity(area2).text(password: 2)); \(lock)"
    }
}

/// Bits 1–0 of an ST25TV02K area attribute (ST25 SDK `ST25TVRegisterArea1SecurityAttribute` and
/// `…Area2SecurityAttribute`; ST's st25tags library `ST25TAG_DVPWM_AccessProtection_t` for the
/// ST25DV-PWM, which shares the register model): `00` open, `01` writes need the area's
/// password, `10` reads and writes need it, `11` reads need it and writes are refused. Area 1
/// takes all four (the SDK accepts every value for it).
public struct ST25TVAreaSecurity: Sendable, Hashable {
    /// Bits 1–0 of the register.
    public let protection: UInt8

    /// `00`: readable and writable.
    public static let open: UInt8 = 0
    /// `01`: readable; writes need the area's password.
    public static let writeProtected: UInt8 = 1
    /// `10`: reads and writes need the area's password.
    public static let readWriteProtected: UInt8 = 2
    /// `11`: reads need the area's password; never writable.
    public static let readProtectedWriteNever: UInt8 = 3

    /// From a register byte (its bits 1–0).
    public init(_ register: UInt8) { protection = register & ST25TVRegister.protectionMask }

    /// Whether writes need the password (or are refused).
    public var protectsWrites: Bool { protection != Self.open }
    /// Whether reads need the password.
    public var protectsReads: Bool { protection >= Self.readWriteProtected }
    /// Whether writes are refused even with the password.
    public var refusesWrites: Bool { protection == Self.readProtectedWriteNever }

    /// In words, with the area's password `number`.
    public func text(password number: Int) -> String {
        switch protection {
        case Self.open: "open"
        case Self.writeProtected: "write needs password \(number)"
        case Self.readWriteProtected: "read and write need password \(number)"
        default: "read needs password \(number), never writable"
        }
    }
}

/// A 32-bit ST25TV02K password (DS12074: kill, area and configuration passwords).
public struct ST25TVPassword: Sendable, Hashable {
    /// The 4 bytes, clear.
    public let bytes: [UInt8]

    /// The factory value assumed here, 4 zero bytes (the ST25 SDK's tests present zeros).
    public static let factoryDefault = ST25TVPassword(validated: [0, 0, 0, 0])

    private init(validated: [UInt8]) { bytes = validated }

    /// From 4 bytes; nil for another length.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 else { return nil }
        self.init(validated: bytes)
    }

    /// The bytes as PRESENT PASSWORD carries them: each pair XOR the chip's 2-byte random
    /// number (ST25 SDK `TagHelper.xorBetweenPwdAndRandomNbr`). Nil for a random number that is
    /// not 2 bytes.
    public func covered(by random: [UInt8]) -> [UInt8]? {
        guard random.count == 2 else { return nil }
        return bytes.enumerated().map { $0.element ^ random[$0.offset % 2] }
    }
}

/// The password of an ST25TV02K user area: 4 bytes with two areas (password 1 or 2), 8 with one
/// area (password 1 is then 64 bits: PRESENT PASSWORD 1 carries all 8, covered as the 4 are;
/// WRITE PASSWORD 1 takes bytes 0–3 and WRITE PASSWORD 2 bytes 4–7 — ST25 SDK
/// `ST25TVTag.writePassword` and `TagHelper.xorBetweenPwdAndRandomNbr`; ST's st25tags library
/// presents 8 bytes for its single-area session). The configuration password (3) is always 4
/// bytes: `protect` makes it the first 4 bytes of the area password (``configuration``).
public struct ST25TVAreaPassword: Sendable, Hashable {
    /// The 4 or 8 bytes, clear.
    public let bytes: [UInt8]

    /// From 4 or 8 bytes; nil for another length.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 8 else { return nil }
        self.bytes = bytes
    }

    /// From 8 or 16 hex digits.
    /// - Throws: ``NFCTagError`` `invalidParameter` for anything else (the digits are not repeated).
    public init(hex: String) throws(NFCTagError) {
        let digits = String(hex.filter { !$0.isWhitespace })
        guard digits.allSatisfy(\.isHexDigit), let decoded = try? Hex.decode(digits), let password = ST25TVAreaPassword(bytes: decoded) else {
            throw NFCTagError(.invalidParameter, "an ST25TV02K area password is 8 hex digits (two areas) or 16 (one area)")
        }
        self = password
    }

    /// The factory zeros (assumed, as the ST25 SDK's tests present them), 8 bytes when
    /// `sixtyFourBit`, else 4.
    public static func factoryDefault(sixtyFourBit: Bool) -> ST25TVAreaPassword {
        ST25TVAreaPassword(validated: [UInt8](repeating: 0, count: sixtyFourBit ? 8 : 4))
    }

    private init(validated: [UInt8]) { bytes = validated }

    /// Whether it is a single-area (64-bit) password.
    public var isSixtyFourBit: Bool { bytes.count == 8 }

    /// The 32-bit configuration password that goes with it: its first 4 bytes.
    public var configuration: ST25TVPassword {
        ST25TVPassword(bytes: Array(bytes.prefix(4))) ?? .factoryDefault
    }

    /// The bytes PRESENT PASSWORD carries: each pair XOR the 2-byte random number (R0 R1 R0 R1
    /// …). Nil for a random number that is not 2 bytes.
    public func covered(by random: [UInt8]) -> [UInt8]? {
        guard random.count == 2 else { return nil }
        return bytes.enumerated().map { $0.element ^ random[$0.offset % 2] }
    }

    /// A 64-bit password whose first half is `self`'s and second half `other`'s: what a change
    /// cut between the two WRITE PASSWORDs leaves. Nil unless both are 64 bits.
    public func firstHalf(over other: ST25TVAreaPassword) -> ST25TVAreaPassword? {
        guard isSixtyFourBit, other.isSixtyFourBit else { return nil }
        return ST25TVAreaPassword(validated: Array(bytes.prefix(4) + other.bytes.suffix(4)))
    }
}

/// What `protect` sets on an ST25TV02K: which area (1, or 2 with two areas) and whether reads
/// need the password too (area attribute bits `10`, else `01`).
public struct ST25TVProtection: Sendable, Hashable {
    /// The area, 1 or 2.
    public let area: Int
    /// Whether reads need the password too.
    public let readProtected: Bool

    /// Checks the area.
    /// - Throws: ``NFCTagError`` `invalidParameter` for an area other than 1 or 2.
    public init(area: Int = 1, readProtected: Bool = false) throws(NFCTagError) {
        guard area == 1 || area == 2 else { throw NFCTagError(.invalidParameter, "an ST25TV02K has areas 1 and 2") }
        self.area = area
        self.readProtected = readProtected
    }

    /// The attribute's bits 1–0.
    public var protection: UInt8 { readProtected ? ST25TVAreaSecurity.readWriteProtected : ST25TVAreaSecurity.writeProtected }
    /// The attribute register of the area.
    public var register: UInt8 { area == 1 ? ST25TVRegister.area1Security : ST25TVRegister.area2Security }
    /// The area's password number.
    public var passwordNumber: UInt8 { area == 1 ? ST25TVCommand.area1Password : ST25TVCommand.area2Password }
}
