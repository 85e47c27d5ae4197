import NFCCore
import NFCCrypto

/// The legacy DESFire authentication (native `0A`, DES and 2K3DES keys, 8-byte randoms) as the
/// public descriptions of the EV1 command set give it (libfreefare, nfcpy, Proxmark3), both
/// sides: the host (``DESFireTag``) and the virtual chip run the same code.
///
/// 1. The chip sends `E(RndB)`.
/// 2. The host recovers RndB, chooses RndA and sends `D(RndA) ‖ D(RotL(RndB) ⊕ D(RndA))`: the
///    legacy "send mode" deciphers, chaining the blocks CBC-wise.
/// 3. The chip enciphers both blocks back, checks RotL(RndB) and answers `E(RotL(RndA))`.
///
/// `E` and `D` are single-block 3DES with an all-zero IV each time; a single-DES key is the
/// 2K3DES key `K ‖ K`.
public enum DESFireLegacyAuthentication {
    /// The random and block length, 8 bytes.
    public static let randomLength = 8

    /// A key as 2K3DES: an 8-byte DES key doubled, a 16-byte key as it is.
    /// - Throws: ``DESFireError`` `invalidParameter` for another length.
    public static func tripleDESKey(_ key: [UInt8]) throws(DESFireError) -> [UInt8] {
        switch key.count {
        case 8: return key + key
        case 16: return key
        default: throw DESFireError(.invalidParameter, "a DES key has 8 bytes and a 2K3DES key 16, got \(key.count)")
        }
    }

    /// `bytes` rotated left by one byte.
    public static func rotateLeft(_ bytes: [UInt8]) -> [UInt8] {
        guard let first = bytes.first else { return bytes }
        return Array(bytes.dropFirst()) + [first]
    }

    // MARK: Chip side

    /// Step 1: `E(RndB)`.
    /// - Throws: ``DESFireError`` `invalidParameter` (key or random length), `crypto`.
    public static func challenge(key: [UInt8], rndB: [UInt8]) throws(DESFireError) -> [UInt8] {
        guard rndB.count == randomLength else { throw DESFireError(.invalidParameter, "RndB has 8 bytes") }
        return try encipher(key, rndB)
    }

    /// Step 3 on the chip: RndA from the host's 16 bytes, after checking RotL(RndB).
    /// - Throws: ``DESFireError`` `authenticationFailed` when RndB does not come back rotated,
    ///   `invalidParameter` for lengths, `crypto`.
    public static func checkAnswer(key: [UInt8], rndB: [UInt8], part2: [UInt8]) throws(DESFireError) -> [UInt8] {
        guard part2.count == 2 * randomLength else { throw DESFireError(.invalidParameter, "the answer has 16 bytes, got \(part2.count)") }
        let first = Array(part2[0..<8]), second = Array(part2[8..<16])
        let rndA = try encipher(key, first)
        let rotatedB = zip(try encipher(key, second), first).map { $0 ^ $1 }
        guard rotatedB == rotateLeft(rndB) else { throw DESFireError(.authenticationFailed, "RndB did not come back: wrong key") }
        return rndA
    }

    /// The chip's confirmation `E(RotL(RndA))`.
    /// - Throws: as ``challenge(key:rndB:)``.
    public static func confirmation(key: [UInt8], rndA: [UInt8]) throws(DESFireError) -> [UInt8] {
        guard rndA.count == randomLength else { throw DESFireError(.invalidParameter, "RndA has 8 bytes") }
        return try encipher(key, rotateLeft(rndA))
    }

    // MARK: Host side

    /// Step 2: the 16 bytes the host sends for the chip's `challenge` and its own `rndA`.
    /// - Throws: ``DESFireError`` `invalidParameter` (lengths), `crypto`.
    public static func answer(key: [UInt8], challenge: [UInt8], rndA: [UInt8]) throws(DESFireError) -> (part2: [UInt8], rndB: [UInt8]) {
        guard challenge.count == randomLength, rndA.count == randomLength else {
            throw DESFireError(.invalidParameter, "the challenge and RndA have 8 bytes")
        }
        let rndB = try decipher(key, challenge)
        let first = try decipher(key, rndA)
        let second = try decipher(key, zip(rotateLeft(rndB), first).map { $0 ^ $1 })
        return (first + second, rndB)
    }

    /// Checks the chip's confirmation: it proves the chip holds the key.
    /// - Throws: ``DESFireError`` `authenticationFailed` when RndA does not come back rotated,
    ///   `invalidParameter`, `crypto`.
    public static func verify(key: [UInt8], rndA: [UInt8], confirmation: [UInt8]) throws(DESFireError) {
        guard confirmation.count == randomLength else {
            throw DESFireError(.invalidParameter, "the confirmation has 8 bytes, got \(confirmation.count)")
        }
        guard try decipher(key, confirmation) == rotateLeft(rndA) else {
            throw DESFireError(.authenticationFailed, "the chip's confirmation does not hold RndA: not the chip that holds the key")
        }
    }

    // MARK: Session

    /// The session key after authentication, as libfreefare's `mifare_desfire_session_key_new`
    /// builds it: a DES key (8 bytes, or 16 with equal halves) gives `RndA[0..<4] ‖ RndB[0..<4]`;
    /// a 2K3DES key `RndA[0..<4] ‖ RndB[0..<4] ‖ RndA[4..<8] ‖ RndB[4..<8]`.
    /// - Throws: ``DESFireError`` `invalidParameter` for lengths.
    public static func sessionKey(key: [UInt8], rndA: [UInt8], rndB: [UInt8]) throws(DESFireError) -> [UInt8] {
        guard rndA.count == randomLength, rndB.count == randomLength else { throw DESFireError(.invalidParameter, "RndA and RndB have 8 bytes") }
        let tripleKey = try tripleDESKey(key)
        let single = Array(rndA[0..<4] + rndB[0..<4])
        return tripleKey[0..<8] == tripleKey[8..<16] ? single : single + Array(rndA[4..<8] + rndB[4..<8])
    }

    /// A command's data enciphered in the legacy scheme (libfreefare's `MDCM_ENCIPHERED` under
    /// `AS_LEGACY`): `data ‖ CRC_A(data)` (ISO/IEC 14443-3, low byte first), zero-padded to
    /// whole 8-byte blocks, then "send mode": each block XORed with the previous result and
    /// deciphered, starting from a zero IV.
    /// - Throws: ``DESFireError`` `invalidParameter` (key length), `crypto`.
    public static func encipherForSending(sessionKey: [UInt8], _ data: [UInt8]) throws(DESFireError) -> [UInt8] {
        try encipherBlocksForSending(sessionKey: sessionKey, data + ISO14443ACRC.bytes(of: data))
    }

    /// `plain` zero-padded to whole 8-byte blocks and enciphered in "send mode" (each block
    /// XORed with the previous result and deciphered, from a zero IV), no CRC added: ChangeKey
    /// builds its own.
    /// - Throws: ``DESFireError`` `invalidParameter` (key length), `crypto`.
    public static func encipherBlocksForSending(sessionKey: [UInt8], _ plain: [UInt8]) throws(DESFireError) -> [UInt8] {
        let plain = plain + [UInt8](repeating: 0, count: (randomLength - plain.count % randomLength) % randomLength)
        var previous = [UInt8](repeating: 0, count: randomLength), out: [UInt8] = []
        for start in stride(from: 0, to: plain.count, by: randomLength) {
            let block = try decipher(sessionKey, zip(plain[start..<(start + randomLength)], previous).map { $0 ^ $1 })
            out += block
            previous = block
        }
        return out
    }

    /// The chip's side of ``encipherForSending(sessionKey:_:)``: the `length` data bytes, after
    /// checking the CRC and that the padding is zeros.
    /// - Throws: ``DESFireError`` `authenticationFailed` (an integrity error: the CRC or
    ///   padding does not match), `invalidParameter` (lengths), `crypto`.
    public static func decipherReceived(sessionKey: [UInt8], _ bytes: [UInt8], length: Int) throws(DESFireError) -> [UInt8] {
        guard length >= 0, bytes.count == (length + 2 + randomLength - 1) / randomLength * randomLength else {
            throw DESFireError(.invalidParameter, "an enciphered field of \(length) data bytes has \((length + 2 + randomLength - 1) / randomLength * randomLength) bytes: the data, its CRC and zero padding to a whole block")
        }
        let plain = try decipherBlocksReceived(sessionKey: sessionKey, bytes)
        let data = Array(plain[0..<length])
        guard Array(plain[length..<(length + 2)]) == ISO14443ACRC.bytes(of: data), plain[(length + 2)...].allSatisfy({ $0 == 0 }) else {
            throw DESFireError(.authenticationFailed, "the enciphered data's CRC does not match: not the session key")
        }
        return data
    }

    /// The chip's side of ``encipherBlocksForSending(sessionKey:_:)``: the padded plain text.
    /// - Throws: ``DESFireError`` `invalidParameter` (not whole blocks, key length), `crypto`.
    public static func decipherBlocksReceived(sessionKey: [UInt8], _ bytes: [UInt8]) throws(DESFireError) -> [UInt8] {
        guard !bytes.isEmpty, bytes.count % randomLength == 0 else { throw DESFireError(.invalidParameter, "the enciphered field is not whole 8-byte blocks") }
        var previous = [UInt8](repeating: 0, count: randomLength), plain: [UInt8] = []
        for start in stride(from: 0, to: bytes.count, by: randomLength) {
            let block = Array(bytes[start..<(start + randomLength)])
            plain += zip(try encipher(sessionKey, block), previous).map { $0 ^ $1 }
            previous = block
        }
        return plain
    }

    private static let zeroIV = Bytes([UInt8](repeating: 0, count: 8))

    private static func encipher(_ key: [UInt8], _ block: [UInt8]) throws(DESFireError) -> [UInt8] {
        let tripleKey = try tripleDESKey(key)
        do { return try TripleDES.encryptCBC(key: Bytes(tripleKey), iv: zeroIV, Bytes(block)).array } catch {
            throw DESFireError(.crypto, "3DES: \(error)")
        }
    }

    private static func decipher(_ key: [UInt8], _ block: [UInt8]) throws(DESFireError) -> [UInt8] {
        let tripleKey = try tripleDESKey(key)
        do { return try TripleDES.decryptCBC(key: Bytes(tripleKey), iv: zeroIV, Bytes(block)).array } catch {
            throw DESFireError(.crypto, "3DES: \(error)")
        }
    }
}
