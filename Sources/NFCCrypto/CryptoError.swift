/// Why a cryptographic operation failed.
///
/// ``code`` is stable: match on it. ``reason`` is for people; when libcrypto refused, it carries
/// libcrypto's own message (`ERR_error_string_n`).
public struct CryptoError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a stable name users can match on.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// The public key is not a point of the curve in SEC 1 encoding (`04 X Y` uncompressed,
        /// `02/03 X` compressed) of the curve's length.
        case invalidPublicKey
        /// The signature is not `r ‖ s` of twice the curve's field length, or `r`/`s` cannot be
        /// turned into a DER `ECDSA-Sig-Value`.
        case invalidSignature
        /// A symmetric key of the wrong length (AES-128: 16 bytes).
        case invalidKey
        /// Data a cipher cannot take: not whole blocks (no padding is added), an IV of the wrong
        /// length.
        case invalidInput
        /// libcrypto does not know the curve (a build of OpenSSL without it).
        case unknownCurve
        /// libcrypto failed in a way the input does not explain (allocation, provider loading).
        case library
    }

    /// What went wrong.
    public let code: Code
    /// A sentence for people.
    public let reason: String

    /// Creates an error.
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    /// `code: reason`.
    public var description: String { "\(code.rawValue): \(reason)" }
}
