public import NDEF
public import NFCCore
import NFCCrypto

// NTAG 424 DNA Secure Dynamic Messaging (SDM), the "SUN" of a tap: NT4H2421Gx datasheet 9.3
// ("Secure Dynamic Messaging") and NXP AN12196 section 4 (rev. 1.x numbering; 3 in rev. 2.0).
// Both directions: what the chip puts into the NDEF file on a read (for the virtual tag), and
// what a server checks (decrypt the PICC data, recompute the SDMMAC). AES mode only (no LRP).

/// The constants of Secure Dynamic Messaging: lengths, session-vector prefixes, option bits.
public enum NTAG424SDM {
    /// The size of the NTAG 424 DNA NDEF file (file 02) in bytes: every offset lies inside it.
    public static let ndefFileSize = 256
    /// The largest value a 3-byte SDM offset can hold.
    public static let maximumOffset = 0xFF_FFFF
    /// Bytes of the UID the chip mirrors (a 7-byte UID; a random ID is not mirrored).
    public static let uidLength = 7
    /// Bytes of SDMReadCtr (a 24-bit counter, least significant byte first in cryptograms).
    public static let counterLength = 3
    /// The largest SDMReadCtr value.
    public static let counterMaximum: UInt32 = 0xFF_FFFF
    /// Bytes of encrypted PICC data in AES mode (one block).
    public static let encryptedPICCDataLength = 16
    /// Bytes of the truncated SDMMAC.
    public static let macLength = 8
    /// SV1's fixed part (KSesSDMFileReadENC): `C3 3C 00 01 00 80`.
    public static let sessionVector1Prefix: [UInt8] = [0xC3, 0x3C, 0x00, 0x01, 0x00, 0x80]
    /// SV2's fixed part (KSesSDMFileReadMAC): `3C C3 00 01 00 80`.
    public static let sessionVector2Prefix: [UInt8] = [0x3C, 0xC3, 0x00, 0x01, 0x00, 0x80]
    /// The character a mirror's placeholder is written with before the chip replaces it: `0`.
    public static let placeholderCharacter: UInt8 = 0x30

    /// An offset or length as ChangeFileSettings carries it: 3 bytes, least significant first.
    public static func threeBytesLSBFirst(_ value: Int) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF)]
    }

    /// ASCII characters the chip writes for `byteCount` bytes (ASCII encoding mode: two
    /// upper-case hex digits per byte).
    public static func asciiLength(_ byteCount: Int) -> Int { 2 * byteCount }
}

/// SDMOptions bits (ChangeFileSettings, NT4H2421Gx table "SDMOptions").
public enum SDMOptionBits {
    /// UID mirroring.
    public static let uidMirror: UInt8 = 0x80
    /// SDMReadCtr mirroring.
    public static let readCounterMirror: UInt8 = 0x40
    /// SDMReadCtrLimit in use.
    public static let readCounterLimit: UInt8 = 0x20
    /// SDMENCFileData (part of the file encrypted).
    public static let encryptedFileData: UInt8 = 0x10
    /// ASCII encoding mode (the only mode the chip has for SDM).
    public static let asciiEncoding: UInt8 = 0x01
}

/// PICCDataTag bits: the first byte of the plaintext PICC data.
public enum PICCDataTagBits {
    /// The UID follows.
    public static let uidMirror: UInt8 = 0x80
    /// SDMReadCtr follows.
    public static let readCounterMirror: UInt8 = 0x40
    /// Bits 5–4, reserved (zero).
    public static let reserved: UInt8 = 0x30
    /// Bits 3–0: the UID's length.
    public static let uidLengthMask: UInt8 = 0x0F
}

/// Why SDM data could not be made or checked.
///
/// ``code`` is stable; ``offset`` is where in the input (the URL, the hex text, the file) the
/// fault is, when it is at one place.
public struct SDMError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// Text that should be hex is not (a non-hex character, an odd count).
        case invalidHex
        /// A value of the wrong length (PICC data, MAC, UID, counter, key).
        case invalidLength
        /// A key that is missing or not 16 bytes.
        case invalidKey
        /// Decrypted PICC data that no chip produces (reserved bits, a UID length other than
        /// 7): the wrong SDMMetaReadKey, or altered data.
        case unsupportedPICCData
        /// The SDMMAC does not match: altered data or the wrong SDMFileReadKey.
        case macMismatch
        /// A URL without a parameter verification needs.
        case missingParameter
        /// A parameter that occurs more than once.
        case duplicateParameter
        /// A `{sun:…}` placeholder that is unknown, repeated, or missing its partner.
        case invalidPlaceholder
        /// Offsets the chip would refuse (outside the file, overlapping, out of order).
        case illegalLayout
        /// The read counter is at its limit.
        case counterExhausted
        /// The message cannot be encoded (NDEF refused it).
        case invalidMessage
        /// libcrypto failed.
        case crypto
    }

    /// What went wrong.
    public let code: Code
    /// Where, when at one place: a character offset in a URL or text, a byte offset in a file.
    public let offset: Int?
    /// A sentence for people (never holds a key).
    public let reason: String

    /// Creates an error.
    public init(_ code: Code, at offset: Int? = nil, _ reason: String) {
        self.code = code
        self.offset = offset
        self.reason = reason
    }

    /// `code at offset N: reason`.
    public var description: String {
        if let offset { return "\(code.rawValue) at offset \(offset): \(reason)" }
        return "\(code.rawValue): \(reason)"
    }
}

/// The two application keys SDM uses. Never printed: ``description`` is redacted.
public struct SDMKeys: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// SDMMetaReadKey: decrypts the PICC data; nil for plain (unencrypted) mirroring.
    public let metaRead: Bytes?
    /// SDMFileReadKey: derives the session keys of the SDMMAC and SDMENCFileData.
    public let fileRead: Bytes?

    /// Keys, each 16 bytes when given.
    /// - Throws: ``SDMError`` `invalidKey` for a key that is not 16 bytes.
    public init(metaRead: Bytes?, fileRead: Bytes?) throws(SDMError) {
        for (name, key) in [("SDMMetaReadKey", metaRead), ("SDMFileReadKey", fileRead)] {
            if let key, key.count != AES128.blockSize {
                throw SDMError(.invalidKey, "\(name) has 16 bytes, got \(key.count)")
            }
        }
        self.metaRead = metaRead
        self.fileRead = fileRead
    }

    /// `SDMKeys(metaRead: <redacted>, fileRead: <redacted>)`: never the keys.
    public var description: String {
        "SDMKeys(metaRead: \(metaRead == nil ? "none" : "<redacted>"), fileRead: \(fileRead == nil ? "none" : "<redacted>"))"
    }

    /// As ``description``.
    public var debugDescription: String { description }

    /// No children: `dump` and the debugger show no key bytes.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }

    func requireMetaRead() throws(SDMError) -> Bytes {
        guard let metaRead else { throw SDMError(.invalidKey, "encrypted PICC data needs the SDMMetaReadKey") }
        return metaRead
    }

    func requireFileRead() throws(SDMError) -> Bytes {
        guard let fileRead else { throw SDMError(.invalidKey, "the SDMMAC needs the SDMFileReadKey") }
        return fileRead
    }
}

/// What the chip tells about itself in a tap: its UID and its read counter, each when mirrored.
public struct SDMPICCData: Sendable, Hashable {
    /// The 7-byte UID, when mirrored.
    public let uid: Bytes?
    /// SDMReadCtr, when mirrored.
    public let readCounter: UInt32?

    /// PICC data.
    /// - Throws: ``SDMError`` `invalidLength` for a UID that is not 7 bytes, a counter above
    ///   ``NTAG424SDM/counterMaximum``.
    public init(uid: Bytes?, readCounter: UInt32?) throws(SDMError) {
        if let uid, uid.count != NTAG424SDM.uidLength {
            throw SDMError(.invalidLength, "a mirrored UID has 7 bytes, got \(uid.count)")
        }
        if let readCounter, readCounter > NTAG424SDM.counterMaximum {
            throw SDMError(.invalidLength, "SDMReadCtr has 24 bits, got \(readCounter)")
        }
        self.uid = uid
        self.readCounter = readCounter
    }

    /// PICCDataTag: UID and counter mirror bits, and the UID's length.
    public var tag: UInt8 {
        (uid != nil ? PICCDataTagBits.uidMirror | UInt8(NTAG424SDM.uidLength) : 0)
            | (readCounter != nil ? PICCDataTagBits.readCounterMirror : 0)
    }

    /// SDMReadCtr as cryptograms hold it: 3 bytes, least significant first (empty when not
    /// mirrored).
    public var counterBytesLSBFirst: [UInt8] {
        guard let readCounter else { return [] }
        return [UInt8(readCounter & 0xFF), UInt8(readCounter >> 8 & 0xFF), UInt8(readCounter >> 16 & 0xFF)]
    }

    /// UID ‖ SDMReadCtr (LSB first), what the session vectors carry.
    var mirroredBytes: [UInt8] { (uid?.array ?? []) + counterBytesLSBFirst }

    /// The session vector `prefix ‖ UID ‖ SDMReadCtr`, zero-padded to whole blocks.
    public func sessionVector(prefix: [UInt8]) -> Bytes {
        var vector = prefix + mirroredBytes
        while vector.count % AES128.blockSize != 0 { vector.append(0) }
        return Bytes(vector)
    }

    /// The 16-byte plaintext: PICCDataTag ‖ UID ‖ SDMReadCtr ‖ `padding` (the chip's random
    /// bytes; as many as the block needs, taken from the front of `padding`).
    /// - Throws: ``SDMError`` `invalidLength` when `padding` is too short.
    public func plaintext(padding: [UInt8]) throws(SDMError) -> Bytes {
        let head = [tag] + mirroredBytes
        let needed = NTAG424SDM.encryptedPICCDataLength - head.count
        guard padding.count >= needed else {
            throw SDMError(.invalidLength, "PICC data needs \(needed) bytes of padding, got \(padding.count)")
        }
        return Bytes(head + padding.prefix(needed))
    }

    /// The encrypted PICC data: AES-128 under SDMMetaReadKey (CBC from a zero IV, one block).
    /// - Throws: ``SDMError`` `invalidKey`, `invalidLength`, `crypto`.
    public func encrypted(metaReadKey: Bytes, padding: [UInt8]) throws(SDMError) -> Bytes {
        let plain = try plaintext(padding: padding)
        return try SDMCrypto.run { () throws(CryptoError) in
            try AES128.encryptCBC(key: metaReadKey, iv: SDMCrypto.zeroBlock, plain)
        }
    }

    /// The PICC data in a decrypted block.
    /// - Throws: ``SDMError`` `invalidLength` for a block that is not 16 bytes,
    ///   `unsupportedPICCData` (offset 0) for a PICCDataTag no chip writes.
    public init(plaintext: Bytes) throws(SDMError) {
        guard plaintext.count == NTAG424SDM.encryptedPICCDataLength else {
            throw SDMError(.invalidLength, "PICC data is one 16-byte block, got \(plaintext.count) bytes")
        }
        let tag = plaintext[0]
        let uidLength = Int(tag & PICCDataTagBits.uidLengthMask)
        let mirrorsUID = tag & PICCDataTagBits.uidMirror != 0
        guard tag & PICCDataTagBits.reserved == 0, mirrorsUID ? uidLength == NTAG424SDM.uidLength : uidLength == 0 else {
            throw SDMError(
                .unsupportedPICCData, at: 0,
                "PICCDataTag \(Hex.encode([tag], uppercase: true)) is not one a chip writes (wrong SDMMetaReadKey, or altered data)")
        }
        var at = 1
        var uid: Bytes?
        if mirrorsUID {
            uid = plaintext[at..<(at + uidLength)]
            at += uidLength
        }
        var counter: UInt32?
        if tag & PICCDataTagBits.readCounterMirror != 0 {
            counter = UInt32(plaintext[at]) | UInt32(plaintext[at + 1]) << 8 | UInt32(plaintext[at + 2]) << 16
        }
        try self.init(uid: uid, readCounter: counter)
    }

    /// Decrypts encrypted PICC data under SDMMetaReadKey.
    /// - Throws: ``SDMError`` `invalidLength`, `invalidKey`, `unsupportedPICCData`, `crypto`.
    public static func decrypt(_ encrypted: Bytes, metaReadKey: Bytes) throws(SDMError) -> SDMPICCData {
        guard encrypted.count == NTAG424SDM.encryptedPICCDataLength else {
            throw SDMError(.invalidLength, "encrypted PICC data has 16 bytes, got \(encrypted.count)")
        }
        let plain = try SDMCrypto.run { () throws(CryptoError) in
            try AES128.decryptCBC(key: metaReadKey, iv: SDMCrypto.zeroBlock, encrypted)
        }
        return try SDMPICCData(plaintext: plain)
    }
}

/// The SDM session keys of one read, derived from SDMFileReadKey, the UID and the counter.
public struct SDMSessionKeys: Sendable, Hashable, CustomStringConvertible {
    /// KSesSDMFileReadENC = CMAC(SDMFileReadKey, SV1).
    public let encryption: Bytes
    /// KSesSDMFileReadMAC = CMAC(SDMFileReadKey, SV2).
    public let mac: Bytes

    /// The session keys of `picc`'s read.
    /// - Throws: ``SDMError`` `invalidKey`, `crypto`.
    public init(fileReadKey: Bytes, picc: SDMPICCData) throws(SDMError) {
        let sv1 = picc.sessionVector(prefix: NTAG424SDM.sessionVector1Prefix)
        let sv2 = picc.sessionVector(prefix: NTAG424SDM.sessionVector2Prefix)
        encryption = try SDMCrypto.run { () throws(CryptoError) in try AES128.cmac(key: fileReadKey, sv1) }
        mac = try SDMCrypto.run { () throws(CryptoError) in try AES128.cmac(key: fileReadKey, sv2) }
    }

    /// Redacted: session keys are keys.
    public var description: String { "SDMSessionKeys(<redacted>)" }
}

/// The SDMMAC: AES-CMAC under KSesSDMFileReadMAC over the file bytes from SDMMACInputOffset up
/// to SDMMACOffset (possibly none), truncated to its odd-indexed bytes (S1, S3, …, S15).
public enum SDMMAC {
    /// The full 16-byte CMAC of `input` under the session MAC key.
    /// - Throws: ``SDMError`` `invalidKey`, `crypto`.
    public static func full(sessionKey: Bytes, input: Bytes) throws(SDMError) -> Bytes {
        try SDMCrypto.run { () throws(CryptoError) in try AES128.cmac(key: sessionKey, input) }
    }

    /// The 8 odd-indexed bytes of a 16-byte CMAC (the MACt truncation of AN12196).
    public static func truncate(_ full: Bytes) -> Bytes {
        Bytes(stride(from: 1, to: full.count, by: 2).map { full[$0] })
    }

    /// The 8-byte SDMMAC of a read: session key from `fileReadKey` and `picc`, CMAC over `input`.
    /// - Throws: ``SDMError`` `invalidKey`, `crypto`.
    public static func compute(fileReadKey: Bytes, picc: SDMPICCData, input: Bytes) throws(SDMError) -> Bytes {
        let keys = try SDMSessionKeys(fileReadKey: fileReadKey, picc: picc)
        return truncate(try full(sessionKey: keys.mac, input: input))
    }

    /// Whether `mac` is the SDMMAC of the read, compared in constant time.
    /// - Throws: ``SDMError`` `invalidLength` for a MAC that is not 8 bytes; `invalidKey`, `crypto`.
    public static func verify(_ mac: Bytes, fileReadKey: Bytes, picc: SDMPICCData, input: Bytes) throws(SDMError) -> Bool {
        guard mac.count == NTAG424SDM.macLength else {
            throw SDMError(.invalidLength, "an SDMMAC has 8 bytes, got \(mac.count)")
        }
        let expected = try compute(fileReadKey: fileReadKey, picc: picc, input: input)
        var difference: UInt8 = 0
        for index in 0..<NTAG424SDM.macLength { difference |= expected[index] ^ mac[index] }
        return difference == 0
    }
}

/// SDMENCFileData: part of the file encrypted under KSesSDMFileReadENC, in CBC from
/// IVe = E(KSesSDMFileReadENC, SDMReadCtr ‖ 0¹³). Needs the UID and the counter mirrored.
public enum SDMFileDataCipher {
    /// IVe of a read.
    /// - Throws: ``SDMError`` `invalidLength` when the counter is not mirrored; `crypto`.
    public static func iv(sessionKeys: SDMSessionKeys, picc: SDMPICCData) throws(SDMError) -> Bytes {
        guard picc.readCounter != nil, picc.uid != nil else {
            throw SDMError(.invalidLength, "SDMENCFileData needs the UID and SDMReadCtr mirrored")
        }
        let block = Bytes(picc.counterBytesLSBFirst + [UInt8](repeating: 0, count: AES128.blockSize - NTAG424SDM.counterLength))
        return try SDMCrypto.run { () throws(CryptoError) in try AES128.encryptECB(key: sessionKeys.encryption, block) }
    }

    /// `plaintext` (whole blocks) encrypted as the chip does on a read.
    /// - Throws: ``SDMError`` `invalidLength` for data that is not whole blocks; `invalidKey`, `crypto`.
    public static func encrypt(_ plaintext: Bytes, fileReadKey: Bytes, picc: SDMPICCData) throws(SDMError) -> Bytes {
        try transform(plaintext, fileReadKey: fileReadKey, picc: picc, encrypt: true)
    }

    /// `ciphertext` (whole blocks) decrypted, as a server does.
    /// - Throws: as ``encrypt(_:fileReadKey:picc:)``.
    public static func decrypt(_ ciphertext: Bytes, fileReadKey: Bytes, picc: SDMPICCData) throws(SDMError) -> Bytes {
        try transform(ciphertext, fileReadKey: fileReadKey, picc: picc, encrypt: false)
    }

    private static func transform(_ data: Bytes, fileReadKey: Bytes, picc: SDMPICCData, encrypt: Bool) throws(SDMError) -> Bytes {
        guard !data.isEmpty, data.count % AES128.blockSize == 0 else {
            throw SDMError(.invalidLength, "SDMENCFileData is whole 16-byte blocks, got \(data.count) bytes")
        }
        let keys = try SDMSessionKeys(fileReadKey: fileReadKey, picc: picc)
        let iv = try iv(sessionKeys: keys, picc: picc)
        return try SDMCrypto.run { () throws(CryptoError) in
            encrypt ? try AES128.encryptCBC(key: keys.encryption, iv: iv, data) : try AES128.decryptCBC(key: keys.encryption, iv: iv, data)
        }
    }
}

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
    /// - Throws: ``SDMError`` `illegalLayout`, its offset the one at fault.
    public init(
        mirrorsUID: Bool, mirrorsCounter: Bool, piccDataOffset: Int? = nil, uidOffset: Int? = nil, counterOffset: Int? = nil,
        macInputOffset: Int? = nil, macOffset: Int? = nil, encryptedFileData: Range? = nil, fileSize: Int = NTAG424SDM.ndefFileSize
    ) throws(SDMError) {
        func illegal(_ offset: Int?, _ reason: String) -> SDMError { SDMError(.illegalLayout, at: offset, reason) }
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
    /// - Throws: ``SDMError`` `invalidLength` for a file shorter than the layout or a UID that
    ///   is not 7 bytes; `invalidKey` for a key the layout needs and `keys` lacks; `crypto`.
    public func mirror(file: [UInt8], uid: Bytes, counter: UInt32, keys: SDMKeys, padding: [UInt8]) throws(SDMError) -> [UInt8] {
        guard file.count >= requiredLength else {
            throw SDMError(.invalidLength, "the file has \(file.count) bytes; the mirrors need \(requiredLength)")
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

/// A URL with `{sun:…}` placeholders, made into the NDEF file to write and the SDM layout to
/// enable.
///
/// | placeholder | the chip mirrors | characters |
/// |---|---|---|
/// | `{sun:picc}` | encrypted PICC data (UID and counter, under SDMMetaReadKey) | 32 |
/// | `{sun:uid}` | the UID, plain | 14 |
/// | `{sun:counter}` | SDMReadCtr, plain, most significant byte first | 6 |
/// | `{sun:enc:TEXT}` | TEXT (16·n characters) encrypted under the session key | 2 × TEXT |
/// | `{sun:mac}` | the SDMMAC | 16 |
///
/// Rules: `{sun:mac}` once, and either `{sun:picc}` or `{sun:uid}` (with an optional
/// `{sun:counter}`), each at most once. The MAC covers the bytes from `{sun:enc:…}` up to the
/// MAC when there is one (SDMMACInputOffset = SDMENCOffset), and nothing otherwise
/// (SDMMACInputOffset = SDMMACOffset: the session key still binds UID and counter).
/// The NDEF file is NLEN (2 bytes, big-endian) followed by the message: one URI record, its
/// prefix abbreviated; the offsets are found by encoding and comparing, so the abbreviation
/// and the record header are accounted for.
public struct SDMURLTemplate: Sendable, Hashable {
    /// The kinds of placeholder.
    public enum Placeholder: String, Sendable, Hashable, CaseIterable {
        /// `{sun:picc}`.
        case picc
        /// `{sun:uid}`.
        case uid
        /// `{sun:counter}`.
        case counter
        /// `{sun:enc:TEXT}`.
        case enc
        /// `{sun:mac}`.
        case mac

        /// The characters the chip writes, for fixed-length kinds (enc: twice its text).
        public var fixedLength: Int? {
            switch self {
            case .picc: NTAG424SDM.asciiLength(NTAG424SDM.encryptedPICCDataLength)
            case .uid: NTAG424SDM.asciiLength(NTAG424SDM.uidLength)
            case .counter: NTAG424SDM.asciiLength(NTAG424SDM.counterLength)
            case .mac: NTAG424SDM.asciiLength(NTAG424SDM.macLength)
            case .enc: nil
            }
        }
    }

    /// The opening of every placeholder.
    public static let marker = "{sun:"

    /// The URL as given.
    public let template: String
    /// The URL as written: placeholders replaced by `0`s (and `{sun:enc:TEXT}` by TEXT and `0`s).
    public let text: String
    /// The message written.
    public let message: NDEFMessage
    /// The NDEF file's bytes: NLEN ‖ message.
    public let file: [UInt8]
    /// Where the chip mirrors, checked.
    public let layout: SDMLayout

    /// Whether `text` holds a `{sun:` placeholder.
    public static func holdsPlaceholder(_ text: String) -> Bool { text.contains(marker) }

    /// The template of `url`.
    /// - Throws: ``SDMError`` `invalidPlaceholder` (offset: the placeholder's character in the
    ///   URL), `invalidMessage` when the URL is not a valid URI, `illegalLayout` when the file
    ///   does not fit `fileSize` or the chip would refuse the offsets.
    public init(_ url: String, fileSize: Int = NTAG424SDM.ndefFileSize) throws(SDMError) {
        let scanned = try Self.scan(url)
        template = url
        text = scanned.text
        let written = try Self.encode(scanned.text)
        let file = written.file
        message = written.message
        self.file = file
        guard file.count <= fileSize else {
            throw SDMError(.illegalLayout, at: fileSize, "the NDEF file takes \(file.count) bytes, the chip's file has \(fileSize)")
        }
        var offsets: [Placeholder: SDMLayout.Range] = [:]
        for found in scanned.found {
            var probe = Array(scanned.text.utf8)
            for index in found.range { probe[index] = probe[index] == UInt8(ascii: "1") ? UInt8(ascii: "2") : UInt8(ascii: "1") }
            let probed = try Self.encode(String(decoding: probe, as: UTF8.self)).file
            guard probed.count == file.count else {
                throw SDMError(.invalidPlaceholder, at: found.urlOffset, "the record changes length with the placeholder's characters")
            }
            let differing = file.indices.filter { file[$0] != probed[$0] }
            guard let first = differing.first, differing.count == found.range.count, differing.last == first + found.range.count - 1 else {
                throw SDMError(.invalidPlaceholder, at: found.urlOffset, "the placeholder is not stored as plain characters in the record")
            }
            offsets[found.kind] = SDMLayout.Range(offset: first, length: found.range.count)
        }
        let macOffset = offsets[.mac]?.offset
        layout = try SDMLayout(
            mirrorsUID: offsets[.picc] != nil || offsets[.uid] != nil, mirrorsCounter: offsets[.picc] != nil || offsets[.counter] != nil,
            piccDataOffset: offsets[.picc]?.offset, uidOffset: offsets[.uid]?.offset, counterOffset: offsets[.counter]?.offset,
            macInputOffset: offsets[.enc]?.offset ?? macOffset, macOffset: macOffset, encryptedFileData: offsets[.enc], fileSize: fileSize)
    }

    private struct Found {
        var kind: Placeholder
        var urlOffset: Int
        var range: Swift.Range<Int>
    }

    /// The URL with placeholders filled, and where each filled range is (UTF-8 offsets).
    private static func scan(_ url: String) throws(SDMError) -> (text: String, found: [Found]) {
        let bytes = Array(url.utf8)
        let marker = Array(Self.marker.utf8)
        var out: [UInt8] = []
        var found: [Found] = []
        var index = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "{"), bytes[index...].starts(with: marker) else {
                out.append(bytes[index])
                index += 1
                continue
            }
            guard let close = bytes[index...].firstIndex(of: UInt8(ascii: "}")) else {
                throw SDMError(.invalidPlaceholder, at: index, "'{sun:' without a closing '}'")
            }
            let body = String(decoding: bytes[(index + marker.count)..<close], as: UTF8.self)
            let name = body.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            guard let kind = Placeholder(rawValue: String(name[0])) else {
                throw SDMError(.invalidPlaceholder, at: index, "unknown placeholder {sun:\(body)}: use {sun:picc}, {sun:mac}, {sun:uid}, {sun:counter} or {sun:enc:TEXT}")
            }
            guard !found.contains(where: { $0.kind == kind }) else {
                throw SDMError(.invalidPlaceholder, at: index, "{sun:\(kind.rawValue)} occurs more than once: the chip mirrors each once")
            }
            let filled: [UInt8]
            if kind == .enc {
                let plain = name.count == 2 ? Array(name[1].utf8) : []
                guard !plain.isEmpty, plain.count % AES128.blockSize == 0, !plain.contains(UInt8(ascii: "{")) else {
                    throw SDMError(.invalidPlaceholder, at: index, "{sun:enc:TEXT} needs TEXT of 16, 32, … characters, got \(plain.count)")
                }
                filled = plain + [UInt8](repeating: NTAG424SDM.placeholderCharacter, count: plain.count)
            } else {
                guard name.count == 1, let length = kind.fixedLength else {
                    throw SDMError(.invalidPlaceholder, at: index, "{sun:\(kind.rawValue)} takes no argument")
                }
                filled = [UInt8](repeating: NTAG424SDM.placeholderCharacter, count: length)
            }
            found.append(Found(kind: kind, urlOffset: index, range: out.count..<(out.count + filled.count)))
            out += filled
            index = close + 1
        }
        let kinds = Set(found.map(\.kind))
        if found.isEmpty { throw SDMError(.invalidPlaceholder, "no {sun:…} placeholder in the URL") }
        let at = found.first?.urlOffset
        guard kinds.contains(.mac) else { throw SDMError(.invalidPlaceholder, at: at, "a SUN URL needs {sun:mac}") }
        guard !(kinds.contains(.picc) && (kinds.contains(.uid) || kinds.contains(.counter))) else {
            throw SDMError(.invalidPlaceholder, at: at, "{sun:picc} already holds UID and counter (encrypted): do not add {sun:uid} or {sun:counter}")
        }
        guard kinds.contains(.picc) || kinds.contains(.uid) else {
            throw SDMError(.invalidPlaceholder, at: at, "a SUN URL needs {sun:picc} (encrypted) or {sun:uid} (plain)")
        }
        if kinds.contains(.enc), !kinds.contains(.picc) && !kinds.contains(.counter) {
            throw SDMError(.invalidPlaceholder, at: at, "{sun:enc:…} needs the counter mirrored: add {sun:counter} or use {sun:picc}")
        }
        return (String(decoding: out, as: UTF8.self), found)
    }

    private static func encode(_ url: String) throws(SDMError) -> (message: NDEFMessage, file: [UInt8]) {
        do {
            let message = NDEFMessage(records: [try NDEFPayload.wellKnownTypeURIPayload(url: url)])
            let encoded = try message.encoded()
            return (message, [UInt8(encoded.count >> 8 & 0xFF), UInt8(encoded.count & 0xFF)] + encoded)
        } catch {
            throw SDMError(.invalidMessage, error.description)
        }
    }
}

/// The query parameters a SUN URL carries, by name.
public struct SUNParameterNames: Sendable, Hashable {
    /// The encrypted PICC data (`e`, as in AN12196's example and `ntag424 setup`'s default).
    public var picc: String
    /// The SDMMAC (`c`).
    public var mac: String
    /// The plain UID (`uid`).
    public var uid: String
    /// The plain counter (`ctr`).
    public var counter: String
    /// SDMENCFileData (`enc`).
    public var encryptedFileData: String

    /// Names; the defaults are those of AN12196's example URL (`e`, `c`) and the usual plain
    /// ones (`uid`, `ctr`, `enc`).
    public init(picc: String = "e", mac: String = "c", uid: String = "uid", counter: String = "ctr", encryptedFileData: String = "enc") {
        self.picc = picc
        self.mac = mac
        self.uid = uid
        self.counter = counter
        self.encryptedFileData = encryptedFileData
    }
}

/// A tap whose SDMMAC checked out.
public struct SUNTap: Sendable, Hashable {
    /// The chip's UID, when mirrored.
    public let uid: Bytes?
    /// SDMReadCtr, when mirrored.
    public let readCounter: UInt32?
    /// Whether the PICC data came encrypted.
    public let encryptedPICCData: Bool
    /// The decrypted SDMENCFileData, when present.
    public let fileData: Bytes?
}

/// Checking a tapped URL on a server: find the parameters, decrypt the PICC data, recompute
/// the SDMMAC (over the URL's characters from the SDMENCFileData value up to the MAC value
/// when there is one, over nothing otherwise: what `SDMURLTemplate` lays out).
public enum SUNVerifier {
    /// The tap the URL proves.
    /// - Throws: ``SDMError``: `missingParameter`/`duplicateParameter` (offset: in the URL),
    ///   `invalidHex`/`invalidLength` (offset: the bad character in the URL),
    ///   `unsupportedPICCData`, `macMismatch`, `invalidKey`, `crypto`.
    public static func verify(url: String, names: SUNParameterNames = SUNParameterNames(), keys: SDMKeys) throws(SDMError) -> SUNTap {
        try verify(url: url, names: names, metaReadKey: keys.metaRead) { _ throws(SDMError) in try keys.requireFileRead() }
    }

    /// As ``verify(url:names:keys:)``, the SDMFileRead key chosen by `fileReadKey` from the PICC
    /// data (per-tag keys: ``NTAG424DiversifiedKeys``).
    static func verify(
        url: String, names: SUNParameterNames, metaReadKey: Bytes?, fileReadKey: (SDMPICCData) throws(SDMError) -> Bytes
    ) throws(SDMError) -> SUNTap {
        let keys = try SDMKeys(metaRead: metaReadKey, fileRead: nil)
        let bytes = Array(url.utf8)
        let parameters = try queryParameters(bytes)
        func find(_ name: String) throws(SDMError) -> Parameter? {
            let matching = parameters.filter { $0.name == name }
            if matching.count > 1 { throw SDMError(.duplicateParameter, at: matching[1].nameOffset, "parameter '\(name)' occurs more than once") }
            return matching.first
        }
        func decode(_ parameter: Parameter, bytes count: Int, what: String) throws(SDMError) -> Bytes {
            guard parameter.value.count == 2 * count else {
                throw SDMError(.invalidLength, at: parameter.value.lowerBound, "\(what) '\(parameter.name)' has \(2 * count) hex digits, got \(parameter.value.count)")
            }
            let decoded = try strictHex(bytes[parameter.value], what: "\(what) '\(parameter.name)'")
            guard decoded.count == count else {
                throw SDMError(.invalidLength, at: parameter.value.lowerBound, "\(what) '\(parameter.name)' has \(2 * count) hex digits, got \(parameter.value.count)")
            }
            return Bytes(decoded)
        }
        guard let macParameter = try find(names.mac) else {
            throw SDMError(.missingParameter, "no '\(names.mac)' parameter (the SDMMAC) in the URL")
        }
        let mac = try decode(macParameter, bytes: NTAG424SDM.macLength, what: "the SDMMAC")
        let picc: SDMPICCData
        let encrypted: Bool
        if let piccParameter = try find(names.picc) {
            let data = try decode(piccParameter, bytes: NTAG424SDM.encryptedPICCDataLength, what: "the PICC data")
            do { picc = try SDMPICCData.decrypt(data, metaReadKey: try keys.requireMetaRead()) } catch {
                throw SDMError(error.code, at: error.code == .unsupportedPICCData ? piccParameter.value.lowerBound : error.offset, error.reason)
            }
            encrypted = true
        } else if let uidParameter = try find(names.uid) {
            let uid = try decode(uidParameter, bytes: NTAG424SDM.uidLength, what: "the UID")
            var counter: UInt32?
            if let counterParameter = try find(names.counter) {
                let value = try decode(counterParameter, bytes: NTAG424SDM.counterLength, what: "the counter")
                counter = UInt32(value[0]) << 16 | UInt32(value[1]) << 8 | UInt32(value[2])
            }
            picc = try SDMPICCData(uid: uid, readCounter: counter)
            encrypted = false
        } else {
            throw SDMError(.missingParameter, "neither '\(names.picc)' (encrypted PICC data) nor '\(names.uid)' (plain UID) is in the URL")
        }
        let encParameter = try find(names.encryptedFileData)
        var input = Bytes()
        var encryptedData: Bytes?
        if let encParameter {
            guard encParameter.value.lowerBound <= macParameter.value.lowerBound else {
                throw SDMError(.illegalLayout, at: encParameter.nameOffset, "SDMENCFileData must come before the SDMMAC")
            }
            let length = encParameter.value.count / 2
            guard length > 0, length % AES128.blockSize == 0 else {
                throw SDMError(.invalidLength, at: encParameter.value.lowerBound, "SDMENCFileData is 32·n hex digits, got \(encParameter.value.count)")
            }
            encryptedData = try decode(encParameter, bytes: length, what: "SDMENCFileData")
            input = Bytes(bytes[encParameter.value.lowerBound..<macParameter.value.lowerBound])
        }
        let fileRead = try fileReadKey(picc)
        guard try SDMMAC.verify(mac, fileReadKey: fileRead, picc: picc, input: input) else {
            throw SDMError(.macMismatch, at: macParameter.value.lowerBound, "the SDMMAC does not match: the URL was altered, or the keys are not this tag's")
        }
        var fileData: Bytes?
        if let encryptedData { fileData = try SDMFileDataCipher.decrypt(encryptedData, fileReadKey: fileRead, picc: picc) }
        return SUNTap(uid: picc.uid, readCounter: picc.readCounter, encryptedPICCData: encrypted, fileData: fileData)
    }

    /// Hex digits, two per byte, nothing else (no separators: a URL parameter is exact).
    static func strictHex(_ text: ArraySlice<UInt8>, what: String) throws(SDMError) -> [UInt8] {
        func digit(_ character: UInt8) -> UInt8? {
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
            case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
            case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
            default: nil
            }
        }
        guard text.count % 2 == 0 else { throw SDMError(.invalidHex, at: text.endIndex, "\(what): an odd number of hex digits") }
        var out: [UInt8] = []
        out.reserveCapacity(text.count / 2)
        var index = text.startIndex
        while index < text.endIndex {
            guard let high = digit(text[index]) else { throw SDMError(.invalidHex, at: index, "\(what): '\(Character(Unicode.Scalar(text[index])))' is not a hex digit") }
            guard let low = digit(text[index + 1]) else {
                throw SDMError(.invalidHex, at: index + 1, "\(what): '\(Character(Unicode.Scalar(text[index + 1])))' is not a hex digit")
            }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    struct Parameter {
        var name: String
        var nameOffset: Int
        var value: Range<Int>
    }

    /// The `name=value` pairs after the URL's `?` (up to a `#`), with where each value is.
    static func queryParameters(_ bytes: [UInt8]) throws(SDMError) -> [Parameter] {
        guard let question = bytes.firstIndex(of: UInt8(ascii: "?")) else {
            throw SDMError(.missingParameter, "the URL has no query ('?')")
        }
        let end = bytes[question...].firstIndex(of: UInt8(ascii: "#")) ?? bytes.count
        var parameters: [Parameter] = []
        var start = question + 1
        while start <= end {
            let stop = bytes[start..<end].firstIndex(of: UInt8(ascii: "&")) ?? end
            if stop > start {
                let pair = bytes[start..<stop]
                if let equals = pair.firstIndex(of: UInt8(ascii: "=")) {
                    parameters.append(Parameter(name: String(decoding: bytes[start..<equals], as: UTF8.self), nameOffset: start, value: (equals + 1)..<stop))
                } else {
                    parameters.append(Parameter(name: String(decoding: pair, as: UTF8.self), nameOffset: start, value: stop..<stop))
                }
            }
            start = stop + 1
        }
        return parameters
    }
}

/// libcrypto's errors as SDM errors.
enum SDMCrypto {
    static let zeroBlock = Bytes([UInt8](repeating: 0, count: AES128.blockSize))

    static func run<T>(_ body: () throws(CryptoError) -> T) throws(SDMError) -> T {
        do { return try body() } catch {
            switch error.code {
            case .invalidKey: throw SDMError(.invalidKey, error.reason)
            case .invalidInput: throw SDMError(.invalidLength, error.reason)
            default: throw SDMError(.crypto, error.description)
            }
        }
    }
}
