public import NFCCore

/// AES-128 (FIPS 197) in ECB and CBC mode without padding, and AES-CMAC (NIST SP 800-38B),
/// through libcrypto: the primitives NTAG 424 DNA secure messaging and SUN build on (AN12196).
public enum AES128 {
    /// The key and block size, 16 bytes.
    public static let blockSize = 16

    /// `data` (whole blocks) encrypted block by block (ECB).
    /// - Throws: ``CryptoError`` `invalidKey` for a key that is not 16 bytes, `invalidInput`
    ///   for data that is not whole blocks; `library` when libcrypto fails.
    public static func encryptECB(key: Bytes, _ data: Bytes) throws(CryptoError) -> Bytes {
        try run("AES-128-ECB", key: key, iv: nil, data: data, encrypt: true)
    }

    /// `data` (whole blocks) decrypted block by block (ECB).
    /// - Throws: as ``encryptECB(key:_:)``.
    public static func decryptECB(key: Bytes, _ data: Bytes) throws(CryptoError) -> Bytes {
        try run("AES-128-ECB", key: key, iv: nil, data: data, encrypt: false)
    }

    /// `data` (whole blocks) encrypted in CBC mode from `iv`.
    /// - Throws: as ``encryptECB(key:_:)``, and `invalidInput` for an IV that is not 16 bytes.
    public static func encryptCBC(key: Bytes, iv: Bytes, _ data: Bytes) throws(CryptoError) -> Bytes {
        try run("AES-128-CBC", key: key, iv: iv, data: data, encrypt: true)
    }

    /// `data` (whole blocks) decrypted in CBC mode from `iv`.
    /// - Throws: as ``encryptCBC(key:iv:_:)``.
    public static func decryptCBC(key: Bytes, iv: Bytes, _ data: Bytes) throws(CryptoError) -> Bytes {
        try run("AES-128-CBC", key: key, iv: iv, data: data, encrypt: false)
    }

    /// The 16-byte AES-CMAC of `message` under `key` (NIST SP 800-38B).
    /// - Throws: ``CryptoError`` `invalidKey` for a key that is not 16 bytes; `library`.
    public static func cmac(key: Bytes, _ message: Bytes) throws(CryptoError) -> Bytes {
        try checkKey(key)
        guard let mac = try libcryptoMACFetch("CMAC") else { throw CryptoError(.library, "libcrypto has no CMAC: \(libcryptoTakeErrors() ?? "no reason given")") }
        defer { libcryptoMACFree(mac) }
        guard let context = libcryptoMACContextNew(mac) else { throw CryptoError(.library, "EVP_MAC_CTX_new failed") }
        defer { libcryptoMACContextFree(context) }
        guard libcryptoMACInit(context, key: key.array, cipherName: "AES-128-CBC"), libcryptoMACUpdate(context, message.array),
              let tag = libcryptoMACFinal(context), tag.count == blockSize
        else {
            throw CryptoError(.library, "CMAC failed: \(libcryptoTakeErrors() ?? "no reason given")")
        }
        return Bytes(tag)
    }

    private static func checkKey(_ key: Bytes) throws(CryptoError) {
        guard key.count == blockSize else { throw CryptoError(.invalidKey, "an AES-128 key has 16 bytes, got \(key.count)") }
    }

    private static func run(_ cipherName: String, key: Bytes, iv: Bytes?, data: Bytes, encrypt: Bool) throws(CryptoError) -> Bytes {
        try checkKey(key)
        guard data.count % blockSize == 0 else {
            throw CryptoError(.invalidInput, "AES without padding needs whole 16-byte blocks, got \(data.count) bytes")
        }
        if let iv, iv.count != blockSize { throw CryptoError(.invalidInput, "the IV has 16 bytes, got \(iv.count)") }
        guard let cipher = try libcryptoCipherFetch(cipherName) else {
            throw CryptoError(.library, "libcrypto has no \(cipherName): \(libcryptoTakeErrors() ?? "no reason given")")
        }
        defer { libcryptoCipherFree(cipher) }
        guard let context = libcryptoCipherContextNew() else { throw CryptoError(.library, "EVP_CIPHER_CTX_new failed") }
        defer { libcryptoCipherContextFree(context) }
        guard libcryptoCipherInit(context, cipher, key: key.array, iv: iv?.array, encrypt: encrypt),
              libcryptoCipherDisablePadding(context),
              let body = libcryptoCipherUpdate(context, data.array), let tail = libcryptoCipherFinal(context)
        else {
            throw CryptoError(.library, "\(cipherName) failed: \(libcryptoTakeErrors() ?? "no reason given")")
        }
        return Bytes(body + tail)
    }
}
