import NFCCore

/// One access condition of an NTAG 424 DNA file (datasheet 8.2.3.3): a key number 0–4, free
/// access (`E`), or no access (`F`); one nibble.
public enum NTAG424Access: Sendable, Hashable, CustomStringConvertible {
    /// Allowed after authenticating with this key (0–4).
    case key(UInt8)
    /// Allowed without authentication (`E`).
    case free
    /// Never allowed (`F`).
    case never

    /// Whether this condition lets a reader do it without authenticating (`E`).
    public var isFree: Bool { self == .free }

    /// The nibble: the key number, `E` or `F`.
    public var nibble: UInt8 {
        switch self {
        case .key(let number): number & 0x0F
        case .free: 0x0E
        case .never: 0x0F
        }
    }

    /// The condition a nibble encodes, or nil for the reserved `5`–`D`.
    public init?(nibble: UInt8) {
        switch nibble & 0x0F {
        case 0x0E: self = .free
        case 0x0F: self = .never
        case let n where NTAG424.keyNumbers.contains(n): self = .key(n)
        default: return nil
        }
    }

    /// `key 2`, `free`, `never`.
    public var description: String {
        switch self {
        case .key(let number): "key \(number)"
        case .free: "free"
        case .never: "never"
        }
    }

    /// Whether a session opened with `keyNumber` (nil: none) meets this condition.
    public func allows(_ keyNumber: UInt8?) -> Bool {
        switch self {
        case .free: true
        case .never: false
        case .key(let number): keyNumber == number
        }
    }
}

/// The four access conditions of a file (datasheet 8.2.3.3), sent in two bytes: `ReadWrite ‖
/// Change`, then `Read ‖ Write` (one nibble each, high nibble first).
public struct NTAG424AccessRights: Sendable, Hashable, CustomStringConvertible {
    /// Read (ReadData, ISOReadBinary).
    public var read: NTAG424Access
    /// Write (WriteData, ISOUpdateBinary).
    public var write: NTAG424Access
    /// Read and write.
    public var readWrite: NTAG424Access
    /// ChangeFileSettings.
    public var change: NTAG424Access

    /// Creates access rights.
    public init(read: NTAG424Access, write: NTAG424Access, readWrite: NTAG424Access, change: NTAG424Access) {
        self.read = read
        self.write = write
        self.readWrite = readWrite
        self.change = change
    }

    /// The two bytes.
    public var bytes: [UInt8] { [readWrite.nibble << 4 | change.nibble, read.nibble << 4 | write.nibble] }

    /// Parses the two bytes; `offset` is where they start, for the error.
    static func parse(_ bytes: ArraySlice<UInt8>, offset: Int) throws(NTAG424Error) -> NTAG424AccessRights {
        let b = Array(bytes)
        guard b.count == 2 else { throw NTAG424Error(.malformed, at: offset, "access rights need 2 bytes") }
        guard let rw = NTAG424Access(nibble: b[0] >> 4), let change = NTAG424Access(nibble: b[0]),
              let read = NTAG424Access(nibble: b[1] >> 4), let write = NTAG424Access(nibble: b[1])
        else { throw NTAG424Error(.malformed, at: offset, "access rights \(Hex.encode(b, uppercase: true)) use a reserved nibble (5–D)") }
        return NTAG424AccessRights(read: read, write: write, readWrite: rw, change: change)
    }

    /// `read free, write key 0, read-write key 0, change key 0`.
    public var description: String { "read \(read), write \(write), read-write \(readWrite), change \(change)" }
}

/// Secure Dynamic Messaging settings of a file (datasheet 9.3, 10.7.1): what the chip mirrors
/// into the file on each unauthenticated read, where, and under which keys.
public struct NTAG424SDMSettings: Sendable, Hashable {
    /// SDMOptions bit 8: mirror the UID (plain, or inside the encrypted PICC data).
    public var mirrorsUID: Bool
    /// SDMOptions bit 7: mirror SDMReadCtr.
    public var mirrorsReadCounter: Bool
    /// SDMOptions bit 6: a read counter limit is set.
    public var hasReadCounterLimit: Bool
    /// SDMOptions bit 5: part of the file is mirrored encrypted (SDMENCFileData).
    public var encryptsFileData: Bool
    /// SDMOptions bit 1: mirrors are ASCII hex (the only encoding the chip offers).
    public var asciiEncoding: Bool
    /// SDMMetaRead: `E` mirrors UID and counter in plain, a key number encrypts them as PICC
    /// data under that key, `F` mirrors none.
    public var metaRead: NTAG424Access
    /// SDMFileRead: the key the SDM session keys (and so SDMMAC) derive from; `F` no MAC.
    public var fileRead: NTAG424Access
    /// SDMCtrRet: who may read the counter with GetFileCounters.
    public var counterRetrieval: NTAG424Access
    /// UIDOffset (plain UID mirror).
    public var uidOffset: Int?
    /// SDMReadCtrOffset (plain counter mirror).
    public var readCounterOffset: Int?
    /// PICCDataOffset (the encrypted PICC data, 32 hex characters).
    public var piccDataOffset: Int?
    /// SDMMACInputOffset: where the data the SDMMAC covers starts.
    public var macInputOffset: Int?
    /// SDMENCOffset.
    public var encryptedDataOffset: Int?
    /// SDMENCLength.
    public var encryptedDataLength: Int?
    /// SDMMACOffset: where the SDMMAC (16 hex characters) is mirrored.
    public var macOffset: Int?
    /// SDMReadCtrLimit.
    public var readCounterLimit: Int?

    /// Settings with the given options and access; offsets to be set by the caller.
    public init(
        mirrorsUID: Bool = true, mirrorsReadCounter: Bool = true, hasReadCounterLimit: Bool = false, encryptsFileData: Bool = false,
        asciiEncoding: Bool = true, metaRead: NTAG424Access, fileRead: NTAG424Access, counterRetrieval: NTAG424Access = .never
    ) {
        self.mirrorsUID = mirrorsUID
        self.mirrorsReadCounter = mirrorsReadCounter
        self.hasReadCounterLimit = hasReadCounterLimit
        self.encryptsFileData = encryptsFileData
        self.asciiEncoding = asciiEncoding
        self.metaRead = metaRead
        self.fileRead = fileRead
        self.counterRetrieval = counterRetrieval
    }

    /// The SDMOptions byte.
    public var optionsByte: UInt8 {
        (mirrorsUID ? SDMOptionBits.uidMirror : 0) | (mirrorsReadCounter ? SDMOptionBits.readCounterMirror : 0)
            | (hasReadCounterLimit ? SDMOptionBits.readCounterLimit : 0) | (encryptsFileData ? SDMOptionBits.encryptedFileData : 0)
            | (asciiEncoding ? SDMOptionBits.asciiEncoding : 0)
    }

    /// The SDMAccessRights bytes: `RFU(F) ‖ SDMCtrRet`, then `SDMMetaRead ‖ SDMFileRead`.
    public var accessBytes: [UInt8] { [0xF0 | counterRetrieval.nibble, metaRead.nibble << 4 | fileRead.nibble] }

    /// Whether the PICC data is encrypted (SDMMetaRead a key number).
    public var hasEncryptedPICCData: Bool { if case .key = metaRead { true } else { false } }
    /// Whether the chip mirrors an SDMMAC (SDMFileRead is not `F`).
    public var hasMAC: Bool { fileRead != .never }

    /// Which offset fields the settings carry, in order, as the datasheet lists them.
    var fieldOrder: [WritableKeyPath<NTAG424SDMSettings, Int?>] {
        var fields: [WritableKeyPath<NTAG424SDMSettings, Int?>] = []
        if metaRead == .free {
            if mirrorsUID { fields.append(\.uidOffset) }
            if mirrorsReadCounter { fields.append(\.readCounterOffset) }
        }
        if hasEncryptedPICCData { fields.append(\.piccDataOffset) }
        if hasMAC {
            fields.append(\.macInputOffset)
            if encryptsFileData { fields += [\.encryptedDataOffset, \.encryptedDataLength] }
            fields.append(\.macOffset)
        }
        if hasReadCounterLimit { fields.append(\.readCounterLimit) }
        return fields
    }

    /// SDMOptions, SDMAccessRights and the offsets present, each 3 bytes least significant first.
    /// - Throws: ``NTAG424Error`` `invalidParameter` when an offset the options need is missing
    ///   or does not fit 3 bytes.
    public func encoded() throws(NTAG424Error) -> [UInt8] {
        var out = [optionsByte] + accessBytes
        for field in fieldOrder {
            guard let value = self[keyPath: field], (0...0xFF_FFFF).contains(value) else {
                throw NTAG424Error(.invalidParameter, "SDM settings: \(Self.name(of: field)) is missing or out of range")
            }
            out += [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF)]
        }
        return out
    }

    /// Parses SDM settings from `bytes` starting at `start`; returns them and where they end.
    static func parse(_ bytes: [UInt8], at start: Int) throws(NTAG424Error) -> (NTAG424SDMSettings, Int) {
        guard bytes.count >= start + 3 else { throw NTAG424Error(.malformed, at: bytes.count, "SDM settings need SDMOptions and SDMAccessRights (3 bytes)") }
        let options = bytes[start]
        guard options & 0x0E == 0 else { throw NTAG424Error(.malformed, at: start, "SDMOptions \(Hex.encode([options], uppercase: true)) sets reserved bits") }
        guard let ctrRet = NTAG424Access(nibble: bytes[start + 1]), let meta = NTAG424Access(nibble: bytes[start + 2] >> 4),
              let fileRead = NTAG424Access(nibble: bytes[start + 2])
        else { throw NTAG424Error(.malformed, at: start + 1, "SDMAccessRights use a reserved nibble") }
        var settings = NTAG424SDMSettings(
            mirrorsUID: options & SDMOptionBits.uidMirror != 0, mirrorsReadCounter: options & SDMOptionBits.readCounterMirror != 0,
            hasReadCounterLimit: options & SDMOptionBits.readCounterLimit != 0, encryptsFileData: options & SDMOptionBits.encryptedFileData != 0,
            asciiEncoding: options & SDMOptionBits.asciiEncoding != 0, metaRead: meta, fileRead: fileRead,
            counterRetrieval: ctrRet)
        var position = start + 3
        for field in settings.fieldOrder {
            guard bytes.count >= position + 3 else {
                throw NTAG424Error(.malformed, at: bytes.count, "SDM settings end before \(name(of: field)) (3 bytes at \(position))")
            }
            settings[keyPath: field] = Int(bytes[position]) | Int(bytes[position + 1]) << 8 | Int(bytes[position + 2]) << 16
            position += 3
        }
        return (settings, position)
    }

    static func name(of field: WritableKeyPath<NTAG424SDMSettings, Int?>) -> String {
        switch field {
        case \.uidOffset: "UIDOffset"
        case \.readCounterOffset: "SDMReadCtrOffset"
        case \.piccDataOffset: "PICCDataOffset"
        case \.macInputOffset: "SDMMACInputOffset"
        case \.encryptedDataOffset: "SDMENCOffset"
        case \.encryptedDataLength: "SDMENCLength"
        case \.macOffset: "SDMMACOffset"
        default: "SDMReadCtrLimit"
        }
    }

    /// The offsets present, by their datasheet names, in order.
    public var namedOffsets: [(name: String, value: Int)] {
        fieldOrder.compactMap { field in self[keyPath: field].map { (Self.name(of: field), $0) } }
    }
}

/// The settings of one file (datasheet 10.7.1 ChangeFileSettings, 10.7.2 GetFileSettings):
/// communication mode, access rights, size and SDM. One codec for the host's parsing and
/// encoding and the virtual chip's answers.
public struct NTAG424FileSettings: Sendable, Hashable {
    /// FileType: `00` standard data file (the only kind the chip has).
    public var fileType: UInt8
    /// The file's communication mode (FileOption bits 1–0).
    public var commMode: NTAG424CommMode
    /// The access conditions.
    public var accessRights: NTAG424AccessRights
    /// The file size in bytes.
    public var fileSize: Int
    /// SDM settings when SDM is enabled (FileOption bit 7).
    public var sdm: NTAG424SDMSettings?

    /// Creates settings.
    public init(fileType: UInt8 = 0x00, commMode: NTAG424CommMode, accessRights: NTAG424AccessRights, fileSize: Int, sdm: NTAG424SDMSettings? = nil) {
        self.fileType = fileType
        self.commMode = commMode
        self.accessRights = accessRights
        self.fileSize = fileSize
        self.sdm = sdm
    }

    /// The FileOption byte: SDM enabled (`40`) and the comm mode.
    public var fileOption: UInt8 { (sdm != nil ? 0x40 : 0x00) | commMode.rawValue }

    /// The factory settings of a file (datasheet 8.2.3): CC plain, read free, the rest key 0;
    /// NDEF plain, read/write/read-write free, change key 0; proprietary Full, read key 2, write
    /// and read-write key 3, change key 0.
    public static func factory(_ file: NTAG424.File) -> NTAG424FileSettings {
        switch file {
        case .capabilityContainer:
            NTAG424FileSettings(commMode: .plain, accessRights: .init(read: .free, write: .key(0), readWrite: .key(0), change: .key(0)), fileSize: file.size)
        case .ndef:
            NTAG424FileSettings(commMode: .plain, accessRights: .init(read: .free, write: .free, readWrite: .free, change: .key(0)), fileSize: file.size)
        case .proprietary:
            NTAG424FileSettings(commMode: .full, accessRights: .init(read: .key(2), write: .key(3), readWrite: .key(3), change: .key(0)), fileSize: file.size)
        }
    }

    /// The GetFileSettings answer: FileType, FileOption, access rights, size (3 bytes, least
    /// significant first), SDM settings.
    /// - Throws: as ``NTAG424SDMSettings/encoded()``.
    public func encoded() throws(NTAG424Error) -> [UInt8] {
        [fileType, fileOption] + accessRights.bytes + [UInt8(fileSize & 0xFF), UInt8(fileSize >> 8 & 0xFF), UInt8(fileSize >> 16 & 0xFF)]
            + (try sdm?.encoded() ?? [])
    }

    /// The data of ChangeFileSettings (after the file number): FileOption, access rights, SDM
    /// settings.
    /// - Throws: as ``NTAG424SDMSettings/encoded()``.
    public func changeData() throws(NTAG424Error) -> [UInt8] {
        [fileOption] + accessRights.bytes + (try sdm?.encoded() ?? [])
    }

    /// Parses a GetFileSettings answer; total.
    /// - Throws: ``NTAG424Error`` `malformed` with the offset at fault: short data, reserved bits
    ///   or nibbles, bytes left over.
    public init(parsing bytes: [UInt8]) throws(NTAG424Error) {
        guard bytes.count >= 7 else { throw NTAG424Error(.malformed, at: bytes.count, "file settings need at least 7 bytes, got \(bytes.count)") }
        fileType = bytes[0]
        let option = bytes[1]
        guard option & 0xBC == 0 else { throw NTAG424Error(.malformed, at: 1, "FileOption \(Hex.encode([option], uppercase: true)) sets reserved bits") }
        commMode = NTAG424CommMode(fileOption: option)
        accessRights = try NTAG424AccessRights.parse(bytes[2..<4], offset: 2)
        fileSize = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16
        var end = 7
        if option & 0x40 != 0 {
            let (settings, position) = try NTAG424SDMSettings.parse(bytes, at: 7)
            sdm = settings
            end = position
        } else {
            sdm = nil
        }
        guard end == bytes.count else { throw NTAG424Error(.malformed, at: end, "\(bytes.count - end) bytes follow the file settings") }
    }

    /// Parses ChangeFileSettings data (FileOption, access rights, SDM) into settings for a file
    /// of `fileSize` bytes; total.
    /// - Throws: ``NTAG424Error`` `malformed` with the offset in `data` at fault.
    public init(parsingChange data: [UInt8], fileType: UInt8 = 0x00, fileSize: Int) throws(NTAG424Error) {
        guard data.count >= 3 else { throw NTAG424Error(.malformed, at: data.count, "ChangeFileSettings data needs at least 3 bytes") }
        let sizeBytes = [UInt8(fileSize & 0xFF), UInt8(fileSize >> 8 & 0xFF), UInt8(fileSize >> 16 & 0xFF)]
        do {
            try self.init(parsing: [fileType] + Array(data[0..<3]) + sizeBytes + Array(data[3...]))
        } catch {
            var shifted = error
            // Map offsets of the synthesized layout back to `data`: byte 1 → 0, bytes ≥ 7 → -4.
            if let offset = error.offset { shifted.offset = offset >= 7 ? offset - 4 : max(0, offset - 1) }
            throw shifted
        }
    }
}
