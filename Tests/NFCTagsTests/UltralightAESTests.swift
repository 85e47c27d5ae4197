import Foundation
import NDEF
import NFCCore
@testable import NFCTags
import NFCTestSupport
import Testing
import VirtualTags

/// MIFARE Ultralight AES: the AES mutual authentication judged by `openssl enc -aes-128-cbc`
/// (a child process) on both sides, identification by GET_VERSION, protect/unprotect judged in
/// the virtual chip's memory and by fresh readers, AUTH_LIM, and the tearing sweep.
@Suite("MIFARE Ultralight AES: authentication, identification, protection", .timeLimit(.minutes(10)))
struct UltralightAESTests {
    static let uid: [UInt8] = [0x04, 0x41, 0x45, 0x53, 0x00, 0x00, 0x01]
    static let key = (try? UltralightAESKey(hex: "00112233445566778899AABBCCDDEEFF")) ?? .factoryDefault
    static let otherKey = (try? UltralightAESKey(hex: "F0E1D2C3B4A5968778695A4B3C2D1E0F")) ?? .factoryDefault

    /// `plain` encrypted by `openssl enc -aes-128-cbc` from a zero IV, without padding.
    static func openssl(key: [UInt8], _ plain: [UInt8]) async throws -> [UInt8] {
        try await OpenSSLCipherOracle.encryptCBC(cipher: "aes-128-cbc", key: key, iv: [UInt8](repeating: 0, count: 16), plain)
    }

    @Test("both sides of the authentication agree with openssl enc -aes-128-cbc: ek(RndB), ek(RndA ‖ RndB′), ek(RndA′)")
    func authenticationAgainstOpenSSL() async throws {
        let rndA = (0..<16).map { UInt8(truncatingIfNeeded: $0 &* 17 &+ 3) }
        let rndB = (0..<16).map { UInt8(truncatingIfNeeded: 0xF0 &- $0 &* 7) }
        let chip = UltralightAESTag(uid: Self.uid)
        chip.random = { rndB }
        let reader = SimulatedReader(tags: [chip], emptyFieldWait: .zero)
        _ = try await reader.poll(for: [.iso14443A], timeout: .zero)
        // The key goes in as the chip stores it (pages 30h–33h, reversed), through its own WRITEs.
        let image = Self.key.pageImage
        #expect(image == Self.key.bytes.reversed())
        for page in 0..<4 {
            _ = try await reader.transceive(Bytes([0xA2, UInt8(0x30 + page)] + image[(page * 4)..<(page * 4 + 4)]))
        }
        try await reader.deselect()
        _ = try await reader.poll(for: [.iso14443A], timeout: .zero)

        let first = try await reader.transceive(Bytes([0x1A, 0x00])).array
        #expect(first == [0xAF] + (try await Self.openssl(key: Self.key.bytes, rndB)))
        let (command, _) = try UltralightAESAuthentication.secondStep(key: Self.key, answer: first, rndA: rndA)
        let rotatedB = Array(rndB[1...]) + [rndB[0]]
        #expect(command == [0xAF] + (try await Self.openssl(key: Self.key.bytes, rndA + rotatedB)))
        let last = try await reader.transceive(Bytes(command)).array
        #expect(last == [0x00] + (try await Self.openssl(key: Self.key.bytes, Array(rndA[1...]) + [rndA[0]])))
        try UltralightAESAuthentication.checkFinalAnswer(key: Self.key, answer: last, rndA: rndA)
        #expect(throws: NFCTagError.self) {
            try UltralightAESAuthentication.checkFinalAnswer(key: Self.otherKey, answer: last, rndA: rndA)
        }
    }

    @Test("key files: 32 hex digits with comments; the key never shows; other lengths refused")
    func keyParsing() throws {
        let key = try UltralightAESKey(hex: "# DataProtKey\n00 11 22 33 44 55 66 77\n88 99 AA BB CC DD EE FF\n")
        #expect(key == Self.key)
        #expect(try UltralightAESKey(pageImage: key.pageImage) == key)
        #expect("\(key)" == "UltralightAESKey(redacted)")
        for bad in ["", "0011", String(repeating: "0", count: 33), String(repeating: "G", count: 32)] {
            #expect(throws: NFCTagError.self) { try UltralightAESKey(hex: bad) }
        }
    }

    // MARK: - Through the simulator

    static let fixture = UltralightKeyedFixture<UltralightAES128>(
        name: "Ultralight AES", auth0Offset: 0x29 * 4 + 3, auth0Open: 0x3C, strangerAUTH0Write: [0xA2, 0x29, 0, 0, 0, 0x3C],
        factory: { UltralightAESTag(uid: uid).tagState },
        setKey: { tag, key in tag.ultralightAESKey = key },
        authenticate: { tag, key in try await tag.authenticate(with: key) },
        protect: { tag, key throws(NFCTagError) in try await tag.protectUltralightAES(with: key) })

    static func open(_ state: TagState) async throws -> (SimulatedReader, MiFareTag) { try await fixture.open(state) }

    static func factory(message: NDEFMessage? = nil) throws -> TagState {
        let tag = UltralightAESTag(uid: uid)
        if let message { _ = tag.setNDEFMessage(try message.encodedForTag()) }
        return tag.tagState
    }

    static func type2(_ tag: MiFareTag, key: UltralightAESKey? = nil) throws -> Type2Tag { try fixture.type2(tag, key: key) }

    static func memory(_ state: TagState) throws -> [UInt8] { try Hex.decode(state.memory) }

    static let message = NDEFMessage(records: [(try? NDEFPayload.wellKnownTypeURIPayload(url: "https://example.com/aes")) ?? NDEFPayload.empty])

    @Test("identification: GET_VERSION 0004030104000F03 names MF0AES20 with 144 bytes; no AUTHENTICATE probe; the tag reads")
    func identification() async throws {
        let (reader, tag) = try await Self.open(try Self.factory(message: Self.message))
        #expect(tag.identity.model == "MIFARE Ultralight AES (MF0AES20)")
        #expect(tag.identity.family == .ultralightAES)
        #expect(tag.identity.memoryBytes == 144)
        let commands = await reader.withField { $0.trace.map { $0.command } }
        #expect(commands.contains([0x60]))
        #expect(!commands.contains { $0.first == 0x1A })
        #expect(try await Self.type2(tag).readNDEF().records.count == 1)
        #expect(ChipIdentification.type2Identity(version: UltralightAESCommand.versionMF0AESH20).model.contains("MF0AESH20"))
        #expect(ChipIdentification.type2Identity(version: UltralightAESCommand.versionMF0AESH20).family == .ultralightAES)
    }

    @Test("protect writes the key reversed in 30h–33h, PROT then AUTH0; a fresh reader needs the key, a wrong one fails")
    func protect() async throws {
        let (reader, tag) = try await Self.open(try Self.factory(message: Self.message))
        try await Self.type2(tag).protectUltralightAES(with: Self.key, protection: UltralightAESProtection(readProtected: true))
        let state = try #require(await TearingSweep.state(reader))
        let memory = try Self.memory(state)
        #expect(Array(memory[0x30 * 4..<0x34 * 4]) == hexBytes("FFEEDDCCBBAA99887766554433221100").array)
        #expect(memory[0x29 * 4 + 3] == 0x04)
        #expect(memory[0x2A * 4] & 0x80 == 0x80)
        let (_, again) = try await Self.open(state)
        do {
            _ = try await Self.type2(again).readNDEF()
            Issue.record("read without the key")
        } catch let error as NFCTagError {
            #expect(error.code == .passwordRequired, "\(error)")
        }
        let (_, owner) = try await Self.open(state)
        #expect(try await Self.type2(owner, key: Self.key).readNDEF().records.count == 1)
        let (strangerReader, stranger) = try await Self.open(state)
        do {
            _ = try await Self.type2(stranger, key: Self.otherKey).readNDEF()
            Issue.record("a wrong key read the tag")
        } catch let error as NFCTagError {
            #expect(error.code == .authenticationFailed)
        }
        let after = try #require(await TearingSweep.state(strangerReader))
        #expect(Array(try Self.memory(after)[0..<(60 * 4)]) == Array(memory[0..<(60 * 4)]), "a wrong key changed the pages")
    }

    @Test("unprotect with the key: AUTH0 3Ch, PROT clear, zero key back; anyone writes again")
    func unprotect() async throws {
        let (reader, tag) = try await Self.open(try Self.factory())
        try await Self.type2(tag).protectUltralightAES(with: Self.key, protection: UltralightAESProtection(readProtected: true))
        let protected = try #require(await TearingSweep.state(reader))
        let (again, owner) = try await Self.open(protected)
        try await Self.type2(owner, key: Self.key).unprotectUltralightAES()
        let state = try #require(await TearingSweep.state(again))
        let memory = try Self.memory(state)
        #expect(memory[0x29 * 4 + 3] == 0x3C)
        #expect(memory[0x2A * 4] & 0x80 == 0)
        #expect(Array(memory[0x30 * 4..<0x34 * 4]) == [UInt8](repeating: 0, count: 16))
        let (_, anyone) = try await Self.open(state)
        _ = try await anyone.reader.transceive(Bytes([0xA2, 0x04, 1, 2, 3, 4]))
    }

    @Test("AUTH_LIM 2: two wrong keys, then the right key is refused too, and the chip stays protected")
    func authenticationLimit() async throws {
        let (reader, tag) = try await Self.open(try Self.factory())
        try await Self.type2(tag).protectUltralightAES(with: Self.key, protection: UltralightAESProtection(authenticationLimit: 2))
        var state = try #require(await TearingSweep.state(reader))
        #expect(try Self.memory(state)[0x2A * 4 + 2] == 2)
        for _ in 0..<2 {
            let (r, t) = try await Self.open(state)
            await #expect(throws: NFCTagError.self) { try await Self.type2(t, key: Self.otherKey).authenticate(with: Self.otherKey) }
            state = try #require(await TearingSweep.state(r))
        }
        let (_, owner) = try await Self.open(state)
        do {
            try await Self.type2(owner, key: Self.key).authenticate(with: Self.key)
            Issue.record("authenticated past AUTH_LIM")
        } catch let error as NFCTagError {
            #expect(error.code == .authenticationFailed)
        }
    }

    @Test("a trace of protect holds no key byte: WRITEs to 30h–33h (MACed or not) and the cryptograms are redacted")
    func traceRedaction() async throws {
        var redactor = ReaderTraceRedactor()
        let target = TargetInfo.iso14443A(ISO14443ATarget(uid: Bytes(Self.uid), atqa: [0x44, 0x00], sak: 0x00))
        _ = redactor.redact(.poll([.iso14443A]), .found(target))
        _ = redactor.redact(.transceive(TraceBytes([0x60]), .raw), .answer(TraceBytes(UltralightAESCommand.versionMF0AES20)))
        let (write, _) = redactor.redact(.transceive(TraceBytes([0xA2, 0x31, 0xBB, 0xAA, 0x99, 0x88]), .standard), .answer(TraceBytes([0x0A])))
        guard case .transceive(let written, _) = write else { Issue.record("not a transceive"); return }
        #expect(written.values == [0xA2, 0x31, nil, nil, nil, nil])
        let (macedWrite, _) = redactor.redact(
            .transceive(TraceBytes([0xA2, 0x32, 0x77, 0x66, 0x55, 0x44] + [UInt8](repeating: 0xC3, count: 8)), .standard),
            .answer(TraceBytes([UInt8](repeating: 0x3C, count: 8))))
        guard case .transceive(let macedWritten, _) = macedWrite else { Issue.record("not a transceive"); return }
        #expect(macedWritten.values == [0xA2, 0x32] + [UInt8?](repeating: nil, count: 12), "a MACed key write (secure messaging) is redacted too")
        let (_, result) = redactor.redact(.transceive(TraceBytes([0x1A, 0x00]), .standard), .answer(TraceBytes([0xAF] + [UInt8](repeating: 7, count: 16))))
        guard case .answer(let answer) = result else { Issue.record("not an answer"); return }
        #expect(answer.values.dropFirst().allSatisfy { $0 == nil })
    }

    // MARK: - Tearing

    @Test("protect torn anywhere, first key and key change: open, or protected by the old or the new key; never by a half-written key")
    func tearingSweep() async throws {
        try await Self.fixture.tearingSweep(key: Self.key, otherKey: Self.otherKey)
    }
}
