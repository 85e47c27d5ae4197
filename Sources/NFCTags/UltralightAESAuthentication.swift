import NFCCore
import NFCCrypto

/// The reader's side of the MIFARE Ultralight AES mutual authentication: AES-128 in CBC mode,
/// each of the three cryptograms from a zero IV (the Flipper Zero poller, citing MF0AES20
/// 8.6.1 and Proxmark3; StuStaPay's implementation does the same).
///
/// 1. `1A kk` → `AF` ‖ ek(RndB) (16 bytes).
/// 2. `AF` ‖ ek(RndA ‖ RndB′) (32 bytes); RndB′ is RndB rotated left by one byte.
/// 3. ← `00` ‖ ek(RndA′); the reader checks RndA′ is RndA rotated left by one byte.
///
/// Pure: the random RndA is given, so a test can replay it against `openssl enc`.
public enum UltralightAESAuthentication {
    /// The size of RndA and RndB: one AES block, 16 bytes.
    public static let randomSize = 16

    /// The zero IV every cryptogram starts from.
    static let zeroIV = [UInt8](repeating: 0, count: randomSize)

    /// Step 2: from the chip's answer to `1A kk` (`AF` and 16 bytes) and the reader's `rndA`,
    /// the command to send (`AF` and 32 bytes).
    /// - Throws: ``NFCTagError/Code/tagResponse`` when the answer is not `AF` and 16 bytes;
    ///   `invalidParameter` for a RndA of the wrong size.
    public static func secondStep(key: UltralightAESKey, answer: some Collection<UInt8>, rndA: [UInt8]) throws(NFCTagError) -> [UInt8] {
        let answer = Array(answer)
        guard answer.count == 1 + randomSize, answer[0] == UltralightAESCommand.authenticateContinue else {
            throw NFCTagError(.tagResponse, "AUTHENTICATE answered \(answer.count) bytes, not AF and 16 bytes of ek(RndB)")
        }
        guard rndA.count == randomSize else { throw NFCTagError(.invalidParameter, "RndA has 16 bytes, not \(rndA.count)") }
        let rndB = try crypt(.decrypt, key, Array(answer[1...]))
        return [UltralightAESCommand.authenticateContinue] + (try crypt(.encrypt, key, rndA + rotated(rndB)))
    }

    /// Step 3: checks the chip's answer (`00` and ek(RndA′)) proves it holds the key.
    /// - Throws: ``NFCTagError/Code/tagResponse`` for an answer of another shape,
    ///   `authenticationFailed` when RndA′ is not RndA rotated left by one byte.
    public static func checkFinalAnswer(key: UltralightAESKey, answer: some Collection<UInt8>, rndA: [UInt8]) throws(NFCTagError) {
        let answer = Array(answer)
        guard answer.count == 1 + randomSize, answer[0] == UltralightAESCommand.authenticateDone else {
            throw NFCTagError(.tagResponse, "the second AUTHENTICATE step answered \(answer.count) bytes, not 00 and 16 bytes of ek(RndA')")
        }
        guard rndA.count == randomSize, try crypt(.decrypt, key, Array(answer[1...])) == rotated(rndA) else {
            throw NFCTagError(.authenticationFailed, "the tag's answer does not prove it holds the key: it may not be genuine")
        }
    }

    /// `value` rotated left by one byte (RndA → RndA′).
    public static func rotated(_ value: [UInt8]) -> [UInt8] {
        value.isEmpty ? value : Array(value[1...]) + [value[0]]
    }

    /// Sixteen bytes from the system's secure random source.
    public static func systemRandom() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<randomSize).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    /// The two directions of ``crypt(_:_:_:)``.
    enum Direction { case encrypt, decrypt }

    /// AES-128-CBC from the zero IV, through NFCCrypto's ``AES128`` (the code NTAG 424 uses).
    static func crypt(_ direction: Direction, _ key: UltralightAESKey, _ data: [UInt8]) throws(NFCTagError) -> [UInt8] {
        do {
            switch direction {
            case .encrypt: return try AES128.encryptCBC(key: Bytes(key.bytes), iv: Bytes(zeroIV), Bytes(data)).array
            case .decrypt: return try AES128.decryptCBC(key: Bytes(key.bytes), iv: Bytes(zeroIV), Bytes(data)).array
            }
        } catch {
            throw NFCTagError(.invalidParameter, "AES failed: \(error.reason)")
        }
    }
}
