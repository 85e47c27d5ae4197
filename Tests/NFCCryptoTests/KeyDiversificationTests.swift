import Foundation
import NFCCore
import NFCCrypto
import NFCTestSupport
import Testing

/// AN10922's AES-128 key diversification against the application note's worked example
/// (AN10922 rev. 2.x, section 2.2.1, Table 2 "AES-128 key diversification example": master
/// key 00112233445566778899AABBCCDDEEFF, K0/K1/K2, UID 04782E21801D80, AID 3042F5, system
/// identifier 4E585020416275 ("NXP Abu"), the padded and XORed CMAC input, the CBC output and
/// the diversified key A8DD63A3B89D54B37CA802473FDA9175), and against the `openssl` command-line
/// tool for the padding rule: where AN10922 and plain CMAC coincide (inputs of two blocks), the
/// result is openssl's CMAC; where they part (short inputs), it is openssl's AES-CBC of the
/// two-block padded input, and not the CMAC.
@Suite("AN10922 AES-128 key diversification", .timeLimit(.minutes(1)))
struct KeyDiversificationTests {
    let master = hexBytes("00112233445566778899AABBCCDDEEFF")

    @Test("AN10922 Table 2: the subkeys K0, K1, K2 of the master key")
    func subkeys() throws {
        let (k0, k1, k2) = try AN10922.subkeys(key: master)
        #expect(k0 == hexBytes("FDE4FBAE4A09E020EFF722969F83832B"))
        #expect(k1 == hexBytes("FBC9F75C9413C041DFEE452D3F0706D1"))
        #expect(k2 == hexBytes("F793EEB928278083BFDC8A5A7E0E0D25"))
    }

    @Test("AN10922 Table 2: UID ‖ AID ‖ system identifier diversifies to A8DD63A3B89D54B37CA802473FDA9175")
    func publishedExample() throws {
        let input = AN10922.input(uid: hexBytes("04782E21801D80"), applicationID: hexBytes("3042F5"), systemIdentifier: Bytes(utf8: "NXP Abu"))
        #expect(input == hexBytes("04782E21801D803042F54E585020416275"))
        #expect(try AN10922.diversifyAES128(masterKey: master, input: input) == hexBytes("A8DD63A3B89D54B37CA802473FDA9175"))
        // Steps 12–14: the padded input, XORed with K2, encrypted in CBC: the key is its last block.
        let xored = hexBytes("0104782E21801D803042F54E5850204195E66EB928278083BFDC8A5A7E0E0D25")
        let cbc = try AES128.encryptCBC(key: master, iv: Bytes([UInt8](repeating: 0, count: 16)), xored)
        #expect(cbc == hexBytes("351DB989A47CCA6484CCE346FD5AE767A8DD63A3B89D54B37CA802473FDA9175"))
        // One bit of the UID changed: another key.
        let other = AN10922.input(uid: hexBytes("04782E21801D81"), applicationID: hexBytes("3042F5"), systemIdentifier: Bytes(utf8: "NXP Abu"))
        #expect(try AN10922.diversifyAES128(masterKey: master, input: other) != hexBytes("A8DD63A3B89D54B37CA802473FDA9175"))
    }

    @Test("inputs of 16 to 31 bytes give openssl's CMAC of 01 ‖ M", arguments: [17, 31])
    func longInputsAreCMAC(length: Int) async throws {
        let openssl = try OpenSSLTestKey.tool.require()
        let input = Bytes((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 5) })
        let run = try await runTool(openssl, ["mac", "-cipher", "AES-128-CBC", "-macopt", "hexkey:\(Hex.encode(master))",
                                        "-in", try file([0x01] + input.array), "CMAC"], environment: [:])
        #expect(run.status == 0, "\(run.output)")
        let expected = run.output.trimmingCharacters(in: .whitespacesAndNewlines).uppercased()
        #expect(Hex.encode(try AN10922.diversifyAES128(masterKey: master, input: input), uppercase: true) == expected)
    }

    @Test("a short input (a 7-byte UID) is padded to two blocks: openssl's AES-CBC of the padded input, not its CMAC")
    func shortInputPadsToTwoBlocks() async throws {
        let openssl = try OpenSSLTestKey.tool.require()
        let uid = hexBytes("04782E21801D80")
        let (_, _, k2) = try AN10922.subkeys(key: master)
        var padded = [0x01] + uid.array + [0x80] + [UInt8](repeating: 0, count: 32 - 9)
        for index in 0..<16 { padded[16 + index] ^= k2[index] }
        let output = try file([])
        let encrypted = try await runTool(openssl, ["enc", "-aes-128-cbc", "-nopad", "-K", Hex.encode(master), "-iv", String(repeating: "0", count: 32),
                                              "-in", try file(padded), "-out", output], environment: [:])
        #expect(encrypted.status == 0, "\(encrypted.output)")
        let ciphertext = [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
        #expect(ciphertext.count == 32)
        let cmac = try await runTool(openssl, ["mac", "-cipher", "AES-128-CBC", "-macopt", "hexkey:\(Hex.encode(master))",
                                         "-in", try file([0x01] + uid.array), "CMAC"], environment: [:])
        let key = try AN10922.diversifyAES128(masterKey: master, input: uid)
        #expect(Array(ciphertext.suffix(16)) == key.array)
        #expect(cmac.output.trimmingCharacters(in: .whitespacesAndNewlines).uppercased() != Hex.encode(key, uppercase: true))
    }

    @Test("empty, over-long inputs and wrong master keys are refused")
    func refused() {
        #expect(throws: CryptoError.self) { _ = try AN10922.diversifyAES128(masterKey: master, input: Bytes()) }
        #expect(throws: CryptoError.self) { _ = try AN10922.diversifyAES128(masterKey: master, input: Bytes([UInt8](repeating: 1, count: 32))) }
        #expect(throws: CryptoError.self) { _ = try AN10922.diversifyAES128(masterKey: Bytes([1, 2]), input: Bytes([1])) }
    }

    /// A temporary file holding `bytes`.
    func file(_ bytes: [UInt8]) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("an10922-\(UUID().uuidString)")
        try Data(bytes).write(to: url)
        return url.path
    }
}
