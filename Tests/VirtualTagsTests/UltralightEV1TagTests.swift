import NFCTags
import Testing

@testable import VirtualTags

@Suite("MIFARE Ultralight EV1 chip model", .timeLimit(.minutes(5)))
struct UltralightEV1TagTests {
    @Test("GET_VERSION and page count per model", arguments: [
        (UltralightEV1Tag.Model.mf0ul11, [0x00, 0x04, 0x03, 0x01, 0x01, 0x00, 0x0B, 0x03] as [UInt8], 20),
        (.mf0ul21, [0x00, 0x04, 0x03, 0x01, 0x01, 0x00, 0x0E, 0x03], 41),
    ])
    func version(model: UltralightEV1Tag.Model, version: [UInt8], pages: Int) {
        let tag = UltralightEV1Tag(model, uid: sampleUID7)
        tag.powerOn()
        #expect(tag.sendReselecting([0x60]) == .data(version))
        #expect(tag.memory.count == pages * 4)
        #expect(tag.sendReselecting([0x30, UInt8(pages)]) == .nak(0))
    }

    /// Factory bytes read over the air (READ), against Flipper Zero's `nfc_data_generator.c`
    /// and the NTAG213/215/216 and MF0ULx1 datasheets (§8.5): page 2 byte 1 (internal `48`),
    /// the CC in page 3, the first user bytes, the dynamic lock page (RFUI byte `BD`), CFG0 and
    /// CFG1 (MIRROR/MOD, AUTH0 `FF`, ACCESS, VCTID `05`). PWD (`FF FF FF FF`) and PACK read as
    /// zeros.
    @Test("factory bytes of every Type 2 model as public sources give them", arguments: [
        ("ntag213", [0xE1, 0x10, 0x12, 0x00], [0x01, 0x03, 0xA0, 0x0C, 0x34, 0x03, 0x00, 0xFE], 0x28, [0x04, 0x00, 0x00, 0xFF, 0x00, 0x05, 0x00, 0x00]),
        ("ntag215", [0xE1, 0x10, 0x3E, 0x00], [0x03, 0x00, 0xFE, 0x00, 0x00, 0x00, 0x00, 0x00], 0x82, [0x04, 0x00, 0x00, 0xFF, 0x00, 0x05, 0x00, 0x00]),
        ("ntag216", [0xE1, 0x10, 0x6D, 0x00], [0x03, 0x00, 0xFE, 0x00, 0x00, 0x00, 0x00, 0x00], 0xE2, [0x04, 0x00, 0x00, 0xFF, 0x00, 0x05, 0x00, 0x00]),
        ("ultralight", [0x00, 0x00, 0x00, 0x00], [0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00], nil, [0x00, 0x00, 0x00, 0xFF, 0x00, 0x05, 0x00, 0x00]),
        ("ultralight-ev1-mf0ul21", [0x00, 0x00, 0x00, 0x00], [0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00], 0x24, [0x00, 0x00, 0x00, 0xFF, 0x00, 0x05, 0x00, 0x00]),
    ] as [(String, [UInt8], [UInt8], Int?, [UInt8])])
    func factoryBytes(model name: String, cc: [UInt8], user: [UInt8], dynamicLockPage: Int?, configuration: [UInt8]) throws {
        let model = try #require(TagModel.named(name))
        let tag = model.make(model.defaultUID, TagModelOptions())
        tag.powerOn()
        func read(_ page: Int) -> [UInt8] { answerBytes(tag.sendReselecting([0x30, UInt8(page)])) ?? [] }
        let start = read(0)
        #expect(start.count == 16)
        guard start.count == 16 else { return }
        #expect(start[9] == 0x48)
        #expect(Array(start[12..<16]) == cc)
        #expect(Array(read(4).prefix(8)) == user)
        let version = answerBytes(tag.sendReselecting([0x60])) ?? []
        let pages = [0x0B: 20, 0x0E: 41, 0x0F: 45, 0x11: 135, 0x13: 231][version.count == 8 ? Int(version[6]) : 0] ?? 0
        let configurationPage = pages - 4
        if let dynamicLockPage {
            #expect(dynamicLockPage == configurationPage - 1)
            #expect(Array(read(dynamicLockPage).prefix(4)) == [0x00, 0x00, 0x00, 0xBD])
        }
        #expect(Array(read(configurationPage).prefix(8)) == configuration)
        #expect(Array(read(configurationPage).suffix(8)) == [UInt8](repeating: 0, count: 8))
    }

    @Test("delivered unformatted, AUTH0 FFh")
    func factoryState() {
        let tag = UltralightEV1Tag(.mf0ul11, uid: sampleUID7)
        #expect(Array(tag.memory[12..<16]) == [0, 0, 0, 0])
        #expect(Array(tag.memory[0x10 * 4..<0x10 * 4 + 4]) == [0, 0, 0, 0xFF])
    }

    @Test("three counters: READ_CNT 0…2, INCR_CNT adds, overflow NAK 4")
    func counters() {
        let tag = UltralightEV1Tag(.mf0ul11, uid: sampleUID7)
        tag.powerOn()
        #expect(tag.sendReselecting([0xA5, 0x01, 0x05, 0x00, 0x00, 0x00]) == .ack)
        #expect(tag.sendReselecting([0x39, 0x01]) == .data([5, 0, 0]))
        #expect(tag.sendReselecting([0x39, 0x00]) == .data([0, 0, 0]))
        #expect(tag.sendReselecting([0x39, 0x03]) == .nak(0))
        #expect(tag.sendReselecting([0xA5, 0x01, 0xFF, 0xFF, 0xFF, 0x00]) == .nak(4))
    }

    @Test("CHECK_TEARING_EVENT answers BDh, VCSL answers VCTID; NTAG21x answers neither")
    func tearingAndVCSL() {
        let tag = UltralightEV1Tag(.mf0ul11, uid: sampleUID7)
        tag.powerOn()
        #expect(tag.sendReselecting([0x3E, 0x02]) == .data([0xBD]))
        #expect(tag.sendReselecting([0x3E, 0x03]) == .nak(0))
        #expect(tag.sendReselecting([0x4B] + [UInt8](repeating: 0, count: 20)) == .data([0x05]))
        #expect(freshNTAG().sendReselecting([0x3E, 0x00]) == .silence)
    }

    @Test("PWD_AUTH protects pages from AUTH0")
    func password() {
        let tag = UltralightEV1Tag(.mf0ul11, uid: sampleUID7)
        tag.powerOn()
        #expect(tag.sendReselecting([0xA2, 0x12, 9, 8, 7, 6]) == .ack)
        #expect(tag.sendReselecting([0xA2, 0x10, 0, 0, 0, 0x08]) == .ack)
        tag.powerOn()
        #expect(tag.sendReselecting([0xA2, 0x08, 1, 1, 1, 1]) == .nak(0))
        #expect(tag.sendReselecting([0x1B, 9, 8, 7, 6]) == .data([0, 0]))
        #expect(tag.sendReselecting([0xA2, 0x08, 1, 1, 1, 1]) == .ack)
    }

    @Test("MF0UL21 dynamic lock bits lock two pages each")
    func dynamicLock() {
        let tag = UltralightEV1Tag(.mf0ul21, uid: sampleUID7)
        tag.powerOn()
        #expect(tag.sendReselecting([0xA2, 0x24, 0x00, 0x02, 0x00, 0x00]) == .ack)  // bit 9: pages 34–35
        tag.powerOn()
        #expect(tag.sendReselecting([0xA2, 34, 1, 1, 1, 1]) == .nak(0))
        #expect(tag.sendReselecting([0xA2, 35, 1, 1, 1, 1]) == .nak(0))
        #expect(tag.sendReselecting([0xA2, 33, 1, 1, 1, 1]) == .ack)
    }
}
