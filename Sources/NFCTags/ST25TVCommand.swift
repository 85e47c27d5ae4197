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
    /// `00` area 1 security attribute (its bits are not described in the sources found; shown raw).
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

    /// What the area 2 attribute and LOCK_CFG say, in words (total: every byte has a text).
    public static func summary(area1: UInt8, area2: UInt8, lockConfiguration: UInt8) -> String {
        let area2Text: String
        switch area2 & 0x03 {
        case 0: area2Text = "open"
        case 1: area2Text = "write needs password 2"
        case 2: area2Text = "read and write need password 2"
        default: area2Text = "read needs password 2, never writable"
        }
        let lock = lockConfiguration & 0x01 != 0 ? "configuration locked for good" : "configuration writable with password 3"
        return "area 1 attribute \(hexByte(area1)) (layout not public); area 2 (with two areas): \(area2Text); \(lock)"
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
