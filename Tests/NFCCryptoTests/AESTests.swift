import NFCCore
import NFCCrypto
import NFCTestSupport
import Testing

/// AES-128 and AES-CMAC through libcrypto against published vectors: FIPS 197 (C.1), NIST SP
/// 800-38A (F.2.1, CBC-AES128), NIST SP 800-38B (D.1, AES-128 CMAC), and NXP AN12196's Secure
/// Dynamic Messaging example with all-zero keys (the URL parameters
/// `e=EF963FF7828658A599F3041510671E88` and `c=94EED9EE65337086`).
@Suite("AES-128 and AES-CMAC through libcrypto", .timeLimit(.minutes(1)))
struct AESTests {
    @Test("FIPS 197 C.1: one block in ECB, both ways")
    func fips197() throws {
        let key = hexBytes("000102030405060708090a0b0c0d0e0f")
        let plain = hexBytes("00112233445566778899aabbccddeeff")
        let cipher = hexBytes("69c4e0d86a7b0430d8cdb78070b4c55a")
        #expect(try AES128.encryptECB(key: key, plain) == cipher)
        #expect(try AES128.decryptECB(key: key, cipher) == plain)
    }

    @Test("SP 800-38A F.2.1: CBC-AES128, two blocks, both ways")
    func cbc() throws {
        let key = hexBytes("2b7e151628aed2a6abf7158809cf4f3c")
        let iv = hexBytes("000102030405060708090a0b0c0d0e0f")
        let plain = hexBytes("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51")
        let cipher = hexBytes("7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2")
        #expect(try AES128.encryptCBC(key: key, iv: iv, plain) == cipher)
        #expect(try AES128.decryptCBC(key: key, iv: iv, cipher) == plain)
    }

    @Test("SP 800-38B D.1: AES-128 CMAC of the empty message and of one block")
    func cmac() throws {
        let key = hexBytes("2b7e151628aed2a6abf7158809cf4f3c")
        #expect(try AES128.cmac(key: key, Bytes()) == hexBytes("bb1d6929e95937287fa37d129b756746"))
        #expect(try AES128.cmac(key: key, hexBytes("6bc1bee22e409f96e93d7e117393172a")) == hexBytes("070a16b46b4d4144f79bdd9dd04a287c"))
    }

    @Test("AN12196's SUN example: PICC data decrypts to UID 04DE5F1EACC040 and counter 61; the truncated SDMMAC is 94EED9EE65337086")
    func an12196SUN() throws {
        let zero = Bytes([UInt8](repeating: 0, count: 16))
        let picc = try AES128.decryptCBC(key: zero, iv: zero, hexBytes("EF963FF7828658A599F3041510671E88"))
        #expect(picc[0] == 0xC7)  // PICCDataTag: UID and counter mirrored, 7-byte UID
        #expect(picc[1..<8] == (hexBytes("04DE5F1EACC040")))
        #expect(picc[8..<11] == (hexBytes("3D0000")))  // SDMReadCtr 61, least significant byte first
        // SV2 = 3CC3 0001 0080 ‖ UID ‖ SDMReadCtr; SesSDMFileReadMACKey = CMAC(key, SV2).
        let sessionKey = try AES128.cmac(key: zero, hexBytes("3CC30001008004DE5F1EACC0403D0000"))
        let mac = try AES128.cmac(key: sessionKey, Bytes())
        let truncated = Bytes(stride(from: 1, to: 16, by: 2).map { mac[$0] })
        #expect(truncated == (hexBytes("94EED9EE65337086")))
        // One bit changed in the PICC data: another UID, and the published MAC no longer matches.
        var altered = try Hex.decode("EF963FF7828658A599F3041510671E88")
        altered[0] ^= 0x01
        let other = try AES128.decryptCBC(key: zero, iv: zero, Bytes(altered))
        #expect(other[1..<8] != (hexBytes("04DE5F1EACC040")))
    }

    @Test("wrong key lengths, partial blocks and wrong IVs are refused")
    func refused() throws {
        let key = Bytes([UInt8](repeating: 0, count: 16))
        #expect(throws: CryptoError.self) { _ = try AES128.encryptECB(key: Bytes([1, 2]), key) }
        #expect(throws: CryptoError.self) { _ = try AES128.encryptECB(key: key, Bytes([1, 2, 3])) }
        #expect(throws: CryptoError.self) { _ = try AES128.encryptCBC(key: key, iv: Bytes([0]), key) }
        #expect(throws: CryptoError.self) { _ = try AES128.cmac(key: Bytes([0]), key) }
    }
}
