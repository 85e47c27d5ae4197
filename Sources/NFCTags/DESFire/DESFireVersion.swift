import NFCCore

/// The three frames of GetVersion (`60`): the hardware and software parts (vendor, type,
/// subtype, major and minor version, storage size, protocol; 7 bytes each), then the UID (7),
/// batch number (5) and production week and year (BCD).
public struct DESFireVersion: Sendable, Hashable {
    /// One 7-byte part.
    public struct Part: Sendable, Hashable, Codable {
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
        /// The length of a part.
        public static let length = 7

        /// A part from its 7 bytes (the first frame of GetVersion is the hardware part); nil
        /// for any other length.
        public init?(bytes: [UInt8]) {
            guard bytes.count == Self.length else { return nil }
            self.init(vendor: bytes[0], type: bytes[1], subtype: bytes[2], major: bytes[3], minor: bytes[4], storage: bytes[5], protocolType: bytes[6])
        }

        /// A part from its fields.
        public init(vendor: UInt8, type: UInt8, subtype: UInt8, major: UInt8, minor: UInt8, storage: UInt8, protocolType: UInt8) {
            self.vendor = vendor
            self.type = type
            self.subtype = subtype
            self.major = major
            self.minor = minor
            self.storage = storage
            self.protocolType = protocolType
        }
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
