public import NFCCore

/// NXP AN10922 ("Symmetric key diversifications") AES-128 key diversification: a per-card key
/// derived from a master key and a diversification input (typically the card's UID, the
/// application identifier and a system identifier), so that a key read out of one card opens no
/// other. The diversified key is the CMAC of `01 ‖ M` under the master key, except that the
/// input is always padded to two blocks (CMAC would pad a short input to one):
///
/// 1. K0 = AES(K, 0¹²⁸); K1 and K2 are CMAC's subkeys (SP 800-38B 6.1) from K0.
/// 2. D = `01` ‖ M (M is 1 to 31 bytes).
/// 3. D shorter than 32 bytes: append `80 00 …` to 32 bytes and XOR K2 into the last block;
///    D of exactly 32 bytes: XOR K1 into the last block.
/// 4. The diversified key is the last block of AES-CBC(K, IV 0, D).
public enum AN10922 {
    /// The diversification constant for AES-128 keys.
    public static let aes128Constant: UInt8 = 0x01
    /// The longest diversification input M.
    public static let maximumInputLength = 31

    /// CMAC's subkeys of `key`: K0 = AES(key, 0), K1 = K0·x, K2 = K1·x in GF(2¹²⁸).
    /// - Throws: ``CryptoError`` `invalidKey`; `library`.
    public static func subkeys(key: Bytes) throws(CryptoError) -> (k0: Bytes, k1: Bytes, k2: Bytes) {
        let k0 = try AES128.encryptECB(key: key, Bytes([UInt8](repeating: 0, count: AES128.blockSize)))
        let k1 = double(k0)
        return (k0, k1, double(k1))
    }

    /// The AES-128 key diversified from `masterKey` with `input` (M).
    /// - Throws: ``CryptoError`` `invalidKey` for a master key that is not 16 bytes,
    ///   `invalidInput` for an input of 0 or more than 31 bytes; `library`.
    public static func diversifyAES128(masterKey: Bytes, input: Bytes) throws(CryptoError) -> Bytes {
        guard !input.isEmpty, input.count <= maximumInputLength else {
            throw CryptoError(.invalidInput, "an AN10922 diversification input has 1 to 31 bytes, got \(input.count)")
        }
        let (_, k1, k2) = try subkeys(key: masterKey)
        let length = 2 * AES128.blockSize
        var data = [aes128Constant] + input.array
        let subkey: Bytes
        if data.count < length {
            data.append(0x80)
            data += [UInt8](repeating: 0, count: length - data.count)
            subkey = k2
        } else {
            subkey = k1
        }
        for index in 0..<AES128.blockSize { data[AES128.blockSize + index] ^= subkey[index] }
        let encrypted = try AES128.encryptCBC(key: masterKey, iv: Bytes([UInt8](repeating: 0, count: AES128.blockSize)), Bytes(data))
        return encrypted[AES128.blockSize..<length]
    }

    /// The usual diversification input: UID ‖ application identifier ‖ system identifier
    /// (AN10922's example: a 7-byte UID, a 3-byte DESFire AID, an ASCII system name).
    public static func input(uid: Bytes, applicationID: Bytes = Bytes(), systemIdentifier: Bytes = Bytes()) -> Bytes {
        Bytes(uid.array + applicationID.array + systemIdentifier.array)
    }

    /// `block` shifted left by one bit, XOR `87` into the last byte when the top bit fell out.
    static func double(_ block: Bytes) -> Bytes {
        var out = [UInt8](repeating: 0, count: block.count)
        var carry: UInt8 = 0
        for index in stride(from: block.count - 1, through: 0, by: -1) {
            out[index] = block[index] << 1 | carry
            carry = block[index] >> 7
        }
        if carry != 0 { out[block.count - 1] ^= 0x87 }
        return Bytes(out)
    }
}
