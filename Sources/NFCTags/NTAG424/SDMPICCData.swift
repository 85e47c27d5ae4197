public import NFCCore
import NFCCrypto

// The cryptogram side of SDM (AES mode): the keys, the PICC data, the session keys, the
// SDMMAC and the encrypted file data (NT4H2421Gx 9.3, AN12196 section 4).

/// The two application keys SDM uses. Never printed: ``description`` is redacted.
public struct SDMKeys: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// SDMMetaReadKey: decrypts the PICC data; nil for plain (unencrypted) mirroring.
    public let metaRead: Bytes?
    /// SDMFileReadKey: derives the session keys of the SDMMAC and SDMENCFileData.
    public let fileRead: Bytes?

    /// Keys, each 16 bytes when given.
    /// - Throws: ``NTAG424Error`` `invalidKey` for a key that is not 16 bytes.
    public init(metaRead: Bytes?, fileRead: Bytes?) throws(NTAG424Error) {
        for (name, key) in [("SDMMetaReadKey", metaRead), ("SDMFileReadKey", fileRead)] {
            if let key, key.count != AES128.blockSize {
                throw NTAG424Error(.invalidKey, "\(name) has 16 bytes, got \(key.count)")
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

    func requireMetaRead() throws(NTAG424Error) -> Bytes {
        guard let metaRead else { throw NTAG424Error(.invalidKey, "encrypted PICC data needs the SDMMetaReadKey") }
        return metaRead
    }

    func requireFileRead() throws(NTAG424Error) -> Bytes {
        guard let fileRead else { throw NTAG424Error(.invalidKey, "the SDMMAC needs the SDMFileReadKey") }
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
    /// - Throws: ``NTAG424Error`` `invalidLength` for a UID that is not 7 bytes, a counter above
    ///   ``NTAG424SDM/counterMaximum``.
    public init(uid: Bytes?, readCounter: UInt32?) throws(NTAG424Error) {
        if let uid, uid.count != NTAG424SDM.uidLength {
            throw NTAG424Error(.invalidLength, "a mirrored UID has 7 bytes, got \(uid.count)")
        }
        if let readCounter, readCounter > NTAG424SDM.counterMaximum {
            throw NTAG424Error(.invalidLength, "SDMReadCtr has 24 bits, got \(readCounter)")
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
    /// - Throws: ``NTAG424Error`` `invalidLength` when `padding` is too short.
    public func plaintext(padding: [UInt8]) throws(NTAG424Error) -> Bytes {
        let head = [tag] + mirroredBytes
        let needed = NTAG424SDM.encryptedPICCDataLength - head.count
        guard padding.count >= needed else {
            throw NTAG424Error(.invalidLength, "PICC data needs \(needed) bytes of padding, got \(padding.count)")
        }
        return Bytes(head + padding.prefix(needed))
    }

    /// The encrypted PICC data: AES-128 under SDMMetaReadKey (CBC from a zero IV, one block).
    /// - Throws: ``NTAG424Error`` `invalidKey`, `invalidLength`, `crypto`.
    public func encrypted(metaReadKey: Bytes, padding: [UInt8]) throws(NTAG424Error) -> Bytes {
        let plain = try plaintext(padding: padding)
        return try SDMCrypto.run { () throws(CryptoError) in
            try AES128.encryptCBC(key: metaReadKey, iv: SDMCrypto.zeroBlock, plain)
        }
    }

    /// The PICC data in a decrypted block.
    /// - Throws: ``NTAG424Error`` `invalidLength` for a block that is not 16 bytes,
    ///   `unsupportedPICCData` (offset 0) for a PICCDataTag no chip writes.
    public init(plaintext: Bytes) throws(NTAG424Error) {
        guard plaintext.count == NTAG424SDM.encryptedPICCDataLength else {
            throw NTAG424Error(.invalidLength, "PICC data is one 16-byte block, got \(plaintext.count) bytes")
        }
        let tag = plaintext[0]
        let uidLength = Int(tag & PICCDataTagBits.uidLengthMask)
        let mirrorsUID = tag & PICCDataTagBits.uidMirror != 0
        guard tag & PICCDataTagBits.reserved == 0, mirrorsUID ? uidLength == NTAG424SDM.uidLength : uidLength == 0 else {
            throw NTAG424Error(
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
    /// - Throws: ``NTAG424Error`` `invalidLength`, `invalidKey`, `unsupportedPICCData`, `crypto`.
    public static func decrypt(_ encrypted: Bytes, metaReadKey: Bytes) throws(NTAG424Error) -> SDMPICCData {
        guard encrypted.count == NTAG424SDM.encryptedPICCDataLength else {
            throw NTAG424Error(.invalidLength, "encrypted PICC data has 16 bytes, got \(encrypted.count)")
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
    /// - Throws: ``NTAG424Error`` `invalidKey`, `crypto`.
    public init(fileReadKey: Bytes, picc: SDMPICCData) throws(NTAG424Error) {
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
    /// - Throws: ``NTAG424Error`` `invalidKey`, `crypto`.
    public static func full(sessionKey: Bytes, input: Bytes) throws(NTAG424Error) -> Bytes {
        try SDMCrypto.run { () throws(CryptoError) in try AES128.cmac(key: sessionKey, input) }
    }

    /// The 8 odd-indexed bytes of a 16-byte CMAC (the MACt truncation of AN12196).
    public static func truncate(_ full: Bytes) -> Bytes {
        Bytes(stride(from: 1, to: full.count, by: 2).map { full[$0] })
    }

    /// The 8-byte SDMMAC of a read: session key from `fileReadKey` and `picc`, CMAC over `input`.
    /// - Throws: ``NTAG424Error`` `invalidKey`, `crypto`.
    public static func compute(fileReadKey: Bytes, picc: SDMPICCData, input: Bytes) throws(NTAG424Error) -> Bytes {
        let keys = try SDMSessionKeys(fileReadKey: fileReadKey, picc: picc)
        return truncate(try full(sessionKey: keys.mac, input: input))
    }

    /// Whether `mac` is the SDMMAC of the read, compared in constant time.
    /// - Throws: ``NTAG424Error`` `invalidLength` for a MAC that is not 8 bytes; `invalidKey`, `crypto`.
    public static func verify(_ mac: Bytes, fileReadKey: Bytes, picc: SDMPICCData, input: Bytes) throws(NTAG424Error) -> Bool {
        guard mac.count == NTAG424SDM.macLength else {
            throw NTAG424Error(.invalidLength, "an SDMMAC has 8 bytes, got \(mac.count)")
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
    /// - Throws: ``NTAG424Error`` `invalidLength` when the counter is not mirrored; `crypto`.
    public static func iv(sessionKeys: SDMSessionKeys, picc: SDMPICCData) throws(NTAG424Error) -> Bytes {
        guard picc.readCounter != nil, picc.uid != nil else {
            throw NTAG424Error(.invalidLength, "SDMENCFileData needs the UID and SDMReadCtr mirrored")
        }
        let block = Bytes(picc.counterBytesLSBFirst + [UInt8](repeating: 0, count: AES128.blockSize - NTAG424SDM.counterLength))
        return try SDMCrypto.run { () throws(CryptoError) in try AES128.encryptECB(key: sessionKeys.encryption, block) }
    }

    /// `plaintext` (whole blocks) encrypted as the chip does on a read.
    /// - Throws: ``NTAG424Error`` `invalidLength` for data that is not whole blocks; `invalidKey`, `crypto`.
    public static func encrypt(_ plaintext: Bytes, fileReadKey: Bytes, picc: SDMPICCData) throws(NTAG424Error) -> Bytes {
        try transform(plaintext, fileReadKey: fileReadKey, picc: picc, encrypt: true)
    }

    /// `ciphertext` (whole blocks) decrypted, as a server does.
    /// - Throws: as ``encrypt(_:fileReadKey:picc:)``.
    public static func decrypt(_ ciphertext: Bytes, fileReadKey: Bytes, picc: SDMPICCData) throws(NTAG424Error) -> Bytes {
        try transform(ciphertext, fileReadKey: fileReadKey, picc: picc, encrypt: false)
    }

    private static func transform(_ data: Bytes, fileReadKey: Bytes, picc: SDMPICCData, encrypt: Bool) throws(NTAG424Error) -> Bytes {
        guard !data.isEmpty, data.count % AES128.blockSize == 0 else {
            throw NTAG424Error(.invalidLength, "SDMENCFileData is whole 16-byte blocks, got \(data.count) bytes")
        }
        let keys = try SDMSessionKeys(fileReadKey: fileReadKey, picc: picc)
        let iv = try iv(sessionKeys: keys, picc: picc)
        return try SDMCrypto.run { () throws(CryptoError) in
            encrypt ? try AES128.encryptCBC(key: keys.encryption, iv: iv, data) : try AES128.decryptCBC(key: keys.encryption, iv: iv, data)
        }
    }
}

/// libcrypto's errors as SDM errors.
enum SDMCrypto {
    static let zeroBlock = Bytes([UInt8](repeating: 0, count: AES128.blockSize))

    static func run<T>(_ body: () throws(CryptoError) -> T) throws(NTAG424Error) -> T {
        do { return try body() } catch {
            switch error.code {
            case .invalidKey: throw NTAG424Error(.invalidKey, error.reason)
            case .invalidInput: throw NTAG424Error(.invalidLength, error.reason)
            default: throw NTAG424Error(sdmData: .crypto, error.description)
            }
        }
    }
}
