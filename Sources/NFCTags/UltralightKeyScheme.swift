import NFCCore
import NFCCrypto

/// What sets the two MIFARE Ultralights with a secret key apart where their keys and their
/// mutual authentication are concerned: the cipher, its block, whether the IV is chained, and
/// how the key pages store the key. ``UltralightSecretKey`` and ``UltralightMutualAuthentication``
/// are written once against it; ``UltralightC3DES`` (MF0ICU2) and ``UltralightAES128``
/// (MF0AES(H)20) are its two cases.
public protocol UltralightKeyScheme: Sendable {
    /// The chip as messages name it: `Ultralight C`.
    static var chipName: String { get }
    /// The cipher as messages name it: `3DES`.
    static var cipherName: String { get }
    /// The key type's name in its redacted description: `UltralightCKey`.
    static var keyTypeName: String { get }
    /// What a key file holds, for the message that refuses one: `32 hex digits (16 bytes)`.
    static var keyFileForm: String { get }
    /// RndA, RndB and the cipher block: 8 bytes (3DES) or 16 (AES).
    static var blockSize: Int { get }
    /// Whether each cryptogram's IV is the last ciphertext block before it (the Ultralight C)
    /// rather than zero (the Ultralight AES).
    static var chainsIV: Bool { get }
    /// The 16 bytes the key pages hold for `key`, and the key for 16 page bytes (the mapping is
    /// its own inverse).
    static func pageImage(_ key: [UInt8]) -> [UInt8]
    /// The key a chip is delivered with.
    static var factoryKey: [UInt8] { get }
    /// CBC encryption under `key`.
    /// - Throws: ``NFCTagError/Code/invalidParameter`` when the cipher refuses the sizes.
    static func encrypt(key: [UInt8], iv: [UInt8], _ data: [UInt8]) throws(NFCTagError) -> [UInt8]
    /// CBC decryption under `key`.
    /// - Throws: ``NFCTagError/Code/invalidParameter`` when the cipher refuses the sizes.
    static func decrypt(key: [UInt8], iv: [UInt8], _ data: [UInt8]) throws(NFCTagError) -> [UInt8]
}

extension UltralightKeyScheme {
    /// A cipher's refusal as the error the schemes throw.
    static func cipherFailure(_ error: CryptoError) -> NFCTagError {
        NFCTagError(.invalidParameter, "\(cipherName) failed: \(error.reason)")
    }
}

/// The MIFARE Ultralight C: two-key 3DES, IVs chained, each 8-byte half of the key reversed in
/// pages 2Ch–2Fh (MF0ICU2 7.5.6, 7.5.7, Tables 10, 11 and 13).
public enum UltralightC3DES: UltralightKeyScheme {
    /// `Ultralight C`.
    public static let chipName = "Ultralight C"
    /// `3DES`.
    public static let cipherName = "3DES"
    /// `UltralightCKey`.
    public static let keyTypeName = "UltralightCKey"
    /// Key1 then Key2.
    public static let keyFileForm = "32 hex digits (16 bytes: Key1 then Key2)"
    /// 8: one DES block.
    public static let blockSize = 8
    /// True (MF0ICU2 Table 9).
    public static let chainsIV = true
    /// Key1 K7…K0, then Key2 K7…K0 (for Key1 = 0001020304050607h, page 2Ch holds `07 06 05 04`).
    public static func pageImage(_ key: [UInt8]) -> [UInt8] {
        Array(key.prefix(8).reversed()) + Array(key.dropFirst(8).reversed())
    }
    /// Pages 2Ch–2Fh hold `BREAKMEIFYOUCAN!` (MF0ICU2 Table 13).
    public static var factoryKey: [UInt8] { pageImage(Array("BREAKMEIFYOUCAN!".utf8)) }
    /// 3DES-CBC through NFCCrypto.
    public static func encrypt(key: [UInt8], iv: [UInt8], _ data: [UInt8]) throws(NFCTagError) -> [UInt8] {
        do { return try TripleDES.encryptCBC(key: Bytes(key), iv: Bytes(iv), Bytes(data)).array } catch { throw cipherFailure(error) }
    }
    /// 3DES-CBC through NFCCrypto.
    public static func decrypt(key: [UInt8], iv: [UInt8], _ data: [UInt8]) throws(NFCTagError) -> [UInt8] {
        do { return try TripleDES.decryptCBC(key: Bytes(key), iv: Bytes(iv), Bytes(data)).array } catch { throw cipherFailure(error) }
    }
}

/// The MIFARE Ultralight AES: AES-128, every cryptogram from a zero IV, the key reversed in its
/// four pages (docs/tags.md, "MIFARE Ultralight AES", for the sources).
public enum UltralightAES128: UltralightKeyScheme {
    /// `Ultralight AES`.
    public static let chipName = "Ultralight AES"
    /// `AES`.
    public static let cipherName = "AES"
    /// `UltralightAESKey`.
    public static let keyTypeName = "UltralightAESKey"
    /// 16 bytes.
    public static let keyFileForm = "32 hex digits (16 bytes)"
    /// 16: one AES block.
    public static let blockSize = 16
    /// False: each cryptogram from a zero IV.
    public static let chainsIV = false
    /// The 16 bytes reversed: the first key page's byte 0 is the key's last byte.
    public static func pageImage(_ key: [UInt8]) -> [UInt8] { key.reversed() }
    /// 16 zero bytes.
    public static var factoryKey: [UInt8] { [UInt8](repeating: 0, count: 16) }
    /// AES-128-CBC through NFCCrypto (the code NTAG 424 uses).
    public static func encrypt(key: [UInt8], iv: [UInt8], _ data: [UInt8]) throws(NFCTagError) -> [UInt8] {
        do { return try AES128.encryptCBC(key: Bytes(key), iv: Bytes(iv), Bytes(data)).array } catch { throw cipherFailure(error) }
    }
    /// AES-128-CBC through NFCCrypto.
    public static func decrypt(key: [UInt8], iv: [UInt8], _ data: [UInt8]) throws(NFCTagError) -> [UInt8] {
        do { return try AES128.decryptCBC(key: Bytes(key), iv: Bytes(iv), Bytes(data)).array } catch { throw cipherFailure(error) }
    }
}

/// A MIFARE Ultralight C 3DES key: 16 bytes, Key1 (K0…K7) then Key2 (K0…K7), the order the
/// datasheet's example names them and libfreefare and the nfc-tools wiki write them
/// (`49454D4B41455242214E4143554F5946` is the factory key).
public typealias UltralightCKey = UltralightSecretKey<UltralightC3DES>
/// A MIFARE Ultralight AES key: 16 bytes, the AES-128 key as ek() uses it.
public typealias UltralightAESKey = UltralightSecretKey<UltralightAES128>

/// A 16-byte MIFARE Ultralight key, written as 32 hex digits in key files. In memory the key
/// pages hold it as ``UltralightKeyScheme/pageImage(_:)`` says: ``pageImage`` and
/// ``init(pageImage:)`` convert. Its description never shows the bytes.
public struct UltralightSecretKey<Scheme: UltralightKeyScheme>: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The 16 key bytes as ek() uses them.
    public let bytes: [UInt8]

    /// A key from its 16 bytes.
    /// - Throws: ``NFCTagError/Code/invalidParameter`` unless there are 16.
    public init(bytes: some Collection<UInt8>) throws(NFCTagError) {
        guard bytes.count == 16 else {
            throw NFCTagError(.invalidParameter, "an \(Scheme.chipName) key has 16 bytes, not \(bytes.count)")
        }
        self.bytes = Array(bytes)
    }

    /// Parses 32 hex digits; spaces, tabs and line breaks are ignored, and lines starting with
    /// `#` are comments. Total: any text gives a key or an error.
    /// - Throws: ``NFCTagError/Code/invalidParameter``; the message never repeats the input.
    public init(hex text: String) throws(NFCTagError) {
        let digits = text.split(whereSeparator: \.isNewline)
            .filter { !$0.trimmingPrefix(while: \.isWhitespace).hasPrefix("#") }
            .joined().filter { !$0.isWhitespace }
        guard digits.count == 32, let bytes = try? Hex.decode(String(digits)) else {
            throw NFCTagError(.invalidParameter, "an \(Scheme.chipName) key is \(Scheme.keyFileForm)")
        }
        try self.init(bytes: bytes)
    }

    /// The 16 bytes WRITE stores in the four key pages.
    public var pageImage: [UInt8] { Scheme.pageImage(bytes) }

    /// The key whose page image (the four key pages, 16 bytes) is `pageImage`.
    /// - Throws: ``NFCTagError/Code/invalidParameter`` unless there are 16 bytes.
    public init(pageImage: some Collection<UInt8>) throws(NFCTagError) {
        let image = Array(pageImage)
        guard image.count == 16 else {
            throw NFCTagError(.invalidParameter, "the key pages hold 16 bytes, not \(image.count)")
        }
        try self.init(bytes: Scheme.pageImage(image))
    }

    /// The key a blank chip holds (``UltralightKeyScheme/factoryKey``).
    public static var factoryDefault: Self { Self(unchecked: Scheme.factoryKey) }

    private init(unchecked bytes: [UInt8]) { self.bytes = bytes }

    /// `UltralightCKey(redacted)` or `UltralightAESKey(redacted)`.
    public var description: String { "\(Scheme.keyTypeName)(redacted)" }
    /// As ``description``.
    public var debugDescription: String { description }
}

/// The reader's side of the MIFARE Ultralight mutual authentication, for either scheme:
///
/// 1. `1A kk` → `AF` ‖ ek(RndB).
/// 2. `AF` ‖ ek(RndA ‖ RndB′); RndB′ is RndB rotated left by one byte.
/// 3. ← `00` ‖ ek(RndA′); the reader checks RndA′ is RndA rotated left by one byte.
///
/// On the Ultralight C (MF0ICU2 7.5.6, Table 9) each IV is the last ciphertext block before it;
/// on the Ultralight AES every cryptogram starts from a zero IV. Pure: RndA is given, so a test
/// can replay the datasheet's example or check against `openssl enc`.
public enum UltralightMutualAuthentication<Scheme: UltralightKeyScheme> {
    /// The scheme's key type.
    public typealias Key = UltralightSecretKey<Scheme>

    /// The size of RndA and RndB: one cipher block.
    public static var randomSize: Int { Scheme.blockSize }

    /// Step 2: from the chip's answer to `1A kk` (`AF` and one block) and the reader's `rndA`,
    /// the command to send (`AF` and two blocks) and the IV that decrypts the chip's final
    /// answer.
    /// - Throws: ``NFCTagError/Code/tagResponse`` when the answer is not `AF` and one block;
    ///   `invalidParameter` for a RndA of the wrong size.
    public static func secondStep(key: Key, answer: some Collection<UInt8>, rndA: [UInt8]) throws(NFCTagError) -> (command: [UInt8], finalIV: [UInt8]) {
        let answer = Array(answer)
        guard answer.count == 1 + randomSize, answer[0] == UltralightCCommand.authenticateContinue else {
            throw NFCTagError(.tagResponse, "AUTHENTICATE answered \(answer.count) bytes, not AF and \(randomSize) bytes of ek(RndB)")
        }
        guard rndA.count == randomSize else { throw NFCTagError(.invalidParameter, "RndA has \(randomSize) bytes, not \(rndA.count)") }
        let encryptedRndB = Array(answer[1...])
        let rndB = try Scheme.decrypt(key: key.bytes, iv: zeroIV, encryptedRndB)
        let message = try Scheme.encrypt(key: key.bytes, iv: Scheme.chainsIV ? encryptedRndB : zeroIV, rndA + rotated(rndB))
        let finalIV = Scheme.chainsIV ? Array(message.suffix(randomSize)) : zeroIV
        return ([UltralightCCommand.authenticateContinue] + message, finalIV)
    }

    /// Step 3: checks the chip's answer (`00` and ek(RndA′)) proves it holds the key. `finalIV`
    /// is the one ``secondStep(key:answer:rndA:)`` returned (zero when nil).
    /// - Throws: ``NFCTagError/Code/tagResponse`` for an answer of another shape,
    ///   `authenticationFailed` when RndA′ is not RndA rotated left by one byte.
    public static func checkFinalAnswer(key: Key, answer: some Collection<UInt8>, rndA: [UInt8], finalIV: [UInt8]? = nil) throws(NFCTagError) {
        let answer = Array(answer)
        guard answer.count == 1 + randomSize, answer[0] == UltralightCCommand.authenticateDone else {
            throw NFCTagError(
                .tagResponse, "the second AUTHENTICATE step answered \(answer.count) bytes, not 00 and \(randomSize) bytes of ek(RndA')")
        }
        let rotatedRndA = try Scheme.decrypt(key: key.bytes, iv: finalIV ?? zeroIV, Array(answer[1...]))
        guard rndA.count == randomSize, rotatedRndA == rotated(rndA) else {
            throw NFCTagError(.authenticationFailed, "the tag's answer does not prove it holds the key: it may not be genuine")
        }
    }

    /// `value` rotated left by one byte (RndA → RndA′).
    public static func rotated(_ value: [UInt8]) -> [UInt8] {
        value.isEmpty ? value : Array(value[1...]) + [value[0]]
    }

    /// One block from the system's secure random source (`getrandom` on Linux, `arc4random` on
    /// Apple platforms, through `SystemRandomNumberGenerator`).
    public static func systemRandom() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<randomSize).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    /// A zero block.
    static var zeroIV: [UInt8] { [UInt8](repeating: 0, count: randomSize) }
}

/// The reader's side of the MIFARE Ultralight C 3DES authentication (MF0ICU2 7.5.6).
public typealias UltralightCAuthentication = UltralightMutualAuthentication<UltralightC3DES>
/// The reader's side of the MIFARE Ultralight AES authentication.
public typealias UltralightAESAuthentication = UltralightMutualAuthentication<UltralightAES128>
