import NDEF
import NFCCore
import NFCTags
import Testing
import VirtualTags

/// A Type 2 mirror write checks everything before its first WRITE: the old mirror is turned
/// off only once the new message is known to fit (NTAG213/215/216 datasheet 8.7).
@Suite("Type 2 mirror write: a failed check sends no WRITE", .timeLimit(.minutes(2)))
struct MirrorWriteChecksTests {
    /// `https://e.io/?u=` followed by the UID placeholder and `padding` letters.
    static func message(padding: Int) throws -> (NDEFMessage, Int) {
        let url = "https://e.io/?u=" + String(decoding: NTAGMirror.uid.placeholder, as: UTF8.self) + String(repeating: "a", count: padding)
        let message = NDEFMessage(records: [try NDEFPayload.wellKnownTypeURIPayload(url: url)])
        let offset = try #require(NTAGMirror.uid.placeholderOffset(in: try message.encodedForTag()))
        return (message, offset)
    }

    @Test("an NTAG213 mirroring its UID: a mirror write of a too-big message throws capacityExceeded, sends no WRITE, and CFG0 keeps the mirror")
    func tooBigMessageLeavesTheMirror() async throws {
        let simulated = SimulatedReader(tags: [NTAG21xTag(.ntag213, uid: [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66])], emptyFieldWait: .zero)
        let reader = await TracingReader(simulated)
        let target = try #require(try await reader.poll(for: [.iso14443A], timeout: .seconds(1)))
        guard case .miFare(let miFare) = try await NFCTag.connect(to: target, on: reader), let type2 = miFare.type2 else {
            Issue.record("the NTAG213 is not a Type 2 tag")
            return
        }
        let (fits, fitsOffset) = try Self.message(padding: 0)
        try await type2.writeNDEF(fits, mirror: .uid, at: fitsOffset, verify: true)
        // CFG0 of the NTAG213 is page 29h (datasheet 8.5): the chip's own memory, not a read.
        func cfg0() async -> [UInt8]? {
            await simulated.withField { field in (field.currentTag as? NTAG21xTag).map { Array($0.memory[0x29 * 4..<(0x29 * 4 + 4)]) } }
        }
        let before = try #require(await cfg0())
        #expect(NTAGMirror(mirrorByte: before[0]) == .uid)

        await reader.reset()
        let (tooBig, tooBigOffset) = try Self.message(padding: 200)
        do {
            try await type2.writeNDEF(tooBig, mirror: .uid, at: tooBigOffset, verify: true)
            Issue.record("a message of more than 144 bytes was written to an NTAG213")
        } catch {
            #expect(error.code == .capacityExceeded)
        }
        let writes = await reader.commands.filter { $0.command.first == Type2Command.write }
        #expect(writes.isEmpty, "sent: \(writes.map { Hex.encode($0.command.array) })")
        #expect(await cfg0() == before)
    }
}
