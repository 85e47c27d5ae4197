public import NFCCore
import NFCCrypto

/// Where SDM mirrors sit in the NDEF file, as ChangeFileSettings states them (byte offsets
/// from the start of the file, whose first two bytes are NLEN), and the legality checks the
/// chip applies to them.
public struct SDMLayout: Sendable, Hashable {
    /// A mirrored range: where it starts and how many ASCII characters it takes.
    public struct Range: Sendable, Hashable {
        /// The first byte.
        public let offset: Int
        /// The number of bytes.
        public let length: Int
        /// One past the last byte.
        public var end: Int { offset + length }

        /// A range of `length` bytes from `offset`.
        public init(offset: Int, length: Int) {
            self.offset = offset
            self.length = length
        }
    }

    /// SDMOptions: UID mirroring.
    public let mirrorsUID: Bool
    /// SDMOptions: SDMReadCtr mirroring.
    public let mirrorsCounter: Bool
    /// PICCDataOffset, for encrypted PICC data (SDMMetaRead a key number).
    public let piccDataOffset: Int?
    /// UIDOffset, for the plain UID (SDMMetaRead `E`).
    public let uidOffset: Int?
    /// SDMReadCtrOffset, for the plain counter (SDMMetaRead `E`).
    public let counterOffset: Int?
    /// SDMMACInputOffset.
    public let macInputOffset: Int?
    /// SDMMACOffset.
    public let macOffset: Int?
    /// SDMENCOffset and SDMENCLength (ASCII characters), for SDMENCFileData.
    public let encryptedFileData: Range?
    /// The file's size.
    public let fileSize: Int

    /// Whether the PICC data is encrypted (PICCDataOffset) rather than plain.
    public var encryptsPICCData: Bool { piccDataOffset != nil }

    /// SDMOptions, ASCII encoding always.
    public var sdmOptions: UInt8 {
        (mirrorsUID ? SDMOptionBits.uidMirror : 0) | (mirrorsCounter ? SDMOptionBits.readCounterMirror : 0)
            | (encryptedFileData != nil ? SDMOptionBits.encryptedFileData : 0) | SDMOptionBits.asciiEncoding
    }

    /// A layout, checked as the chip checks ChangeFileSettings (NT4H2421Gx 10.7.1):
    ///
    /// - encrypted PICC data (`piccDataOffset`) and plain mirrors (`uidOffset`/`counterOffset`)
    ///   exclude each other; encrypted PICC data mirrors the UID, the counter or both; a plain
    ///   offset is given exactly when that mirror is on;
    /// - `macInputOffset ≤ macOffset`, both given or neither;
    /// - SDMENCFileData needs the MAC, the UID and the counter, a length that is a positive
    ///   multiple of 32, and `macInputOffset ≤ SDMENCOffset`, `SDMENCOffset + SDMENCLength ≤
    ///   macOffset`;
    /// - every mirrored range lies inside the file (and under 2²⁴), and no two overlap.
    ///
    /// - Throws: ``NTAG424Error`` `illegalLayout`, its offset the one at fault.
    public init(
        mirrorsUID: Bool, mirrorsCounter: Bool, piccDataOffset: Int? = nil, uidOffset: Int? = nil, counterOffset: Int? = nil,
        macInputOffset: Int? = nil, macOffset: Int? = nil, encryptedFileData: Range? = nil, fileSize: Int = NTAG424SDM.ndefFileSize
    ) throws(NTAG424Error) {
        func illegal(_ offset: Int?, _ reason: String) -> NTAG424Error { NTAG424Error(.illegalLayout, at: offset, reason) }
        guard fileSize > 0, fileSize <= NTAG424SDM.maximumOffset + 1 else { throw illegal(nil, "a file of \(fileSize) bytes cannot hold SDM mirrors") }
        var ranges: [(name: String, range: Range)] = []
        if let piccDataOffset {
            guard uidOffset == nil, counterOffset == nil else {
                throw illegal(piccDataOffset, "encrypted PICC data and a plain UID or counter mirror exclude each other")
            }
            guard mirrorsUID || mirrorsCounter else { throw illegal(piccDataOffset, "encrypted PICC data mirrors the UID, the counter or both") }
            ranges.append(("PICC data", Range(offset: piccDataOffset, length: NTAG424SDM.asciiLength(NTAG424SDM.encryptedPICCDataLength))))
        } else {
            guard (uidOffset != nil) == mirrorsUID else {
                throw illegal(uidOffset, mirrorsUID ? "UID mirroring needs UIDOffset" : "UIDOffset given without UID mirroring")
            }
            guard (counterOffset != nil) == mirrorsCounter else {
                throw illegal(counterOffset, mirrorsCounter ? "counter mirroring needs SDMReadCtrOffset" : "SDMReadCtrOffset given without counter mirroring")
            }
            if let uidOffset { ranges.append(("UID", Range(offset: uidOffset, length: NTAG424SDM.asciiLength(NTAG424SDM.uidLength)))) }
            if let counterOffset {
                ranges.append(("SDMReadCtr", Range(offset: counterOffset, length: NTAG424SDM.asciiLength(NTAG424SDM.counterLength))))
            }
        }
        guard (macInputOffset == nil) == (macOffset == nil) else {
            throw illegal(macInputOffset ?? macOffset, "SDMMACInputOffset and SDMMACOffset go together")
        }
        if let macInputOffset, let macOffset {
            guard macInputOffset >= 0, macInputOffset <= macOffset else {
                throw illegal(macInputOffset, "SDMMACInputOffset (\(macInputOffset)) must not be after SDMMACOffset (\(macOffset))")
            }
            ranges.append(("SDMMAC", Range(offset: macOffset, length: NTAG424SDM.asciiLength(NTAG424SDM.macLength))))
        }
        if let encrypted = encryptedFileData {
            guard let macInputOffset, let macOffset else { throw illegal(encrypted.offset, "SDMENCFileData needs the SDMMAC") }
            guard mirrorsUID, mirrorsCounter else { throw illegal(encrypted.offset, "SDMENCFileData needs the UID and SDMReadCtr mirrored") }
            let unit = NTAG424SDM.asciiLength(AES128.blockSize)
            guard encrypted.length > 0, encrypted.length % unit == 0 else {
                throw illegal(encrypted.offset, "SDMENCLength is a positive multiple of 32, got \(encrypted.length)")
            }
            guard encrypted.offset >= macInputOffset, encrypted.end <= macOffset else {
                throw illegal(encrypted.offset, "SDMENCFileData must lie between SDMMACInputOffset (\(macInputOffset)) and SDMMACOffset (\(macOffset))")
            }
            ranges.append(("SDMENCFileData", encrypted))
        }
        for (name, range) in ranges {
            guard range.offset >= 0, range.end <= fileSize, range.offset <= NTAG424SDM.maximumOffset else {
                throw illegal(range.offset, "the \(name) mirror (\(range.length) bytes at \(range.offset)) does not fit the \(fileSize)-byte file")
            }
        }
        for (index, first) in ranges.enumerated() {
            for second in ranges[(index + 1)...] where first.range.offset < second.range.end && second.range.offset < first.range.end {
                throw illegal(second.range.offset, "the \(second.name) mirror overlaps the \(first.name) mirror")
            }
        }
        self.mirrorsUID = mirrorsUID
        self.mirrorsCounter = mirrorsCounter
        self.piccDataOffset = piccDataOffset
        self.uidOffset = uidOffset
        self.counterOffset = counterOffset
        self.macInputOffset = macInputOffset
        self.macOffset = macOffset
        self.encryptedFileData = encryptedFileData
        self.fileSize = fileSize
    }

    /// The file as a read with SDM returns it: `file` (the stored bytes) with the mirrors
    /// filled for a chip with `uid` whose SDMReadCtr is now `counter` — what the chip does
    /// (NT4H2421Gx 9.3): PICC data (encrypted with random `padding`, or plain), then
    /// SDMENCFileData (the first half of its range encrypted, written as hex over the whole
    /// range), then the SDMMAC over the bytes from SDMMACInputOffset as they now read.
    /// - Throws: ``NTAG424Error`` `invalidLength` for a file shorter than the layout or a UID that
    ///   is not 7 bytes; `invalidKey` for a key the layout needs and `keys` lacks; `crypto`.
    public func mirror(file: [UInt8], uid: Bytes, counter: UInt32, keys: SDMKeys, padding: [UInt8]) throws(NTAG424Error) -> [UInt8] {
        guard file.count >= requiredLength else {
            throw NTAG424Error(.invalidLength, "the file has \(file.count) bytes; the mirrors need \(requiredLength)")
        }
        let picc = try SDMPICCData(uid: mirrorsUID ? uid : nil, readCounter: mirrorsCounter ? counter : nil)
        var out = file
        func put(_ text: [UInt8], at offset: Int) { out.replaceSubrange(offset..<(offset + text.count), with: text) }
        if let piccDataOffset {
            put(Self.ascii(try picc.encrypted(metaReadKey: try keys.requireMetaRead(), padding: padding)), at: piccDataOffset)
        } else {
            if let uidOffset, let uid = picc.uid { put(Self.ascii(uid), at: uidOffset) }
            if let counterOffset, let counter = picc.readCounter {
                put(Self.ascii(Bytes([UInt8(counter >> 16 & 0xFF), UInt8(counter >> 8 & 0xFF), UInt8(counter & 0xFF)])), at: counterOffset)
            }
        }
        if let encrypted = encryptedFileData {
            let plain = Bytes(file[encrypted.offset..<(encrypted.offset + encrypted.length / 2)])
            put(Self.ascii(try SDMFileDataCipher.encrypt(plain, fileReadKey: try keys.requireFileRead(), picc: picc)), at: encrypted.offset)
        }
        if let macInputOffset, let macOffset {
            let mac = try SDMMAC.compute(fileReadKey: try keys.requireFileRead(), picc: picc, input: Bytes(out[macInputOffset..<macOffset]))
            put(Self.ascii(mac), at: macOffset)
        }
        return out
    }

    /// One past the last mirrored byte.
    public var requiredLength: Int {
        [piccDataOffset.map { $0 + 32 }, uidOffset.map { $0 + 14 }, counterOffset.map { $0 + 6 }, macOffset.map { $0 + 16 }, encryptedFileData?.end]
            .compactMap { $0 }.max() ?? 0
    }

    /// Upper-case hex characters, as the chip mirrors bytes.
    static func ascii(_ bytes: Bytes) -> [UInt8] { Array(Hex.encode(bytes, uppercase: true).utf8) }
}
