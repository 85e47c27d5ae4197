import PN532Emulator
import Testing

/// Target mode of the emulated PN532 (UM0701 §7.3.14–7.3.18) with the virtual external reader,
/// frame by frame.
@Suite("PN532 target mode with a virtual external reader", .timeLimit(.minutes(5)))
struct TargetModeTests {
    /// TgInitAsTarget as libnfc's `pn53x_target_init` sends it for an ISO 14443-4 PICC: mode 05,
    /// SENS_RES 04 00, NFCID1t 00 B0 0B, SEL_RES 20, no FeliCa or DEP part, no general or
    /// historical bytes.
    static let initAsPICC: [UInt8] = [0x8C, 0x05, 0x04, 0x00, 0x00, 0xB0, 0x0B, 0x20] + [UInt8](repeating: 0, count: 30)

    static func chip(_ procedure: ExternalReaderProcedure?) -> PN532Chip {
        let chip = PN532Chip(field: TagField(tags: []))
        chip.externalReader = procedure.map(ExternalReader.init(procedure:))
        return chip
    }

    @Test("with an external reader, TgInitAsTarget answers at once: mode 08 (PICC), RATS")
    func activation() {
        let chip = Self.chip(.type4Read)
        #expect(chip.handle([0x12, 0x24]) == .response([0x13]))  // SetParameters fISO14443-4_PICC
        #expect(chip.handle(Self.initAsPICC) == .response([0x8D, 0x08, 0xE0, 0x80]))
        #expect(chip.isActivatedAsTarget)
        #expect(chip.handle([0x8A]) == .response([0x8B, 0x01, 0x00]))
        #expect(chip.externalReader?.log.first == "activated uid 0800B00B atqa 0400 sak 20")
    }

    @Test("without an external reader TgInitAsTarget waits (the host's ACK aborts it)")
    func noReaderWaits() {
        let chip = Self.chip(nil)
        #expect(chip.handle(Self.initAsPICC) == .pending)
        #expect(chip.hasPendingCommand)
    }

    @Test("the reader needs ISO 14443-4: without fISO14443-4_PICC it rejects the target and never comes")
    func needsPICC() {
        let chip = Self.chip(.type4Read)
        #expect(chip.handle([0x12, 0x04]) == .response([0x13]))
        #expect(chip.handle(Self.initAsPICC) == .pending)
        #expect(chip.externalReader?.outcome != nil)
    }

    @Test("malformed TgInitAsTarget parameters get the error frame")
    func malformed() {
        let chip = Self.chip(.type4Read)
        #expect(chip.handle(Array(Self.initAsPICC.dropLast())) == .syntaxError)
        #expect(chip.handle(Self.initAsPICC + [0x00]) == .syntaxError)
    }

    @Test("TgGetData hands out the reader's APDUs, TgSetData takes the answers, then status 29 once it left")
    func exchangeAndRelease() {
        let chip = Self.chip(.type4Read)
        _ = chip.handle([0x12, 0x24])
        _ = chip.handle(Self.initAsPICC)
        #expect(chip.handle([0x86]) == .response([0x87, 0x00, 0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00]))
        // The host refuses the application: the reader gives up and leaves.
        #expect(chip.handle([0x8E, 0x6A, 0x82]) == .response([0x8F, 0x00]))
        #expect(chip.handle([0x86]) == .response([0x87, 0x29]))
        #expect(!chip.isActivatedAsTarget)
        #expect(chip.handle([0x8E, 0x90, 0x00]) == .response([0x8F, 0x29]))
        #expect(chip.externalReader?.outcome == .refused("select-application", 0x6A82))
        // It came once: a second TgInitAsTarget waits.
        #expect(chip.handle(Self.initAsPICC) == .pending)
    }

    @Test("TgGetData outside target mode is not acceptable (27)")
    func getDataOutsideTargetMode() {
        #expect(Self.chip(.type4Read).handle([0x86]) == .response([0x87, 0x27]))
    }

    @Test("--external-reader parses type4-read and type4-write:<hex>, and nothing else",
          arguments: [("type4-read", true), ("type4-write:D00000", true), ("type4-write:", false), ("type4-write:XYZ", false), ("type2-read", false)])
    func parsing(argument: String, valid: Bool) {
        #expect((ExternalReaderProcedure(argument: argument) != nil) == valid)
        let line = try? EmulatorCommandLine.parse(["--external-reader", argument])
        #expect((line != nil) == valid)
    }
}
