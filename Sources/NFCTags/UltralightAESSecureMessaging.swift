import NFCCore
import NFCCrypto

/// MIFARE Ultralight AES secure messaging (SEC_MSG_ACT, CFG0 byte 0 bit 1): after a mutual
/// authentication, every command and every answer carries an 8-byte MAC under a session key.
///
/// As two independent open implementations that cite NXP's data sheet MF0AES(H)20 and AN13452
/// agree (Proxmark3's `armsrc/mifareutil.c` and `cmac_calc.c`; StuStaPay's
/// `MifareUltralightAESCrypto.kt` and `MifareUltralightAESCommands.kt`):
///
/// - Session key = AES-CMAC under the authenticated key of the 32-byte session vector
///   `5A A5 00 01 00 80` ‖ RndA[0–1] ‖ (RndA[2–7] ⊕ RndB[0–5]) ‖ RndB[6–15] ‖ RndA[8–15]
///   (NIST SP 800-108 counter mode, one block; RndA/RndB in the order sent).
/// - MAC(x) = the 8 odd-indexed bytes (1, 3, …, 15) of AES-CMAC under the session key of
///   counter (2 bytes, least significant first) ‖ x.
/// - The counter starts at 0 after the authentication; a command is sent as `cmd ‖ MAC(cmd)`
///   with the counter, the answer comes as `data ‖ MAC(data)` with the counter + 1 (a WRITE's
///   answer is the MAC alone, over nothing but the counter), so each exchange adds 2.
///
/// Pure apart from the counter it keeps: a test replays StuStaPay's worked value and checks
/// every CMAC against `openssl mac`.
public struct UltralightAESSecureMessaging: Sendable, Hashable, CustomStringConvertible {
    /// The size of the MAC a command or answer carries: 8 bytes.
    public static let macSize = 8
    /// The session vector's fixed start: label `5A A5`, counter `00 01`, length `00 80` (128 bits).
    public static let sessionVectorPrefix: [UInt8] = [0x5A, 0xA5, 0x00, 0x01, 0x00, 0x80]

    /// The session key (16 bytes); never shown in ``description``.
    public let sessionKey: [UInt8]
    /// The counter the next command is MACed with.
    public private(set) var counter: UInt16

    /// The session after an authentication with `key` in which the reader sent `rndA` and the
    /// chip `rndB` (16 bytes each).
    /// - Throws: ``NFCTagError/Code/invalidParameter`` for a RndA or RndB of another size.
    public init(key: UltralightAESKey, rndA: [UInt8], rndB: [UInt8]) throws(NFCTagError) {
        sessionKey = try Self.cmac(key: key.bytes, try Self.sessionVector(rndA: rndA, rndB: rndB))
        counter = 0
    }

    /// The 32-byte session vector for `rndA` and `rndB`.
    /// - Throws: ``NFCTagError/Code/invalidParameter`` unless both have 16 bytes.
    public static func sessionVector(rndA: [UInt8], rndB: [UInt8]) throws(NFCTagError) -> [UInt8] {
        guard rndA.count == 16, rndB.count == 16 else {
            throw NFCTagError(.invalidParameter, "RndA and RndB have 16 bytes each, not \(rndA.count) and \(rndB.count)")
        }
        let mixed = (0..<6).map { rndA[2 + $0] ^ rndB[$0] }
        return sessionVectorPrefix + rndA[0..<2] + mixed + rndB[6..<16] + rndA[8..<16]
    }

    /// MAC(`data`) with `counter`: the odd-indexed bytes of CMAC(counter LE ‖ data).
    /// - Throws: ``NFCTagError/Code/invalidParameter`` when the CMAC cannot be computed.
    public static func mac(sessionKey: [UInt8], counter: UInt16, _ data: [UInt8]) throws(NFCTagError) -> [UInt8] {
        let full = try cmac(key: sessionKey, [UInt8(counter & 0xFF), UInt8(counter >> 8)] + data)
        return stride(from: 1, to: 16, by: 2).map { full[$0] }
    }

    /// `command` with its MAC appended; the counter moves on by one.
    /// - Throws: ``NFCTagError/Code/invalidParameter`` when the CMAC cannot be computed, or the
    ///   counter is exhausted.
    public mutating func protect(_ command: [UInt8]) throws(NFCTagError) -> [UInt8] {
        let mac = try Self.mac(sessionKey: sessionKey, counter: counter, command)
        try advance()
        return command + mac
    }

    /// The data of an answer whose last 8 bytes are its MAC, checked; the counter moves on by
    /// one.
    /// - Throws: ``NFCTagError/Code/tagResponse`` for an answer shorter than a MAC,
    ///   `authenticationFailed` when the MAC is wrong (the answer was altered, or the chip does
    ///   not hold the session).
    public mutating func open(_ answer: [UInt8]) throws(NFCTagError) -> [UInt8] {
        guard answer.count >= Self.macSize else {
            throw NFCTagError(.tagResponse, "a secure-messaging answer has at least its 8-byte MAC, not \(answer.count) bytes")
        }
        let data = Array(answer.dropLast(Self.macSize))
        let expected = try Self.mac(sessionKey: sessionKey, counter: counter, data)
        try advance()
        guard expected == Array(answer.suffix(Self.macSize)) else {
            throw NFCTagError(.authenticationFailed, "the answer's MAC is wrong: it was altered, or the tag does not share the session")
        }
        return data
    }

    /// `UltralightAESSecureMessaging(counter: N, key redacted)`.
    public var description: String { "UltralightAESSecureMessaging(counter: \(counter), key redacted)" }

    private mutating func advance() throws(NFCTagError) {
        guard counter < UInt16.max else {
            throw NFCTagError(.invalidParameter, "the secure-messaging counter is exhausted: authenticate again")
        }
        counter += 1
    }

    static func cmac(key: [UInt8], _ message: [UInt8]) throws(NFCTagError) -> [UInt8] {
        do {
            return try AES128.cmac(key: Bytes(key), Bytes(message)).array
        } catch {
            throw NFCTagError(.invalidParameter, "AES-CMAC failed: \(error.reason)")
        }
    }
}
