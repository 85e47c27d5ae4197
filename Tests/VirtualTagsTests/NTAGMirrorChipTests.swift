import NFCCore
import NFCTags
import Testing
import VirtualTags

/// The virtual NTAG21x's mirror and NFC counter, driven by raw commands as a reader would
/// (NTAG213/215/216 datasheet 8.6, 8.7 and the example of 8.7.3.1).
@Suite("virtual NTAG21x mirror and NFC counter", .timeLimit(.minutes(1)))
struct NTAGMirrorChipTests {
    func data(_ answer: TagAnswer) -> [UInt8] {
        if case .data(let bytes) = answer { return bytes }
        Issue.record("expected data, got \(answer)")
        return []
    }

    @Test("the datasheet's example: UID and counter mirrored from page 0Ch byte 1; READ_CNT agrees")
    func datasheetExample() {
        let uid: [UInt8] = [0x04, 0xE1, 0x41, 0x12, 0x4C, 0x28, 0x80]
        let tag = NTAG21xTag(.ntag213, uid: uid)
        // Placeholder text in pages 0Ch–11h, from byte 1: 14 '0', 'x', 6 '0'.
        let text = Array("=00000000000000x000000".utf8)
        for (index, chunk) in stride(from: 0, to: 24, by: 4).enumerated() {
            var page = [UInt8](repeating: 0, count: 4)
            for i in 0..<4 where chunk + i < text.count { page[i] = text[chunk + i] }
            #expect(tag.respond(to: [Type2Command.write, UInt8(0x0C + index)] + page) == .ack)
        }
        // CFG0 (page 29h): MIRROR = C0 | byte 1 << 4 | STRG_MOD_EN, MIRROR_PAGE 0Ch, AUTH0 FF.
        #expect(tag.respond(to: [Type2Command.write, 0x29, 0xD4, 0x00, 0x0C, 0xFF]) == .ack)
        // ACCESS: NFC_CNT_EN.
        #expect(tag.respond(to: [Type2Command.write, 0x2A, 0x10, 0x05, 0x00, 0x00]) == .ack)
        tag.powerOn()
        let pages = data(tag.respond(to: [Type2Command.fastRead, 0x0C, 0x11]))
        #expect(String(decoding: pages[1..<22], as: UTF8.self) == "04E141124C2880x000001")
        #expect(data(tag.respond(to: [Type2Command.readCounter, 0x02])) == [0x01, 0x00, 0x00])
        // Further reads in the same power-up do not count.
        let again = data(tag.respond(to: [Type2Command.read, 0x0C]))
        #expect(String(decoding: again[1..<16], as: UTF8.self) == "04E141124C2880x")
        #expect(tag.nfcCounter == 1)
        // Memory still holds the placeholders.
        #expect(Array(tag.memory[(0x0C * 4 + 1)..<(0x0C * 4 + 22)]) == Array("00000000000000x000000".utf8))
        tag.powerOn()
        let third = data(tag.respond(to: [Type2Command.fastRead, 0x0C, 0x11]))
        #expect(String(decoding: third[16..<22], as: UTF8.self) == "000002")
        // Re-selection in the field (REQA/WUPA) is no new power-up.
        tag.activate()
        _ = tag.respond(to: [Type2Command.read, 0x04])
        #expect(tag.nfcCounter == 2)
    }

    @Test("MIRROR_CONF 00 or MIRROR_PAGE below 4 mirrors nothing; a mirror is cut at the end of user memory")
    func noMirror() {
        let tag = NTAG21xTag(.ntag213, uid: [0x04, 1, 2, 3, 4, 5, 6])
        #expect(tag.respond(to: [Type2Command.write, 0x29, 0x44, 0x00, 0x02, 0xFF]) == .ack)
        let page2 = data(tag.respond(to: [Type2Command.read, 0x02]))
        #expect(page2[0..<4] == tag.memory[8..<12])
        // UID mirror from page 27h byte 2: only 2 characters fit before the dynamic lock page.
        #expect(tag.respond(to: [Type2Command.write, 0x29, 0x64, 0x00, 0x27, 0xFF]) == .ack)
        let end = data(tag.respond(to: [Type2Command.read, 0x27]))
        #expect(Array(end[2..<4]) == Array("04".utf8))
        #expect(Array(end[4..<8]) == Array(tag.memory[0x28 * 4..<0x28 * 4 + 4]))
    }

    @Test("a given signature is answered by READ_SIG and kept in the tag state; a bad one in a file is refused")
    func signatureState() throws {
        let tag = NTAG21xTag(.ntag215, uid: [0x04, 1, 2, 3, 4, 5, 6])
        let standIn = data(tag.respond(to: [Type2Command.readSignature, 0x00]))
        #expect(standIn.count == 32)
        #expect(tag.tagState.attributes == nil)
        let signature = [UInt8](repeating: 0xAB, count: 32)
        tag.originalitySignature = signature
        #expect(data(tag.respond(to: [Type2Command.readSignature, 0x00])) == signature)
        var state = tag.tagState
        #expect(state.attributes?["signature"] == Hex.encode(signature))
        #expect(NTAG21xTag(.ntag215, state: state)?.originalitySignature == signature)
        state.attributes = ["signature": "abcd"]
        #expect(NTAG21xTag(.ntag215, state: state) == nil)
    }

    @Test("the SLIX2 answers READ SIGNATURE (BD, manufacturer code 04) with its signature")
    func slix2Signature() {
        let uid: [UInt8] = [0xE0, 0x04, 0x01, 0x08, 0x53, 0x49, 0x4D, 0x01]
        let tag = ICodeSLIX2(uid: uid)
        let signature = [UInt8](repeating: 0x5C, count: 32)
        tag.originalitySignature = signature
        #expect(tag.respond(to: [0x02, ISO15693Command.nxpReadSignature, 0x04]) == .data([0x00] + signature))
        // Another manufacturer code is not answered.
        #expect(tag.respond(to: [0x02, ISO15693Command.nxpReadSignature, 0x07]) == .silence)
        #expect(ICodeSLIX2(state: tag.tagState)?.originalitySignature == signature)
    }
}
