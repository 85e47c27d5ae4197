import Foundation
import NDEF
import NFCCore
import NFCTags
import NFCTestSupport
import Testing
import VirtualTags

/// MIFARE Ultralight AES secure messaging: the session key and every MAC judged by `openssl mac
/// CMAC` in a child process, StuStaPay's published value replayed, the virtual chip's MACed
/// READ/WRITE checked from the reader's side, and the library reading and writing a tag with
/// SEC_MSG_ACT on (judged in the tag file).
@Suite("MIFARE Ultralight AES secure messaging (CMAC)", .timeLimit(.minutes(5)))
struct UltralightAESSecureMessagingTests {
    static func bytes(_ hex: String) -> [UInt8] { (try? Hex.decode(hex)) ?? [] }
    static func answerBytes(_ answer: TagAnswer) -> [UInt8]? {
        if case .data(let bytes) = answer { return bytes }
        return nil
    }
    static let rndA = bytes("42BDF7E08E110F14B6D3323D14F1C2B9")
    static let rndB = bytes("0D2BBA17011098E9864C8AA5192AF796")

    /// AES-CMAC of `message` under `key` by `openssl mac`.
    static func opensslCMAC(key: [UInt8], _ message: [UInt8]) async throws -> [UInt8] {
        try await OpenSSLCipherOracle.cmac(cipher: "AES-128-CBC", key: key, message)
    }

    @Test("StuStaPay's value: zero key, its RndA/RndB, MAC of GET_VERSION at counter 0 is 1D5DE802D6751670")
    func publishedValue() throws {
        let session = try UltralightAESSecureMessaging(key: .factoryDefault, rndA: Self.rndA, rndB: Self.rndB)
        #expect(try UltralightAESSecureMessaging.mac(sessionKey: session.sessionKey, counter: 0, [0x60]) == Self.bytes("1D5DE802D6751670"))
        #expect(!"\(session)".contains(Hex.encode(session.sessionKey)))
    }

    @Test("session key and MACs agree with openssl mac CMAC: the session vector, the counter LE prefix, the odd bytes")
    func againstOpenSSL() async throws {
        let key = try UltralightAESKey(hex: "00112233445566778899AABBCCDDEEFF")
        var session = try UltralightAESSecureMessaging(key: key, rndA: Self.rndA, rndB: Self.rndB)
        let vector = try UltralightAESSecureMessaging.sessionVector(rndA: Self.rndA, rndB: Self.rndB)
        #expect(vector.count == 32 && Array(vector.prefix(6)) == [0x5A, 0xA5, 0x00, 0x01, 0x00, 0x80])
        #expect(session.sessionKey == (try await Self.opensslCMAC(key: key.bytes, vector)))
        let read = try session.protect([0x30, 0x04])
        let full = try await Self.opensslCMAC(key: session.sessionKey, [0x00, 0x00, 0x30, 0x04])
        #expect(read == [0x30, 0x04] + stride(from: 1, to: 16, by: 2).map { full[$0] })
        let data = [UInt8](0..<16)
        let answerMAC = try await Self.opensslCMAC(key: session.sessionKey, [0x01, 0x00] + data)
        #expect(try session.open(data + stride(from: 1, to: 16, by: 2).map { answerMAC[$0] }) == data)
        #expect(session.counter == 2)
        #expect(throws: NFCTagError.self) { _ = try session.open(data + [UInt8](repeating: 0, count: 8)) }
        #expect(throws: NFCTagError.self) { _ = try UltralightAESSecureMessaging.sessionVector(rndA: [1, 2], rndB: Self.rndB) }
    }

    /// A virtual chip with SEC_MSG_ACT on, authenticated with the zero key and the fixed RndB;
    /// the reader's session.
    static func authenticatedChip() throws -> (UltralightAESTag, UltralightAESSecureMessaging) {
        let chip = UltralightAESTag(uid: [0x04, 0x53, 0x4D, 0x53, 0x47, 0x00, 0x01])
        #expect(chip.respond(to: [0xA2, 0x29, 0x02, 0x00, 0x00, 0x3C]) == .ack)
        chip.activate()
        chip.random = { Self.rndB }
        let first = try #require(Self.answerBytes(chip.respond(to: [0x1A, 0x00])))
        let (command, _) = try UltralightAESAuthentication.secondStep(key: .factoryDefault, answer: first, rndA: Self.rndA)
        let last = try #require(Self.answerBytes(chip.respond(to: command)))
        try UltralightAESAuthentication.checkFinalAnswer(key: .factoryDefault, answer: last, rndA: Self.rndA)
        return (chip, try UltralightAESSecureMessaging(key: .factoryDefault, rndA: Self.rndA, rndB: Self.rndB))
    }

    @Test("the virtual chip: MACed READ answered data ‖ MAC, MACed WRITE answered its MAC alone, a plain or wrong-MAC command is a NAK")
    func virtualChip() throws {
        var (chip, session) = try Self.authenticatedChip()
        let read = try #require(Self.answerBytes(chip.respond(to: try session.protect([0x30, 0x29]))))
        #expect(read.count == 24)
        #expect(try session.open(read).prefix(4) == [0x02, 0x00, 0x00, 0x3C])
        let write = try #require(Self.answerBytes(chip.respond(to: try session.protect([0xA2, 0x04, 1, 2, 3, 4]))))
        #expect(try session.open(write).isEmpty)
        #expect(Array(chip.memory[16..<20]) == [1, 2, 3, 4])
        var forged = try session.protect([0xA2, 0x05, 9, 9, 9, 9])
        forged[forged.count - 1] ^= 0x01
        #expect(chip.respond(to: forged) == .nak(0))
        #expect(Array(chip.memory[20..<24]) == [0, 0, 0, 0])

        var (plainChip, _) = try Self.authenticatedChip()
        #expect(plainChip.respond(to: [0x30, 0x04]) == .nak(0))
        plainChip = UltralightAESTag(uid: [0x04, 0x53, 0x4D, 0x53, 0x47, 0x00, 0x02])
        #expect(Self.answerBytes(plainChip.respond(to: [0x30, 0x04]))?.count == 16, "before any authentication, commands stay plain")
    }

    @Test("the library on a tag with SEC_MSG_ACT on: protect, write and read with the key go through MACs; the tag file shows the key pages and the message")
    func library() async throws {
        let key = try UltralightAESKey(hex: "00112233445566778899AABBCCDDEEFF")
        let chip = UltralightAESTag(uid: [0x04, 0x53, 0x4D, 0x53, 0x47, 0x00, 0x03])
        #expect(chip.respond(to: [0xA2, 0x29, 0x02, 0x00, 0x00, 0x3C]) == .ack)
        #expect(chip.setNDEFMessage(try NDEFMessage(records: [try NDEFPayload.wellKnownTypeURIPayload(url: "https://example.com/sm")]).encodedForTag()))
        let fixture = UltralightAESTests.fixture
        let (first, tag) = try await fixture.open(chip.tagState)
        try await fixture.type2(tag, key: .factoryDefault).protectUltralightAES(with: key, protection: UltralightAESProtection(readProtected: true))
        let protected = try #require(await TearingSweep.state(first))
        let memory = try Hex.decode(protected.memory)
        #expect(Array(memory[0x30 * 4..<0x34 * 4]) == key.pageImage)
        #expect(memory[0x29 * 4] & 0x02 == 0x02 && memory[0x29 * 4 + 3] == 0x04)

        let message = NDEFMessage(records: [try NDEFPayload.wellKnownTypeURIPayload(url: "https://example.org/through-macs")])
        let (second, writer) = try await fixture.open(protected)
        try await fixture.type2(writer, key: key).writeNDEF(message)
        let written = try #require(await TearingSweep.state(second))
        let (_, reader) = try await fixture.open(written)
        #expect(try await fixture.type2(reader, key: key).readNDEF() == message)
        let (_, stranger) = try await fixture.open(written)
        await #expect(throws: NFCTagError.self) { _ = try await fixture.type2(stranger).readNDEF() }
    }
}
