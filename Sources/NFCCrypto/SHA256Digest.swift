/// SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104), from libcrypto.
public enum SHA256Digest {
    /// The digest's length in bytes.
    public static let byteCount = 32

    /// The 32-byte digest of `message`.
    /// - Throws: ``CryptoError/Code/library`` when libcrypto fails (out of memory, no provider).
    public static func hash(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard let digest = try libcryptoDigest("SHA256", message), digest.count == byteCount else {
            throw CryptoError(.library, "SHA-256 failed: \(libcryptoTakeErrors() ?? "libcrypto gave no digest")")
        }
        return digest
    }

    /// The 32-byte HMAC-SHA-256 of `message` under `key` (any length; keys longer than 64
    /// bytes are hashed first, as RFC 2104 says).
    /// - Throws: ``CryptoError/Code/library`` when libcrypto fails (out of memory, no provider).
    public static func hmac(key: [UInt8], message: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard let mac = try libcryptoHMAC(digest: "SHA256", key: key, message), mac.count == byteCount else {
            throw CryptoError(.library, "HMAC-SHA-256 failed: \(libcryptoTakeErrors() ?? "libcrypto gave no MAC")")
        }
        return mac
    }
}
