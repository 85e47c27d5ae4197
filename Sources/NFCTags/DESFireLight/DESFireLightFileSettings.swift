import NFCCore

/// A MIFARE DESFire Light file's settings as GetFileSettings (`F5`) answers them: file type,
/// file option (its communication mode in bits 1–0), access rights, then what the type adds —
/// a standard data file its size (3 bytes, least significant first); a value file its lower and
/// upper limits, limited credit value (4 bytes each) and limited-credit flags (1); a cyclic
/// record file its record size, maximum and current number of records (3 bytes each); a
/// Transaction MAC file its key option and key version (1 byte each). These are the EV2
/// layouts Proxmark3's `hf mfdes getfilesettings` decodes.
public struct DESFireLightFileSettings: Sendable, Hashable, CustomStringConvertible {
    /// The file type: `00` standard data, `02` value, `04` cyclic record, `05` Transaction MAC.
    public var fileType: UInt8
    /// The file option byte (bits 1–0: communication mode).
    public var fileOption: UInt8
    /// The four access conditions.
    public var accessRights: NTAG424AccessRights
    /// What the type adds after the access rights, as the chip sends it.
    public var details: [UInt8]

    /// The communication mode of the file option.
    public var commMode: EV2CommMode { EV2CommMode(fileOption: fileOption) }

    /// A standard data file's size; nil for the other types.
    public var dataFileSize: Int? {
        guard fileType == 0x00, details.count == 3 else { return nil }
        return Int(details[0]) | Int(details[1]) << 8 | Int(details[2]) << 16
    }

    /// The number of bytes the type adds.
    public static func detailsLength(fileType: UInt8) -> Int? {
        [0x00: 3, 0x02: 13, 0x04: 9, 0x05: 2][fileType]
    }

    /// Creates settings.
    public init(fileType: UInt8, fileOption: UInt8, accessRights: NTAG424AccessRights, details: [UInt8]) {
        self.fileType = fileType
        self.fileOption = fileOption
        self.accessRights = accessRights
        self.details = details
    }

    /// Parses GetFileSettings' answer; total.
    /// - Throws: ``NTAG424Error`` `malformed` with the offset: too short, an unknown file type,
    ///   a reserved access nibble, a length other than the type's.
    public init(parsing bytes: [UInt8]) throws(NTAG424Error) {
        guard bytes.count >= 4 else { throw NTAG424Error(.malformed, at: bytes.count, "file settings need at least 4 bytes, got \(bytes.count)") }
        guard let extra = Self.detailsLength(fileType: bytes[0]) else {
            throw NTAG424Error(.malformed, at: 0, "file type \(Hex.number(bytes[0], width: 2)) is none a DESFire Light has (00, 02, 04, 05)")
        }
        guard bytes.count == 4 + extra else {
            throw NTAG424Error(.malformed, at: min(bytes.count, 4 + extra), "file type \(Hex.number(bytes[0], width: 2)) settings have \(4 + extra) bytes, not \(bytes.count)")
        }
        fileType = bytes[0]
        fileOption = bytes[1]
        accessRights = try NTAG424AccessRights.parse(bytes[2..<4], offset: 2)
        details = Array(bytes[4...])
    }

    /// The bytes GetFileSettings answers.
    public var encoded: [UInt8] { [fileType, fileOption] + accessRights.bytes + details }

    /// The data ChangeFileSettings (`5F`) sends after the file number: the file option with
    /// `commMode`, and `rights`.
    public static func changeData(commMode: EV2CommMode, rights: NTAG424AccessRights) -> [UInt8] {
        [commMode.rawValue] + rights.bytes
    }

    /// `type 00, mode plain, read free, write key 0, …, 256 bytes`.
    public var description: String {
        var text = "type \(Hex.number(fileType, width: 2)), mode \(commMode), \(accessRights)"
        if let size = dataFileSize { text += ", \(size) bytes" }
        return text
    }
}
