import NFCCrypto

/// SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104) for `{hmac:KEYFILE}` links and manifest
/// digests, from libcrypto through NFCCrypto (``SHA256Digest``).
public enum SHA256 {
    /// The 32-byte digest of `message`. libcrypto fails only where an allocation would (out of
    /// memory, its default provider missing); the process stops then, as it would on a failed
    /// allocation.
    public static func hash(_ message: [UInt8]) -> [UInt8] {
        do {
            return try SHA256Digest.hash(message)
        } catch {
            preconditionFailure("libcrypto cannot compute SHA-256: \(error)")
        }
    }

    /// HMAC-SHA-256 of `message` under `key` (RFC 2104; keys longer than 64 bytes are hashed).
    /// libcrypto fails only as ``hash(_:)`` says.
    public static func hmac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        do {
            return try SHA256Digest.hmac(key: key, message: message)
        } catch {
            preconditionFailure("libcrypto cannot compute HMAC-SHA-256: \(error)")
        }
    }
}
