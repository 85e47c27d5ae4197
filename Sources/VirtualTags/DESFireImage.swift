import NFCCore
public import NFCTags

/// What a virtual DESFire keeps between runs: the PICC master key and settings, the
/// applications with their keys, and their standard data files with contents. Stored in a tag
/// file's `memory` as the bytes ``encoded`` gives, read back by a total parser
/// (``init(parsing:)``): a hostile tag file is refused, never trusted.
///
/// Layout (version 1): `44 46 01`, PICC key settings, key length and key, application count,
/// then per application: AID (3), key settings, number-of-keys byte, ISO flag and ISO file ID
/// (2, big-endian, when the flag is 1), DF name length and name, each key (length, bytes), file
/// count, then per file: number, ISO flag and ISO file ID, communication settings, access rights
/// (2, big-endian), size (3, big-endian) and contents. Version 2 (`44 46 02`) adds the PICC
/// master key's type bits (`00` DES / 2K3DES, `40` 3K3DES, `80` AES) after the PICC key settings
/// and allows 24-byte (3K3DES) keys. Version 3 (`44 46 03`) adds a version byte after every AES
/// key (ChangeKey carries it; GetKeyVersion answers it). An image is written in the lowest
/// version that holds it, and only then (a higher version header on an image a lower one holds
/// is refused), so an image has one encoding.
/// Every key's length must fit its type (``DESFireImage/key(typeBits:bytes:)``).
public struct DESFireImage: Sendable, Hashable {
    /// An application.
    public struct Application: Sendable, Hashable {
        /// The AID as sent (least significant byte first).
        public var aid: [UInt8]
        /// Key settings.
        public var keySettings: UInt8
        /// The number-of-keys byte (key type in bits 7–6, ISO flag bit 5, count in bits 3–0).
        public var keyCount: UInt8
        /// The ISO file ID, when the application has ISO file IDs.
        public var isoFileID: UInt16?
        /// The ISO DF name (empty when none).
        public var dfName: [UInt8]
        /// The keys (8 or 16 bytes DES / 2K3DES, 24 bytes 3K3DES, 16 bytes AES, as the type bits
        /// of ``keyCount`` say).
        public var keys: [[UInt8]]
        /// The standard data files, in creation order.
        public var files: [File]
        /// The AES keys' version bytes, one per key (zeros for the DES family, whose version is
        /// in the key's parity bits).
        public var keyVersions: [UInt8]

        /// An application from its parts; key versions zero unless given.
        public init(aid: [UInt8], keySettings: UInt8, keyCount: UInt8, isoFileID: UInt16?, dfName: [UInt8], keys: [[UInt8]], files: [File], keyVersions: [UInt8]? = nil) {
            self.keyVersions = keyVersions ?? [UInt8](repeating: 0, count: keys.count)
            self.aid = aid
            self.keySettings = keySettings
            self.keyCount = keyCount
            self.isoFileID = isoFileID
            self.dfName = dfName
            self.keys = keys
            self.files = files
        }
    }

    /// A standard data file.
    public struct File: Sendable, Hashable {
        /// The file number.
        public var number: UInt8
        /// The ISO file ID, when the application has them.
        public var isoFileID: UInt16?
        /// Communication settings.
        public var communication: UInt8
        /// Access rights (read, write, read-write, change from the top nibble).
        public var accessRights: UInt16
        /// The contents; its count is the file size.
        public var data: [UInt8]

        /// A file from its parts.
        public init(number: UInt8, isoFileID: UInt16?, communication: UInt8, accessRights: UInt16, data: [UInt8]) {
            self.number = number
            self.isoFileID = isoFileID
            self.communication = communication
            self.accessRights = accessRights
            self.data = data
        }
    }

    /// PICC master key settings; `0F` from the factory.
    public var piccKeySettings: UInt8
    /// The PICC master key; DES zeros from the factory.
    public var piccMasterKey: [UInt8]
    /// The PICC master key's type bits: `00` DES / 2K3DES (the factory), `40` 3K3DES, `80` AES.
    public var piccKeyTypeBits: UInt8
    /// An AES PICC master key's version byte (0 otherwise).
    public var piccKeyVersion: UInt8 = 0
    /// The applications, in creation order.
    public var applications: [Application]

    /// The image's first bytes: `DF` and version 1.
    public static let header: [UInt8] = [0x44, 0x46, 0x01]
    /// Version 2's first bytes (PICC key type, 3K3DES keys).
    public static let headerVersion2: [UInt8] = [0x44, 0x46, 0x02]
    /// Version 3's first bytes (AES key versions).
    public static let headerVersion3: [UInt8] = [0x44, 0x46, 0x03]
    /// The largest file size an image may name: 64 KiB, above any DESFire's memory.
    public static let maximumFileSize = 0x10000

    /// A factory-fresh PICC.
    public init(piccKeySettings: UInt8 = DESFire.KeySetting.factory, piccMasterKey: [UInt8] = DESFireFormatOptions.factoryPICCMasterKey, piccKeyTypeBits: UInt8 = 0, applications: [Application] = []) {
        self.piccKeySettings = piccKeySettings
        self.piccMasterKey = piccMasterKey
        self.piccKeyTypeBits = piccKeyTypeBits
        self.applications = applications
    }

    /// Why an image does not parse: the rule and the byte offset.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The offset of the byte at fault.
        public var offset: Int
        /// What is wrong.
        public var reason: String
        /// "reason at offset n".
        public var description: String { "\(reason) at offset \(offset)" }
    }

    /// Parses an image.
    /// - Throws: ``ParseError`` for a wrong header, a length past the end, a count, key
    ///   length or size out of range, a duplicate AID or file number, or trailing bytes.
    public init(parsing bytes: [UInt8]) throws(ParseError) {
        var cursor = ByteCursor(bytes)
        func fail(_ reason: String) -> ParseError { ParseError(offset: cursor.offset, reason: reason) }
        func byte(_ what: String) throws(ParseError) -> UInt8 {
            guard let value = cursor.readUInt8() else { throw fail("\(what): the image ends") }
            return value
        }
        func take(_ count: Int, _ what: String) throws(ParseError) -> [UInt8] {
            guard let value = cursor.readBytes(count) else { throw fail("\(what): \(count) bytes past the end") }
            return value.array
        }
        var version = 1
        func key(_ typeBits: UInt8) throws(ParseError) -> (bytes: [UInt8], version: UInt8) {
            let length = try byte("key length")
            let bytes = try take(Int(length), "key")
            guard Self.key(typeBits: typeBits, bytes: bytes) != nil else { throw fail("a key of \(length) bytes does not fit key type \(Hex.encode([typeBits]))") }
            let keyVersion = version == 3 && typeBits & DESFire.KeyCount.keyTypeMask == DESFire.KeyCount.aes ? try byte("AES key version") : 0
            return (bytes, keyVersion)
        }
        func isoID() throws(ParseError) -> UInt16? {
            switch try byte("ISO flag") {
            case 0: return nil
            case 1:
                let id = try take(2, "ISO file ID")
                return UInt16(id[0]) << 8 | UInt16(id[1])
            default: throw fail("the ISO flag is 0 or 1")
            }
        }
        let header = try take(3, "header")
        guard header == Self.header || header == Self.headerVersion2 || header == Self.headerVersion3 else {
            throw ParseError(offset: 0, reason: "not a DESFire image (44 46 01, 02 or 03)")
        }
        version = Int(header[2])
        piccKeySettings = try byte("PICC key settings")
        piccKeyTypeBits = header == Self.header ? 0 : try byte("PICC key type")
        (piccMasterKey, piccKeyVersion) = try key(piccKeyTypeBits)
        let count = Int(try byte("application count"))
        guard count <= DESFire.maximumApplications else { throw fail("\(count) applications; a DESFire holds at most \(DESFire.maximumApplications)") }
        applications = []
        for _ in 0..<count {
            let aid = try take(3, "AID")
            guard aid != DESFire.piccApplicationID, !applications.contains(where: { $0.aid == aid }) else { throw fail("AID 000000 or a duplicate AID") }
            let settings = try byte("key settings"), keyCount = try byte("number of keys")
            let keys = Int(keyCount & DESFire.KeyCount.countMask)
            guard (1...DESFire.maximumKeys).contains(keys) else { throw fail("\(keys) keys; an application has 1 to 14") }
            let isoFileID = try isoID()
            let nameLength = Int(try byte("DF name length"))
            guard nameLength <= DESFire.maximumDFNameLength else { throw fail("a DF name has at most 16 bytes") }
            let dfName = try take(nameLength, "DF name")
            var keyList: [[UInt8]] = [], versions: [UInt8] = []
            for _ in 0..<keys {
                let (bytes, keyVersion) = try key(keyCount & DESFire.KeyCount.keyTypeMask)
                keyList.append(bytes)
                versions.append(keyVersion)
            }
            let fileCount = Int(try byte("file count"))
            guard fileCount <= Int(DESFire.maximumFileNumber) + 1 else { throw fail("\(fileCount) files; an application has at most 32") }
            var files: [File] = []
            for _ in 0..<fileCount {
                let number = try byte("file number")
                guard number <= DESFire.maximumFileNumber, !files.contains(where: { $0.number == number }) else { throw fail("file number past 1F or a duplicate") }
                let fileISO = try isoID()
                let communication = try byte("communication settings")
                let rights = try take(2, "access rights")
                let sizeBytes = try take(3, "file size")
                let size = Int(sizeBytes[0]) << 16 | Int(sizeBytes[1]) << 8 | Int(sizeBytes[2])
                guard size > 0, size <= Self.maximumFileSize else { throw fail("a file size of \(size); 1 to \(Self.maximumFileSize)") }
                let contents = try take(size, "file contents")
                files.append(File(number: number, isoFileID: fileISO, communication: communication, accessRights: UInt16(rights[0]) << 8 | UInt16(rights[1]), data: contents))
            }
            applications.append(Application(aid: aid, keySettings: settings, keyCount: keyCount, isoFileID: isoFileID, dfName: dfName, keys: keyList, files: files, keyVersions: versions))
        }
        guard cursor.isAtEnd else { throw fail("\(cursor.remaining) bytes after the image") }
        guard version == encodingVersion else {
            throw ParseError(offset: 2, reason: "a version \(version) image that version \(encodingVersion) holds: an image is written in the lowest version holding it")
        }
    }

    /// Whether version 1 holds the image: a DES-family PICC key, no 3K3DES application.
    public var isVersion1: Bool {
        piccKeyTypeBits == 0 && !applications.contains { $0.keyCount & DESFire.KeyCount.keyTypeMask == 0x40 }
    }

    /// The lowest version holding the image: 3 when an AES key has a version, else 1 or 2.
    public var encodingVersion: Int {
        let aes = DESFire.KeyCount.aes
        if (piccKeyTypeBits == aes && piccKeyVersion != 0)
            || applications.contains(where: { $0.keyCount & DESFire.KeyCount.keyTypeMask == aes && $0.keyVersions.contains { $0 != 0 } }) {
            return 3
        }
        return isVersion1 ? 1 : 2
    }

    /// The image's bytes.
    public var encoded: [UInt8] {
        func iso(_ id: UInt16?) -> [UInt8] { id.map { [1, UInt8($0 >> 8), UInt8($0 & 0xFF)] } ?? [0] }
        let version = encodingVersion
        func aesVersion(_ typeBits: UInt8, _ keyVersion: UInt8) -> [UInt8] {
            version == 3 && typeBits & DESFire.KeyCount.keyTypeMask == DESFire.KeyCount.aes ? [keyVersion] : []
        }
        var out = version == 1 ? Self.header + [piccKeySettings] : [0x44, 0x46, UInt8(version), piccKeySettings, piccKeyTypeBits]
        out += [UInt8(piccMasterKey.count)] + piccMasterKey + aesVersion(piccKeyTypeBits, piccKeyVersion) + [UInt8(applications.count)]
        for application in applications {
            out += application.aid + [application.keySettings, application.keyCount] + iso(application.isoFileID)
            out += [UInt8(application.dfName.count)] + application.dfName
            for (index, key) in application.keys.enumerated() {
                out += [UInt8(key.count)] + key + aesVersion(application.keyCount, index < application.keyVersions.count ? application.keyVersions[index] : 0)
            }
            out += [UInt8(application.files.count)]
            for file in application.files {
                let size = file.data.count
                out += [file.number] + iso(file.isoFileID) + [file.communication, UInt8(file.accessRights >> 8), UInt8(file.accessRights & 0xFF)]
                out += [UInt8((size >> 16) & 0xFF), UInt8((size >> 8) & 0xFF), UInt8(size & 0xFF)] + file.data
            }
        }
        return out
    }

    /// A stored key as typed: type bits `00` take 8 bytes (DES), 16 with equal halves (DES) or
    /// 16 (2K3DES); `40` 24 bytes (3K3DES); `80` 16 bytes (AES). Nil for anything else.
    public static func key(typeBits: UInt8, bytes: [UInt8]) -> DESFireKey? {
        switch typeBits & DESFire.KeyCount.keyTypeMask {
        case 0x00:
            if bytes.count == 8 || (bytes.count == 16 && bytes[0..<8] == bytes[8..<16]) { return try? DESFireKey(.des, bytes) }
            return try? DESFireKey(.tripleDES2K, bytes)
        case 0x40: return try? DESFireKey(.tripleDES3K, bytes)
        case 0x80: return try? DESFireKey(.aes, bytes)
        default: return nil
        }
    }

    /// The PICC master key as typed (nil only for an image built by hand with a mismatch).
    public var piccKey: DESFireKey? { Self.key(typeBits: piccKeyTypeBits, bytes: piccMasterKey) }
}
