import Foundation
import NDEF
import NFCCore
@testable import NFCTags
import NFCTestSupport
import Testing
import VirtualTags

/// MIFARE Ultralight AES READ_SIG (48 bytes) and the one-way counters (READ_CNT / INCR_CNT):
/// the virtual chip's rules, the library reading both plain and inside a secure-messaging
/// session, and hostile answers refused with `tagResponse`.
@Suite("MIFARE Ultralight AES: READ_SIG and the one-way counters", .timeLimit(.minutes(2)))
struct UltralightAESCountersSignatureTests {
    /// A real chip's UID and signature (Proxmark3 tools/recover_pk.py self-test).
    static let uid: [UInt8] = [0x04, 0x5E, 0x4C, 0xC2, 0x45, 0x13, 0x90]
    static let signature = (try? Hex.decode(
        "C9BBDA1B99EB6634CDFD8E3251AC5C4742EA5FA507B8A8A8B39B19AB7340D173331589C54C56C49F0CCA6DDBAC1E492A")) ?? []

    @Test("the virtual chip: counters 0 and 1 open, counter 2 refused without the key unless CNT_RD_EN / CNT_INC_EN; INCR_CNT adds, overflow is NAK 4; the counters survive the tag file")
    func virtualCounters() throws {
        let chip = UltralightAESTag(uid: Self.uid)
        #expect(chip.respond(to: [0x39, 0x00]) == .data([0, 0, 0]))
        #expect(chip.respond(to: [0xA5, 0x01, 0x34, 0x12, 0x00, 0x00]) == .ack)
        #expect(chip.respond(to: [0x39, 0x01]) == .data([0x34, 0x12, 0x00]))
        #expect(chip.respond(to: [0x39, 0x02]) == .nak(NTAGAcknowledge.invalidArgument))
        chip.activate()
        #expect(chip.respond(to: [0xA5, 0x02, 0x01, 0x00, 0x00, 0x00]) == .nak(NTAGAcknowledge.invalidArgument))
        chip.activate()
        #expect(chip.respond(to: [0x39, 0x03]) == .nak(NTAGAcknowledge.invalidArgument))
        chip.activate()
        // CNT_RD_EN and CNT_INC_EN (CFG1 byte 0 bits 2 and 3) open counter 2.
        #expect(chip.respond(to: [0xA2, 0x2A, 0x0C, 0x05, 0x00, 0x00]) == .ack)
        #expect(chip.respond(to: [0xA5, 0x02, 0xFE, 0xFF, 0xFF, 0x00]) == .ack)
        #expect(chip.respond(to: [0x39, 0x02]) == .data([0xFE, 0xFF, 0xFF]))
        #expect(chip.respond(to: [0xA5, 0x02, 0x02, 0x00, 0x00, 0x00]) == .nak(NTAGAcknowledge.counterOverflow))
        chip.activate()
        let restored = try #require(UltralightAESTag(state: chip.tagState))
        #expect(restored.counters == [0, 0x1234, 0xFF_FFFE])
        // A tag file with counters of another shape, or a signature of another length, is refused.
        var state = chip.tagState
        state.counters = [1, 2]
        #expect(UltralightAESTag(state: state) == nil)
        state = chip.tagState
        state.attributes = ["signature": String(repeating: "AB", count: 32)]
        #expect(UltralightAESTag(state: state) == nil)
        // A tag file written before the counters and signature were modelled still opens.
        state = chip.tagState
        state.counters = nil
        state.attributes = nil
        #expect(UltralightAESTag(state: state)?.counters == [0, 0, 0])
    }

    @Test("the library reads the 48-byte signature and the counters; counter 2 is refused without the key and read after the authentication")
    func libraryPlain() async throws {
        let chip = UltralightAESTag(uid: Self.uid)
        chip.originalitySignature = Self.signature
        #expect(chip.respond(to: [0xA5, 0x00, 0x07, 0x00, 0x00, 0x00]) == .ack)
        let fixture = UltralightAESTests.fixture
        let (_, tag) = try await fixture.open(chip.tagState)
        let type2 = try fixture.type2(tag)
        #expect(try await type2.readSignature().array == Self.signature)
        #expect(try await type2.readCounter(0) == 7)
        #expect(try await type2.readCounter(1) == 0)
        await #expect(throws: NFCTagError.self) { _ = try await type2.readCounter(3) }
        do {
            _ = try await type2.readCounter(2)
            Issue.record("counter 2 read without the key")
        } catch {
            #expect(error.readerError?.code == .nak)
        }
        let (_, again) = try await fixture.open(chip.tagState)
        let keyed = try fixture.type2(again, key: UltralightAESKey.factoryDefault)
        try await keyed.authenticate(with: UltralightAESKey.factoryDefault)
        #expect(try await keyed.readCounter(2) == 0)
    }

    @Test("with secure messaging on, READ_SIG and READ_CNT after the authentication go through MACs")
    func librarySecureMessaging() async throws {
        let chip = UltralightAESTag(uid: Self.uid)
        chip.originalitySignature = Self.signature
        #expect(chip.respond(to: [0xA2, 0x29, 0x02, 0x00, 0x00, 0x3C]) == .ack)
        #expect(chip.respond(to: [0xA5, 0x02, 0x09, 0x00, 0x00, 0x00]) == .nak(NTAGAcknowledge.invalidArgument))
        chip.activate()
        #expect(chip.respond(to: [0xA5, 0x01, 0x09, 0x00, 0x00, 0x00]) == .ack)
        let fixture = UltralightAESTests.fixture
        let (_, tag) = try await fixture.open(chip.tagState)
        let type2 = try fixture.type2(tag, key: UltralightAESKey.factoryDefault)
        try await type2.authenticate(with: UltralightAESKey.factoryDefault)
        #expect(type2.ultralightAESSession.isActive)
        #expect(try await type2.readSignature().array == Self.signature)
        #expect(try await type2.readCounter(1) == 9)
        #expect(try await type2.readCounter(2) == 0)
    }

    @Test("hostile answers: a READ_CNT answer of 0, 2 or 4 bytes and a READ_SIG answer of 32 or 49 bytes are tagResponse")
    func hostileAnswers() async throws {
        for bad in [[], [0x01, 0x02], [0x01, 0x02, 0x03, 0x04]] as [[UInt8]] {
            #expect(throws: NFCTagError.self) { _ = try Type2Tag.counterValue(bad, number: 0) }
        }
        #expect(try Type2Tag.counterValue([0x01, 0x02, 0x03], number: 0) == 0x030201)
        for length in [32, 49] {
            let reader = ScriptedReader(
                answers: [[0x3C, 0x00]: [UInt8](repeating: 0x11, count: length), [0x39, 0x00]: [0x00, 0x00]],
                target: UltralightAESTag(uid: Self.uid).targetInfo)
            let identity = ChipIdentity(
                model: "MIFARE Ultralight AES (MF0AES20)", platform: .type2, family: .ultralightAES,
                memoryBytes: UltralightAESMemory.userPages.count * 4)
            let type2 = Type2Tag(reader: reader, identity: identity)
            do {
                _ = try await type2.readSignature()
                Issue.record("a \(length)-byte signature was taken")
            } catch {
                #expect(error.code == .tagResponse)
            }
            do {
                _ = try await type2.readCounter(0)
                Issue.record("a 2-byte counter was taken")
            } catch {
                #expect(error.code == .tagResponse)
            }
        }
    }
}
