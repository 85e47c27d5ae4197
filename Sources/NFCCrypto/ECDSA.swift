public import NFCCore

/// The elliptic curves of the NXP originality signatures (SEC 2, "Recommended Elliptic Curve
/// Domain Parameters", sections 2.3.1 and 2.6.2).
public enum EllipticCurve: String, Sendable, Hashable, CaseIterable, Codable {
    /// secp128r1: NTAG21x, MIFARE Ultralight EV1, MIFARE Classic EV1, ICODE SLIX2/DNA
    /// (32-byte signatures).
    case secp128r1
    /// secp192r1 (NIST P-192, OpenSSL's `prime192v1`): MIFARE Ultralight AES (48-byte
    /// signatures).
    case secp192r1
    /// secp224r1 (NIST P-224): NTAG 424 DNA, MIFARE DESFire EV2/EV3 (56-byte signatures).
    case secp224r1

    /// Bytes of a field element and of each of the signature's `r` and `s`: 16, 24 or 28.
    public var fieldLength: Int {
        switch self {
        case .secp128r1: 16
        case .secp192r1: 24
        case .secp224r1: 28
        }
    }

    /// Bytes of a raw `r ‖ s` signature: 32, 48 or 56.
    public var signatureLength: Int { 2 * fieldLength }

    /// Bytes of an uncompressed public point `04 ‖ X ‖ Y`: 33, 49 or 57.
    public var uncompressedPointLength: Int { 1 + 2 * fieldLength }

    /// The group name libcrypto knows the curve by: SEC 2's name, except P-192, which OpenSSL
    /// names `prime192v1` (X9.62) and does not accept as `secp192r1`.
    public var libcryptoName: String {
        self == .secp192r1 ? "prime192v1" : rawValue
    }
}

/// An elliptic-curve public key: a point of ``curve`` in SEC 1 encoding (SEC 1 2.3.3), checked
/// to be on the curve when made.
public struct ECPublicKey: Sendable, Hashable {
    /// The curve.
    public let curve: EllipticCurve
    /// The encoded point (`04 ‖ X ‖ Y`, or `02/03 ‖ X`).
    public let point: Bytes

    /// A key from its encoded point.
    /// - Throws: ``CryptoError`` `invalidPublicKey` when `point` is not a point of `curve`,
    ///   `unknownCurve` when libcrypto lacks the curve.
    public init(curve: EllipticCurve, point: Bytes) throws(CryptoError) {
        let compressedLength = 1 + curve.fieldLength
        guard point.count == curve.uncompressedPointLength || point.count == compressedLength else {
            throw CryptoError(
                .invalidPublicKey,
                "a \(curve.rawValue) point has \(curve.uncompressedPointLength) bytes (or \(compressedLength) compressed), got \(point.count)")
        }
        self.curve = curve
        self.point = point
        // Made once to check it; verification makes it again (libcrypto keys are not Sendable).
        let key = try makeKey()
        libcryptoPKeyFree(key)
    }

    /// A key from its point in hex (`04494E1A…`).
    /// - Throws: ``CryptoError`` `invalidPublicKey` for text that is not hex or not a point.
    public init(curve: EllipticCurve, hex: String) throws(CryptoError) {
        let bytes: [UInt8]
        do { bytes = try Hex.decode(hex) } catch { throw CryptoError(.invalidPublicKey, "public key: \(error)") }
        try self.init(curve: curve, point: Bytes(bytes))
    }

    /// The libcrypto key; the caller frees it.
    func makeKey() throws(CryptoError) -> PKeyHandle {
        guard let context = try libcryptoPKeyContextNew(algorithm: "EC") else {
            throw CryptoError(.library, "libcrypto has no EC key support: \(libcryptoTakeErrors() ?? "no reason given")")
        }
        defer { libcryptoPKeyContextFree(context) }
        guard libcryptoPKeyFromDataInit(context) else {
            throw CryptoError(.library, "EVP_PKEY_fromdata_init failed: \(libcryptoTakeErrors() ?? "no reason given")")
        }
        guard let key = libcryptoPKeyFromPublicPoint(context, curve: curve.libcryptoName, point: point.array) else {
            let detail = libcryptoTakeErrors() ?? "no reason given"
            if detail.contains("unsupported") || detail.contains("invalid curve") || detail.contains("unknown group") {
                throw CryptoError(.unknownCurve, "libcrypto cannot use \(curve.rawValue): \(detail)")
            }
            throw CryptoError(.invalidPublicKey, "not a point of \(curve.rawValue): \(detail)")
        }
        return key
    }
}

/// ECDSA (SEC 1 4.1) through libcrypto.
public enum ECDSA {
    /// Whether the raw signature `r ‖ s` is valid for `message` under `key`, taking the message
    /// itself as the digest, without hashing: the scheme of NXP's originality signatures, where
    /// the "digest" is the chip's UID (AN11350 2, AN12196 8.2). A message longer than the curve's
    /// order is cut to its leftmost bits, as SEC 1 4.1.4 step 5 says.
    ///
    /// - Returns: false for a well-formed signature that does not match, and for an `r` or `s`
    ///   outside 1…n−1.
    /// - Throws: ``CryptoError`` `invalidSignature` when `signature` is not
    ///   ``EllipticCurve/signatureLength`` bytes; `library` when libcrypto fails.
    public static func verifyUnhashed(signature: Bytes, message: Bytes, key: ECPublicKey) throws(CryptoError) -> Bool {
        let width = key.curve.fieldLength
        guard signature.count == key.curve.signatureLength else {
            throw CryptoError(
                .invalidSignature, "a \(key.curve.rawValue) signature r‖s has \(key.curve.signatureLength) bytes, got \(signature.count)")
        }
        let der = try derSignature(r: signature[0..<width], s: signature[width..<(2 * width)])
        let pkey = try key.makeKey()
        defer { libcryptoPKeyFree(pkey) }
        guard let context = libcryptoPKeyContextNew(key: pkey) else {
            throw CryptoError(.library, "EVP_PKEY_CTX_new_from_pkey failed: \(libcryptoTakeErrors() ?? "no reason given")")
        }
        defer { libcryptoPKeyContextFree(context) }
        guard libcryptoVerifyInit(context) else {
            throw CryptoError(.library, "EVP_PKEY_verify_init failed: \(libcryptoTakeErrors() ?? "no reason given")")
        }
        switch libcryptoVerify(context, signature: der, data: message.array) {
        case .valid: return true
        case .invalid:
            _ = libcryptoTakeErrors()
            return false
        case .failed:
            // libcrypto refuses r or s of zero (or ≥ n) with an error rather than 0: not valid.
            _ = libcryptoTakeErrors()
            return false
        }
    }

    /// The DER `ECDSA-Sig-Value` (SEC 1 C.5) of the big-endian integers `r` and `s`.
    /// - Throws: ``CryptoError`` `invalidSignature` when libcrypto cannot encode them.
    public static func derSignature(r: Bytes, s: Bytes) throws(CryptoError) -> [UInt8] {
        guard let signature = try libcryptoECDSASignature(r: r.array, s: s.array) else {
            throw CryptoError(.library, "ECDSA_SIG_set0 failed: \(libcryptoTakeErrors() ?? "no reason given")")
        }
        defer { libcryptoECDSASignatureFree(signature) }
        guard let der = libcryptoECDSASignatureDER(signature) else {
            throw CryptoError(.invalidSignature, "i2d_ECDSA_SIG failed: \(libcryptoTakeErrors() ?? "no reason given")")
        }
        return der
    }

    /// The raw `r ‖ s` form (each `curve.fieldLength` bytes, big-endian) of a DER
    /// `ECDSA-Sig-Value`, as `openssl pkeyutl -sign` writes it.
    /// - Throws: ``CryptoError`` `invalidSignature` when `der` is not one signature, or `r`/`s`
    ///   does not fit the curve.
    public static func rawSignature(der: Bytes, curve: EllipticCurve) throws(CryptoError) -> Bytes {
        guard let signature = try libcryptoECDSASignature(der: der.array) else {
            _ = libcryptoTakeErrors()
            throw CryptoError(.invalidSignature, "not a DER ECDSA-Sig-Value (\(der.count) bytes)")
        }
        defer { libcryptoECDSASignatureFree(signature) }
        guard let (r, s) = libcryptoECDSASignatureComponents(signature, width: curve.fieldLength) else {
            throw CryptoError(.invalidSignature, "r or s is longer than \(curve.fieldLength) bytes, too long for \(curve.rawValue)")
        }
        return Bytes(r + s)
    }

    /// The version of the libcrypto in use (`OpenSSL 3.0.19 27 Jan 2026`), for `doctor`-style
    /// reports; loads libcrypto, and says why when it cannot be loaded.
    public static var libraryVersion: String {
        do { return try libcryptoVersion() } catch { return "unavailable: \(error.reason)" }
    }
}
