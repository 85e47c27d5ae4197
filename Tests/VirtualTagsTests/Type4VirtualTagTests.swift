import NFCTags
import Testing

@testable import VirtualTags

func selectNDEFApplication(_ tag: Type4VirtualTag) -> [UInt8] {
    tag.respond(toAPDU: [0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00])
}

func selectType4File(_ tag: Type4VirtualTag, _ id: UInt16) -> [UInt8] {
    tag.respond(toAPDU: [0x00, 0xA4, 0x00, 0x0C, 0x02, UInt8(id >> 8), UInt8(id & 0xFF)])
}

func readyType4(readOnly: Bool = false, size: Int = 2048) -> Type4VirtualTag {
    let tag = Type4VirtualTag(uid: sampleUID7, ndefFileSize: size, readOnly: readOnly)
    tag.powerOn()
    _ = selectNDEFApplication(tag)
    return tag
}

@Suite("NFC Forum Type 4 tag model", .timeLimit(.minutes(5)))
struct Type4TagTests {
    @Test("target info: SAK 20h, ATQA 44 03, DESFire-like ATS")
    func targetInfo() {
        let tag = Type4VirtualTag(uid: sampleUID7)
        guard case .iso14443A(let target) = tag.targetInfo else {
            Issue.record("not type A")
            return
        }
        #expect(target.sak == 0x20)
        #expect(target.atqa == [0x44, 0x03])
        #expect(target.ats == [0x06, 0x75, 0x77, 0x81, 0x02, 0x80])
        #expect(target.supportsISODEP)
    }

    @Test("SELECT NDEF application, CC file, READ BINARY of the 15-byte CC")
    func readCapabilityContainer() {
        let tag = Type4VirtualTag(uid: sampleUID7)
        #expect(selectNDEFApplication(tag) == [0x90, 0x00])
        #expect(selectType4File(tag, 0xE103) == [0x90, 0x00])
        let answer = tag.respond(toAPDU: [0x00, 0xB0, 0x00, 0x00, 0x0F])
        #expect(answer == [0x00, 0x0F, 0x20, 0x00, 0x3B, 0x00, 0x34, 0x04, 0x06, 0xE1, 0x04, 0x08, 0x00, 0x00, 0x00, 0x90, 0x00])
    }

    @Test("configurable NDEF file size and read-only flag appear in the CC", arguments: [(512, false), (4096, true)])
    func capabilityContainerOptions(size: Int, readOnly: Bool) {
        let cc = Type4VirtualTag(uid: sampleUID7, ndefFileSize: size, readOnly: readOnly).capabilityContainer
        #expect(cc[11] == UInt8(size >> 8) && cc[12] == UInt8(size & 0xFF))
        #expect(cc[14] == (readOnly ? 0xFF : 0x00))
    }

    @Test("UPDATE BINARY then READ BINARY of the NDEF file")
    func updateAndRead() {
        let tag = readyType4()
        #expect(selectType4File(tag, 0xE104) == [0x90, 0x00])
        #expect(tag.respond(toAPDU: [0x00, 0xD6, 0x00, 0x00, 0x05, 0x00, 0x03, 0xD0, 0x00, 0x00]) == [0x90, 0x00])
        #expect(tag.respond(toAPDU: [0x00, 0xB0, 0x00, 0x00, 0x05]) == [0x00, 0x03, 0xD0, 0x00, 0x00, 0x90, 0x00])
        #expect(tag.respond(toAPDU: [0x00, 0xB0, 0x07, 0xFE, 0x05]) == [0x00, 0x00, 0x90, 0x00])
    }

    @Test("status words for each error", arguments: [
        ([0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x02] as [UInt8], [0x6A, 0x82] as [UInt8]),
        ([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x05], [0x6A, 0x82]),
        ([0x00, 0xB0, 0x00, 0x00, 0x02], [0x69, 0x86]),
        ([0x00, 0xD6, 0x00, 0x00, 0x01, 0x00], [0x69, 0x86]),
        ([0x00, 0xA4, 0x00, 0x0C, 0x03, 0xE1, 0x04], [0x67, 0x00]),
        ([0x00, 0xA4, 0x02, 0x0C, 0x02, 0xE1, 0x04], [0x6A, 0x86]),
        ([0x00, 0x84, 0x00, 0x00, 0x08], [0x6D, 0x00]),
        ([0x90, 0x60, 0x00, 0x00, 0x00], [0x6E, 0x00]),
        ([0x00, 0xA4], [0x67, 0x00]),
    ])
    func statusWords(apdu: [UInt8], expected: [UInt8]) {
        #expect(readyType4().respond(toAPDU: apdu) == expected)
    }

    @Test("SELECT by file ID with P2 00 (mapping 1.0 readers) works too")
    func selectMapping10() {
        let tag = readyType4()
        #expect(tag.respond(toAPDU: [0x00, 0xA4, 0x00, 0x00, 0x02, 0xE1, 0x03]) == [0x90, 0x00])
        #expect(tag.respond(toAPDU: [0x00, 0xB0, 0x00, 0x00, 0x02]) == [0x00, 0x0F, 0x90, 0x00])
    }

    @Test("file selection needs the NDEF application selected first")
    func selectFileWithoutApplication() {
        let tag = Type4VirtualTag(uid: sampleUID7)
        #expect(selectType4File(tag, 0xE103) == [0x6A, 0x82])
    }

    @Test("offset and length errors on a selected file", arguments: [
        ([0x00, 0xB0, 0x08, 0x00, 0x01] as [UInt8], [0x6B, 0x00] as [UInt8]),  // offset 2048 = size
        ([0x00, 0xB0, 0x00, 0x00, 0x3C], [0x67, 0x00]),  // Le > MLe
        ([0x00, 0xB0, 0x00, 0x00], [0x67, 0x00]),  // no Le
        ([0x00, 0xD6, 0x08, 0x00, 0x01, 0xAA], [0x6B, 0x00]),
        ([0x00, 0xD6, 0x07, 0xFF, 0x02, 0xAA, 0xBB], [0x67, 0x00]),  // runs past the end
        ([0x00, 0xD6, 0x00, 0x00, 0x03, 0xAA], [0x67, 0x00]),  // Lc disagrees
    ])
    func offsetErrors(apdu: [UInt8], expected: [UInt8]) {
        let tag = readyType4()
        _ = selectType4File(tag, 0xE104)
        #expect(tag.respond(toAPDU: apdu) == expected)
    }

    @Test("a read-only tag refuses UPDATE BINARY with 6982, and the CC is never writable")
    func readOnly() {
        let tag = readyType4(readOnly: true)
        _ = selectType4File(tag, 0xE104)
        #expect(tag.respond(toAPDU: [0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00]) == [0x69, 0x82])
        let writable = readyType4()
        _ = selectType4File(writable, 0xE103)
        #expect(writable.respond(toAPDU: [0x00, 0xD6, 0x00, 0x00, 0x01, 0x00]) == [0x69, 0x82])
    }

    @Test("DESELECT loses the selection")
    func deselect() {
        let tag = readyType4()
        _ = selectType4File(tag, 0xE104)
        tag.halt()
        tag.powerOn()
        #expect(tag.respond(toAPDU: [0x00, 0xB0, 0x00, 0x00, 0x02]) == [0x69, 0x86])
    }

    @Test("NDEF file sizes below 5 bytes (RFU in the CC) are not restored from a tag file")
    func fileSizeRange() {
        let small = TagState(model: "type4", uid: "04A1B2C3D4E5F6", memory: "00000000", readOnly: false)
        #expect(Type4VirtualTag(state: small) == nil)
        let smallest = TagState(model: "type4", uid: "04A1B2C3D4E5F6", memory: "0000000000", readOnly: false)
        #expect(Type4VirtualTag(state: smallest)?.capabilityContainer[11...12] == [0x00, 0x05])
    }
}
