import NDEF
import NFCCore
import NFCTags
import NFCTestSupport
import Testing
import VirtualTags

/// MIFARE Ultralight C on the reader side: the authentication against the MF0ICU2 datasheet's
/// worked example (Rev. 3.3, 7.5.6), the key's page layout against Tables 10 and 11,
/// identification, protect/unprotect judged from the tag's memory (the tag file's state), a wrong
/// key that writes nothing, and the tearing sweep of protect.
@Suite("MIFARE Ultralight C: authentication, identification, protection", .timeLimit(.minutes(10)))
struct UltralightCTests {
    static let uid: [UInt8] = [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]
    static let key = (try? UltralightCKey(hex: "00112233445566778899AABBCCDDEEFF")) ?? .factoryDefault
    static let otherKey = (try? UltralightCKey(hex: "F0E1D2C3B4A5968778695A4B3C2D1E0F")) ?? .factoryDefault

    // MARK: - Datasheet values

    @Test("reader side of the 7.5.6 example: RndA A8AF3B256C75ED40 gives AF 0A638559…EBBE967A, and 003B884FA07C137CE1 is accepted")
    func datasheetReaderSide() throws {
        let rndA = hexBytes("A8AF3B256C75ED40").array
        let (command, finalIV) = try UltralightCAuthentication.secondStep(
            key: .factoryDefault, answer: hexBytes("AF577293FD2F34CA51").array, rndA: rndA)
        #expect(command == hexBytes("AF0A638559FC7737F9F15D7862EBBE967A").array)
        #expect(finalIV == hexBytes("F15D7862EBBE967A").array)
        try UltralightCAuthentication.checkFinalAnswer(
            key: .factoryDefault, answer: hexBytes("003B884FA07C137CE1").array, rndA: rndA, finalIV: finalIV)
        #expect(throws: NFCTagError.self) {
            try UltralightCAuthentication.checkFinalAnswer(
                key: .factoryDefault, answer: hexBytes("003B884FA07C137CE2").array, rndA: rndA, finalIV: finalIV)
        }
    }

    @Test("key page image as Tables 10/11 and the factory key as Table 13; the key never shows")
    func keyLayout() throws {
        let key = try UltralightCKey(hex: "00 01 02 03 04 05 06 07\n# Key2\n08 09 0A 0B 0C 0D 0E 0F\n")
        #expect(key.pageImage == hexBytes("07060504030201000F0E0D0C0B0A0908").array)
        #expect(try UltralightCKey(pageImage: key.pageImage) == key)
        #expect(UltralightCKey.factoryDefault.pageImage == Array("BREAKMEIFYOUCAN!".utf8))
        #expect(UltralightCKey.factoryDefault.bytes == hexBytes("49454D4B41455242214E4143554F5946").array)
        #expect("\(key)" == "UltralightCKey(redacted)")
        for bad in ["", "0011", String(repeating: "0", count: 33), String(repeating: "G", count: 32)] {
            #expect(throws: NFCTagError.self) { try UltralightCKey(hex: bad) }
        }
    }

    // MARK: - Through the simulator

    static let fixture = UltralightKeyedFixture<UltralightC3DES>(
        name: "Ultralight C", auth0Offset: 0x2A * 4, auth0Open: 0x30, strangerAUTH0Write: [0xA2, 0x2A, 0x30, 0, 0, 0],
        factory: { UltralightCTag(uid: uid).tagState },
        setKey: { tag, key in tag.ultralightCKey = key },
        authenticate: { tag, key in try await tag.authenticate(with: key) },
        protect: { tag, key throws(NFCTagError) in try await tag.protectUltralightC(with: key) })

    static func open(_ state: TagState) async throws -> (SimulatedReader, MiFareTag) { try await fixture.open(state) }

    static func factory(message: NDEFMessage? = nil) throws -> TagState {
        let tag = UltralightCTag(uid: uid)
        if let message { _ = tag.setNDEFMessage(try message.encodedForTag()) }
        return tag.tagState
    }

    static func type2(_ tag: MiFareTag, key: UltralightCKey? = nil) throws -> Type2Tag { try fixture.type2(tag, key: key) }

    static func memory(_ state: TagState) throws -> [UInt8] { try Hex.decode(state.memory) }

    /// The key pages of a state, in memory order.
    static func keyPages(_ state: TagState) throws -> [UInt8] { Array(try memory(state)[0x2C * 4..<0x30 * 4]) }

    @Test("identification: GET_VERSION NAK, AUTHENTICATE answered AF + 8 bytes, selected again; the tag then reads")
    func identification() async throws {
        let (reader, tag) = try await Self.open(try Self.factory(message: NDEFMessage(records: [try NDEFPayload.wellKnownTypeURIPayload(url: "https://example.com")])))
        #expect(tag.identity.model == "MIFARE Ultralight C")
        #expect(tag.identity.family == .ultralightC)
        #expect(tag.identity.memoryBytes == 144)
        let commands = await reader.withField { $0.trace.map { $0.command } }
        #expect(commands.contains([0x60]))
        #expect(commands.contains([0x1A, 0x00]))
        let message = try await Self.type2(tag).readNDEF()
        #expect(message.records.count == 1)
    }

    @Test("protect writes the key pages as the datasheet lays them out, AUTH1 then AUTH0; a fresh reader needs the key")
    func protect() async throws {
        let (reader, tag) = try await Self.open(try Self.factory(message: NDEFMessage(records: [try NDEFPayload.wellKnownTypeURIPayload(url: "https://example.com")])))
        try await Self.type2(tag).protectUltralightC(with: Self.key, protection: UltralightCProtection(firstProtectedPage: 4, readProtected: true))
        let state = try #require(await TearingSweep.state(reader))
        let memory = try Self.memory(state)
        #expect(Array(memory[0x2C * 4..<0x30 * 4]) == hexBytes("7766554433221100FFEEDDCCBBAA9988").array)
        #expect(memory[0x2A * 4] == 0x04)
        #expect(memory[0x2B * 4] == 0x00)
        // A fresh reader: no key, reading refused; the right key reads; a wrong one fails clearly.
        let (_, again) = try await Self.open(state)
        await #expect(throws: NFCTagError.self) { _ = try await Self.type2(again).readNDEF() }
        let (_, owner) = try await Self.open(state)
        #expect(try await Self.type2(owner, key: Self.key).readNDEF().records.count == 1)
        let (_, stranger) = try await Self.open(state)
        do {
            _ = try await Self.type2(stranger, key: Self.otherKey).readNDEF()
            Issue.record("a wrong key read the tag")
        } catch let error as NFCTagError {
            #expect(error.code == .authenticationFailed)
        }
    }

    @Test("a wrong current key fails with authenticationFailed and writes nothing")
    func wrongKeyWritesNothing() async throws {
        let (reader, tag) = try await Self.open(try Self.factory())
        try await Self.type2(tag).protectUltralightC(with: Self.key)
        let before = try #require(await TearingSweep.state(reader))
        let (strangerReader, stranger) = try await Self.open(before)
        do {
            try await Self.type2(stranger, key: Self.otherKey).protectUltralightC(with: Self.otherKey)
            Issue.record("a wrong key changed the protection")
        } catch let error as NFCTagError {
            #expect(error.code == .authenticationFailed)
        }
        do {
            try await Self.type2(stranger).unprotectUltralightC()
            Issue.record("no key removed the protection")
        } catch let error as NFCTagError {
            #expect(error.code == .passwordRequired || error.code == .connectionLost || error.code == .tagResponse, "\(error)")
        }
        let after = try #require(await TearingSweep.state(strangerReader))
        #expect(after.memory == before.memory)
    }

    @Test("unprotect with the key: AUTH0 30h, AUTH1 00h, the factory key back; anyone writes again")
    func unprotect() async throws {
        let (reader, tag) = try await Self.open(try Self.factory())
        try await Self.type2(tag).protectUltralightC(with: Self.key, protection: UltralightCProtection(readProtected: true))
        let protected = try #require(await TearingSweep.state(reader))
        let (again, owner) = try await Self.open(protected)
        try await Self.type2(owner, key: Self.key).unprotectUltralightC()
        let memory = try Self.memory(try #require(await TearingSweep.state(again)))
        #expect(memory[0x2A * 4] == 0x30)
        #expect(memory[0x2B * 4] == 0x00)
        #expect(Array(memory[0x2C * 4..<0x30 * 4]) == Array("BREAKMEIFYOUCAN!".utf8))
    }

    // MARK: - Tearing

    @Test("protect torn anywhere, first key and key change: open, or protected by the old or the new key; never by a half-written key")
    func tearingSweep() async throws {
        try await Self.fixture.tearingSweep(key: Self.key, otherKey: Self.otherKey)
    }
}
