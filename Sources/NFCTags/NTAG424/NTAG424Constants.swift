import NFCCore
/// The protocol constants of NXP's NTAG 424 DNA (datasheet NT4H2421Gx, sections 8–11; worked
/// examples in AN12196): command codes, file numbers and identifiers, status codes, key numbers,
/// the labels of the secure-messaging derivations. The one place both the host side
/// (``NTAG424Tag``) and the virtual tag read them from.
public enum NTAG424 {
    /// The class byte of a native command wrapped in an ISO/IEC 7816-4 APDU: `90`.
    public static let wrappedClass: UInt8 = NXPNativeCommand.wrappedClass
    /// SW1 of a wrapped native answer: `91` (SW2 is the native status).
    public static let statusPrefix: UInt8 = NXPNativeCommand.statusPrefix

    /// Native command codes (the INS byte of the wrapped APDU; datasheet 10.2, "Command set").
    public enum Command {
        /// AuthenticateEV2First, part 1: `71`.
        public static let authenticateEV2First: UInt8 = 0x71
        /// AuthenticateEV2NonFirst, part 1: `77`.
        public static let authenticateEV2NonFirst: UInt8 = 0x77
        /// The additional frame of a multi-part exchange (authentication part 2, GetVersion
        /// parts 2 and 3): `AF`.
        public static let additionalFrame: UInt8 = 0xAF
        /// ChangeFileSettings: `5F` (CommMode.Full).
        public static let changeFileSettings: UInt8 = 0x5F
        /// ChangeKey: `C4` (CommMode.Full).
        public static let changeKey: UInt8 = 0xC4
        /// GetCardUID: `51` (CommMode.Full).
        public static let getCardUID: UInt8 = 0x51
        /// GetFileSettings: `F5` (CommMode.MAC).
        public static let getFileSettings: UInt8 = 0xF5
        /// GetKeyVersion: `64` (CommMode.MAC).
        public static let getKeyVersion: UInt8 = 0x64
        /// GetVersion: `60`, answered in three parts.
        public static let getVersion: UInt8 = 0x60
        /// ReadData: `AD` (the file's CommMode).
        public static let readData: UInt8 = 0xAD
        /// WriteData: `8D` (the file's CommMode).
        public static let writeData: UInt8 = 0x8D
        /// Read_Sig: `3C`.
        public static let readSignature: UInt8 = NXPNativeCommand.readSignature
    }

    /// ISO/IEC 7816-4 instructions the chip answers in class `00`.
    public enum ISOCommand {
        /// ISOSelectFile: `A4`.
        public static let select: UInt8 = Type4Command.select
        /// ISOReadBinary: `B0`.
        public static let readBinary: UInt8 = Type4Command.readBinary
        /// ISOUpdateBinary: `D6`.
        public static let updateBinary: UInt8 = Type4Command.updateBinary
        /// SELECT P1 `04`: by DF name.
        public static let selectByName: UInt8 = Type4Command.selectByNameP1
        /// SELECT P1 `00`: by file identifier.
        public static let selectByFileID: UInt8 = Type4Command.selectByFileIDP1
        /// SELECT P2 `0C`: no response data.
        public static let selectNoResponseData: UInt8 = Type4Command.selectByFileIDP2
        /// READ/UPDATE BINARY P1 bit 8: P1 bits 1–5 are a short file identifier, P2 the offset.
        public static let shortFileIDFlag: UInt8 = 0x80
    }

    /// The NDEF application's DF name (ISO/IEC 7816-4 AID; NFC Forum Type 4 Tag): `D2 76 00 00 85 01 01`.
    public static let applicationName: [UInt8] = Type4Command.ndefTagApplicationID
    /// The NDEF application's ISO file identifier, `E110`.
    public static let applicationFileID: UInt16 = 0xE110

    /// The three standard data files of the NDEF application (datasheet 8.2.2): number, ISO file
    /// identifier, size.
    public enum File: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// The capability container file: number `01`, ISO ID `E103` (the Type 4 CC's), 32 bytes.
        case capabilityContainer = 0x01
        /// The NDEF file: number `02`, ISO ID `E104`, 256 bytes.
        case ndef = 0x02
        /// The proprietary file: number `03`, ISO ID `E105`, 128 bytes.
        case proprietary = 0x03

        /// The ISO/IEC 7816-4 file identifier.
        public var isoFileID: UInt16 {
            switch self {
            case .capabilityContainer: Type4Command.capabilityContainerFileID
            case .ndef: 0xE104
            case .proprietary: 0xE105
            }
        }

        /// The file's size in bytes.
        public var size: Int {
            switch self {
            case .capabilityContainer: 32
            case .ndef: NTAG424SDM.ndefFileSize
            case .proprietary: 128
            }
        }

        /// The file with ISO identifier `id`, if any.
        public init?(isoFileID id: UInt16) {
            guard let file = Self.allCases.first(where: { $0.isoFileID == id }) else { return nil }
            self = file
        }

        /// `CC (01, E103)`, `NDEF (02, E104)`, `proprietary (03, E105)`.
        public var description: String {
            let name = [.capabilityContainer: "CC", .ndef: "NDEF", .proprietary: "proprietary"][self] ?? "?"
            return "\(name) file (\(Hex.number(rawValue, width: 2)), \(Hex.number(isoFileID)))"
        }
    }

    /// The application keys: numbers 0 (AppMasterKey) to 4, AES-128.
    public static let keyNumbers: ClosedRange<UInt8> = 0...4
    /// The AppMasterKey's number, `0`: authenticating with it allows ChangeKey.
    public static let masterKeyNumber: UInt8 = 0
    /// The key length, 16 bytes (AES-128).
    public static let keyLength = 16
    /// The UID length, 7 bytes.
    public static let uidLength = NTAG424SDM.uidLength

    /// The capability container a factory-fresh chip holds (datasheet 8.2.3.1): CCLEN `0017`,
    /// mapping 2.0, MLe `0100`, MLc `00FF`, the NDEF File Control TLV (E104, 256 bytes, read and
    /// write granted), the proprietary file's TLV (`05`, E105, 128 bytes, access `82`/`83`), then
    /// zeros to 32 bytes.
    public static let factoryCapabilityContainer: [UInt8] = [
        0x00, 0x17, 0x20, 0x01, 0x00, 0x00, 0xFF,
        0x04, 0x06, 0xE1, 0x04, 0x01, 0x00, 0x00, 0x00,
        0x05, 0x06, 0xE1, 0x05, 0x00, 0x80, 0x82, 0x83,
    ] + [UInt8](repeating: 0, count: 9)

    /// The labels and lengths of the secure-messaging derivations (datasheet 9.1.4, 9.1.7).
    public enum Label {
        /// SV1 (session encryption key) prefix, `A5 5A 00 01 00 80`.
        public static let sessionEncryptionVector: [UInt8] = [0xA5, 0x5A, 0x00, 0x01, 0x00, 0x80]
        /// SV2 (session MAC key) prefix, `5A A5 00 01 00 80`.
        public static let sessionMACVector: [UInt8] = [0x5A, 0xA5, 0x00, 0x01, 0x00, 0x80]
        /// The command IV label, `A5 5A`.
        public static let commandIV: [UInt8] = [0xA5, 0x5A]
        /// The response IV label, `5A A5`.
        public static let responseIV: [UInt8] = [0x5A, 0xA5]
        /// The first padding byte of ISO/IEC 9797-1 method 2, `80`.
        public static let paddingStart: UInt8 = 0x80
    }

    /// The PCD capabilities this tool sends in AuthenticateEV2First (LenCap 0: none), and the
    /// six zero bytes both sides report then.
    public static let capabilitiesLength = 6
}

