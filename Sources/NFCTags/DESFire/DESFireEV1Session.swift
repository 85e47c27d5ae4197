import NFCCore

/// The secure messaging after an EV1 authentication (`1A` or `AA`), both sides, as libfreefare's
/// `mifare_cryto_preprocess_data` / `postprocess_data` run it in its "new" scheme and the public
/// DESFire EV1 communication examples (Elmue's, on Stack Overflow) show it:
///
/// - One IV, zeros after the authentication, carried through every command: each CMAC and
///   each encipherment starts from it and leaves its last block in it.
/// - A plain command: both sides run the CMAC over `command ‖ parameters` (not sent); a
///   successful answer carries the first 8 bytes of the CMAC over `data ‖ 00`.
/// - An enciphered command: `header` in clear, then `data ‖ CRC32(command ‖ header ‖ data)`,
///   zero-padded to whole blocks, CBC-enciphered; the answer carries a CMAC as above.
///
/// A failure status, SelectApplication, or changing the key authenticated with ends it.
public struct DESFireEV1Session: Sendable, Hashable, CustomStringConvertible {
    /// The key number authenticated with.
    public let keyNumber: UInt8
    /// The session key.
    public let key: DESFireKey
    /// The IV now.
    public private(set) var iv: [UInt8]
    /// Whether a write plan answers this session's writes (`--plan`): a plan's `91 00` carries
    /// no MAC (it holds no key), so an empty successful answer is taken as it is. Off for a chip.
    public var plannedWrites = false
    /// The length of the MAC an answer carries: 8.
    public static let macLength = 8

    /// A fresh session: zero IV.
    public init(keyNumber: UInt8, key: DESFireKey) {
        self.keyNumber = keyNumber
        self.key = key
        iv = DESFireCipher.zeroIV(key)
    }

    /// Names the key number and type, never the key.
    public var description: String { "DESFireEV1Session(key \(keyNumber), \(key.type.rawValue))" }

    /// Runs the CMAC over a plain command's bytes (`command ‖ parameters`): the IV moves on.
    /// - Throws: ``DESFireError`` `crypto`.
    public mutating func absorbCommand(_ bytes: [UInt8]) throws(DESFireError) {
        iv = try DESFireCipher.cmac(key, iv: iv, bytes)
    }

    /// The chip's answer to a successful command: `data` and the first 8 bytes of the CMAC
    /// over `data ‖ 00`.
    /// - Throws: ``DESFireError`` `crypto`.
    public mutating func macAnswer(_ data: [UInt8]) throws(DESFireError) -> [UInt8] {
        iv = try DESFireCipher.cmac(key, iv: iv, data + [DESFire.Status.ok.rawValue])
        return data + iv.prefix(Self.macLength)
    }

    /// The host's check of a successful answer: the data without its MAC.
    /// - Throws: ``DESFireError`` `malformed` (shorter than a MAC), `authenticationFailed`
    ///   (the MAC does not match: not the session's chip, or the data changed on the way).
    public mutating func verifyAnswer(_ answer: [UInt8]) throws(DESFireError) -> [UInt8] {
        guard answer.count >= Self.macLength else {
            throw DESFireError(.malformed, "the answer has \(answer.count) bytes, no room for its 8-byte CMAC")
        }
        let data = Array(answer.dropLast(Self.macLength))
        let mac = try DESFireCipher.cmac(key, iv: iv, data + [DESFire.Status.ok.rawValue])
        guard Array(mac.prefix(Self.macLength)) == Array(answer.suffix(Self.macLength)) else {
            throw DESFireError(.authenticationFailed, "the answer's CMAC does not match the session's")
        }
        iv = mac
        return data
    }

    /// `command ‖ header` in clear is not part of the result: `data ‖ CRC32(command ‖ header ‖
    /// data)`, zero-padded, enciphered (CBC from the IV).
    /// - Throws: ``DESFireError`` `crypto`.
    public mutating func encipher(command: UInt8, header: [UInt8], _ data: [UInt8]) throws(DESFireError) -> [UInt8] {
        try encipherBlocks(data + DESFireCipher.crc32([command] + header + data))
    }

    /// `plain` zero-padded to whole blocks and enciphered (CBC from the IV), no CRC added:
    /// ChangeKey builds its own.
    /// - Throws: ``DESFireError`` `crypto`.
    public mutating func encipherBlocks(_ plain: [UInt8]) throws(DESFireError) -> [UInt8] {
        let length = key.type.blockLength
        let padded = plain + [UInt8](repeating: 0, count: (length - plain.count % length) % length)
        let out = try DESFireCipher.encrypt(key, iv: iv, padded)
        iv = DESFireCipher.lastBlock(key, out)
        return out
    }

    /// The chip's side of ``encipherBlocks(_:)``: the padded plain text.
    /// - Throws: ``DESFireError`` `invalidParameter` (not whole blocks), `crypto`.
    public mutating func decipherBlocks(_ bytes: [UInt8]) throws(DESFireError) -> [UInt8] {
        guard !bytes.isEmpty else { throw DESFireError(.invalidParameter, "no enciphered data") }
        let plain = try DESFireCipher.decrypt(key, iv: iv, bytes)
        iv = DESFireCipher.lastBlock(key, bytes)
        return plain
    }

    /// The chip's side of ``encipher(command:header:_:)``: the `length` data bytes, after
    /// checking the CRC32 and that the padding is zeros.
    /// - Throws: ``DESFireError`` `authenticationFailed` (an integrity error), `invalidParameter`.
    public mutating func decipher(command: UInt8, header: [UInt8], _ bytes: [UInt8], length: Int) throws(DESFireError) -> [UInt8] {
        let plain = try decipherBlocks(bytes)
        guard length >= 0, plain.count >= length + 4 else { throw DESFireError(.invalidParameter, "the enciphered field is too short for \(length) bytes and a CRC32") }
        let data = Array(plain[..<length])
        guard Array(plain[length..<(length + 4)]) == DESFireCipher.crc32([command] + header + data), plain[(length + 4)...].allSatisfy({ $0 == 0 }) else {
            throw DESFireError(.authenticationFailed, "the enciphered data's CRC32 does not match: not the session key")
        }
        return data
    }
}

/// Who is authenticated on the host side after ``DESFireTag/authenticate(keyNumber:key:ev2:random:)``:
/// a legacy session (`0A`: its key enciphers in the legacy scheme, answers carry no MAC), an
/// EV1 one (``DESFireEV1Session``) or an EV2 one (``EV2Session``, the code NTAG 424 DNA uses;
/// ``DESFireEV2Messaging`` says which command travels how).
public enum DESFireSession: Sendable, Hashable, CustomStringConvertible {
    /// After the legacy `0A`: the session key and the key number.
    case legacy(keyNumber: UInt8, sessionKey: [UInt8])
    /// After `1A` or `AA`.
    case ev1(DESFireEV1Session)
    /// After AuthenticateEV2First (`71`). `plannedWrites`: a write plan (`--plan`) answers the
    /// writes, so an empty successful answer is taken without its MAC (the plan holds no key).
    case ev2(EV2Session, plannedWrites: Bool = false)

    /// The key number authenticated with.
    public var keyNumber: UInt8 {
        switch self {
        case .legacy(let number, _): number
        case .ev1(let session): session.keyNumber
        case .ev2(let session, _): session.keyNumber
        }
    }

    /// Names the scheme and key number, never a key.
    public var description: String {
        switch self {
        case .legacy(let number, _): "DESFireSession(legacy, key \(number))"
        case .ev1(let session): session.description
        case .ev2(let session, _): "DESFireSession(EV2, key \(session.keyNumber), CmdCtr \(session.commandCounter))"
        }
    }

    /// The same session with write-plan answers taken without a MAC (EV1 and EV2; a legacy
    /// session checks no MAC anyway).
    public var planningWrites: DESFireSession {
        switch self {
        case .legacy: return self
        case .ev1(var session):
            session.plannedWrites = true
            return .ev1(session)
        case .ev2(let session, _): return .ev2(session, plannedWrites: true)
        }
    }
}
