import NDEF
import NFCCore
import NFCTags
import Testing
import VirtualTags

/// ST25TV02K / ST25DV04K / ST25DV64K on the in-process simulator: identification from GET
/// (EXTENDED) SYSTEM INFORMATION, the extended commands past block 255, the 8-byte CC, and the
/// ST25DV's area passwords — frames checked against the data sheet's layout written out here,
/// state read from the virtual chip's tag file, not from NFCTags.
@Suite("ST25TV and ST25DV", .timeLimit(.minutes(3)))
struct ST25Tests {
    static func uid(_ variant: ST25VirtualTag.Variant) -> [UInt8] { [0xE0, 0x02, variant.icReference, 0x11, 0x22, 0x33, 0x44, 0x55] }

    /// A traced simulator holding `chip` (an ST25 or any other ISO 15693 virtual chip),
    /// inventoried and identified.
    static func open(_ chip: sending any VirtualTag) async throws -> (SimulatedReader, ISO15693Tag) {
        let reader = SimulatedReader(tags: [chip], emptyFieldWait: .zero)
        await reader.withField { $0.isTracing = true }
        let target = try #require(try await reader.poll(for: [.iso15693], timeout: .zero))
        guard case .iso15693(let v) = target else { throw NFCTagError(.notSupported, "not ISO 15693") }
        let identity = await ChipIdentification.identify(target, on: reader)
        return (reader, ISO15693Tag(reader: reader, target: v, identity: identity))
    }

    /// The chip on `reader`, rebuilt from its tag file state.
    static func chip(_ reader: SimulatedReader) async -> ST25VirtualTag? {
        let state = await reader.withField { (($0.currentTag ?? $0.removedTags.last) as? ST25VirtualTag)?.tagState }
        return state.flatMap { ST25VirtualTag(state: $0) }
    }

    static func text(_ value: String) throws -> NDEFMessage {
        NDEFMessage(records: [try NDEFPayload.wellKnownTypeTextPayload(string: value, locale: "en")])
    }

    @Test("identification: ST25DV64K from EXTENDED GET SYSTEM INFORMATION (the plain answer has no memory size), ST25DV04K and ST25TV02K from the plain one", arguments: [
        (ST25VirtualTag.Variant.st25dv64k, "ST25DV64K", 2048), (.st25dv04k, "ST25DV04K", 128), (.st25tv02k, "ST25TV02K", 64),
    ])
    func identification(variant: ST25VirtualTag.Variant, model: String, blocks: Int) async throws {
        let (_, tag) = try await Self.open(ST25VirtualTag(variant, uid: Self.uid(variant)))
        #expect(tag.identity.model == model)
        #expect(tag.identity.family == .st25)
        #expect(tag.identity.blockCount == blocks && tag.identity.blockSize == 4)
        #expect(tag.identity.icReference == variant.icReference)
        #expect(tag.identity.identificationSource?.contains("ST25 SDK") == true)
        #expect(tag.hasST25DVPasswords == variant.isDynamic)
    }

    @Test("a fresh virtual ST25DV64K holds the 8-byte CC of the Type 5 rules (E2 40 00 01 00 00 03 FF); a 2000-byte message goes past block 255 with EXTENDED WRITE/READ and reads back on a fresh reader")
    func largeMemory() async throws {
        #expect(ST25VirtualTag.freshNDEFArea(for: .st25dv64k) == [0xE2, 0x40, 0x00, 0x01, 0x00, 0x00, 0x03, 0xFF, 0x03, 0x00, 0xFE])
        let (reader, tag) = try await Self.open(ST25VirtualTag(.st25dv64k, uid: Self.uid(.st25dv64k)))
        let message = try Self.text(String(repeating: "st25dv64k ", count: 200))
        let type5 = Type5Tag(tag: tag)
        #expect(try await type5.queryNDEFStatus().capacity == 8184 - 4)
        try await type5.writeNDEF(message, verify: true)
        let trace = await reader.withField { $0.trace }
        // EXTENDED WRITE SINGLE BLOCK (31) with a block number past 255: flags, 31, UID, LSB, MSB (01+).
        #expect(trace.contains { $0.command.count > 11 && $0.command[1] == 0x31 && $0.command[11] >= 0x01 })
        #expect(!trace.contains { $0.command.count > 1 && $0.command[1] == ISO15693Command.writeSingleBlock })
        let state = try #require(await Self.chip(reader)).tagState
        let restored = try #require(ST25VirtualTag(state: state))
        let (_, again) = try await Self.open(restored)
        #expect(try await Type5Tag(tag: again).readNDEF() == message)
    }

    @Test("format on an ST25DV64K writes the 8-byte E2 CC from EXTENDED GET SYSTEM INFORMATION (Read Multiple and Lock Block features) with extended writes")
    func formatLarge() async throws {
        let chip = ST25VirtualTag(.st25dv64k, uid: Self.uid(.st25dv64k))
        var image = chip.tagFileImage
        for i in 0..<16 { image[i] = 0 }
        chip.tagFileImage = image
        let (reader, tag) = try await Self.open(chip)
        try await Type5Tag(tag: tag).format(force: false)
        let memory = try #require(await Self.chip(reader)).memory
        #expect(Array(memory.prefix(11)) == [0xE2, 0x40, 0x00, 0x09, 0x00, 0x00, 0x03, 0xFF, 0x03, 0x00, 0xFE])
    }

    @Test("PRESENT PASSWORD, WRITE CONFIGURATION and WRITE PASSWORD frames as DS10925 lays them out: flags, code, 02, UID LSB first, parameters")
    func frames() async throws {
        let (reader, tag) = try await Self.open(ST25VirtualTag(.st25dv04k, uid: Self.uid(.st25dv04k)))
        let new = try ST25Password(hex: "0102030405060708")
        try await tag.st25Protect(password: new, current: .factoryDefault)
        let uidOnAir = Array(Self.uid(.st25dv04k).reversed())
        let sent = await reader.withField { $0.trace }.map(\.command).filter { $0.count > 2 && $0[2] == 0x02 }
        let zero = [UInt8](repeating: 0, count: 8), bytes: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
        #expect(sent == [
            [0x22, 0xB3, 0x02] + uidOnAir + [0x00] + zero,
            [0x22, 0xB3, 0x02] + uidOnAir + [0x01] + zero,
            [0x22, 0xA1, 0x02] + uidOnAir + [0x04, 0x05],
            [0x22, 0xB1, 0x02] + uidOnAir + [0x01] + bytes,
            [0x22, 0xB1, 0x02] + uidOnAir + [0x00] + bytes,
            [0x22, 0xA0, 0x02] + uidOnAir + [0x04],
        ])
        let chip = try #require(await Self.chip(reader))
        #expect(chip.areaRegisters[0] == 0x05 && chip.passwords[0] == bytes && chip.passwords[1] == bytes)
    }

    @Test("a protected area refuses a write without the password (nothing changes), takes it after PRESENT PASSWORD; a wrong password is authenticationFailed")
    func areaProtection() async throws {
        let new = try ST25Password(hex: "A1A2A3A4A5A6A7A8")
        let (reader, tag) = try await Self.open(ST25VirtualTag(.st25dv04k, uid: Self.uid(.st25dv04k)))
        try await tag.st25Protect(password: new, current: .factoryDefault)
        let state = try #require(await Self.chip(reader)).tagState
        let restored = try #require(ST25VirtualTag(state: state))
        let (freshReader, fresh) = try await Self.open(restored)
        let refused = try Self.text("no")
        await #expect(throws: NFCTagError.self) { try await Type5Tag(tag: fresh).writeNDEF(refused, verify: false) }
        let unchanged = try #require(await Self.chip(freshReader))
        #expect(unchanged.tagState == state)
        await #expect { try await fresh.st25PresentPassword(1, .factoryDefault) } throws: { ($0 as? NFCTagError)?.code == .authenticationFailed }
        try await fresh.st25PresentPassword(1, new)
        var opened = Type5Tag(tag: fresh)
        opened.passwordSessionOpen = true
        try await opened.writeNDEF(try Self.text("yes"), verify: true)
        #expect(try await fresh.st25AreaSummary(blockCount: 128) == "area 1 (blocks 0–127): write needs password 1")
        try await fresh.st25PresentPassword(0, new)
        try await fresh.st25Unprotect(current: new)
        let open = try #require(await Self.chip(freshReader))
        #expect(open.areaRegisters[0] == 0 && open.passwords.allSatisfy { $0 == [UInt8](repeating: 0, count: 8) })
    }

    @Test("ST25DV areas: ENDA1 moved by WRITE CONFIGURATION splits the memory; area 2 read-protected answers 15 without its password; the summary names both")
    func areas() async throws {
        let (reader, tag) = try await Self.open(ST25VirtualTag(.st25dv04k, uid: Self.uid(.st25dv04k)))
        try await tag.st25PresentPassword(0, .factoryDefault)
        try await tag.st25WriteConfiguration(ST25DVRegister.enda1, 0x03)  // area 1: bytes 0–127, blocks 0–31
        try await tag.st25WriteConfiguration(ST25DVRegister.rfa2ss, ST25AreaSecurity(password: 2, protection: ST25AreaSecurity.readWriteProtected).register)
        #expect(try await tag.st25AreaSummary(blockCount: 128) == "area 1 (blocks 0–31): open; area 2 (blocks 32–127): read and write need password 2")
        let state = try #require(await Self.chip(reader)).tagState
        let restored = try #require(ST25VirtualTag(state: state))
        let (_, fresh) = try await Self.open(restored)
        await #expect { _ = try await fresh.readSingleBlock(40) } throws: { ISO15693Error.code(in: $0 as! NFCTagError) == 0x15 }
        #expect(try await fresh.readSingleBlock(31).count == 4)
        // ENDA2 below ENDA1 is refused.
        try await fresh.st25PresentPassword(0, .factoryDefault)
        await #expect(throws: NFCTagError.self) { try await fresh.st25WriteConfiguration(ST25DVRegister.enda2, 0x01) }
    }

    @Test("the ST25TV02K answers no extended command (01), READ CONFIGURATION of its registers 00–07 only (10 past them), and is read and written as a plain Type 5 tag")
    func tv02k() async throws {
        let (_, tag) = try await Self.open(ST25VirtualTag(.st25tv02k, uid: Self.uid(.st25tv02k)))
        await #expect { _ = try await tag.st25ReadConfiguration(8) } throws: { ISO15693Error.code(in: $0 as! NFCTagError) == 0x10 }
        #expect(try await tag.st25ReadConfiguration(ST25TVRegister.lockConfiguration) == 0)
        await #expect { _ = try await tag.extendedReadSingleBlock(0) } throws: { ISO15693Error.code(in: $0 as! NFCTagError) == 0x01 }
        let message = try Self.text("tv02k")
        try await Type5Tag(tag: tag).writeNDEF(message, verify: true)
        #expect(try await Type5Tag(tag: tag).readNDEF() == message)
    }

    @Test("hostile images on an ST25DV64K: an 8-byte CC claiming MLEN FFFF is cut at the chip's 8192 bytes; a TLV running past the memory and MLEN 0 are malformedTag; nothing is written")
    func hostileImages() async throws {
        func chip(_ head: [UInt8]) -> ST25VirtualTag {
            let chip = ST25VirtualTag(.st25dv64k, uid: Self.uid(.st25dv64k))
            var image = chip.tagFileImage
            image.replaceSubrange(0..<head.count, with: head)
            chip.tagFileImage = image
            return chip
        }
        let (_, overstated) = try await Self.open(chip([0xE2, 0x40, 0x00, 0x01, 0x00, 0x00, 0xFF, 0xFF, 0x03, 0x00, 0xFE]))
        #expect(try await Type5Tag(tag: overstated).queryNDEFStatus().capacity == 8192 - 8 - 4)
        let (longReader, long) = try await Self.open(chip([0xE2, 0x40, 0x00, 0x01, 0x00, 0x00, 0xFF, 0xFF, 0x03, 0xFF, 0x20, 0x00]))
        await #expect { _ = try await Type5Tag(tag: long).readNDEF() } throws: { ($0 as? NFCTagError)?.code == .malformedTag }
        let before = try #require(await Self.chip(longReader)).tagState
        let message = try Self.text("x")
        await #expect(throws: NFCTagError.self) { try await Type5Tag(tag: long).writeNDEF(message, verify: false) }
        let after = try #require(await Self.chip(longReader))
        #expect(after.tagState == before, "nothing written")
        let (_, zero) = try await Self.open(chip([0xE2, 0x40, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0xFE]))
        await #expect { _ = try await Type5Tag(tag: zero).readNDEF() } throws: { ($0 as? NFCTagError)?.code == .malformedTag }
    }

    @Test("traces redact the 8 password bytes of PRESENT PASSWORD and WRITE PASSWORD (ST's 02 framing); READ CONFIGURATION and another maker's B3 stay")
    func traceRedaction() {
        var redactor = ReaderTraceRedactor()
        let uid = Self.uid(.st25dv04k)
        _ = redactor.redact(.poll([.iso15693]), .found(.iso15693(ISO15693Target(uid: Bytes(uid)))))
        let onAir = Array(uid.reversed())
        let password: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
        for code: UInt8 in [0xB3, 0xB1] {
            let frame = [0x22, code, 0x02] + onAir + [0x01] + password
            let (sent, _) = redactor.redact(.transceive(TraceBytes(frame), .standard), .answer(TraceBytes([0x00])))
            #expect(sent == .transceive(TraceBytes(values: frame.prefix(12).map { Optional($0) } + [UInt8?](repeating: nil, count: 8)), .standard))
        }
        let read = [0x22, 0xA0, 0x02] + onAir + [0x04]
        #expect(redactor.redact(.transceive(TraceBytes(read), .standard), .answer(TraceBytes([0x00, 0x05]))).0 == .transceive(TraceBytes(read), .standard))
        let ti = [0x22, 0xB3, 0x07] + onAir + [0x02, 9, 9, 9, 9]
        #expect(redactor.redact(.transceive(TraceBytes(ti), .standard), .answer(TraceBytes([0x00]))).0 == .transceive(TraceBytes(ti), .standard))
    }

    @Test("tag file: the image round-trips; a wrong length, model or UID is refused", arguments: ST25VirtualTag.Variant.allCases)
    func tagFile(variant: ST25VirtualTag.Variant) throws {
        let chip = ST25VirtualTag(variant, uid: Self.uid(variant))
        let state = chip.tagState
        #expect(ST25VirtualTag(state: state)?.tagFileImage == chip.tagFileImage)
        var short = state
        short.memory = String(state.memory.dropLast(2))
        #expect(ST25VirtualTag(state: short) == nil)
        var other = state
        other.model = "slix2"
        #expect(ST25VirtualTag(state: other) == nil)
        var badUID = state
        badUID.uid = "E002"
        #expect(ST25VirtualTag(state: badUID) == nil)
        #expect(TagModel.named(variant.rawValue) != nil)
    }

    @Test("ST25DV passwords: 16 hex digits, white space ignored; anything else refused without repeating it", arguments: [
        ("0011223344556677", true), (" 00112233 44556677\n", true), ("001122334455667", false), ("00112233445566778", false),
        ("zz11223344556677", false), ("11223344:55667788", false), ("", false),
    ])
    func passwordParsing(text: String, valid: Bool) {
        do {
            _ = try ST25Password(hex: text)
            #expect(valid)
        } catch {
            #expect(!valid)
            #expect(text.isEmpty || !error.reason.contains(text.trimmingCharacters(in: .whitespacesAndNewlines)))
        }
    }
}
