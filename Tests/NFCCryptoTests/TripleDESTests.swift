import Foundation
import NFCCore
import NFCCrypto
import NFCTestSupport
import Testing

/// Two-key 3DES in CBC mode through libcrypto, against the worked example of the MIFARE
/// Ultralight C datasheet (MF0ICU2 Rev. 3.3, 7.5.6: the authentication with the factory key
/// `49454D4B41455242214E4143554F5946`) and against `openssl enc -des-ede-cbc` run as a child
/// process (the same library, driven by another program).
@Suite("Two-key 3DES through libcrypto", .timeLimit(.minutes(1)))
struct TripleDESTests {
    static let factoryKey = hexBytes("49454D4B41455242214E4143554F5946")

    @Test("MF0ICU2 7.5.6 example: ek(RndB), ek(RndA ‖ RndB') and ek(RndA') with their chained IVs")
    func datasheetExample() throws {
        let zero = Bytes([UInt8](repeating: 0, count: 8))
        #expect(try TripleDES.encryptCBC(key: Self.factoryKey, iv: zero, hexBytes("51E764602678DF2B")) == hexBytes("577293FD2F34CA51"))
        #expect(try TripleDES.decryptCBC(key: Self.factoryKey, iv: zero, hexBytes("577293FD2F34CA51")) == hexBytes("51E764602678DF2B"))
        #expect(
            try TripleDES.encryptCBC(key: Self.factoryKey, iv: hexBytes("577293FD2F34CA51"), hexBytes("A8AF3B256C75ED40E764602678DF2B51"))
                == hexBytes("0A638559FC7737F9F15D7862EBBE967A"))
        #expect(
            try TripleDES.encryptCBC(key: Self.factoryKey, iv: hexBytes("F15D7862EBBE967A"), hexBytes("AF3B256C75ED40A8"))
                == hexBytes("3B884FA07C137CE1"))
    }

    @Test("three blocks under another key agree with openssl enc -des-ede-cbc")
    func agreesWithOpenSSL() async throws {
        let plain = (0..<24).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ 7) }
        let key = "00112233445566778899AABBCCDDEEFF", iv = "0102030405060708"
        let expected = try await OpenSSLCipherOracle.encryptCBC(cipher: "des-ede-cbc", key: hexBytes(key).array, iv: hexBytes(iv).array, plain)
        let ours = try TripleDES.encryptCBC(key: hexBytes(key), iv: hexBytes(iv), Bytes(plain))
        #expect(ours.array == expected)
        #expect(try TripleDES.decryptCBC(key: hexBytes(key), iv: hexBytes(iv), ours).array == plain)
    }

    @Test("a key that is not 16 bytes, an IV that is not 8 and data that is not whole blocks are refused")
    func refusals() {
        let iv = Bytes([UInt8](repeating: 0, count: 8))
        #expect(throws: CryptoError.self) { try TripleDES.encryptCBC(key: hexBytes("0011"), iv: iv, Bytes([UInt8](repeating: 0, count: 8))) }
        #expect(throws: CryptoError.self) { try TripleDES.encryptCBC(key: Self.factoryKey, iv: hexBytes("00"), Bytes([UInt8](repeating: 0, count: 8))) }
        #expect(throws: CryptoError.self) { try TripleDES.decryptCBC(key: Self.factoryKey, iv: iv, Bytes([1, 2, 3])) }
    }
}
