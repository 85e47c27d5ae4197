import NFCTags
import Testing

@testable import VirtualTags

let sampleUID7: [UInt8] = [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]

func freshNTAG(_ model: NTAG21xTag.Model = .ntag213) -> NTAG21xTag {
    let tag = NTAG21xTag(model, uid: sampleUID7)
    tag.powerOn()
    return tag
}

func answerBytes(_ answer: TagAnswer) -> [UInt8]? {
    if case .data(let bytes) = answer { return bytes }
    return nil
}

extension VirtualTag {
    /// Sends a frame as a reader does that re-selects the tag after a NAK (which sends a Type 2
    /// chip to IDLE).
    func sendReselecting(_ frame: [UInt8]) -> TagAnswer {
        let answer = respond(to: frame)
        if case .nak = answer { powerOn() }
        return answer
    }
}

func ntagPage(_ tag: NTAG21xTag, _ number: Int) -> [UInt8] { Array(tag.memory[(number * 4)..<(number * 4 + 4)]) }

@Suite("NTAG21x chip model", .timeLimit(.minutes(5)))
struct NTAG21xTagTests {
    @Test("total pages per model", arguments: [
        (NTAG21xTag.Model.ntag213, 45), (.ntag215, 135), (.ntag216, 231),
    ])
    func totalPages(model: NTAG21xTag.Model, pages: Int) {
        #expect(freshNTAG(model).memory.count == pages * 4)
        #expect(model.layout.totalPages == pages)
    }

    @Test("GET_VERSION answers the datasheet's 8 bytes", arguments: [
        (NTAG21xTag.Model.ntag213, [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x0F, 0x03] as [UInt8]),
        (.ntag215, [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03]),
        (.ntag216, [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x13, 0x03]),
    ])
    func getVersion(model: NTAG21xTag.Model, version: [UInt8]) {
        #expect(freshNTAG(model).sendReselecting([0x60]) == .data(version))
    }

    @Test("factory state: UID with BCC0/BCC1, CC, empty NDEF TLV, config", arguments: [
        (NTAG21xTag.Model.ntag213, UInt8(0x12), 0x28), (.ntag215, 0x3E, 0x82), (.ntag216, 0x6D, 0xE2),
    ])
    func factoryState(model: NTAG21xTag.Model, ccSize: UInt8, lockPage: Int) {
        let tag = freshNTAG(model)
        let bcc0: UInt8 = 0x88 ^ 0x04 ^ 0x11 ^ 0x22
        let bcc1: UInt8 = 0x33 ^ 0x44 ^ 0x55 ^ 0x66
        #expect(ntagPage(tag, 0) == [0x04, 0x11, 0x22, bcc0])
        #expect(ntagPage(tag, 1) == [0x33, 0x44, 0x55, 0x66])
        #expect(ntagPage(tag, 2) == [bcc1, 0x48, 0x00, 0x00])
        #expect(ntagPage(tag, 3) == [0xE1, 0x10, ccSize, 0x00])
        if model == .ntag213 {
            #expect(ntagPage(tag, 4) + ntagPage(tag, 5) == [0x01, 0x03, 0xA0, 0x0C, 0x34, 0x03, 0x00, 0xFE])
        } else {
            #expect(ntagPage(tag, 4) == [0x03, 0x00, 0xFE, 0x00])
        }
        #expect(ntagPage(tag, lockPage) == [0x00, 0x00, 0x00, 0xBD])
        #expect(ntagPage(tag, lockPage + 1) == [0x04, 0x00, 0x00, 0xFF])
        #expect(ntagPage(tag, lockPage + 2) == [0x00, 0x05, 0x00, 0x00])
        #expect(ntagPage(tag, lockPage + 3) == [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(tag.targetInfo == .iso14443A(ISO14443ATarget(uid: [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66], atqa: [0x44, 0x00], sak: 0)))
    }

    @Test("READ returns 4 pages")
    func read() {
        let tag = freshNTAG()
        #expect(
            answerBytes(tag.sendReselecting([0x30, 0x03]))
                == [0xE1, 0x10, 0x12, 0x00, 0x01, 0x03, 0xA0, 0x0C, 0x34, 0x03, 0x00, 0xFE, 0, 0, 0, 0])
    }

    @Test("READ rolls over from the last page to page 0, PWD and PACK read as zeros")
    func readRollOver() {
        let tag = freshNTAG()
        let answer = answerBytes(tag.sendReselecting([0x30, 0x2B]))
        #expect(answer == [0, 0, 0, 0] + [0, 0, 0, 0] + ntagPage(tag, 0) + ntagPage(tag, 1))
    }

    @Test("READ past the end answers NAK 0")
    func readInvalidAddress() {
        #expect(freshNTAG().sendReselecting([0x30, 0x2D]) == .nak(0))
    }

    @Test("FAST_READ returns start…end", arguments: [(0, 0), (0, 44), (4, 7), (44, 44)])
    func fastRead(start: Int, end: Int) {
        let tag = freshNTAG()
        let answer = answerBytes(tag.sendReselecting([0x3A, UInt8(start), UInt8(end)]))
        #expect(answer?.count == (end - start + 1) * 4)
        #expect(answer?.prefix(4) == (start >= 43 ? [0, 0, 0, 0] : ntagPage(tag, start))[...])
    }

    @Test("FAST_READ with an invalid range answers NAK 0", arguments: [(5, 4), (0, 45), (45, 45), (200, 255)])
    func fastReadInvalid(start: Int, end: Int) {
        #expect(freshNTAG().sendReselecting([0x3A, UInt8(start), UInt8(end)]) == .nak(0))
    }

    @Test("WRITE stores a page and ACKs")
    func write() {
        let tag = freshNTAG()
        #expect(tag.sendReselecting([0xA2, 0x05, 1, 2, 3, 4]) == .ack)
        #expect(ntagPage(tag, 5) == [1, 2, 3, 4])
    }

    @Test("WRITE to pages 0 and 1 or past the end answers NAK 0", arguments: [0, 1, 45, 255])
    func writeInvalidAddress(address: Int) {
        let tag = freshNTAG()
        #expect(tag.sendReselecting([0xA2, UInt8(address), 1, 2, 3, 4]) == .nak(0))
    }

    @Test("the CC is OTP: a write ORs bits, never clears them")
    func capabilityContainerOTP() {
        let tag = freshNTAG()
        #expect(tag.sendReselecting([0xA2, 0x03, 0x00, 0x00, 0x00, 0x0F]) == .ack)
        #expect(ntagPage(tag, 3) == [0xE1, 0x10, 0x12, 0x0F])
        #expect(tag.sendReselecting([0xA2, 0x03, 0x00, 0x00, 0x00, 0x00]) == .ack)
        #expect(ntagPage(tag, 3) == [0xE1, 0x10, 0x12, 0x0F])
    }

    @Test("the chip does not enforce the CC write-access byte")
    func capabilityContainerNotEnforced() {
        let tag = freshNTAG()
        #expect(tag.sendReselecting([0xA2, 0x03, 0x00, 0x00, 0x00, 0xFF]) == .ack)
        #expect(tag.sendReselecting([0xA2, 0x04, 0x03, 0x00, 0xFE, 0x00]) == .ack)
    }

    @Test("a static lock bit blocks writes after the next activation", arguments: [3, 4, 7, 8, 15])
    func staticLockBit(target: Int) {
        let tag = freshNTAG()
        let lock0: UInt8 = target < 8 ? 1 << target : 0
        let lock1: UInt8 = target >= 8 ? 1 << (target - 8) : 0
        #expect(tag.sendReselecting([0xA2, 0x02, 0xFF, 0xFF, lock0, lock1]) == .ack)
        #expect(ntagPage(tag, 2)[0] != 0xFF)  // bytes 0–1 of page 2 are not writable
        #expect(tag.sendReselecting([0xA2, UInt8(target), 1, 2, 3, 4]) == .ack)  // not active yet
        tag.powerOn()
        #expect(tag.sendReselecting([0xA2, UInt8(target), 9, 9, 9, 9]) == .nak(0))
        #expect(tag.sendReselecting([0xA2, UInt8(target == 15 ? 14 : target + 1), 9, 9, 9, 9]) == .ack)
    }

    @Test("lock bits are OTP and block-locking bits freeze them")
    func blockLockingBits() {
        let tag = freshNTAG()
        #expect(tag.sendReselecting([0xA2, 0x02, 0, 0, 0x10, 0x00]) == .ack)  // L4
        #expect(tag.sendReselecting([0xA2, 0x02, 0, 0, 0x00, 0x00]) == .ack)
        #expect(ntagPage(tag, 2)[2] == 0x10)  // cannot be cleared
        #expect(tag.sendReselecting([0xA2, 0x02, 0, 0, 0x02, 0x00]) == .ack)  // BL9-4
        #expect(tag.sendReselecting([0xA2, 0x02, 0, 0, 0x20, 0x03]) == .ack)  // L5, L8, L9 now frozen
        #expect(ntagPage(tag, 2)[2] == 0x12)
        #expect(ntagPage(tag, 2)[3] == 0x00)
        #expect(tag.sendReselecting([0xA2, 0x02, 0, 0, 0x01, 0x04]) == .ack)  // BL-CC, L10 still allowed
        #expect(ntagPage(tag, 2)[2] == 0x13)
        #expect(ntagPage(tag, 2)[3] == 0x04)
        #expect(tag.sendReselecting([0xA2, 0x02, 0, 0, 0x08, 0x00]) == .ack)  // L-CC frozen by BL-CC
        #expect(ntagPage(tag, 2)[2] == 0x13)
    }

    @Test("a dynamic lock bit locks its pages, with the model's granularity", arguments: [
        (NTAG21xTag.Model.ntag213, 0, 16, 17, 18), (.ntag213, 11, 38, 39, 37),
        (.ntag215, 0, 16, 31, 32), (.ntag215, 7, 128, 129, 127),
        (.ntag216, 13, 224, 225, 223), (.ntag216, 8, 144, 159, 160),
    ])
    func dynamicLockBit(model: NTAG21xTag.Model, bit: Int, first: Int, last: Int, outside: Int) {
        let tag = freshNTAG(model)
        let lockPage = UInt8(model.layout.dynamicLockPage ?? 0)
        var bytes: [UInt8] = [0, 0, 0, 0]
        bytes[bit / 8] = 1 << (bit % 8)
        #expect(tag.sendReselecting([0xA2, lockPage] + bytes) == .ack)
        tag.powerOn()
        #expect(tag.sendReselecting([0xA2, UInt8(first), 1, 1, 1, 1]) == .nak(0))
        #expect(tag.sendReselecting([0xA2, UInt8(last), 1, 1, 1, 1]) == .nak(0))
        #expect(tag.sendReselecting([0xA2, UInt8(outside), 1, 1, 1, 1]) == .ack)
        #expect(ntagPage(tag, Int(lockPage))[3] == 0xBD)  // RFUI byte untouched
    }

    @Test("dynamic block-locking bits freeze their lock bits")
    func dynamicBlockLocking() {
        let tag = freshNTAG()
        #expect(tag.sendReselecting([0xA2, 0x28, 0x00, 0x00, 0x01, 0x00]) == .ack)  // BL for lock bits 0,1
        #expect(tag.sendReselecting([0xA2, 0x28, 0x07, 0x00, 0x00, 0x00]) == .ack)
        #expect(ntagPage(tag, 0x28) == [0x04, 0x00, 0x01, 0xBD])
        tag.powerOn()
        #expect(tag.sendReselecting([0xA2, 16, 1, 1, 1, 1]) == .ack)
        #expect(tag.sendReselecting([0xA2, 20, 1, 1, 1, 1]) == .nak(0))
    }

    @Test("COMPATIBILITY_WRITE: ACK, then 16 bytes of which the first 4 are written")
    func compatibilityWrite() {
        let tag = freshNTAG()
        #expect(tag.sendReselecting([0xA0, 0x06]) == .ack)
        #expect(tag.sendReselecting([1, 2, 3, 4] + [UInt8](repeating: 0xEE, count: 12)) == .ack)
        #expect(ntagPage(tag, 6) == [1, 2, 3, 4])
        #expect(ntagPage(tag, 7) == [0, 0, 0, 0])
    }

    @Test("COMPATIBILITY_WRITE to an invalid page NAKs in part 1; a locked page NAKs in part 2")
    func compatibilityWriteRejected() {
        let tag = freshNTAG()
        #expect(tag.sendReselecting([0xA0, 0x2D]) == .nak(0))
        #expect(tag.sendReselecting([0xA2, 0x02, 0, 0, 0x40, 0]) == .ack)  // L6
        tag.powerOn()
        #expect(tag.sendReselecting([0xA0, 0x06]) == .ack)
        #expect(tag.sendReselecting([UInt8](repeating: 1, count: 16)) == .nak(0))
    }

    @Test("READ_SIG answers 32 bytes, the same each time")
    func readSignature() {
        let tag = freshNTAG()
        let signature = answerBytes(tag.sendReselecting([0x3C, 0x00]))
        #expect(signature?.count == 32)
        #expect(answerBytes(tag.sendReselecting([0x3C, 0x00])) == signature)
    }

    @Test("unknown commands are not answered and the chip goes idle until activated")
    func unknownCommand() {
        let tag = freshNTAG()
        #expect(tag.sendReselecting([0x51]) == .silence)
        #expect(tag.sendReselecting([0x30, 0x00]) == .silence)
        tag.powerOn()
        #expect(answerBytes(tag.sendReselecting([0x30, 0x00])) != nil)
    }

    @Test("after a NAK the chip answers nothing, and has lost authentication, until activated again")
    func idleAfterNAK() {
        let tag = freshNTAG()
        _ = tag.respond(to: [0x1B, 0xFF, 0xFF, 0xFF, 0xFF])
        #expect(tag.isAuthenticated)
        #expect(tag.respond(to: [0x30, 0xFF]) == .nak(0))
        #expect(!tag.isAuthenticated)
        #expect(tag.respond(to: [0x60]) == .silence)
        tag.powerOn()
        #expect(answerBytes(tag.respond(to: [0x60])) != nil)
    }

    @Test("HLTA: no answer until activated again")
    func halt() {
        let tag = freshNTAG()
        tag.halt()
        #expect(tag.sendReselecting([0x60]) == .silence)
        tag.powerOn()
        #expect(tag.sendReselecting([0x60]) != .silence)
    }
}

@Suite("NTAG21x password protection and counter", .timeLimit(.minutes(5)))
struct NTAG21xPasswordTests {
    /// NTAG213 with PWD 11223344, PACK ABCD, AUTH0 = page 10h, ACCESS `access`.
    func protectedTag(access: UInt8) -> NTAG21xTag {
        let tag = freshNTAG()
        _ = tag.sendReselecting([0xA2, 0x2B, 0x11, 0x22, 0x33, 0x44])
        _ = tag.sendReselecting([0xA2, 0x2C, 0xAB, 0xCD, 0x00, 0x00])
        _ = tag.sendReselecting([0xA2, 0x2A, access, 0x05, 0x00, 0x00])
        _ = tag.sendReselecting([0xA2, 0x29, 0x04, 0x00, 0x00, 0x10])
        tag.powerOn()
        return tag
    }

    @Test("PWD_AUTH with the right password answers PACK and allows writes")
    func rightPassword() {
        let tag = protectedTag(access: 0)
        #expect(tag.sendReselecting([0xA2, 0x10, 1, 2, 3, 4]) == .nak(0))
        #expect(tag.sendReselecting([0x1B, 0x11, 0x22, 0x33, 0x44]) == .data([0xAB, 0xCD]))
        #expect(tag.sendReselecting([0xA2, 0x10, 1, 2, 3, 4]) == .ack)
    }

    @Test("PWD_AUTH with a wrong password answers NAK 0 and counts the failure")
    func wrongPassword() {
        let tag = protectedTag(access: 0)
        #expect(tag.sendReselecting([0x1B, 0, 0, 0, 0]) == .nak(0))
        #expect(tag.authenticationFailures == 1)
        #expect(!tag.isAuthenticated)
    }

    @Test("after AUTHLIM wrong passwords even the right one is refused with NAK 4")
    func authenticationLimit() {
        let tag = protectedTag(access: 0x02)
        #expect(tag.sendReselecting([0x1B, 0, 0, 0, 0]) == .nak(0))
        #expect(tag.sendReselecting([0x1B, 0, 0, 0, 1]) == .nak(0))
        #expect(tag.sendReselecting([0x1B, 0x11, 0x22, 0x33, 0x44]) == .nak(4))
    }

    @Test("a right password resets the failure count below AUTHLIM")
    func failureCountReset() {
        let tag = protectedTag(access: 0x03)
        _ = tag.sendReselecting([0x1B, 0, 0, 0, 0])
        #expect(tag.sendReselecting([0x1B, 0x11, 0x22, 0x33, 0x44]) == .data([0xAB, 0xCD]))
        #expect(tag.authenticationFailures == 0)
    }

    @Test("PROT=0: protected pages are readable, not writable")
    func writeProtectionOnly() {
        let tag = protectedTag(access: 0)
        #expect(answerBytes(tag.sendReselecting([0x30, 0x10])) != nil)
        #expect(tag.sendReselecting([0xA2, 0x0F, 1, 2, 3, 4]) == .ack)
    }

    @Test("PROT=1: reads at or above AUTH0 NAK, READ rolls over at AUTH0, FAST_READ into it NAKs")
    func readProtection() {
        let tag = protectedTag(access: 0x80)
        #expect(tag.sendReselecting([0x30, 0x10]) == .nak(0))
        #expect(tag.sendReselecting([0x3A, 0x0E, 0x10]) == .nak(0))
        let answer = answerBytes(tag.sendReselecting([0x30, 0x0E]))
        #expect(answer?[8..<16] == (ntagPage(tag, 0) + ntagPage(tag, 1))[...])
        _ = tag.sendReselecting([0x1B, 0x11, 0x22, 0x33, 0x44])
        #expect(answerBytes(tag.sendReselecting([0x30, 0x10])) != nil)
    }

    @Test("authentication is lost at the next activation")
    func authenticationVolatile() {
        let tag = protectedTag(access: 0)
        _ = tag.sendReselecting([0x1B, 0x11, 0x22, 0x33, 0x44])
        tag.powerOn()
        #expect(tag.sendReselecting([0xA2, 0x10, 1, 2, 3, 4]) == .nak(0))
    }

    @Test("CFGLCK locks CFG0 and CFG1 but not PWD and PACK")
    func configurationLock() {
        let tag = freshNTAG()
        #expect(tag.sendReselecting([0xA2, 0x2A, 0x40, 0x05, 0, 0]) == .ack)
        #expect(tag.sendReselecting([0xA2, 0x29, 0x04, 0, 0, 0x04]) == .nak(0))
        #expect(tag.sendReselecting([0xA2, 0x2A, 0x00, 0x05, 0, 0]) == .nak(0))
        #expect(tag.sendReselecting([0xA2, 0x2B, 1, 2, 3, 4]) == .ack)
        #expect(tag.sendReselecting([0xA2, 0x2C, 1, 2, 0, 0]) == .ack)
    }

    @Test("READ_CNT: NAK while NFC_CNT_EN is clear; counts the first read after each power-on")
    func nfcCounter() {
        let tag = freshNTAG()
        #expect(tag.sendReselecting([0x39, 0x02]) == .nak(0))
        #expect(tag.sendReselecting([0xA2, 0x2A, 0x10, 0x05, 0, 0]) == .ack)
        #expect(tag.sendReselecting([0x39, 0x02]) == .data([0, 0, 0]))
        _ = tag.sendReselecting([0x30, 0x04])
        _ = tag.sendReselecting([0x30, 0x04])
        #expect(tag.sendReselecting([0x39, 0x02]) == .data([1, 0, 0]))
        tag.powerOn()
        _ = tag.sendReselecting([0x3A, 0x04, 0x05])
        #expect(tag.sendReselecting([0x39, 0x02]) == .data([2, 0, 0]))
        #expect(tag.sendReselecting([0x39, 0x01]) == .nak(0))
    }

    @Test("READ_CNT with NFC_CNT_PWD_PROT needs PWD_AUTH")
    func nfcCounterPasswordProtected() {
        let tag = protectedTag(access: 0x18)
        #expect(tag.sendReselecting([0x39, 0x02]) == .nak(0))
        _ = tag.sendReselecting([0x1B, 0x11, 0x22, 0x33, 0x44])
        #expect(tag.sendReselecting([0x39, 0x02]) == .data([0, 0, 0]))
    }
}
