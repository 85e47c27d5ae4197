import NFCCore

/// The protocol constants of NXP's MIFARE DESFire Light (MF2DL(H)x0, product data sheet Rev. 3.3;
/// AN12343 "MIFARE DESFire Light features and hints"): one application DF with a fixed set of six
/// files, AES keys only and EV2 secure messaging, the same command codes as NTAG 424 DNA
/// (``NTAG424/Command``). The one place the host side (``DESFireLightNDEFTag``) and the virtual
/// chip read them from.
///
/// Where the values come from (docs/tags.md says the same): the file set and sizes from the data
/// sheet's general description and Proxmark3's `doc/desfire.md`; GetVersion type `08`, major `30`
/// from Proxmark3's `cmdhfmfdes.c`; the factory DF name, `DF01`, and the file numbers used for
/// NDEF (`00` CC, `04` NDEF) from public open-source readers (M5Stack's NFC library) that rename
/// them with SetConfiguration as AN12343 describes.
public enum DESFireLight {
    /// The model name identification gives.
    public static let modelName = "MIFARE DESFire Light"
    /// GetVersion hardware type: `08` (DESFire Light; `01` is DESFire, `04` NTAG DNA).
    public static let hardwareType: UInt8 = 0x08
    /// GetVersion hardware major version: `30`.
    public static let majorVersion: UInt8 = 0x30
    /// GetVersion storage size byte the virtual chip reports: `13` (between 512 and 1024 bytes:
    /// the Light has 640 bytes of file memory). Derived from the memory size, not read from a
    /// table in a public document.
    public static let storageSize: UInt8 = 0x13

    /// The application DF's name as delivered (ISO/IEC 7816-4 AID, 16 bytes):
    /// `A0 00 00 03 96 56 43 41 03 F0 15 40 00 00 00 0B`.
    public static let factoryDFName: [UInt8] = [0xA0, 0x00, 0x00, 0x03, 0x96, 0x56, 0x43, 0x41, 0x03, 0xF0, 0x15, 0x40, 0x00, 0x00, 0x00, 0x0B]
    /// The application DF's ISO file identifier as delivered: `DF01`.
    public static let factoryDFFileID: UInt16 = 0xDF01
    /// The master file's identifier, `3F00` (PICC level).
    public static let masterFileID: UInt16 = 0x3F00
    /// The DF name of a Light renamed for NFC Forum Type 4: the NDEF Tag Application's.
    public static let ndefDFName: [UInt8] = Type4Command.ndefTagApplicationID
    /// The DF's ISO file identifier after the renaming for Type 4: `E110`.
    public static let ndefDFFileID: UInt16 = 0xE110

    /// The application keys: numbers 0 (application master key) to 4, AES-128, all zero from the
    /// factory.
    public static let keyNumbers: ClosedRange<UInt8> = 0...4
    /// The key length, 16 bytes.
    public static let keyLength = 16
    /// The UID length, 7 bytes.
    public static let uidLength = 7

    /// The six files of the application (fixed; only the Transaction MAC file can be deleted and
    /// created again).
    public enum File: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// Standard data file `00`, 256 bytes (the CC file once renamed for Type 4).
        case data00 = 0x00
        /// Cyclic record file `01`, 16-byte records (5 allocated, 4 usable).
        case cyclicRecord = 0x01
        /// Value file `03`.
        case value = 0x03
        /// Standard data file `04`, 256 bytes (the NDEF file once renamed for Type 4).
        case data04 = 0x04
        /// Transaction MAC file `0F`.
        case transactionMAC = 0x0F
        /// Standard data file `1F`, 32 bytes: its contents are the FCI a SELECT of the DF returns.
        case fci = 0x1F

        /// The DESFire file type (GetFileSettings' first byte): `00` standard data, `02` value,
        /// `04` cyclic record, `05` Transaction MAC.
        public var fileType: UInt8 {
            switch self {
            case .data00, .data04, .fci: 0x00
            case .value: 0x02
            case .cyclicRecord: 0x04
            case .transactionMAC: 0x05
            }
        }

        /// The size of a standard data file's contents; nil for the other types.
        public var dataSize: Int? {
            switch self {
            case .data00, .data04: 256
            case .fci: 32
            default: nil
            }
        }

        /// The ISO file identifier as delivered (`EF` ‖ file number) of the files ISO commands
        /// reach (standard data and record files); nil for the value and Transaction MAC files.
        public var factoryISOFileID: UInt16? {
            switch self {
            case .value, .transactionMAC: nil
            default: 0xEF00 | UInt16(rawValue)
            }
        }

        /// `standard data file 04`.
        public var description: String {
            let kind = [0x00: "standard data file", 0x02: "value file", 0x04: "cyclic record file", 0x05: "Transaction MAC file"][fileType] ?? "file"
            return "\(kind) \(Hex.number(rawValue, width: 2))"
        }
    }

    /// The Type 4 mapping of a renamed Light: CC in file `00` (ISO `E103`), NDEF in file `04`
    /// (ISO `E104`).
    public enum TypeFour {
        /// The CC file's number.
        public static let capabilityContainerFile = File.data00
        /// The NDEF file's number.
        public static let ndefFile = File.data04
        /// The NDEF file's ISO identifier, `E104`.
        public static let ndefFileID: UInt16 = 0xE104
        /// The CC this tool writes: CCLEN 15, mapping 2.0, MLe `00FF`, MLc `00FF`, and the NDEF
        /// File Control TLV (E104, 256 bytes, read and write granted).
        public static let capabilityContainer: [UInt8] = [
            0x00, 0x0F, 0x20, 0x00, 0xFF, 0x00, 0xFF,
            0x04, 0x06, 0xE1, 0x04, 0x01, 0x00, 0x00, 0x00,
        ]
        /// The CC's NDEF write access byte's offset, 14.
        public static let writeAccessOffset = 14
        /// The NDEF file's access rights once locked: read free, write, read-write and change never
        /// (`FF EF` as sent).
        public static let lockedAccessRights = NTAG424AccessRights(read: .free, write: .never, readWrite: .never, change: .never)
    }

    /// Native commands the Light does not have (AN12343 / Proxmark3: no native application
    /// selection, no application or data file creation, no FormatPICC, no legacy or EV1
    /// authentication): SelectApplication `5A`, GetApplicationIDs `6A`, CreateApplication `CA`,
    /// CreateStdDataFile `CD`, FormatPICC `FC`, Authenticate `0A`, AuthenticateISO `1A`,
    /// AuthenticateAES `AA`. The virtual chip answers them ILLEGAL_COMMAND.
    public static let absentCommands: Set<UInt8> = [0x5A, 0x6A, 0xCA, 0xCD, 0xFC, 0x0A, 0x1A, 0xAA]
    /// GetFileIDs `6F`.
    public static let getFileIDs: UInt8 = 0x6F
    /// GetISOFileIDs `61`.
    public static let getISOFileIDs: UInt8 = 0x61
}
