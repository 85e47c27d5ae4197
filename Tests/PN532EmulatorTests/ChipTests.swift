import Testing
import NFCTags
import VirtualTags
@testable import PN532Emulator

/// Sends `data` and expects a response frame, returning its packet data after the response code.
func respond(_ chip: PN532Chip, _ data: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> [UInt8] {
    guard case .response(let bytes) = chip.handle(data) else {
        Issue.record("no response to \(data)", sourceLocation: sourceLocation)
        return []
    }
    #expect(bytes.first == data[0] &+ 1, sourceLocation: sourceLocation)
    return Array(bytes.dropFirst())
}

@Suite("PN532 command set (UM0701 §7)", .timeLimit(.minutes(5)))
struct ChipTests {
    @Test("GetFirmwareVersion answers IC 32, Ver 01, Rev 06, Support 07")
    func firmwareVersion() {
        let chip = PN532Chip(field: TagField(tags: []))
        #expect(chip.handle([0x02]) == .response([0x03, 0x32, 0x01, 0x06, 0x07]))
    }

    @Test("Diagnose test 0 echoes what libnfc sends")
    func diagnoseEcho() {
        let chip = PN532Chip(field: TagField(tags: []))
        let ping: [UInt8] = [0x00, 0x00] + Array("libnfc".utf8)
        #expect(respond(chip, ping) == Array(ping.dropFirst()))
    }

    @Test("Registers start at the datasheet values libnfc relies on", arguments: [
        (UInt16(0x6302), UInt8(0x80)), (0x6303, 0x80), (0x6305, 0x40), (0x630D, 0x00),
        (0x6338, 0x00), (0x633C, 0x10), (0x633D, 0x00), (0x6304, 0x80), (0x6339, 0x00),
    ])
    func registerDefaults(address: UInt16, value: UInt8) {
        let chip = PN532Chip(field: TagField(tags: []))
        #expect(respond(chip, [0x06, UInt8(address >> 8), UInt8(address & 0xFF)]) == [value])
    }

    @Test("WriteRegister stores bytes ReadRegister returns, several at once")
    func writeThenRead() {
        let chip = PN532Chip(field: TagField(tags: []))
        #expect(respond(chip, [0x08, 0x63, 0x02, 0x00, 0x63, 0x3D, 0x07]) == [])
        #expect(respond(chip, [0x06, 0x63, 0x02, 0x63, 0x3D, 0x63, 0x03]) == [0x00, 0x07, 0x80])
    }

    @Test("Unknown commands and malformed parameters get the error frame", arguments: [
        [UInt8(0x01)], [0x06, 0x63], [0x08, 0x63, 0x02], [0x14, 0x00], [0x32, 0x07, 0x00], [0x4A, 0x03, 0x00], [0x4A, 0x01, 0x09],
    ])
    func syntaxErrors(command: [UInt8]) {
        let chip = PN532Chip(field: TagField(tags: []))
        #expect(chip.handle(command) == .syntaxError)
    }

    @Test("A frame with TFI other than D4 gets the error frame")
    func wrongTFI() {
        let chip = PN532Chip(field: TagField(tags: []))
        #expect(chip.handle(tfi: 0xD5, data: [0x02]) == .syntaxError)
    }

    @Test("InListPassiveTarget on a type A tag returns Tg, SENS_RES, SEL_RES, NFCID1")
    func listTypeA() {
        let tag = RecordingType2Tag()
        let chip = PN532Chip(field: TagField(tags: [tag]))
        #expect(respond(chip, [0x4A, 0x01, 0x00]) == [0x01, 0x01, 0x00, 0x44, 0x00, 0x07, 0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66])
        #expect(tag.powerOns == 2, "once entering the field, once more when activated")
    }

    @Test("InListPassiveTarget with a UID selects only that tag")
    func listByUID() {
        let chip = PN532Chip(field: TagField(tags: [RecordingType2Tag()]))
        #expect(respond(chip, [0x32, 0x05, 0x00, 0x01, 0x02]) == [])
        #expect(respond(chip, [0x4A, 0x01, 0x00, 0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x67]) == [0x00])
        #expect(respond(chip, [0x4A, 0x01, 0x00, 0x88, 0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]).first == 0x01)
    }

    @Test("An ISO-DEP tag is listed with its ATS (automatic RATS)")
    func listISODEP() {
        let chip = PN532Chip(field: TagField(tags: [EchoISODEPTag()]))
        #expect(respond(chip, [0x4A, 0x01, 0x00]) == [0x01, 0x01, 0x00, 0x04, 0x20, 0x04, 0x08, 0x01, 0x02, 0x03, 0x05, 0x78, 0x80, 0x70, 0x02])
    }

    @Test("InListPassiveTarget 106 B returns ATQB and ATTRIB_RES; 106 A finds nothing on a B tag")
    func listTypeB() {
        let chip = PN532Chip(field: TagField(tags: [TestTypeBTag()]))
        _ = respond(chip, [0x32, 0x05, 0x00, 0x01, 0x02])
        #expect(respond(chip, [0x4A, 0x01, 0x00]) == [0x00])
        // ATTRIB_RES: MBLI 0 and CID 1, the CID the PN532 gives (the card supports CID: FO bit 0).
        #expect(respond(chip, [0x4A, 0x01, 0x03, 0x00]) == [0x01, 0x01, 0x50, 0x11, 0x22, 0x33, 0x44, 0x00, 0x00, 0x00, 0x00, 0x80, 0x81, 0x71, 0x01, 0x01])
        #expect(respond(chip, [0x40, 0x01, 0x00, 0xA4]) == [0x00, 0x90, 0x00])
    }

    /// The Type 4 tag over B: exact frames of UM0701 §7.3.5 (BrTy 03, InitiatorData AFI) and
    /// §7.3.8 (InDataExchange carrying APDUs, the chip doing ISO-DEP), as libnfc decodes them
    /// (`pn53x_decode_target_data`: Tg, ATQB without its 50, ATTRIB_RES length and CID).
    @Test("Type 4 over B: InListPassiveTarget 4A 01 03 AFI answers ATQB + ATTRIB_RES; APDUs through InDataExchange")
    func type4OverB() throws {
        let tag = Type4VirtualTag(uid: [0x0B, 0x53, 0x49, 0x01], airInterface: .typeB)
        let chip = PN532Chip(field: TagField(tags: [tag]))
        _ = respond(chip, [0x32, 0x05, 0x00, 0x01, 0x02])
        // No answer on type A, nor to an AFI of another family.
        #expect(respond(chip, [0x4A, 0x01, 0x00]) == [0x00])
        #expect(respond(chip, [0x4A, 0x01, 0x03, 0x10]) == [0x00])
        let atqb: [UInt8] = [0x50, 0x0B, 0x53, 0x49, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x81, 0x71]
        #expect(respond(chip, [0x4A, 0x01, 0x03, 0x00]) == [0x01, 0x01] + atqb + [0x01, 0x01])
        // The NDEF application selects through InDataExchange; the CC reads back.
        let select: [UInt8] = [0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00]
        #expect(respond(chip, [0x40, 0x01] + select) == [0x00, 0x90, 0x00])
        #expect(respond(chip, [0x40, 0x01, 0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x03]) == [0x00, 0x90, 0x00])
        #expect(respond(chip, [0x40, 0x01, 0x00, 0xB0, 0x00, 0x00, 0x0F]) == [0x00] + tag.capabilityContainer + [0x90, 0x00])
        // libnfc's presence check for -4B on a PN532: R(NAK) with CID 1 in raw frames; the card
        // answers. Frames without the CID (nfc-list's B', SRx, CTS discovery) meet silence.
        _ = respond(chip, [0x08, 0x63, 0x02, 0x83, 0x63, 0x03, 0x83])  // CIU TxMode/RxMode: type B, CRC on
        let presence = respond(chip, [0x42, 0xBA, 0x01])
        #expect(presence.first == 0x00 && presence.count > 1, "\(presence)")
        for frame: [UInt8] in [[0x06, 0x00], [0x01, 0x0B, 0x3F, 0x80], [0x10], [0x0A], [0x0C]] {
            #expect(respond(chip, [0x42] + frame) == [0x01], "\(frame)")
        }
        // After InDeselect the card is halted: no answer until it is selected again.
        #expect(respond(chip, [0x44, 0x01]) == [0x00])
        #expect(respond(chip, [0x42, 0xBA, 0x01]) == [0x01])
        #expect(respond(chip, [0x4A, 0x01, 0x03, 0x00]) == [0x01, 0x01] + atqb + [0x01, 0x01])
    }

    @Test("InListPassiveTarget Jewel returns SENS_RES and JEWELID")
    func listJewel() {
        let chip = PN532Chip(field: TagField(tags: [TestJewelTag()]))
        #expect(respond(chip, [0x4A, 0x01, 0x04]) == [0x01, 0x01, 0x0C, 0x00, 0x01, 0x02, 0x03, 0x04])
        #expect(respond(chip, [0x04]) == [0x00, 0x00, 0x01, 0x01, 0x00, 0x00, 0x02, 0x00])
    }

    @Test("InDataExchange to a Topaz: libnfc's short frames and nfcpy's whole ones, byte answers as the data byte, block commands refused (27)")
    func jewelFirmware() {
        let uid: [UInt8] = [0x01, 0x53, 0x49, 0x4D, 0x00, 0x00, 0x01]
        let topaz = TopazTag(.topaz512, uid: uid)
        let chip = PN532Chip(field: TagField(tags: [topaz]))
        #expect(respond(chip, [0x4A, 0x01, 0x04]) == [0x01, 0x01, 0x0C, 0x00, 0x01, 0x53, 0x49, 0x4D])
        // RID as libnfc's target_is_present sends it (one byte), and whole.
        #expect(respond(chip, [0x40, 0x01, 0x78]) == [0x00, 0x12, 0x4C, 0x01, 0x53, 0x49, 0x4D])
        #expect(respond(chip, [0x40, 0x01, 0x78, 0, 0, 0, 0, 0, 0]) == [0x00, 0x12, 0x4C, 0x01, 0x53, 0x49, 0x4D])
        // READ of byte 8 (CC0): nfc-jewel's `01 ADD`, nfcpy's `01 ADD 00 UID`: the data byte alone.
        #expect(respond(chip, [0x40, 0x01, 0x01, 0x08]) == [0x00, 0xE1])
        #expect(respond(chip, [0x40, 0x01, 0x01, 0x08, 0x00, 0x01, 0x53, 0x49, 0x4D]) == [0x00, 0xE1])
        // WRITE-E of byte 30 without the UID; the tag holds it.
        #expect(respond(chip, [0x40, 0x01, 0x53, 30, 0x5A]) == [0x00, 0x5A])
        #expect(topaz.memory[30] == 0x5A)
        // RALL: HR0 HR1 and 120 bytes.
        #expect(respond(chip, [0x40, 0x01, 0x00]).count == 1 + 122)
        // READ8 and RSEG of segment 1: not carried by the firmware.
        #expect(respond(chip, [0x40, 0x01, 0x02, 0x10] + [UInt8](repeating: 0, count: 8) + Array(uid[0..<4])) == [0x27])
        #expect(respond(chip, [0x40, 0x01, 0x10, 0x10] + [UInt8](repeating: 0, count: 8) + Array(uid[0..<4])) == [0x27])
        #expect(respond(chip, [0x40, 0x01, 0x10, 0x00]).count == 1 + 129)
    }

    @Test("Without a tag and finite retries InListPassiveTarget answers NbTg 0")
    func noTagFinite() {
        let chip = PN532Chip(field: TagField(tags: []))
        #expect(respond(chip, [0x32, 0x05, 0x00, 0x01, 0x02]) == [])
        #expect(respond(chip, [0x4A, 0x01, 0x00]) == [0x00])
    }

    @Test("With MxRtyPassiveActivation FF the chip waits for a tag; presenting one completes the poll")
    func infiniteRetriesWait() {
        let field = TagField(tags: [RecordingType2Tag()])
        field.remove()
        let chip = PN532Chip(field: field)
        #expect(chip.handle([0x4A, 0x01, 0x00]) == .pending)
        #expect(chip.retryPending() == nil)
        field.present()
        guard case .response(let bytes)? = chip.retryPending() else {
            Issue.record("the poll did not complete")
            return
        }
        #expect(Array(bytes.prefix(3)) == [0x4B, 0x01, 0x01])
    }

    @Test("The host's ACK aborts a waiting poll")
    func ackAborts() {
        let field = TagField(tags: [RecordingType2Tag()])
        field.remove()
        let chip = PN532Chip(field: field)
        #expect(chip.handle([0x4A, 0x01, 0x00]) == .pending)
        chip.abortPending()
        #expect(!chip.hasPendingCommand)
        field.present()
        #expect(chip.retryPending() == nil)
    }

    @Test("InDataExchange passes a READ to the tag and returns status 00 and the data")
    func dataExchangeRead() {
        let tag = RecordingType2Tag()
        let chip = PN532Chip(field: TagField(tags: [tag]))
        _ = respond(chip, [0x4A, 0x01, 0x00])
        #expect(respond(chip, [0x40, 0x01, 0x30, 0x04]) == [0x00] + [4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7])
        #expect(tag.frames.last == [0x30, 0x04])
    }

    /// A NAK is status 13 (invalid received frame), which libnfc maps to NFC_ERFTRANS as
    /// `utils/mifare.c` expects of a refused READ/WRITE; 14 (MIFARE authentication error) is
    /// only a refused Classic AUTH (below).
    @Test("A 4-bit ACK to WRITE through InDataExchange is status 00 without data; a NAK is status 13")
    func dataExchangeWrite() {
        let tag = RecordingType2Tag()
        let chip = PN532Chip(field: TagField(tags: [tag]))
        _ = respond(chip, [0x4A, 0x01, 0x00])
        #expect(respond(chip, [0x40, 0x01, 0xA2, 0x05, 1, 2, 3, 4]) == [0x00])
        #expect(tag.pages[5] == [1, 2, 3, 4])
        #expect(respond(chip, [0x40, 0x01, 0xA2, 0x01, 1, 2, 3, 4]) == [0x13])
    }

    @Test("A removed tag times out: status 01")
    func removedTagTimesOut() {
        let field = TagField(tags: [RecordingType2Tag()])
        let chip = PN532Chip(field: field)
        _ = respond(chip, [0x4A, 0x01, 0x00])
        field.remove()
        #expect(respond(chip, [0x40, 0x01, 0x30, 0x00]) == [0x01])
        #expect(respond(chip, [0x00, 0x06]) == [0x01])
    }

    @Test("MIFARE Classic authentication in firmware: right key 00, wrong key 14 and the tag halts")
    func classicAuthentication() {
        let tag = TestClassicTag()
        let chip = PN532Chip(field: TagField(tags: [tag]))
        _ = respond(chip, [0x4A, 0x01, 0x00])
        let uid: [UInt8] = [0xCA, 0xFE, 0xBA, 0xBE]
        #expect(respond(chip, [0x40, 0x01, 0x60, 0x04] + [UInt8](repeating: 0xFF, count: 6) + uid) == [0x00])
        #expect(respond(chip, [0x40, 0x01, 0x30, 0x04]) == [0x00] + [UInt8](repeating: 4, count: 16))
        #expect(respond(chip, [0x40, 0x01, 0x61, 0x04] + [UInt8](repeating: 0xFF, count: 6) + uid) == [0x14])
        #expect(respond(chip, [0x40, 0x01, 0x30, 0x04]) == [0x01])
        _ = respond(chip, [0x4A, 0x01, 0x00])
        #expect(respond(chip, [0x40, 0x01, 0x60, 0x04] + [UInt8](repeating: 0xFF, count: 6) + uid) == [0x00])
    }

    @Test("ISO-DEP tags get APDUs through InDataExchange; the chip does the block framing")
    func isoDEPPassThrough() {
        let tag = EchoISODEPTag()
        let chip = PN532Chip(field: TagField(tags: [tag]))
        _ = respond(chip, [0x4A, 0x01, 0x00])
        let select: [UInt8] = [0x00, 0xA4, 0x04, 0x00, 0x02, 0xE1, 0x04]
        #expect(respond(chip, [0x40, 0x01] + select) == [0x00] + select.reversed() + [0x90, 0x00])
        #expect(tag.apdus == [select])
    }

    @Test("Long ISO-DEP exchanges are chained with MI both ways (UM0701 §7.3.8)")
    func isoDEPChaining() {
        let tag = EchoISODEPTag()
        let chip = PN532Chip(field: TagField(tags: [tag]))
        _ = respond(chip, [0x4A, 0x01, 0x00])
        let long = (0..<300).map { UInt8(truncatingIfNeeded: $0) }
        #expect(respond(chip, [0x40, 0x41] + long.prefix(200)) == [0x00])
        let first = respond(chip, [0x40, 0x01] + long.dropFirst(200))
        #expect(first.first == 0x40)
        #expect(first.count == 1 + 262)
        let second = respond(chip, [0x40, 0x01])
        #expect(second.first == 0x00)
        #expect(Array(first.dropFirst() + second.dropFirst()) == long.reversed() + [0x90, 0x00])
        #expect(tag.apdus == [long])
    }

    @Test("InCommunicateThru with CRC off: the host's CRC is checked and stripped, the answer gets one")
    func communicateThruRaw() {
        let tag = RecordingType2Tag()
        let chip = PN532Chip(field: TagField(tags: [tag]))
        _ = respond(chip, [0x4A, 0x01, 0x00])
        _ = respond(chip, [0x08, 0x63, 0x02, 0x00, 0x63, 0x03, 0x00])
        let version: [UInt8] = [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03]
        #expect(respond(chip, [0x42] + ISO14443ACRC.appending(to: [0x60])) == [0x00] + ISO14443ACRC.appending(to: version))
        #expect(tag.frames.last == [0x60])
        #expect(respond(chip, [0x42, 0x60, 0x00, 0x00]) == [0x01])
    }

    @Test("InCommunicateThru: a 4-bit ACK is a CRC error with RxCRC on, one byte 0A with RxLastBits 4 without")
    func communicateThruACK() {
        let chip = PN532Chip(field: TagField(tags: [RecordingType2Tag()]))
        _ = respond(chip, [0x4A, 0x01, 0x00])
        #expect(respond(chip, [0x42, 0xA2, 0x05, 1, 2, 3, 4]) == [0x02])
        _ = respond(chip, [0x08, 0x63, 0x02, 0x00, 0x63, 0x03, 0x00])
        #expect(respond(chip, [0x42] + ISO14443ACRC.appending(to: [0xA2, 0x05, 1, 2, 3, 4])) == [0x00, 0x0A])
        #expect(respond(chip, [0x06, 0x63, 0x3C]) == [0x14])
    }

    @Test("InCommunicateThru: WUPA as a 7-bit short frame answers ATQA, anticollision answers UID CL1 and BCC")
    func communicateThruAnticollision() {
        let chip = PN532Chip(field: TagField(tags: [TestClassicTag()]))
        _ = respond(chip, [0x08, 0x63, 0x02, 0x00, 0x63, 0x03, 0x00, 0x63, 0x3D, 0x07])
        #expect(respond(chip, [0x42, 0x52]) == [0x00, 0x04, 0x00])
        _ = respond(chip, [0x08, 0x63, 0x3D, 0x00])
        #expect(respond(chip, [0x42, 0x93, 0x20]) == [0x00, 0xCA, 0xFE, 0xBA, 0xBE, 0xCA ^ 0xFE ^ 0xBA ^ 0xBE])
    }

    @Test("Raw ISO-DEP through InCommunicateThru: RATS gives the ATS, I-blocks carry APDUs, R(NAK) resends, DESELECT halts")
    func rawISODEP() {
        let tag = EchoISODEPTag()
        let chip = PN532Chip(field: TagField(tags: [tag]))
        _ = respond(chip, [0x12, 0x00])
        #expect(respond(chip, [0x4A, 0x01, 0x00]) == [0x01, 0x01, 0x00, 0x04, 0x20, 0x04, 0x08, 0x01, 0x02, 0x03])
        #expect(respond(chip, [0x42, 0xE0, 0x80]) == [0x00, 0x05, 0x78, 0x80, 0x70, 0x02])
        #expect(respond(chip, [0x42, 0x02, 0x00, 0xB0, 0x00, 0x00, 0x0F]) == [0x00, 0x02, 0x0F, 0x00, 0x00, 0xB0, 0x00, 0x90, 0x00])
        #expect(respond(chip, [0x42, 0xB3]) == [0x00, 0x02, 0x0F, 0x00, 0x00, 0xB0, 0x00, 0x90, 0x00])
        #expect(respond(chip, [0x42, 0x13, 0x00, 0xA4]) == [0x00, 0xA3])
        #expect(respond(chip, [0x42, 0x03, 0x04, 0x00]) == [0x00, 0x03, 0x00, 0x04, 0xA4, 0x00, 0x90, 0x00])
        #expect(tag.apdus == [[0x00, 0xB0, 0x00, 0x00, 0x0F], [0x00, 0xA4, 0x04, 0x00]])
        #expect(respond(chip, [0x42, 0xC2]) == [0x00, 0xC2])
    }

    @Test("InDeselect halts the tag, InSelect wakes it, InRelease forgets it")
    func deselectSelectRelease() {
        let tag = RecordingType2Tag()
        let chip = PN532Chip(field: TagField(tags: [tag]))
        _ = respond(chip, [0x4A, 0x01, 0x00])
        #expect(respond(chip, [0x44, 0x01]) == [0x00])
        #expect(tag.halts == 1)
        #expect(respond(chip, [0x40, 0x01, 0x30, 0x00]) == [0x27])
        #expect(respond(chip, [0x54, 0x01]) == [0x00])
        #expect(respond(chip, [0x40, 0x01, 0x30, 0x00]).first == 0x00)
        #expect(respond(chip, [0x52, 0x00]) == [0x00])
        #expect(respond(chip, [0x40, 0x01, 0x30, 0x00]) == [0x27])
    }

    @Test("InAutoPoll reports type, length and target data; without a tag it waits PollNr x Period x 150 ms")
    func autoPoll() {
        let field = TagField(tags: [RecordingType2Tag()])
        let chip = PN532Chip(field: field)
        #expect(respond(chip, [0x60, 0x14, 0x02, 0x20, 0x10]) == [0x01, 0x10, 0x0C, 0x01, 0x00, 0x44, 0x00, 0x07, 0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66])
        field.remove()
        #expect(chip.handle([0x60, 0x14, 0x02, 0x20, 0x10]) == .pending)
        #expect(chip.pendingTimeLimit == .milliseconds(150 * 20 * 2 * 2))
        #expect(chip.expirePending() == .response([0x61, 0x00]))
    }

    @Test("GetGeneralStatus lists the activated target")
    func generalStatus() {
        let chip = PN532Chip(field: TagField(tags: [RecordingType2Tag()]))
        #expect(respond(chip, [0x04]) == [0x00, 0x00, 0x00, 0x00])
        _ = respond(chip, [0x4A, 0x01, 0x00])
        #expect(respond(chip, [0x04]) == [0x00, 0x00, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00])
    }

    @Test("FeliCa polling returns the POL_RES with the system code asked for")
    func felicaPolling() {
        let tag = FeliCaLiteS(idm: [0x01, 0x2E, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06])
        let chip = PN532Chip(field: TagField(tags: [tag]))
        let data = respond(chip, [0x4A, 0x01, 0x01, 0x00, 0x12, 0xFC, 0x01, 0x00])
        #expect(Array(data.prefix(12)) == [0x01, 0x01, 0x14, 0x01, 0x01, 0x2E, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06])
        #expect(Array(data.suffix(2)) == [0x12, 0xFC])
        #expect(chip.handle([0x4A, 0x01, 0x01, 0x00, 0xAB, 0xCD, 0x01, 0x00]) == .pending)
        _ = respond(chip, [0x32, 0x05, 0x00, 0x01, 0x02])
        #expect(respond(chip, [0x4A, 0x01, 0x01, 0x00, 0xAB, 0xCD, 0x01, 0x00]) == [0x00])
        #expect(respond(chip, [0x4A, 0x01, 0x02, 0x00, 0xFF, 0xFF, 0x00, 0x00]) == [0x00])
    }

    @Test("Faults of the field: an RF error is status 02, a tag that left times out")
    func faultPlan() {
        let field = VirtualField(tags: [RecordingType2Tag()], faultPlan: FaultPlan(leaveAfterCommand: 2, rfErrorOnCommands: [1]))
        let chip = PN532Chip(field: TagField(field: field))
        _ = respond(chip, [0x4A, 0x01, 0x00])
        #expect(respond(chip, [0x40, 0x01, 0x30, 0x00]) == [0x02])
        #expect(respond(chip, [0x40, 0x01, 0x30, 0x00]).first == 0x00)
        #expect(respond(chip, [0x40, 0x01, 0x30, 0x00]) == [0x01])
    }

    @Test("The datasheet delay model makes a WRITE take 5 ms of tag time")
    func delayModel() {
        let chip = PN532Chip(field: TagField(tags: [RecordingType2Tag()]), delayModel: .datasheet)
        _ = respond(chip, [0x4A, 0x01, 0x00])
        _ = respond(chip, [0x40, 0x01, 0xA2, 0x05, 1, 2, 3, 4])
        #expect(chip.responseDelay == .milliseconds(5))
    }

    /// UM0701 §7.3.5: InListPassiveTarget MaxTg 2 lists two type A targets, Tg 1 and 2; InSelect,
    /// InDeselect and InRelease take a Tg. Each tag's page 0 (READ 30 00) starts with its own UID
    /// bytes (NTAG21x datasheet §8.5), so the answer tells which tag a command reached.
    @Test("MaxTg 2 lists two NTAGs as Tg 1 and 2; InDataExchange, InSelect, InDeselect and InRelease address each by Tg")
    func twoTargets() throws {
        let configuration = try SimulatorConfiguration(parsing: "sim:ntag215+ntag213")
        let chip = PN532Chip(field: TagField(field: try configuration.makeField()))
        let first: [UInt8] = [0x04, 0x53, 0x49, 0x4D, 0x00, 0x00, 0x01]
        let second: [UInt8] = [0x04, 0x53, 0x49, 0x4D, 0x00, 0x00, 0x02]
        // NbTg 2; Tg 1: SENS_RES 00 44, SEL_RES 00, NFCIDLength 7, NFCID1; Tg 2 likewise.
        #expect(respond(chip, [0x4A, 0x02, 0x00]) == [0x02, 0x01, 0x00, 0x44, 0x00, 0x07] + first + [0x02, 0x00, 0x44, 0x00, 0x07] + second)
        #expect(Array(respond(chip, [0x40, 0x02, 0x30, 0x00]).prefix(4)) == [0x00, 0x04, 0x53, 0x49])
        #expect(Array(respond(chip, [0x40, 0x02, 0x30, 0x00]).dropFirst().prefix(3)) == Array(second.prefix(3)))
        // Page 1 holds UID3..6: the last byte tells the tags apart.
        #expect(Array(respond(chip, [0x40, 0x02, 0x30, 0x01]).dropFirst().prefix(4)) == Array(second.suffix(4)))
        #expect(Array(respond(chip, [0x40, 0x01, 0x30, 0x01]).dropFirst().prefix(4)) == Array(first.suffix(4)))
        // Tg 2 deselected: commands to it are refused until InSelect; Tg 1 still answers.
        #expect(respond(chip, [0x44, 0x02]) == [0x00])
        #expect(respond(chip, [0x40, 0x02, 0x30, 0x01]) == [0x27])
        #expect(respond(chip, [0x54, 0x02]) == [0x00])
        #expect(Array(respond(chip, [0x40, 0x02, 0x30, 0x01]).dropFirst().prefix(4)) == Array(second.suffix(4)))
        // Tg 1 released: refused; there is no Tg 3.
        #expect(respond(chip, [0x52, 0x01]) == [0x00])
        #expect(respond(chip, [0x40, 0x01, 0x30, 0x01]) == [0x27])
        #expect(respond(chip, [0x54, 0x03]) == [0x27])
    }

    @Test("MaxTg 1 after InDeselect lists the other tag (REQA passes the halted one), then wakes the first: libnfc's listing loop")
    func listingLoop() throws {
        let chip = PN532Chip(field: TagField(field: try SimulatorConfiguration(parsing: "sim:ntag215+ntag213").makeField()))
        let uids = [0x01, 0x02, 0x01].map { [0x04, 0x53, 0x49, 0x4D, 0x00, 0x00, UInt8($0)] }
        for uid in uids {
            #expect(Array(respond(chip, [0x4A, 0x01, 0x00]).suffix(7)) == uid)
            #expect(respond(chip, [0x44, 0x00]) == [0x00])
        }
    }
}
