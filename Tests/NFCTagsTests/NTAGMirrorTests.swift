import NFCTags
import Testing

@Suite("NTAG21x mirror placeholders and presentation", .timeLimit(.minutes(1)))
struct NTAGMirrorTests {
    @Test("the three placeholders become the datasheet's placeholder characters", arguments: [
        ("https://ex.io/?u={mirror:uid}", NTAGMirror.uid, "https://ex.io/?u=00000000000000"),
        ("https://ex.io/?c={mirror:counter}", NTAGMirror.counter, "https://ex.io/?c=000000"),
        ("https://ex.io/{mirror:uid}x{mirror:counter}/t", NTAGMirror.uidAndCounter, "https://ex.io/00000000000000x000000/t"),
    ])
    func placeholders(text: String, mirror: NTAGMirror, written: String) throws {
        let template = try #require(try NTAGMirrorTemplate(text))
        #expect(template.mirror == mirror)
        #expect(template.text == written)
        #expect(template.probe.count == written.count && template.probe != written)
    }

    @Test("text without a placeholder is no template")
    func none() throws {
        #expect(try NTAGMirrorTemplate("https://ex.io/{uid}") == nil)
    }

    @Test("an unknown placeholder, two mirrors, or UID and counter apart are refused", arguments: [
        "https://ex.io/{mirror:serial}",
        "https://ex.io/{mirror:uid}/{mirror:uid}",
        "https://ex.io/{mirror:uid}/{mirror:counter}",
        "https://ex.io/{mirror:counter}x{mirror:uid}",
        "https://ex.io/{mirror:uid}x{mirror:counter}{mirror:uid}",
    ])
    func refused(text: String) {
        #expect(throws: NFCTagError.self) { _ = try NTAGMirrorTemplate(text) }
    }

    @Test("locate finds the placeholder's bytes, and refuses text that is not stored as-is")
    func locate() throws {
        let template = try #require(try NTAGMirrorTemplate("a{mirror:counter}b"))
        let written = [0xD1, 0x01] + Array(template.text.utf8)
        let probe = [0xD1, 0x01] + Array(template.probe.utf8)
        #expect(try template.locate(written: written, probe: probe) == 3)
        #expect(throws: NFCTagError.self) { _ = try template.locate(written: written, probe: probe + [0]) }
        // UTF-16: the characters are not consecutive bytes.
        let utf16 = Array(template.text.utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        let probe16 = Array(template.probe.utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        #expect(throws: NFCTagError.self) { _ = try template.locate(written: utf16, probe: probe16) }
    }

    @Test("presentation follows the datasheet's example: UID 04E141124C2880, counter 003F31")
    func presentation() {
        let uid: [UInt8] = [0x04, 0xE1, 0x41, 0x12, 0x4C, 0x28, 0x80]
        #expect(String(decoding: NTAGMirror.uidAndCounter.presentation(uid: uid, counter: 0x003F31), as: UTF8.self) == "04E141124C2880x003F31")
        #expect(String(decoding: NTAGMirror.counter.presentation(uid: uid, counter: 0x003F31), as: UTF8.self) == "003F31")
        #expect(NTAGMirror(mirrorByte: 0x04) == nil)
        #expect(NTAGMirror(mirrorByte: 0xD4) == .uidAndCounter)
        #expect(NTAGMirror(mirrorByte: 0x54) == .uid)
        #expect(NTAGMirror(mirrorByte: 0x84) == .counter)
    }
}
