import NFCCore

/// STMicroelectronics ISO 15693 custom commands (ST25DV, ST25TV), framed with ST's manufacturer
/// code `02` (``manufacturerCode``) before the UID: flags, code, `02`, [UID], parameters.
///
/// Codes and frames: the ST25DV04K/16K/64K data sheet (DS10925, "RF commands": Read
/// Configuration, Write Configuration, Write Password, Present Password); the same codes and
/// parameter layouts (pointer and value; password number and 8 password bytes) in ST's RFAL
/// (`rfal_nfcv.h` `RFAL_NFCV_CMD_*`, `rfal_st25xv.c` `rfalST25xVPoller*`) as a second source.
public enum ST25Command {
    /// ST's IC manufacturer code (`02`, ISO/IEC 7816-6), which its custom commands carry.
    public static let manufacturerCode: UInt8 = 0x02
    /// READ CONFIGURATION `A0`: a register pointer; answered by the register's value.
    public static let readConfiguration: UInt8 = 0xA0
    /// WRITE CONFIGURATION `A1`: a register pointer and its new value; needs the RF
    /// configuration security session (password 0 presented).
    public static let writeConfiguration: UInt8 = 0xA1
    /// WRITE PASSWORD `B1`: password number and the 8 new bytes; needs that password's session.
    public static let writePassword: UInt8 = 0xB1
    /// PRESENT PASSWORD `B3`: password number and 8 bytes; opens that password's security
    /// session until the field goes.
    public static let presentPassword: UInt8 = 0xB3
    /// Error code `15` (reserved in ISO/IEC 15693-3 Table 7): DS10925's response error code
    /// table gives it to a read of a block that is read-protected (its area's password not
    /// presented). Assumed the same on the ST25TV02K (DS12074 shares the table); a write to a
    /// password-protected area is answered `12` as to a locked block.
    public static let blockReadProtected: UInt8 = 0x15

    /// The commands that change the chip (what `--plan` holds back).
    public static let writeClass: Set<UInt8> = [writeConfiguration, writePassword]

    /// The command's name as the data sheet writes it.
    public static func name(_ code: UInt8) -> String {
        switch code {
        case readConfiguration: "READ CONFIGURATION"
        case writeConfiguration: "WRITE CONFIGURATION"
        case writePassword: "WRITE PASSWORD"
        case presentPassword: "PRESENT PASSWORD"
        default: "ST custom command \(hexByte(code))"
        }
    }
}

/// ST25DV RF configuration registers reached with READ/WRITE CONFIGURATION: their pointers are
/// the system configuration addresses (DS10925 "System configuration memory map"; ST's
/// `st25dv_reg.h` `ST25DV_RFA1SS_REG` … as a second source).
public enum ST25DVRegister {
    /// RFA1SS `04`: area 1 RF security.
    public static let rfa1ss: UInt8 = 0x04
    /// ENDA1 `05`: the end of area 1.
    public static let enda1: UInt8 = 0x05
    /// RFA2SS `06`.
    public static let rfa2ss: UInt8 = 0x06
    /// ENDA2 `07`.
    public static let enda2: UInt8 = 0x07
    /// RFA3SS `08`.
    public static let rfa3ss: UInt8 = 0x08
    /// ENDA3 `09`.
    public static let enda3: UInt8 = 0x09
    /// RFA4SS `0A`.
    public static let rfa4ss: UInt8 = 0x0A
    /// The RFAxSS pointer of area 1…4.
    public static func areaSecurity(_ area: Int) -> UInt8? {
        [rfa1ss, rfa2ss, rfa3ss, rfa4ss].indices.contains(area - 1) ? [rfa1ss, rfa2ss, rfa3ss, rfa4ss][area - 1] : nil
    }
    /// Bytes per ENDA unit: area x ends at byte 32 × ENDAx + 31 (8 blocks of 4 bytes per unit).
    public static let endUnit = 32
}

/// An ST25DV area's RF security status byte (RFAxSS): bits 1–0 which password protects it
/// (0 none, 1–3 RF_PWD_1…3), bits 3–2 the protection (ST's `st25dv_reg.h` masks
/// `PWDCTRL 03`, `RWPROT 0C`; DS10925 "RFAxSS").
public struct ST25AreaSecurity: Sendable, Hashable {
    /// `00`: read and write always allowed.
    public static let open: UInt8 = 0
    /// `01`: read always, write with the area's password presented.
    public static let writeProtected: UInt8 = 1
    /// `10`: read and write with the password presented (area 1: read always).
    public static let readWriteProtected: UInt8 = 2
    /// `11`: read with the password (area 1: always), write never.
    public static let readProtectedWriteForbidden: UInt8 = 3

    /// The password number (0 none, 1–3).
    public var password: UInt8
    /// The protection, 0–3.
    public var protection: UInt8

    /// From the register's byte (bits 7–4 are ignored).
    public init(register: UInt8) {
        password = register & 0x03
        protection = (register >> 2) & 0x03
    }

    /// From its fields (each cut to 2 bits).
    public init(password: UInt8, protection: UInt8) {
        self.password = password & 0x03
        self.protection = protection & 0x03
    }

    /// The register's byte.
    public var register: UInt8 { protection << 2 | password }

    /// Whether writing needs the password (or is never allowed).
    public var protectsWrites: Bool { protection != Self.open }
    /// Whether reading needs the password, for area `area` (area 1 is always readable).
    public func protectsReads(area: Int) -> Bool {
        area != 1 && (protection == Self.readWriteProtected || protection == Self.readProtectedWriteForbidden)
    }
}

/// An ST25DV 64-bit RF password (DS10925 "RF_PWD_0" … "RF_PWD_3"; factory value all zeros).
public struct ST25Password: Sendable, Hashable {
    /// The 8 bytes, as sent after the password number.
    public let bytes: [UInt8]

    /// The factory value, 8 zero bytes.
    public static let factoryDefault = ST25Password(validated: [UInt8](repeating: 0, count: 8))

    private init(validated: [UInt8]) { bytes = validated }

    /// From 16 hex digits (white space ignored).
    /// - Throws: ``NFCTagError`` `invalidParameter` for anything else (the text is not repeated).
    public init(hex text: String) throws(NFCTagError) {
        let digits = String(text.filter { !$0.isWhitespace })
        guard digits.count == 16, digits.allSatisfy(\.isHexDigit), let bytes = try? Hex.decode(digits), bytes.count == 8 else {
            throw NFCTagError(.invalidParameter, "an ST25DV password is 16 hex digits (64 bits)")
        }
        self.init(validated: bytes)
    }

    /// From 8 bytes; nil for another length.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 8 else { return nil }
        self.init(validated: bytes)
    }
}

/// Which ST25DV area to protect and how (``ISO15693Tag/st25Protect(_:password:current:)``).
public struct ST25AreaProtection: Sendable, Hashable {
    /// The area, 1–4.
    public let area: Int
    /// The RF password (1–3) that guards it.
    public let passwordNumber: UInt8
    /// Whether reading needs the password too (areas 2–4; area 1 is always readable).
    public let readProtected: Bool
    /// Where the area begins (areas 2–4, a multiple of 8 blocks): ENDA of the area before it
    /// moves; nil leaves the bounds as they are.
    public let firstBlock: Int?

    /// Area 1 write-protected with password 1 (the memory as delivered).
    public init() {
        area = 1
        passwordNumber = 1
        readProtected = false
        firstBlock = nil
    }

    /// - Parameters:
    ///   - passwordNumber: nil for the area's own number (3 for area 4).
    /// - Throws: ``NFCTagError`` `invalidParameter` for an area outside 1–4, a password outside
    ///   1–3, read protection or a first block on area 1, or a first block that is not a
    ///   positive multiple of 8.
    public init(area: Int, passwordNumber: UInt8? = nil, readProtected: Bool = false, firstBlock: Int? = nil) throws(NFCTagError) {
        guard (1...4).contains(area) else { throw NFCTagError(.invalidParameter, "an ST25DV has areas 1–4") }
        let number = passwordNumber ?? UInt8(min(area, 3))
        guard (1...3).contains(number) else { throw NFCTagError(.invalidParameter, "an ST25DV area takes RF password 1, 2 or 3") }
        if area == 1 && readProtected { throw NFCTagError(.invalidParameter, "area 1 of an ST25DV is always readable") }
        if area == 1 && firstBlock != nil { throw NFCTagError(.invalidParameter, "area 1 always begins at block 0") }
        if let firstBlock, firstBlock <= 0 || firstBlock % (ST25DVRegister.endUnit / 4) != 0 {
            throw NFCTagError(.invalidParameter, "an ST25DV area begins at a multiple of 8 blocks (units of 32 bytes)")
        }
        self.area = area
        self.passwordNumber = number
        self.readProtected = readProtected
        self.firstBlock = firstBlock
    }

    /// The RFAxSS value: the password, write-protected or read-and-write-protected.
    public var security: ST25AreaSecurity {
        ST25AreaSecurity(password: passwordNumber, protection: readProtected ? ST25AreaSecurity.readWriteProtected : ST25AreaSecurity.writeProtected)
    }
}
