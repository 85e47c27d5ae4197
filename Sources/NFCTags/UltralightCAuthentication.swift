import NFCCore
import NFCCrypto

/// The reader's side of the MIFARE Ultralight C mutual authentication (MF0ICU2 datasheet 7.5.6,
/// Table 9): two-key 3DES in CBC mode, the IV of each encryption the last ciphertext block
/// before it.
///
/// 1. `1A 00` → `AF` ‖ ek(RndB), IV zero.
/// 2. `AF` ‖ ek(RndA ‖ RndB′), IV = ek(RndB); RndB′ is RndB rotated left by one byte.
/// 3. ← `00` ‖ ek(RndA′), IV = the last block sent; the reader checks RndA′.
///
/// Pure: the random RndA is given, so the datasheet's worked example can be replayed.
public enum UltralightCAuthentication {
    /// The size of RndA and RndB: one 3DES block, 8 bytes.
    public static let randomSize = 8

    /// Step 2: from the chip's answer to `1A 00` (`AF` and 8 bytes) and the reader's `rndA`, the
    /// command to send (`AF` and 16 bytes) and the IV that decrypts the chip's final answer.
    /// - Throws: ``NFCTagError/Code/tagResponse`` when the answer is not `AF` and 8 bytes;
    ///   `invalidParameter` for a key or RndA of the wrong size.
    public static func secondStep(
        key: UltralightCKey, answer: some Collection<UInt8>, rndA: [UInt8]
    ) throws(NFCTagError) -> (command: [UInt8], finalIV: [UInt8]) {
        let answer = Array(answer)
        guard answer.count == 1 + randomSize, answer[0] == UltralightCCommand.authenticateContinue else {
            throw NFCTagError(.tagResponse, "AUTHENTICATE answered \(answer.count) bytes, not AF and 8 bytes of ek(RndB)")
        }
        guard rndA.count == randomSize else { throw NFCTagError(.invalidParameter, "RndA has 8 bytes, not \(rndA.count)") }
        let encryptedRndB = Array(answer[1...])
        let rndB = try crypt(.decrypt, key, iv: [UInt8](repeating: 0, count: randomSize), encryptedRndB)
        let rotatedRndB = Array(rndB[1...]) + [rndB[0]]
        let message = try crypt(.encrypt, key, iv: encryptedRndB, rndA + rotatedRndB)
        return ([UltralightCCommand.authenticateContinue] + message, Array(message[randomSize...]))
    }

    /// Step 3: checks the chip's answer (`00` and ek(RndA′)) proves it holds the key.
    /// - Throws: ``NFCTagError/Code/tagResponse`` for an answer of another shape,
    ///   `authenticationFailed` when RndA′ is not RndA rotated left by one byte.
    public static func checkFinalAnswer(
        key: UltralightCKey, answer: some Collection<UInt8>, rndA: [UInt8], finalIV: [UInt8]
    ) throws(NFCTagError) {
        let answer = Array(answer)
        guard answer.count == 1 + randomSize, answer[0] == UltralightCCommand.authenticateDone else {
            throw NFCTagError(.tagResponse, "the second AUTHENTICATE step answered \(answer.count) bytes, not 00 and 8 bytes of ek(RndA')")
        }
        let rotatedRndA = try crypt(.decrypt, key, iv: finalIV, Array(answer[1...]))
        guard rndA.count == randomSize, rotatedRndA == Array(rndA[1...]) + [rndA[0]] else {
            throw NFCTagError(.authenticationFailed, "the tag's answer does not prove it holds the key: it may not be genuine")
        }
    }

    /// Eight bytes from the system's secure random source (`getrandom` on Linux, `arc4random`
    /// on Apple platforms, through `SystemRandomNumberGenerator`).
    public static func systemRandom() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<randomSize).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    enum Direction { case encrypt, decrypt }

    static func crypt(_ direction: Direction, _ key: UltralightCKey, iv: [UInt8], _ data: [UInt8]) throws(NFCTagError) -> [UInt8] {
        do {
            switch direction {
            case .encrypt: return try TripleDES.encryptCBC(key: Bytes(key.bytes), iv: Bytes(iv), Bytes(data)).array
            case .decrypt: return try TripleDES.decryptCBC(key: Bytes(key.bytes), iv: Bytes(iv), Bytes(data)).array
            }
        } catch {
            throw NFCTagError(.invalidParameter, "3DES failed: \(error.reason)")
        }
    }
}
