import NFCCore

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
