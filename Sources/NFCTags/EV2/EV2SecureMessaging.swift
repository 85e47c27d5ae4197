import NFCCore
import NFCCrypto

// EV2 secure messaging, shared by NTAG 424 DNA (NTAG424Tag, NTAG424VirtualTag) and MIFARE DESFire
// EV2/EV3 (DESFireTag, DESFireVirtualTag). Its labels and lengths are still NTAG424's constants.

/// How a command and its response travel in an authenticated session (datasheet 9.1.3–9.1.10):
/// in plain, with an 8-byte MAC, or encrypted and MAC-ed. The file options' bits 1–0.
public enum EV2CommMode: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// CommMode.Plain (`00`; `10` reads as plain too).
    case plain = 0x00
    /// CommMode.MAC (`01`): a truncated CMAC over command counter, TI and data.
    case mac = 0x01
    /// CommMode.Full (`11`): the data encrypted (AES-128-CBC, IV from TI and counter) and MAC-ed.
    case full = 0x03

    /// The mode in a file option byte's bits 1–0 (`10` is plain, as the datasheet reserves it).
    public init(fileOption bits: UInt8) {
        switch bits & 0x03 {
        case 0x01: self = .mac
        case 0x03: self = .full
        default: self = .plain
        }
    }

    /// `plain`, `mac`, `full`.
    public var description: String {
        switch self {
        case .plain: "plain"
        case .mac: "mac"
        case .full: "full"
        }
    }
}

/// An authenticated AES secure-messaging session of NXP's EV2 scheme, as NTAG 424 DNA (datasheet
/// 9.1) and MIFARE DESFire EV2/EV3 (AuthenticateEV2First `71`) run it: the
/// transaction identifier, the session encryption and MAC keys derived from the authentication,
/// and the command counter. One value serves both sides: the host seals commands and opens
/// responses, a (virtual) chip opens commands and seals responses, with the same code.
///
/// The keys never appear in ``description`` or a debugger's dump.
public struct EV2Session: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The key number the session was opened with.
    public let keyNumber: UInt8
    /// TI, the 4-byte transaction identifier the chip chose in AuthenticateEV2First.
    public let transactionIdentifier: [UInt8]
    /// SesAuthENCKey.
    public let encryptionKey: [UInt8]
    /// SesAuthMACKey.
    public let macKey: [UInt8]
    /// CmdCtr: commands completed in this session (sent least significant byte first).
    public var commandCounter: UInt16

    /// A session from its parts.
    /// - Throws: ``NTAG424Error`` `invalidParameter` when TI is not 4 bytes or a key not 16.
    public init(keyNumber: UInt8, transactionIdentifier: [UInt8], encryptionKey: [UInt8], macKey: [UInt8], commandCounter: UInt16 = 0) throws(NTAG424Error) {
        guard transactionIdentifier.count == 4 else { throw NTAG424Error(.invalidParameter, "TI has 4 bytes, got \(transactionIdentifier.count)") }
        guard encryptionKey.count == NTAG424.keyLength, macKey.count == NTAG424.keyLength else {
            throw NTAG424Error(.invalidParameter, "session keys have 16 bytes")
        }
        self.keyNumber = keyNumber
        self.transactionIdentifier = transactionIdentifier
        self.encryptionKey = encryptionKey
        self.macKey = macKey
        self.commandCounter = commandCounter
    }

    /// `session with key N, TI …, CmdCtr n` (keys withheld).
    public var description: String {
        "session with key \(keyNumber), TI \(Hex.encode(transactionIdentifier, uppercase: true)), CmdCtr \(commandCounter)"
    }
    /// As ``description``.
    public var debugDescription: String { description }
    /// No children: a dump shows ``description`` only.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }

    // MARK: Derivation

    /// SV1 and SV2 (datasheet 9.1.7): the label, then `RndA[15..14] ‖ (RndA[13..8] ⊕
    /// RndB[15..10]) ‖ RndB[9..0] ‖ RndA[7..0]`, byte 15 being the first one sent.
    /// - Precondition: both randoms have 16 bytes.
    public static func sessionVectors(rndA: [UInt8], rndB: [UInt8]) -> (sv1: [UInt8], sv2: [UInt8]) {
        precondition(rndA.count == 16 && rndB.count == 16)
        let mixed = (0..<6).map { rndA[2 + $0] ^ rndB[$0] }
        let tail = Array(rndA[0..<2]) + mixed + Array(rndB[6..<16]) + Array(rndA[8..<16])
        return (NTAG424.Label.sessionEncryptionVector + tail, NTAG424.Label.sessionMACVector + tail)
    }

    /// SesAuthENCKey = CMAC(key, SV1), SesAuthMACKey = CMAC(key, SV2).
    /// - Throws: ``NTAG424Error`` `invalidParameter` for lengths, `crypto`.
    public static func deriveKeys(key: [UInt8], rndA: [UInt8], rndB: [UInt8]) throws(NTAG424Error) -> (encryption: [UInt8], mac: [UInt8]) {
        guard key.count == NTAG424.keyLength, rndA.count == 16, rndB.count == 16 else {
            throw NTAG424Error(.invalidParameter, "session key derivation needs a 16-byte key and 16-byte randoms")
        }
        let (sv1, sv2) = sessionVectors(rndA: rndA, rndB: rndB)
        return (try AESOps.cmac(key: Bytes(key), Bytes(sv1)), try AESOps.cmac(key: Bytes(key), Bytes(sv2)))
    }

    /// The 8-byte MACt of a CMAC: its bytes at odd indices (1, 3, …, 15) (datasheet 9.1.3).
    public static func truncate(_ cmac: [UInt8]) -> [UInt8] {
        stride(from: 1, to: cmac.count, by: 2).map { cmac[$0] }
    }

    /// `data` padded by ISO/IEC 9797-1 method 2: `80` then zeros to a whole block; a whole
    /// block of padding when `data` already is whole blocks.
    public static func pad(_ data: [UInt8]) -> [UInt8] {
        var out = data + [NTAG424.Label.paddingStart]
        while out.count % AES128.blockSize != 0 { out.append(0) }
        return out
    }

    /// `data` without its method-2 padding, or nil when it has none (total: never traps).
    public static func unpad(_ data: [UInt8]) -> [UInt8]? {
        guard let last = data.lastIndex(where: { $0 != 0 }), data[last] == NTAG424.Label.paddingStart,
              data.count - last <= AES128.blockSize
        else { return nil }
        return Array(data[..<last])
    }

    /// The IV of the command sent at ``commandCounter``: E(SesAuthENCKey, `A5 5A ‖ TI ‖ CmdCtr ‖ 00×8`).
    public func commandIV() throws(NTAG424Error) -> [UInt8] { try iv(NTAG424.Label.commandIV, counter: commandCounter) }

    /// The IV of the response to that command: E(SesAuthENCKey, `5A A5 ‖ TI ‖ CmdCtr+1 ‖ 00×8`).
    public func responseIV() throws(NTAG424Error) -> [UInt8] { try iv(NTAG424.Label.responseIV, counter: commandCounter &+ 1) }

    private func iv(_ label: [UInt8], counter: UInt16) throws(NTAG424Error) -> [UInt8] {
        let block = label + transactionIdentifier + [UInt8(counter & 0xFF), UInt8(counter >> 8)] + [UInt8](repeating: 0, count: 8)
        let key = encryptionKey
        return try AESOps.encryptECB(key: Bytes(key), Bytes(block))
    }

    /// MACt over `input` with SesAuthMACKey.
    public func mac(_ input: [UInt8]) throws(NTAG424Error) -> [UInt8] {
        let key = macKey
        return Self.truncate(try AESOps.cmac(key: Bytes(key), Bytes(input)))
    }

    private var counterBytes: [UInt8] { [UInt8(commandCounter & 0xFF), UInt8(commandCounter >> 8)] }
    private var nextCounterBytes: [UInt8] { let next = commandCounter &+ 1; return [UInt8(next & 0xFF), UInt8(next >> 8)] }

    // MARK: Host side

    /// The data field of a command sent at ``commandCounter`` in `mode`: the header in plain,
    /// then the data (encrypted with padding in Full, when there is data), then in MAC and Full
    /// modes MACt over `Cmd ‖ CmdCtr ‖ TI ‖ header ‖ data as sent`. The counter is not advanced:
    /// ``openResponse(status:body:mode:)`` does that.
    public func sealCommand(_ command: UInt8, header: [UInt8], data: [UInt8], mode: EV2CommMode) throws(NTAG424Error) -> [UInt8] {
        guard mode != .plain else { return header + data }
        var sent = data
        if mode == .full, !data.isEmpty {
            let key = encryptionKey, iv = try commandIV()
            sent = try AESOps.encryptCBC(key: Bytes(key), iv: Bytes(iv), Bytes(Self.pad(data)))
        }
        return header + sent + (try mac([command] + counterBytes + transactionIdentifier + header + sent))
    }

    /// Checks and opens the response to the command sent at ``commandCounter`` (OPERATION_OK
    /// answers only), then advances the counter: MAC mode checks MACt over `00 ‖ CmdCtr+1 ‖ TI ‖
    /// data`; Full mode also decrypts the data with the response IV and removes the padding.
    /// - Returns: the response data.
    /// - Throws: ``NTAG424Error`` `integrity` for a wrong MAC or padding (the counter is left
    ///   as it was), `malformed` for a body shorter than the MAC.
    public mutating func openResponse(status: UInt8, body: [UInt8], mode: EV2CommMode) throws(NTAG424Error) -> [UInt8] {
        guard mode != .plain else {
            commandCounter &+= 1
            return body
        }
        guard body.count >= 8 else { throw NTAG424Error(.malformed, at: body.count, "the response has \(body.count) bytes, fewer than its 8-byte MAC") }
        let data = Array(body.dropLast(8)), received = Array(body.suffix(8))
        guard try mac([status] + nextCounterBytes + transactionIdentifier + data) == received else {
            throw NTAG424Error(.integrity, at: data.count, "the response MAC does not verify (CmdCtr \(commandCounter &+ 1))")
        }
        var plain = data
        if mode == .full, !data.isEmpty {
            guard data.count % AES128.blockSize == 0 else {
                throw NTAG424Error(.malformed, at: data.count, "encrypted response data of \(data.count) bytes is not whole blocks")
            }
            let key = encryptionKey, iv = try responseIV()
            let decrypted = try AESOps.decryptCBC(key: Bytes(key), iv: Bytes(iv), Bytes(data))
            guard let unpadded = Self.unpad(decrypted) else {
                throw NTAG424Error(.integrity, at: data.count - 1, "the decrypted response has no ISO/IEC 9797-1 padding")
            }
            plain = unpadded
        }
        commandCounter &+= 1
        return plain
    }

    // MARK: Chip side

    /// The chip's reading of a command received at ``commandCounter``: checks MACt (MAC and
    /// Full modes) and decrypts the data after the header (Full mode), returning header and data.
    /// - Throws: the status to answer: `1E` INTEGRITY_ERROR for a wrong MAC or padding, `7E`
    ///   LENGTH_ERROR for a body too short or encrypted data of partial blocks.
    public func openCommand(_ command: UInt8, headerLength: Int, body: [UInt8], mode: EV2CommMode) throws(NTAG424Status) -> (header: [UInt8], data: [UInt8]) {
        let macLength = mode == .plain ? 0 : 8
        guard body.count >= headerLength + macLength else { throw .lengthError }
        let header = Array(body[..<headerLength])
        let sent = Array(body[headerLength..<(body.count - macLength)])
        guard mode != .plain else { return (header, sent) }
        guard let expected = try? mac([command] + counterBytes + transactionIdentifier + header + sent), expected == Array(body.suffix(8)) else {
            throw .integrityError
        }
        guard mode == .full, !sent.isEmpty else { return (header, sent) }
        guard sent.count % AES128.blockSize == 0 else { throw .lengthError }
        let key = encryptionKey
        guard let iv = try? commandIV(), let decrypted = try? AES128.decryptCBC(key: Bytes(key), iv: Bytes(iv), Bytes(sent)).array,
              let data = Self.unpad(decrypted)
        else { throw .integrityError }
        return (header, data)
    }

    /// The chip's answer to the command received at ``commandCounter``: advances the counter,
    /// then the data (encrypted with padding in Full mode, when there is data) and MACt over
    /// `status ‖ CmdCtr ‖ TI ‖ data as sent` (MAC and Full), followed by `91 status`.
    public mutating func sealResponse(status: NTAG424Status = .ok, data: [UInt8], mode: EV2CommMode) -> [UInt8] {
        var sent = data
        if mode == .full, !data.isEmpty {
            let key = encryptionKey
            if let iv = try? responseIV(), let encrypted = try? AES128.encryptCBC(key: Bytes(key), iv: Bytes(iv), Bytes(Self.pad(data))).array {
                sent = encrypted
            }
        }
        commandCounter &+= 1
        guard mode != .plain else { return sent + [NTAG424.statusPrefix, status.rawValue] }
        let tag = (try? mac([status.rawValue] + counterBytes + transactionIdentifier + sent)) ?? []
        return sent + tag + [NTAG424.statusPrefix, status.rawValue]
    }

}

extension EV2Session {
    /// ChangeKey's data before Full-mode sealing (NTAG 424 DNA datasheet 10.6.1; the same on
    /// MIFARE DESFire EV2/EV3 in EV2 secure messaging, as Proxmark3's `DesfireChangeKey` builds
    /// it): for the key the session was opened with, `NewKey ‖ KeyVer`; for another key
    /// `(NewKey ⊕ OldKey) ‖ KeyVer ‖ CRC32(NewKey)` (``NTAG424/keyChecksum(_:)``). `version` is
    /// nil for a key without a version byte (a DESFire DES-family key).
    /// - Throws: ``NTAG424Error`` `invalidParameter` when another key's old value is missing
    ///   or of another length.
    public static func changeKeyData(newKey: [UInt8], version: UInt8?, oldKey: [UInt8]?, sameKey: Bool) throws(NTAG424Error) -> [UInt8] {
        let versionByte = version.map { [$0] } ?? []
        guard !sameKey else { return newKey + versionByte }
        guard let oldKey, oldKey.count == newKey.count else {
            throw NTAG424Error(.invalidParameter, "changing another key needs its current value (\(newKey.count) bytes)")
        }
        return zip(newKey, oldKey).map { $0 ^ $1 } + versionByte + NTAG424.keyChecksum(newKey)
    }

    /// The chip's reading of ChangeKey's opened data (``changeKeyData(newKey:version:oldKey:sameKey:)``):
    /// the new key and its version (0 without a version byte); nil for a wrong length or a
    /// CRC32 that does not match (INTEGRITY_ERROR).
    public static func newKey(fromChangeKeyData data: [UInt8], keyLength: Int, hasVersion: Bool, oldKey: [UInt8], sameKey: Bool) -> (key: [UInt8], version: UInt8)? {
        let keyDataLength = keyLength + (hasVersion ? 1 : 0)
        guard data.count == keyDataLength + (sameKey ? 0 : 4), keyLength > 0 else { return nil }
        var key = Array(data[0..<keyLength])
        let version = hasVersion ? data[keyLength] : 0
        guard !sameKey else { return (key, version) }
        guard oldKey.count == keyLength else { return nil }
        key = zip(key, oldKey).map { $0 ^ $1 }
        guard NTAG424.keyChecksum(key) == Array(data[keyDataLength...]) else { return nil }
        return (key, version)
    }
}

/// AuthenticateEV2First and AuthenticateEV2NonFirst (NTAG 424 DNA datasheet 9.1.5, 9.1.6;
/// AN12196 5.6, 5.14; the same commands `71` / `77` on MIFARE DESFire EV2/EV3): the three-pass
/// AES mutual authentication, as pure functions for both sides.
///
/// Part 1: the PCD sends the key number (and in First, LenCap `00`); the PICC answers E(K, RndB)
/// with `91 AF`. Part 2: the PCD sends E(K, RndA ‖ RndB') (RndB' = RndB rotated left by one
/// byte); the PICC checks RndB' and answers, in First, E(K, TI ‖ RndA' ‖ PDcap2 ‖ PCDcap2),
/// in NonFirst E(K, RndA'). Encryption is AES-128-CBC with a zero IV.
public enum EV2Authentication {
    /// The data of part 1: `KeyNo ‖ LenCap 00` (First) or `KeyNo` (NonFirst).
    public static func part1Data(keyNumber: UInt8, first: Bool) -> [UInt8] { first ? [keyNumber, 0x00] : [keyNumber] }

    /// `bytes` rotated left by one byte (RndB' from RndB, RndA' from RndA).
    public static func rotateLeft(_ bytes: [UInt8]) -> [UInt8] { bytes.isEmpty ? bytes : Array(bytes.dropFirst()) + [bytes[0]] }

    /// The host's part 2: decrypts RndB from the chip's challenge and answers E(K, RndA ‖ RndB').
    /// - Throws: ``NTAG424Error`` `malformed` for a challenge that is not 16 bytes,
    ///   `invalidParameter` for a key or RndA of the wrong length.
    public static func answerChallenge(key: [UInt8], encryptedRndB: [UInt8], rndA: [UInt8]) throws(NTAG424Error) -> (part2: [UInt8], rndB: [UInt8]) {
        guard key.count == NTAG424.keyLength, rndA.count == 16 else { throw NTAG424Error(.invalidParameter, "a 16-byte key and RndA are needed") }
        guard encryptedRndB.count == 16 else {
            throw NTAG424Error(.malformed, at: encryptedRndB.count, "the authentication challenge has \(encryptedRndB.count) bytes, not 16")
        }
        let zero = Bytes([UInt8](repeating: 0, count: 16))
        let rndB = try AESOps.decryptCBC(key: Bytes(key), iv: zero, Bytes(encryptedRndB))
        let part2 = try AESOps.encryptCBC(key: Bytes(key), iv: zero, Bytes(rndA + rotateLeft(rndB)))
        return (part2, rndB)
    }

    /// The host's last step of AuthenticateEV2First: decrypts TI ‖ RndA' ‖ PDcap2 ‖ PCDcap2,
    /// checks RndA' and derives the session (CmdCtr 0).
    /// - Throws: ``NTAG424Error`` `authenticationFailed` when RndA' is not RndA rotated (the chip
    ///   does not hold the key), `malformed` for an answer that is not 32 bytes.
    public static func finishFirst(key: [UInt8], keyNumber: UInt8, rndA: [UInt8], rndB: [UInt8], response: [UInt8]) throws(NTAG424Error)
        -> (session: EV2Session, pdCap2: [UInt8], pcdCap2: [UInt8])
    {
        guard response.count == 32 else { throw NTAG424Error(.malformed, at: response.count, "AuthenticateEV2First part 2 answered \(response.count) bytes, not 32") }
        let plain = try AESOps.decryptCBC(key: Bytes(key), iv: Bytes([UInt8](repeating: 0, count: 16)), Bytes(response))
        guard Array(plain[4..<20]) == rotateLeft(rndA) else {
            throw NTAG424Error(.authenticationFailed, at: 4, "the chip's RndA' does not match: it does not hold key \(keyNumber)")
        }
        let keys = try EV2Session.deriveKeys(key: key, rndA: rndA, rndB: rndB)
        let session = try EV2Session(keyNumber: keyNumber, transactionIdentifier: Array(plain[0..<4]), encryptionKey: keys.encryption, macKey: keys.mac)
        return (session, Array(plain[20..<26]), Array(plain[26..<32]))
    }

    /// The host's last step of AuthenticateEV2NonFirst: checks E(K, RndA') and derives new
    /// session keys, keeping the TI and command counter of `previous`.
    /// - Throws: as ``finishFirst(key:keyNumber:rndA:rndB:response:)``, for a 16-byte answer.
    public static func finishNonFirst(key: [UInt8], keyNumber: UInt8, rndA: [UInt8], rndB: [UInt8], response: [UInt8], previous: EV2Session)
        throws(NTAG424Error) -> EV2Session
    {
        guard response.count == 16 else { throw NTAG424Error(.malformed, at: response.count, "AuthenticateEV2NonFirst part 2 answered \(response.count) bytes, not 16") }
        let plain = try AESOps.decryptCBC(key: Bytes(key), iv: Bytes([UInt8](repeating: 0, count: 16)), Bytes(response))
        guard plain == rotateLeft(rndA) else {
            throw NTAG424Error(.authenticationFailed, at: 0, "the chip's RndA' does not match: it does not hold key \(keyNumber)")
        }
        let keys = try EV2Session.deriveKeys(key: key, rndA: rndA, rndB: rndB)
        return try EV2Session(
            keyNumber: keyNumber, transactionIdentifier: previous.transactionIdentifier, encryptionKey: keys.encryption, macKey: keys.mac,
            commandCounter: previous.commandCounter)
    }

    // MARK: Chip side

    /// The chip's part 1 answer: E(K, RndB).
    public static func challenge(key: [UInt8], rndB: [UInt8]) throws(NTAG424Error) -> [UInt8] {
        try AESOps.encryptCBC(key: Bytes(key), iv: Bytes([UInt8](repeating: 0, count: 16)), Bytes(rndB))
    }

    /// The chip's check of part 2: decrypts RndA ‖ RndB' and returns RndA when RndB' is right.
    /// - Throws: `7E` LENGTH_ERROR for data that is not 32 bytes, `AE` AUTHENTICATION_ERROR
    ///   when RndB' is wrong (the PCD used another key).
    public static func checkAnswer(key: [UInt8], rndB: [UInt8], part2: [UInt8]) throws(NTAG424Status) -> [UInt8] {
        guard part2.count == 32 else { throw .lengthError }
        guard let plain = try? AES128.decryptCBC(key: Bytes(key), iv: Bytes([UInt8](repeating: 0, count: 16)), Bytes(part2)).array,
              Array(plain[16..<32]) == rotateLeft(rndB)
        else { throw .authenticationError }
        return Array(plain[0..<16])
    }

    /// The chip's part 2 answer: E(K, TI ‖ RndA' ‖ PDcap2 ‖ PCDcap2) in First (capabilities
    /// zero), E(K, RndA') in NonFirst (`transactionIdentifier` nil).
    public static func confirmation(key: [UInt8], rndA: [UInt8], transactionIdentifier: [UInt8]?) throws(NTAG424Error) -> [UInt8] {
        let plain: [UInt8]
        if let transactionIdentifier {
            plain = transactionIdentifier + rotateLeft(rndA) + [UInt8](repeating: 0, count: 2 * NTAG424.capabilitiesLength)
        } else {
            plain = rotateLeft(rndA)
        }
        return try AESOps.encryptCBC(key: Bytes(key), iv: Bytes([UInt8](repeating: 0, count: 16)), Bytes(plain))
    }
}

/// libcrypto's AES through ``AES128``, its errors as ``NTAG424Error`` `crypto`.
enum AESOps {
    static func encryptECB(key: Bytes, _ data: Bytes) throws(NTAG424Error) -> [UInt8] {
        do { return try AES128.encryptECB(key: key, data).array } catch { throw NTAG424Error(.crypto, "AES failed: \(error)") }
    }
    static func encryptCBC(key: Bytes, iv: Bytes, _ data: Bytes) throws(NTAG424Error) -> [UInt8] {
        do { return try AES128.encryptCBC(key: key, iv: iv, data).array } catch { throw NTAG424Error(.crypto, "AES failed: \(error)") }
    }
    static func decryptCBC(key: Bytes, iv: Bytes, _ data: Bytes) throws(NTAG424Error) -> [UInt8] {
        do { return try AES128.decryptCBC(key: key, iv: iv, data).array } catch { throw NTAG424Error(.crypto, "AES failed: \(error)") }
    }
    static func cmac(key: Bytes, _ data: Bytes) throws(NTAG424Error) -> [UInt8] {
        do { return try AES128.cmac(key: key, data).array } catch { throw NTAG424Error(.crypto, "CMAC failed: \(error)") }
    }
}
