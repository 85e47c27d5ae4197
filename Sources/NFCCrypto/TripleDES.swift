public import NFCCore

/// Two-key Triple DES (TDEA keying option 2, NIST SP 800-67: encrypt with K1, decrypt with K2,
/// encrypt with K1) in CBC mode without padding, through libcrypto's `DES-EDE-CBC`: the cipher
/// of the MIFARE Ultralight C mutual authentication (MF0ICU2 datasheet 7.5.5), which calls it
/// ek() with the IV chained from the last ciphertext block. A 24-byte key is three-key Triple DES
/// (keying option 1, `DES-EDE3-CBC`), which MIFARE DESFire EV1 calls 3K3DES.
public enum TripleDES {
    /// The block size, 8 bytes.
    public static let blockSize = 8
    /// The key size, 16 bytes: K1 (bytes 0–7) then K2 (bytes 8–15).
    public static let keySize = 16
    /// The three-key size, 24 bytes: K1, K2, K3.
    public static let threeKeySize = 24

    /// `data` (whole 8-byte blocks) encrypted in CBC mode from `iv`.
    /// - Throws: ``CryptoError`` `invalidKey` for a key that is not 16 or 24 bytes, `invalidInput`
    ///   for data that is not whole blocks or an IV that is not 8 bytes; `library` when
    ///   libcrypto fails.
    public static func encryptCBC(key: Bytes, iv: Bytes, _ data: Bytes) throws(CryptoError) -> Bytes {
        try run(key: key, iv: iv, data: data, encrypt: true)
    }

    /// `data` (whole 8-byte blocks) decrypted in CBC mode from `iv`.
    /// - Throws: as ``encryptCBC(key:iv:_:)``.
    public static func decryptCBC(key: Bytes, iv: Bytes, _ data: Bytes) throws(CryptoError) -> Bytes {
        try run(key: key, iv: iv, data: data, encrypt: false)
    }

    private static func run(key: Bytes, iv: Bytes, data: Bytes, encrypt: Bool) throws(CryptoError) -> Bytes {
        guard key.count == keySize || key.count == threeKeySize else {
            throw CryptoError(.invalidKey, "a two-key 3DES key has 16 bytes and a three-key one 24, got \(key.count)")
        }
        let cipherName = key.count == keySize ? "DES-EDE-CBC" : "DES-EDE3-CBC"
        guard data.count % blockSize == 0 else {
            throw CryptoError(.invalidInput, "3DES without padding needs whole 8-byte blocks, got \(data.count) bytes")
        }
        guard iv.count == blockSize else { throw CryptoError(.invalidInput, "the IV has 8 bytes, got \(iv.count)") }
        guard let cipher = try libcryptoCipherFetch(cipherName) else {
            throw CryptoError(.library, "libcrypto has no \(cipherName): \(libcryptoTakeErrors() ?? "no reason given")")
        }
        defer { libcryptoCipherFree(cipher) }
        guard let context = libcryptoCipherContextNew() else { throw CryptoError(.library, "EVP_CIPHER_CTX_new failed") }
        defer { libcryptoCipherContextFree(context) }
        guard libcryptoCipherInit(context, cipher, key: key.array, iv: iv.array, encrypt: encrypt),
              libcryptoCipherDisablePadding(context),
              let body = libcryptoCipherUpdate(context, data.array), let tail = libcryptoCipherFinal(context)
        else {
            throw CryptoError(.library, "\(cipherName) failed: \(libcryptoTakeErrors() ?? "no reason given")")
        }
        return Bytes(body + tail)
    }
}
