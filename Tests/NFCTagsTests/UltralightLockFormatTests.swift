import NDEF
import NFCCore
import NFCTags
import NFCTestSupport
import Testing
import VirtualTags

/// `format` and `lock` on the key-protected Ultralights (the Ultralight AES lock with its tearing
/// sweep), through the simulator: the bytes are
/// judged in the virtual chip's memory, the behaviour by fresh readers.
@Suite("MIFARE Ultralight C and AES: format and lock", .timeLimit(.minutes(2)))
struct UltralightLockFormatTests {
    static let uid: [UInt8] = [0x04, 0x10, 0x20, 0x30, 0x40, 0x50, 0x60]
    static let message = NDEFMessage(records: [(try? NDEFPayload.wellKnownTypeURIPayload(url: "https://example.com/lock")) ?? NDEFPayload.empty])

    static func open(_ state: TagState, cKey: UltralightCKey? = nil, aesKey: UltralightAESKey? = nil) async throws -> (SimulatedReader, Type2Tag) {
        let (reader, target) = try await TearingSweep.open(state, modulations: [.iso14443A])
        guard case .miFare(var tag) = try await NFCTag.connect(to: target, on: reader) else {
            throw NFCTagError(.notSupported, "not a MIFARE tag")
        }
        tag.ultralightCKey = cKey
        tag.ultralightAESKey = aesKey
        return (reader, try #require(tag.type2))
    }

    static func memory(_ reader: SimulatedReader) async throws -> [UInt8] {
        try Hex.decode(try #require(await TearingSweep.state(reader)).memory)
    }

    @Test("format of a blank Ultralight C and AES: TLV 03 00 FE at page 4, CC E1 10 12 00 last; a fresh reader writes and reads a message", arguments: ["ultralight-c", "ultralight-aes"])
    func formatBlank(model: String) async throws {
        let state = model == "ultralight-c" ? UltralightCTag(uid: Self.uid).tagState : UltralightAESTag(uid: Self.uid).tagState
        let (reader, tag) = try await Self.open(state)
        try await tag.format(force: false)
        let memory = try await Self.memory(reader)
        #expect(Array(memory[12..<16]) == [0xE1, 0x10, 0x12, 0x00])
        #expect(Array(memory[16..<20]) == [0x03, 0x00, 0xFE, 0x00])
        let formatted = try #require(await TearingSweep.state(reader))
        let (again, fresh) = try await Self.open(formatted)
        try await fresh.writeNDEF(Self.message)
        let (_, reading) = try await Self.open(try #require(await TearingSweep.state(again)))
        #expect(try await reading.readNDEF() == Self.message)
    }

    @Test("format refuses a blank Ultralight C holding data unless forced, nothing written")
    func formatRefusesData() async throws {
        let (reader, tag) = try await Self.open(UltralightCTag(uid: Self.uid).tagState)
        _ = try await tag.reader.transceive(Bytes([0xA2, 0x08, 1, 2, 3, 4]))
        let before = try await Self.memory(reader)
        do {
            try await tag.format(force: false)
            Issue.record("formatted over data")
        } catch {
            #expect(error.code == .alreadyFormatted)
        }
        #expect(try await Self.memory(reader) == before)
        try await tag.format(force: true)
        #expect(Array(try await Self.memory(reader)[32..<36]) == [0, 0, 0, 0])
    }

    @Test("a 3DES-protected blank Ultralight C formats with its key")
    func formatProtected() async throws {
        let key = try UltralightCKey(hex: "00112233445566778899AABBCCDDEEFF")
        let (first, tag) = try await Self.open(UltralightCTag(uid: Self.uid).tagState)
        try await tag.protectUltralightC(with: key, protection: UltralightCProtection(readProtected: true))
        let protected = try #require(await TearingSweep.state(first))
        let (_, stranger) = try await Self.open(protected)
        await #expect(throws: NFCTagError.self) { try await stranger.format(force: false) }
        let (reader, owner) = try await Self.open(protected, cKey: key)
        try await owner.format(force: false)
        #expect(Array(try await Self.memory(reader)[12..<16]) == [0xE1, 0x10, 0x12, 0x00])
    }

    @Test("lock on an Ultralight C: CC3 0F, lock byte 2 FF, lock byte 3 untouched, static lock FF FF; a fresh reader cannot write")
    func lockUltralightC() async throws {
        let chip = UltralightCTag(uid: Self.uid)
        #expect(chip.setNDEFMessage(try Self.message.encodedForTag()))
        let (reader, tag) = try await Self.open(chip.tagState)
        try await tag.writeLock()
        let memory = try await Self.memory(reader)
        #expect(memory[15] == 0x0F)
        #expect(memory[0x28 * 4] == 0xFF && memory[0x28 * 4 + 1] == 0x00)
        #expect(memory[10] == 0xFF && memory[11] == 0xFF)
        let (_, fresh) = try await Self.open(try #require(await TearingSweep.state(reader)))
        #expect(try await fresh.readNDEF() == Self.message)
        for page: UInt8 in [0x04, 0x10, 0x27] {
            let (_, writer) = try await Self.open(try #require(await TearingSweep.state(reader)))
            await #expect(throws: (any Error).self, "page \(page) is still writable") {
                _ = try await writer.reader.transceive(Bytes([0xA2, page, 9, 9, 9, 9]))
            }
        }
    }

    @Test("lock on an Ultralight AES with a short message: CC3 0F, static lock FF FF, CFGLCK in CFG1, page 28h untouched; a fresh reader reads it and cannot write")
    func lockUltralightAES() async throws {
        let chip = UltralightAESTag(uid: Self.uid)
        #expect(chip.setNDEFMessage(try Self.message.encodedForTag()))
        let (reader, tag) = try await Self.open(chip.tagState)
        try await tag.writeLock()
        let memory = try await Self.memory(reader)
        #expect(memory[15] == 0x0F)
        #expect(memory[10] == 0xFF && memory[11] == 0xFF)
        #expect(memory[0x2A * 4] & 0x40 == 0x40, "CFGLCK")
        #expect(Array(memory[0x28 * 4..<0x29 * 4]) == [0, 0, 0, 0], "the dynamic lock bytes have no public layout: untouched")
        let locked = try #require(await TearingSweep.state(reader))
        let (_, fresh) = try await Self.open(locked)
        #expect(try await fresh.readNDEF() == Self.message)
        #expect(try await fresh.queryNDEFStatus().status == .readOnly)
        for frame: [UInt8] in [[0xA2, 0x04, 9, 9, 9, 9], [0xA2, 0x0F, 9, 9, 9, 9], [0xA2, 0x29, 0, 0, 0, 0x04], [0xA2, 0x2A, 0, 0, 0, 0]] {
            let (_, writer) = try await Self.open(locked)
            await #expect(throws: (any Error).self, "\(frame) still writes") { _ = try await writer.reader.transceive(Bytes(frame)) }
        }
        let (again, rerun) = try await Self.open(locked)
        try await rerun.writeLock()
        #expect(try await Self.memory(again) == memory, "a second lock writes nothing new")
    }

    @Test("lock on an Ultralight AES whose message reaches page 10h is refused (dynamic lock bytes unknown), nothing written")
    func lockUltralightAESLongMessageRefused() async throws {
        let chip = UltralightAESTag(uid: Self.uid)
        let long = NDEFMessage(records: [try NDEFPayload.wellKnownTypeURIPayload(url: "https://example.com/" + String(repeating: "a", count: 60))])
        #expect(chip.setNDEFMessage(try long.encodedForTag()))
        let (reader, tag) = try await Self.open(chip.tagState)
        let before = try await Self.memory(reader)
        do {
            try await tag.writeLock()
            Issue.record("locked")
        } catch {
            #expect(error.code == .notSupported)
            #expect(error.reason.contains("page 28h"), "\(error.reason)")
        }
        #expect(try await Self.memory(reader) == before)
    }

    @Test("lock on a protected Ultralight AES: without the key passwordRequired and nothing written; with it, locked")
    func lockUltralightAESProtected() async throws {
        let key = try UltralightAESKey(hex: "00112233445566778899AABBCCDDEEFF")
        let chip = UltralightAESTag(uid: Self.uid)
        #expect(chip.setNDEFMessage(try Self.message.encodedForTag()))
        let (first, owner) = try await Self.open(chip.tagState)
        try await owner.protectUltralightAES(with: key)
        let protected = try #require(await TearingSweep.state(first))
        let (strangerReader, stranger) = try await Self.open(protected)
        do {
            try await stranger.writeLock()
            Issue.record("locked without the key")
        } catch {
            #expect(error.code == .passwordRequired)
        }
        #expect(try #require(await TearingSweep.state(strangerReader)).memory == protected.memory)
        let (reader, keyed) = try await Self.open(protected, aesKey: key)
        try await keyed.writeLock()
        let memory = try await Self.memory(reader)
        #expect(memory[15] == 0x0F && memory[10] == 0xFF && memory[11] == 0xFF && memory[0x2A * 4] & 0x40 == 0x40)
    }

    /// "writable", "read-only" (CC3 0F) — each with the message intact — or "corrupt".
    static func lockState(_ state: TagState) async throws -> String {
        let memory = try Hex.decode(state.memory)
        let (_, tag) = try await Self.open(state)
        guard (try? await tag.readNDEF()) == Self.message else { return "corrupt: the message changed" }
        return memory[15] & 0x0F == 0x0F ? "read-only" : "writable"
    }

    @Test("lock torn after and inside every command: the message intact, writable or read-only; lock run again completes it")
    func lockUltralightAESTearing() async throws {
        let chip = UltralightAESTag(uid: Self.uid)
        #expect(chip.setNDEFMessage(try Self.message.encodedForTag()))
        let makeTag: (SimulatedReader, TargetInfo) async throws -> any NFCNDEFTag = { reader, target in
            guard case .miFare(let tag) = try await NFCTag.connect(to: target, on: reader) else { throw NFCTagError(.notSupported, "not MIFARE") }
            return try #require(tag.type2)
        }
        var resumed = 0
        let outcomes = try await TearingSweep.run(
            "Ultralight AES lock", initial: chip.tagState, makeTag: makeTag,
            operation: { tag throws(NFCTagError) in try await tag.writeLock() },
            classifyState: { state, _ in
                let kind = try await Self.lockState(state)
                let (reader, again) = try await Self.open(state)
                try await again.writeLock()
                let memory = try await Self.memory(reader)
                if memory[15] == 0x0F, memory[10] == 0xFF, memory[11] == 0xFF, memory[0x2A * 4] & 0x40 != 0 { resumed += 1 }
                return kind
            })
        #expect(outcomes["writable", default: 0] >= 1)
        #expect(outcomes["read-only", default: 0] >= 1)
        #expect(!outcomes.keys.contains { $0.hasPrefix("corrupt") }, "\(outcomes)")
        #expect(resumed == outcomes["cut points"], "every cut state completes when lock runs again: \(outcomes)")
    }
}
