import NFCCore

/// The three frames of GetVersion (`60`): the hardware and software parts (vendor, type,
/// subtype, major and minor version, storage size, protocol; 7 bytes each), then the UID (7),
/// batch number (5) and production week and year (BCD).
public struct DESFireVersion: Sendable, Hashable {
    /// One 7-byte part.
    public struct Part: Sendable, Hashable {
        /// Vendor: `04` NXP.
        public var vendor: UInt8
        /// Type: `01` DESFire.
        public var type: UInt8
        /// Subtype.
        public var subtype: UInt8
        /// Major version: hardware `00` DESFire, `01` EV1, `12` EV2, `33` EV3.
        public var major: UInt8
        /// Minor version.
        public var minor: UInt8
        /// Storage size: 2^(n/2) bytes, "more than" when bit 0 is set.
        public var storage: UInt8
        /// Protocol: `05` ISO 14443-2 and -3.
        public var protocolType: UInt8

        /// The part's 7 bytes.
        public var bytes: [UInt8] { [vendor, type, subtype, major, minor, storage, protocolType] }
        /// The storage size in bytes (2^(n/2)); nil past 2^23.
        public var storageBytes: Int? { storage >> 1 < 24 ? 1 << Int(storage >> 1) : nil }
    }

    /// The hardware part.
    public var hardware: Part
    /// The software part.
    public var software: Part
    /// The 7-byte UID.
    public var uid: [UInt8]
    /// The 5-byte batch number.
    public var batch: [UInt8]
    /// Production week (BCD).
    public var productionWeek: UInt8
    /// Production year (BCD).
    public var productionYear: UInt8

    /// The 28 bytes of the three frames, in order.
    public static let length = 28

    /// Parses the gathered frames.
    /// - Throws: ``DESFireError`` `malformed` unless there are exactly 28 bytes.
    public init(parsing bytes: [UInt8]) throws(DESFireError) {
        guard bytes.count == Self.length else {
            throw DESFireError(.malformed, "GetVersion answered \(bytes.count) bytes, not 28")
        }
        func part(_ at: Int) -> Part {
            Part(vendor: bytes[at], type: bytes[at + 1], subtype: bytes[at + 2], major: bytes[at + 3], minor: bytes[at + 4],
                 storage: bytes[at + 5], protocolType: bytes[at + 6])
        }
        hardware = part(0)
        software = part(7)
        uid = Array(bytes[14..<21])
        batch = Array(bytes[21..<26])
        productionWeek = bytes[26]
        productionYear = bytes[27]
    }

    /// The 28 bytes.
    public var encoded: [UInt8] { hardware.bytes + software.bytes + uid + batch + [productionWeek, productionYear] }

    /// `MIFARE DESFire EV1 4K`, from the hardware part (``ChipIdentification`` names it so).
    public var modelName: String {
        ChipIdentification.nxpISODEPModel(type: hardware.type, major: hardware.major, storage: hardware.storage).0
    }
}

/// The settings GetFileSettings (`F5`) answers for a standard or backup data file: file type,
/// communication settings, access rights (read, write, read-write, change: a key number or
/// `E` free, `F` never, most significant nibble first) and size.
public struct DESFireFileSettings: Sendable, Hashable {
    /// File type: `00` standard data, `01` backup.
    public var fileType: UInt8
    /// Communication settings: `00` plain, `01` MAC, `03` enciphered.
    public var communication: UInt8
    /// The access rights as one 16-bit value (sent least significant byte first).
    public var accessRights: UInt16
    /// The file size in bytes.
    public var size: Int

    /// The read access nibble.
    public var readAccess: UInt8 { UInt8(accessRights >> 12) }
    /// The write access nibble.
    public var writeAccess: UInt8 { UInt8((accessRights >> 8) & 0x0F) }
    /// The read-write access nibble.
    public var readWriteAccess: UInt8 { UInt8((accessRights >> 4) & 0x0F) }
    /// The change-access nibble.
    public var changeAccess: UInt8 { UInt8(accessRights & 0x0F) }

    /// Settings from their parts.
    public init(fileType: UInt8 = DESFire.standardDataFile, communication: UInt8, accessRights: UInt16, size: Int) {
        self.fileType = fileType
        self.communication = communication
        self.accessRights = accessRights
        self.size = size
    }

    /// Parses the 7 bytes of a data file's settings.
    /// - Throws: ``DESFireError`` `malformed` for another length or a file type other than
    ///   standard (`00`) or backup (`01`) data.
    public init(parsing bytes: [UInt8]) throws(DESFireError) {
        guard bytes.count == 7 else { throw DESFireError(.malformed, "GetFileSettings answered \(bytes.count) bytes; a data file's settings have 7") }
        guard bytes[0] <= 0x01 else { throw DESFireError(.malformed, "file type \(Hex.encode([bytes[0]], uppercase: true)) is not a data file") }
        fileType = bytes[0]
        communication = bytes[1]
        accessRights = UInt16(bytes[3]) << 8 | UInt16(bytes[2])
        size = DESFire.uint24LE(bytes[4..<7]) ?? 0
    }

    /// The 7 bytes.
    public var encoded: [UInt8] { [fileType, communication, UInt8(accessRights & 0xFF), UInt8(accessRights >> 8)] + DESFire.uint24LE(size) }
}
