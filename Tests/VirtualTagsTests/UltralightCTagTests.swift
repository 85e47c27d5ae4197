import NFCCore
import NFCTags
import Testing

@testable import VirtualTags

/// The virtual MIFARE Ultralight C against its datasheet (MF0ICU2 Rev. 3.3): the authentication
/// replayed byte for byte from the worked example of 7.5.6 (factory key, RndB `51E764602678DF2B`,
/// RndA `A8AF3B256C75ED40`), the factory memory of Table 13, AUTH0/AUTH1 and the key's taking
/// effect at the next activation.
@Suite("MIFARE Ultralight C chip model", .timeLimit(.minutes(1)))
struct UltralightCTagTests {
    static func bytes(_ hex: String) -> [UInt8] { (try? Hex.decode(hex)) ?? [] }

    static func fresh() -> UltralightCTag {
        let tag = UltralightCTag(uid: sampleUID7)
        tag.powerOn()
        return tag
    }

    @Test("the datasheet's authentication example, replayed: AF ek(RndB), then 00 ek(RndA')")
    func datasheetExchange() {
        let tag = Self.fresh()
        tag.random = { Self.bytes("51E764602678DF2B") }
        #expect(tag.respond(to: [0x1A, 0x00]) == .data(Self.bytes("AF577293FD2F34CA51")))
        #expect(tag.respond(to: Self.bytes("AF0A638559FC7737F9F15D7862EBBE967A")) == .data(Self.bytes("003B884FA07C137CE1")))
        #expect(tag.isAuthenticated)
    }

    @Test("a wrong RndB' (a wrong key) is a NAK, and the chip then answers nothing until reactivated")
    func wrongKey() {
        let tag = Self.fresh()
        tag.random = { Self.bytes("51E764602678DF2B") }
        _ = tag.respond(to: [0x1A, 0x00])
        #expect(tag.respond(to: Self.bytes("AF0A638559FC7737F9F15D7862EBBE967B")) == .nak(0))
        #expect(!tag.isAuthenticated)
        #expect(tag.respond(to: [0x30, 0x00]) == .silence)
        tag.activate()
        #expect(answerBytes(tag.respond(to: [0x30, 0x00]))?.count == 16)
    }

    @Test("GET_VERSION is a NAK; any command but AF between the two steps sends the chip idle")
    func noGetVersion() {
        let tag = Self.fresh()
        #expect(tag.respond(to: [0x60]) == .nak(0))
        tag.activate()
        #expect(answerBytes(tag.respond(to: [0x1A, 0x00]))?.first == 0xAF)
        #expect(tag.respond(to: [0x30, 0x04]) == .silence)
        #expect(tag.respond(to: [0x30, 0x04]) == .silence)
    }

    @Test("factory memory as Table 13: AUTH0 30h, AUTH1 00h, key pages 'BREAKMEIFYOUCAN!', never read back")
    func factoryMemory() {
        let tag = Self.fresh()
        #expect(tag.memory.count == 48 * 4)
        #expect(Array(tag.memory[0x2A * 4..<0x2C * 4]) == [0x30, 0, 0, 0, 0, 0, 0, 0])
        #expect(Array(tag.memory[0x2C * 4..<0x30 * 4]) == Array("BREAKMEIFYOUCAN!".utf8))
        #expect(answerBytes(tag.respond(to: [0x30, 0x28])) == [0, 0, 0, 0, 0, 0, 0, 0, 0x30, 0, 0, 0, 0, 0, 0, 0])
        #expect(answerBytes(tag.respond(to: [0x30, 0x2A])) == [0x30, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
        #expect(tag.respond(to: [0x30, 0x2C]) == .nak(0))
    }

    @Test("AUTH0 guards writes, AUTH1 = 0 guards reads too; authentication opens both")
    func accessControl() {
        let tag = Self.fresh()
        #expect(tag.respond(to: [0xA2, 0x2B, 0x00, 0, 0, 0]) == .ack)
        #expect(tag.respond(to: [0xA2, 0x2A, 0x10, 0, 0, 0]) == .ack)
        tag.activate()
        #expect(tag.respond(to: [0xA2, 0x0F, 1, 2, 3, 4]) == .ack)
        #expect(tag.respond(to: [0xA2, 0x10, 1, 2, 3, 4]) == .nak(0))
        tag.activate()
        #expect(tag.respond(to: [0x30, 0x10]) == .nak(0))
        tag.activate()
        // READ from page 0Eh rolls over at AUTH0 (10h) to page 0.
        #expect(answerBytes(tag.respond(to: [0x30, 0x0E]))?.suffix(8) == ArraySlice(tag.memory[0..<8]))
        tag.activate()
        tag.random = { Self.bytes("51E764602678DF2B") }
        _ = tag.respond(to: [0x1A, 0x00])
        _ = tag.respond(to: Self.bytes("AF0A638559FC7737F9F15D7862EBBE967A"))
        #expect(tag.respond(to: [0xA2, 0x10, 9, 9, 9, 9]) == .ack)
        #expect(answerBytes(tag.respond(to: [0x30, 0x10]))?.prefix(4) == [9, 9, 9, 9])
    }

    @Test("a written key authenticates only after the next activation (7.5.7)")
    func keyTakesEffectOnActivation() throws {
        let tag = Self.fresh()
        let key = try UltralightCKey(hex: "000102030405060708090A0B0C0D0E0F")
        // Table 11's page contents for this key.
        for (page, data) in [(0x2C, "07060504"), (0x2D, "03020100"), (0x2E, "0F0E0D0C"), (0x2F, "0B0A0908")] {
            #expect(tag.respond(to: [0xA2, UInt8(page)] + Self.bytes(data)) == .ack)
        }
        #expect(Array(tag.memory[0x2C * 4..<0x30 * 4]) == key.pageImage)
        tag.random = { Self.bytes("51E764602678DF2B") }
        // Still the factory key until reactivation: the datasheet's exchange works.
        #expect(tag.respond(to: [0x1A, 0x00]) == .data(Self.bytes("AF577293FD2F34CA51")))
        tag.activate()
        let first = answerBytes(tag.respond(to: [0x1A, 0x00])) ?? []
        #expect(first != Self.bytes("AF577293FD2F34CA51"))
        let (command, _) = try UltralightCAuthentication.secondStep(key: key, answer: first, rndA: Self.bytes("0102030405060708"))
        #expect(answerBytes(tag.respond(to: command))?.first == 0x00)
    }

    @Test("OTP page and lock byte 2: bits only set; a set lock bit makes its 4 pages read-only at the next activation")
    func otpAndLocks() {
        let tag = Self.fresh()
        #expect(tag.respond(to: [0xA2, 0x03, 0x0F, 0, 0, 0]) == .ack)
        #expect(tag.respond(to: [0xA2, 0x03, 0xF0, 0, 0, 0]) == .ack)
        #expect(Array(tag.memory[12..<16]) == [0xFF, 0, 0, 0])
        #expect(tag.respond(to: [0xA2, 0x28, 0x02, 0, 0, 0]) == .ack)  // lock pages 10h–13h
        #expect(tag.respond(to: [0xA2, 0x10, 1, 1, 1, 1]) == .ack)     // not yet active
        tag.activate()
        #expect(tag.respond(to: [0xA2, 0x10, 2, 2, 2, 2]) == .nak(0))
        tag.activate()
        #expect(tag.respond(to: [0xA2, 0x14, 2, 2, 2, 2]) == .ack)
    }

    @Test("a tag file round trip keeps memory; a state of another size is refused")
    func tagFile() throws {
        let tag = Self.fresh()
        _ = tag.respond(to: [0xA2, 0x05, 1, 2, 3, 4])
        let state = tag.tagState
        #expect(state.model == "ultralight-c")
        let back = try #require(UltralightCTag(state: state))
        #expect(back.memory == tag.memory)
        var short = state
        short.memory = String(state.memory.dropLast(8))
        #expect(UltralightCTag(state: short) == nil)
        #expect(TagModel.named("ultralight-c") != nil)
    }
}
