/// MIFARE DESFire protocol constants: the native command codes and status bytes of the EV1
/// command set as libfreefare, nfcpy and Proxmark3 document it publicly, and the NFC Forum Type 4
/// mapping of NXP AN11004 ("MIFARE DESFire as Type 4 Tag"). The one home of these numbers: the
/// host side (``DESFireTag``) and the virtual chip use them.
public enum DESFire {
    /// The class byte of a native command wrapped in ISO/IEC 7816-4: `90`, P1 P2 `00 00`, the
    /// command code as INS, the parameters as data, Le `00`; the answer ends `91 status`.
    public static let wrappedClass: UInt8 = 0x90
    /// SW1 of a wrapped native answer: `91`, SW2 carrying the native status.
    public static let statusPrefix: UInt8 = 0x91
    /// The most data one answer frame carries before `AF` (more frames) is sent: 59 bytes.
    public static let maximumFrameData = 59
    /// The most data one command frame of WriteData carries here: 52 bytes (libfreefare's and
    /// AN11004's MLc of 34h fit in it).
    public static let maximumCommandFrameData = 52
    /// The PICC level, application ID `00 00 00`.
    public static let piccApplicationID: [UInt8] = [0x00, 0x00, 0x00]
    /// Application IDs are 3 bytes, least significant byte first.
    public static let applicationIDLength = 3
    /// The longest ISO DF name CreateApplication takes: 16 bytes.
    public static let maximumDFNameLength = 16
    /// The highest file number of a standard data file on EV1: `1F`.
    public static let maximumFileNumber: UInt8 = 0x1F
    /// The most applications an EV1 PICC holds: 28.
    public static let maximumApplications = 28
    /// The most keys an application holds: 14.
    public static let maximumKeys = 14

    /// Native command codes (the INS byte of the wrapped form).
    public enum Command {
        /// GetVersion (`60`): hardware, software and production data in three frames.
        public static let getVersion: UInt8 = 0x60
        /// More frames follow / send the next frame (`AF`).
        public static let additionalFrame: UInt8 = 0xAF
        /// GetApplicationIDs (`6A`).
        public static let getApplicationIDs: UInt8 = 0x6A
        /// SelectApplication (`5A`) with a 3-byte AID.
        public static let selectApplication: UInt8 = 0x5A
        /// CreateApplication (`CA`): AID, key settings, number of keys (bit 5: ISO file IDs; bits
        /// 7–6: key type), optionally ISO FID and DF name.
        public static let createApplication: UInt8 = 0xCA
        /// DeleteApplication (`DA`).
        public static let deleteApplication: UInt8 = 0xDA
        /// CreateStdDataFile (`CD`): file number, optional ISO FID, communication settings,
        /// access rights (2), size (3).
        public static let createStdDataFile: UInt8 = 0xCD
        /// ReadData (`BD`): file number, offset (3), length (3; 0 = to the end).
        public static let readData: UInt8 = 0xBD
        /// WriteData (`3D`): file number, offset (3), length (3), data.
        public static let writeData: UInt8 = 0x3D
        /// GetFileSettings (`F5`).
        public static let getFileSettings: UInt8 = 0xF5
        /// ChangeFileSettings (`5F`): file number, then communication settings and access rights
        /// (2), enciphered unless the file's change right is free.
        public static let changeFileSettings: UInt8 = 0x5F
        /// GetFileIDs (`6F`).
        public static let getFileIDs: UInt8 = 0x6F
        /// GetKeySettings (`45`): key settings and number of keys.
        public static let getKeySettings: UInt8 = 0x45
        /// ChangeKeySettings (`54`): the new key settings, enciphered under the level's master key.
        public static let changeKeySettings: UInt8 = 0x54
        /// ChangeKey (`C4`): key number, then the enciphered cryptogram (``DESFireTag/changeKey(_:to:from:version:piccLevel:session:)``).
        public static let changeKey: UInt8 = 0xC4
        /// GetKeyVersion (`64`).
        public static let getKeyVersion: UInt8 = 0x64
        /// GetFreeMemory (`6E`, EV1): 3 bytes, least significant first.
        public static let getFreeMemory: UInt8 = 0x6E
        /// FormatPICC (`FC`): deletes every application; needs the PICC master key.
        public static let formatPICC: UInt8 = 0xFC
        /// Authenticate (`0A`): legacy DES / 2K3DES, 8-byte randoms.
        public static let authenticateLegacy: UInt8 = 0x0A
        /// AuthenticateISO (`1A`): 3DES / 3K3DES in the EV1 ISO scheme.
        public static let authenticateISO: UInt8 = 0x1A
        /// AuthenticateAES (`AA`): AES-128, 16-byte randoms.
        public static let authenticateAES: UInt8 = 0xAA
        /// AuthenticateEV2First (`71`, EV2 and later): AES-128, the three-pass scheme NTAG 424 DNA
        /// shares (``EV2Authentication``), opening EV2 secure messaging (``EV2Session``).
        public static let authenticateEV2First: UInt8 = 0x71
        /// GetCardUID (`51`, EV1 and later): the UID, enciphered; only after authenticating.
        public static let getCardUID: UInt8 = 0x51

        /// The commands a write plan lists when they go to an application it only planned
        /// (``DESFireStandIn``): those that change the card, and the authentications (their
        /// bytes are randoms under the key, listed without them), with their `AF` frames.
        public static let plannedApplicationListed: Set<UInt8> = [
            createStdDataFile, writeData, changeFileSettings, changeKey, changeKeySettings, deleteApplication, formatPICC,
            authenticateLegacy, authenticateISO, authenticateAES, authenticateEV2First,
        ]
    }

    /// Native status bytes (SW2 after `91`): the set NTAG 424 DNA shares.
    public typealias Status = NXPNativeStatus

    /// Key settings bits (GetKeySettings byte 1).
    public enum KeySetting {
        /// Bit 0: the master key can be changed.
        public static let masterKeyChangeable: UInt8 = 0x01
        /// Bit 1: PICC level: GetApplicationIDs / GetKeySettings without the master key.
        public static let freeDirectoryListing: UInt8 = 0x02
        /// Bit 2: PICC level: CreateApplication without the master key; application level:
        /// CreateFile / DeleteFile without it.
        public static let freeCreateDelete: UInt8 = 0x04
        /// Bit 3: the settings themselves can be changed.
        public static let configurationChangeable: UInt8 = 0x08
        /// The factory PICC settings `0F`: everything free and changeable.
        public static let factory: UInt8 = 0x0F
    }

    /// The number-of-keys byte of CreateApplication: bit 5 says the application and its files
    /// carry ISO file IDs; bits 7–6 the key type (`00` DES/2K3DES, `40` 3K3DES, `80` AES).
    public enum KeyCount {
        /// Bit 5: ISO file identifiers.
        public static let isoFileIDs: UInt8 = 0x20
        /// Bits 7–6 mask of the key type.
        public static let keyTypeMask: UInt8 = 0xC0
        /// Key type AES.
        public static let aes: UInt8 = 0x80
        /// Bits 3–0: the number of keys.
        public static let countMask: UInt8 = 0x0F
    }

    /// The file type byte of GetFileSettings: standard data file `00`.
    public static let standardDataFile: UInt8 = 0x00
    /// An access condition nibble meaning free access (`E`).
    public static let freeAccess: UInt8 = 0x0E
    /// An access condition nibble meaning never (`F`).
    public static let neverAccess: UInt8 = 0x0F
    /// Communication settings plain (`00`); `01` MACed, `03` enciphered.
    public static let plainCommunication: UInt8 = 0x00

    /// NXP AN11004, mapping version 2.0: how a DESFire EV1 becomes an NFC Forum Type 4 tag.
    public enum TypeFourMapping {
        /// The NDEF Tag Application's AID `00 00 01` (as sent: `01 00 00`).
        public static let applicationID: [UInt8] = [0x01, 0x00, 0x00]
        /// Its key settings `0F`.
        public static let keySettings: UInt8 = 0x0F
        /// Its number-of-keys byte `21`: ISO file IDs, one DES key.
        public static let keyCount: UInt8 = 0x21
        /// Its ISO file ID `E110`.
        public static let isoFileID: UInt16 = 0xE110
        /// The CC file: number `01`, ISO ID `E103`, access rights `E000` (read free, write,
        /// read-write and change with key 0), 15 bytes.
        public static let capabilityContainerFileNumber: UInt8 = 0x01
        /// See ``capabilityContainerFileNumber``.
        public static let capabilityContainerAccessRights: UInt16 = 0xE000
        /// See ``capabilityContainerFileNumber``.
        public static let capabilityContainerSize = 15
        /// The NDEF file: number `02`, ISO ID `E104`, access rights `EEE0` (read, write,
        /// read-write free; change with key 0).
        public static let ndefFileNumber: UInt8 = 0x02
        /// See ``ndefFileNumber``.
        public static let ndefFileID: UInt16 = 0xE104
        /// See ``ndefFileNumber``.
        public static let ndefAccessRights: UInt16 = 0xEEE0
        /// The NDEF file's access rights after `lock`: `EFFF` (read free; write, read-write and
        /// change never), so no key opens it again.
        public static let lockedNDEFAccessRights: UInt16 = 0xEFFF
        /// The offset of the NDEF file's write access byte in the CC file (the last byte of the
        /// NDEF File Control TLV): 14.
        public static let capabilityContainerWriteAccessOffset = 14
        /// CC mapping version `20`, MLe `003B`, MLc `0034`.
        public static let mappingVersion: UInt8 = 0x20
        /// See ``mappingVersion``.
        public static let maximumReadLength: UInt16 = 0x003B
        /// See ``mappingVersion``.
        public static let maximumUpdateLength: UInt16 = 0x0034
        /// The smallest NDEF file format makes: 32 bytes.
        public static let minimumNDEFFileSize = 32
        /// The largest NDEF file a 15-byte CC names and 15-bit offsets reach: 7FFFh bytes
        /// (the CC's 2-byte size; Type 4 Tag 2.0 reserves FFFF).
        public static let maximumNDEFFileSize = 0x7FFF

        /// The 15-byte CC file for an NDEF file of `ndefFileSize` bytes, free read and write.
        public static func capabilityContainer(ndefFileSize: Int) -> [UInt8] {
            let size = UInt16(clamping: ndefFileSize)
            return [0x00, UInt8(capabilityContainerSize), mappingVersion,
                    UInt8(maximumReadLength >> 8), UInt8(maximumReadLength & 0xFF),
                    UInt8(maximumUpdateLength >> 8), UInt8(maximumUpdateLength & 0xFF),
                    0x04, 0x06, UInt8(ndefFileID >> 8), UInt8(ndefFileID & 0xFF),
                    UInt8(size >> 8), UInt8(size & 0xFF), 0x00, 0x00]
        }
    }

    /// A 24-bit value least significant byte first, as DESFire sends offsets, lengths, sizes.
    public static func uint24LE(_ value: Int) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF), UInt8((value >> 16) & 0xFF)]
    }

    /// The value of 3 bytes least significant first; nil unless `bytes` has 3.
    public static func uint24LE(_ bytes: some Collection<UInt8>) -> Int? {
        guard bytes.count == 3 else { return nil }
        return bytes.reversed().reduce(0) { $0 << 8 | Int($1) }
    }
}
