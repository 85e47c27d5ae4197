import NDEF
import NFCCore
import NFCTags
import NFCTestSupport
import Testing
import VirtualTags

/// `Type5Tag` over a virtual ICODE SLIX-S whose pages from block 8 on need the write password:
/// the message is judged from the chip's memory in the field, not by NFCTags.
@Suite("Type 5 writes over blocks behind a password (virtual SLIX-S)", .timeLimit(.minutes(1)))
struct Type5PasswordProtectionTests {
    static let uid: [UInt8] = [0xE0, 0x04, 0x02, 0x10, 0x53, 0x49, 0x4D, 0x0A]
    static let identity = ChipIdentity(.icodeSLIXS, platform: .type5, family: .icode)
    static func text(_ string: String) throws -> NDEFMessage {
        NDEFMessage(records: [try NDEFPayload.wellKnownTypeTextPayload(string: string, locale: "en")])
    }

    /// A simulator holding a SLIX-S with `old` stored and pages 2–9 (blocks 8–39) write-protected
    /// behind the write password; its reader answers GET MULTIPLE BLOCK PROTECTION STATUS `01 01`
    /// (not supported) when `hidesProtection`, as a reader or chip that cannot tell.
    static func open(hidesProtection: Bool) async throws -> (SimulatedReader, Type5Tag) {
        let reader = SimulatedReader(tags: [ICodeSLIX2(uid: uid, variant: .slixS)], emptyFieldWait: .zero)
        let target = try #require(try await reader.poll(for: [.iso15693], timeout: .zero))
        guard case .iso15693(let v) = target else { throw NFCTagError(.notSupported, "not ISO 15693") }
        let adapter = ScriptedReader(interposingOn: reader, modulations: [.iso15693], name: "adapter") { command, _ in
            hidesProtection && command.count > 1 && command[1] == ICodeCommand.getMultipleBlockProtectionStatus
                ? .reply(.answer([0x01, 0x01])) : .forward(command)
        }
        let tag = Type5Tag(tag: ISO15693Tag(reader: adapter, target: v, identity: identity))
        try await tag.format(force: true)
        try await tag.writeNDEF(try text("old"), verify: true)
        await reader.withField { field in
            guard let chip = field.currentTag as? ICodeSLIX2 else { return }
            for page in 2..<chip.security.pageProtection.count { chip.security.pageProtection[page] = ICodePageProtection.writeByWritePassword }
        }
        return (reader, tag)
    }

    static func memory(_ reader: SimulatedReader) async -> [UInt8] {
        await reader.withField { ($0.currentTag as? ICodeSLIX2)?.memory ?? [] }
    }

    @Test("the protection read first: a message reaching block 8 is passwordRequired naming block 8, memory unchanged; one below it is written")
    func refusedBeforeWriting() async throws {
        let (reader, tag) = try await Self.open(hidesProtection: false)
        let before = await Self.memory(reader)
        let long = try Self.text(String(repeating: "reaches block 8 ", count: 4))
        await #expect {
            try await tag.writeNDEF(long, verify: false)
        } throws: { error in
            let error = error as! NFCTagError
            return error.code == .passwordRequired && error.offset == 32 && error.reason.contains("block 8 needs a password")
                && error.reason.contains("nothing was written")
        }
        #expect(await Self.memory(reader) == before)
        try await tag.writeNDEF(try Self.text("fits"), verify: true)
        #expect(T5TJudge(memory: await Self.memory(reader))?.text == "fits")
    }

    @Test("the protection unreadable: the chip's refusal at block 8 is passwordRequired and says the tag holds an empty message (L was zeroed first), never 'nothing was written'")
    func refusedHalfWay() async throws {
        let (reader, tag) = try await Self.open(hidesProtection: true)
        let long = try Self.text(String(repeating: "reaches block 8 ", count: 4))
        await #expect {
            try await tag.writeNDEF(long, verify: false)
        } throws: { error in
            let error = error as! NFCTagError
            return error.code == .passwordRequired && error.offset == 32 && error.reason.contains("empty NDEF message")
                && !error.reason.contains("nothing was written")
        }
        let memory = await Self.memory(reader)
        #expect(Array(memory[4...5]) == [0x03, 0x00], "the length zeroed: an empty NDEF message")
        #expect(try await tag.readNDEF() == .empty)
    }

    @Test("a lock refused part-way by a block behind a password the chip would not tell of (GET MULTIPLE BLOCK PROTECTION STATUS unsupported) says the lock is partly done, with what is: not 'read-only, nothing written'")
    func partialLockSaysSo() async throws {
        let (reader, tag) = try await Self.open(hidesProtection: true)
        await #expect {
            try await tag.writeLock()
        } throws: { error in
            guard let error = error as? NFCTagError else { return false }
            return error.code == .tagResponse && error.reason.contains("the lock is partly done")
                && error.reason.contains("write access is now never") && error.reason.contains("blocks 1–7 are locked")
                && error.reason.contains("LOCK BLOCK 8 was refused")
        }
        let memory = await Self.memory(reader)
        #expect(memory[1] & 0x03 == 0x03, "the CC's write access was set to never before the refusal")
    }
}
