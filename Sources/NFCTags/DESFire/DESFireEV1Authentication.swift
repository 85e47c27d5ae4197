import NFCCore
import NFCCrypto

/// The EV1 authentications of MIFARE DESFire, both sides (the host, ``DESFireTag``, and the
/// virtual chip run the same code): AuthenticateISO (`1A`, DES / 2K3DES / 3K3DES keys) and
/// AuthenticateAES (`AA`), as libfreefare's `mifare_desfire_authenticate` and Proxmark3's
/// `DesfireAuthenticate` implement them and NXP's forum answers describe them:
///
/// 1. The chip sends `E(RndB)`: CBC from a zero IV.
/// 2. The host deciphers it (CBC, zero IV), chooses RndA and sends `E(RndA ‖ RotL(RndB))`,
///    CBC with the IV carried on from step 1 (the last block it received).
/// 3. The chip checks RotL(RndB) and answers `E(RotL(RndA))`, CBC with the IV carried on from
///    step 2 (the last block it received).
///
/// Every encipherment "sends" (enciphers, unlike the legacy `0A` that deciphers) and the IV
/// chains through all three steps. RndA and RndB have 8 bytes for DES / 2K3DES and 16 for 3K3DES
/// and AES. The session that follows (``DESFireEV1Session``) starts from a zero IV.
public enum DESFireEV1Authentication {
    /// The command code for a key type: `AA` for AES, `1A` for the DES family.
    public static func command(for type: DESFireKey.KeyType) -> UInt8 {
        type == .aes ? DESFire.Command.authenticateAES : DESFire.Command.authenticateISO
    }

    // MARK: Chip side

    /// Step 1: `E(RndB)` and the IV after it.
    /// - Throws: ``DESFireError`` `invalidParameter` (RndB's length), `crypto`.
    public static func challenge(key: DESFireKey, rndB: [UInt8]) throws(DESFireError) -> (challenge: [UInt8], iv: [UInt8]) {
        guard rndB.count == key.type.randomLength else { throw DESFireError(.invalidParameter, "RndB has \(key.type.randomLength) bytes") }
        let challenge = try DESFireCipher.encrypt(key, iv: DESFireCipher.zeroIV(key), rndB)
        return (challenge, DESFireCipher.lastBlock(key, challenge))
    }

    /// Step 3 on the chip: checks RotL(RndB) in the host's answer and returns RndA and the
    /// confirmation `E(RotL(RndA))`.
    /// - Throws: ``DESFireError`` `authenticationFailed` (RndB did not come back: another key),
    ///   `invalidParameter` (lengths), `crypto`.
    public static func checkAnswer(key: DESFireKey, rndB: [UInt8], iv: [UInt8], part2: [UInt8]) throws(DESFireError) -> (rndA: [UInt8], confirmation: [UInt8]) {
        let length = key.type.randomLength
        guard part2.count == 2 * length else { throw DESFireError(.invalidParameter, "the answer has \(2 * length) bytes, got \(part2.count)") }
        let plain = try DESFireCipher.decrypt(key, iv: iv, part2)
        guard Array(plain[length...]) == DESFireLegacyAuthentication.rotateLeft(rndB) else {
            throw DESFireError(.authenticationFailed, "RndB did not come back: wrong key")
        }
        let rndA = Array(plain[..<length])
        let confirmation = try DESFireCipher.encrypt(key, iv: DESFireCipher.lastBlock(key, part2), DESFireLegacyAuthentication.rotateLeft(rndA))
        return (rndA, confirmation)
    }

    // MARK: Host side

    /// Step 2: the host's answer to `challenge` with its `rndA`, and RndB.
    /// - Throws: ``DESFireError`` `invalidParameter` (lengths), `crypto`.
    public static func answer(key: DESFireKey, challenge: [UInt8], rndA: [UInt8]) throws(DESFireError) -> (part2: [UInt8], rndB: [UInt8]) {
        let length = key.type.randomLength
        guard challenge.count == length, rndA.count == length else {
            throw DESFireError(.invalidParameter, "the challenge and RndA have \(length) bytes for a \(key.type.rawValue.uppercased()) key")
        }
        let rndB = try DESFireCipher.decrypt(key, iv: DESFireCipher.zeroIV(key), challenge)
        let part2 = try DESFireCipher.encrypt(key, iv: DESFireCipher.lastBlock(key, challenge), rndA + DESFireLegacyAuthentication.rotateLeft(rndB))
        return (part2, rndB)
    }

    /// Checks the chip's confirmation of RndA (CBC from the last block the host sent).
    /// - Throws: ``DESFireError`` `authenticationFailed` when it does not hold RotL(RndA),
    ///   `invalidParameter`, `crypto`.
    public static func verify(key: DESFireKey, rndA: [UInt8], part2: [UInt8], confirmation: [UInt8]) throws(DESFireError) {
        guard confirmation.count == key.type.randomLength else {
            throw DESFireError(.invalidParameter, "the confirmation has \(key.type.randomLength) bytes, got \(confirmation.count)")
        }
        guard try DESFireCipher.decrypt(key, iv: DESFireCipher.lastBlock(key, part2), confirmation) == DESFireLegacyAuthentication.rotateLeft(rndA) else {
            throw DESFireError(.authenticationFailed, "the chip's confirmation does not hold RndA: not the chip that holds the key")
        }
    }

    // MARK: Session key

    /// The session key, as libfreefare's `mifare_desfire_session_key_new` builds it:
    /// DES `RndA[0..<4] ‖ RndB[0..<4]`; 2K3DES that and `RndA[4..<8] ‖ RndB[4..<8]`; 3K3DES
    /// `RndA[0..<4] ‖ RndB[0..<4] ‖ RndA[6..<10] ‖ RndB[6..<10] ‖ RndA[12..<16] ‖ RndB[12..<16]`;
    /// AES `RndA[0..<4] ‖ RndB[0..<4] ‖ RndA[12..<16] ‖ RndB[12..<16]`.
    /// - Throws: ``DESFireError`` `invalidParameter` for random lengths that do not fit the key.
    public static func sessionKey(key: DESFireKey, rndA: [UInt8], rndB: [UInt8]) throws(DESFireError) -> DESFireKey {
        guard rndA.count == key.type.randomLength, rndB.count == key.type.randomLength else {
            throw DESFireError(.invalidParameter, "RndA and RndB have \(key.type.randomLength) bytes")
        }
        func part(_ range: Range<Int>) -> [UInt8] { Array(rndA[range]) + Array(rndB[range]) }
        switch key.type {
        case .des: return try DESFireKey(.des, part(0..<4))
        case .tripleDES2K:
            // A 2K3DES key with equal halves is a DES key: its session key is DES too.
            if key.bytes[0..<8] == key.bytes[8..<16] { return try DESFireKey(.des, part(0..<4)) }
            return try DESFireKey(.tripleDES2K, part(0..<4) + part(4..<8))
        case .tripleDES3K: return try DESFireKey(.tripleDES3K, part(0..<4) + part(6..<10) + part(12..<16))
        case .aes: return try DESFireKey(.aes, part(0..<4) + part(12..<16))
        }
    }
}

/// The block ciphers a DESFire key drives: AES-128 or 3DES (DES doubled, 2K3DES, 3K3DES) in CBC
/// from a given IV, and the CMAC (NIST SP 800-38B) with a starting IV, as EV1 secure messaging
/// chains it.
public enum DESFireCipher {
    /// An all-zero IV of the key's block length.
    public static func zeroIV(_ key: DESFireKey) -> [UInt8] { [UInt8](repeating: 0, count: key.type.blockLength) }

    /// The last block of `bytes` (the next IV in CBC chaining); zeros when shorter than a block.
    public static func lastBlock(_ key: DESFireKey, _ bytes: [UInt8]) -> [UInt8] {
        bytes.count >= key.type.blockLength ? Array(bytes.suffix(key.type.blockLength)) : zeroIV(key)
    }

    /// `data` (whole blocks) enciphered in CBC from `iv`.
    /// - Throws: ``DESFireError`` `invalidParameter` (not whole blocks), `crypto`.
    public static func encrypt(_ key: DESFireKey, iv: [UInt8], _ data: [UInt8]) throws(DESFireError) -> [UInt8] {
        try run(key, iv: iv, data, encrypt: true)
    }

    /// `data` (whole blocks) deciphered in CBC from `iv`.
    /// - Throws: as ``encrypt(_:iv:_:)``.
    public static func decrypt(_ key: DESFireKey, iv: [UInt8], _ data: [UInt8]) throws(DESFireError) -> [UInt8] {
        try run(key, iv: iv, data, encrypt: false)
    }

    /// The CMAC of `message` (a whole block) with the CBC chain started from `iv` rather than
    /// zeros: with a zero IV, NIST SP 800-38B's CMAC (AES: Rb `87`; 3DES: Rb `1B`).
    /// - Throws: ``DESFireError`` `crypto`, `invalidParameter`.
    public static func cmac(_ key: DESFireKey, iv: [UInt8], _ message: [UInt8]) throws(DESFireError) -> [UInt8] {
        let length = key.type.blockLength
        let (k1, k2) = try subkeys(key)
        var padded = message
        let whole = !message.isEmpty && message.count % length == 0
        if !whole {
            padded.append(0x80)
            padded += [UInt8](repeating: 0, count: (length - padded.count % length) % length)
        }
        let subkey = whole ? k1 : k2
        let last = padded.count - length
        for index in 0..<length { padded[last + index] ^= subkey[index] }
        return lastBlock(key, try encrypt(key, iv: iv, padded))
    }

    /// The CMAC subkeys K1 and K2 of `key` (NIST SP 800-38B 6.1).
    /// - Throws: ``DESFireError`` `crypto`.
    public static func subkeys(_ key: DESFireKey) throws(DESFireError) -> (k1: [UInt8], k2: [UInt8]) {
        let rb: UInt8 = key.type.blockLength == 16 ? 0x87 : 0x1B
        func double(_ block: [UInt8]) -> [UInt8] {
            var out = [UInt8](repeating: 0, count: block.count)
            for index in block.indices {
                out[index] = block[index] << 1 | (index + 1 < block.count ? block[index + 1] >> 7 : 0)
            }
            if block[0] & 0x80 != 0 { out[out.count - 1] ^= rb }
            return out
        }
        let l = try encrypt(key, iv: zeroIV(key), zeroIV(key))
        let k1 = double(l)
        return (k1, double(k1))
    }

    /// The CRC32 DESFire EV1 appends to enciphered data (libfreefare's `desfire_crc32`): the
    /// IEEE 802.3 polynomial, reflected, initial value FFFFFFFFh and no final inversion (so the
    /// complement of zlib's `crc32`), least significant byte first.
    public static func crc32(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return [UInt8(crc & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8((crc >> 16) & 0xFF), UInt8(crc >> 24)]
    }

    private static func run(_ key: DESFireKey, iv: [UInt8], _ data: [UInt8], encrypt: Bool) throws(DESFireError) -> [UInt8] {
        guard data.count % key.type.blockLength == 0, iv.count == key.type.blockLength else {
            throw DESFireError(.invalidParameter, "CBC needs whole \(key.type.blockLength)-byte blocks and an IV of one block")
        }
        do {
            switch (key.type, encrypt) {
            case (.aes, true): return try AES128.encryptCBC(key: Bytes(key.bytes), iv: Bytes(iv), Bytes(data)).array
            case (.aes, false): return try AES128.decryptCBC(key: Bytes(key.bytes), iv: Bytes(iv), Bytes(data)).array
            case (_, true): return try TripleDES.encryptCBC(key: Bytes(key.cipherKey), iv: Bytes(iv), Bytes(data)).array
            case (_, false): return try TripleDES.decryptCBC(key: Bytes(key.cipherKey), iv: Bytes(iv), Bytes(data)).array
            }
        } catch {
            throw DESFireError(.crypto, "\(key.type.rawValue.uppercased()): \(error)")
        }
    }
}
