import NFCCore
import NFCTags
import NFCTestSupport
import Testing
import VirtualTags

/// ICODE passwords, page protection and privacy on the virtual ICODE family, driven through
/// NFCTags over the simulator; frames checked against the data sheets' request formats
/// (SL2S2602 9.5.3: flags, code, IC manufacturer code 04, UID least significant byte first,
/// parameters) and the XOR rule `XOR_Password[31:0] = Password[31:0] XOR {Random_Number[15:0],
/// Random_Number[15:0]}`, computed here from that sentence, not from NFCTags.
@Suite("ICODE passwords, protection and privacy on the virtual chips", .timeLimit(.minutes(1)))
struct ICodePasswordTests {
    static let uid: [UInt8] = [0xE0, 0x04, 0x01, 0x08, 0x53, 0x49, 0x4D, 0x07]

    /// A traced simulator holding `chip`, inventoried, and the tag on it (identified as the chip).
    static func open(_ variant: ICodeVariant = .slix2, uid: [UInt8] = uid) async throws -> (SimulatedReader, ISO15693Tag) {
        let identity = ChipIdentity(variant.model, platform: .type5, family: .icode)
        let reader = SimulatedReader(tags: [ICodeSLIX2(uid: uid, variant: variant)], emptyFieldWait: .zero)
        let target = try #require(try await reader.poll(for: [.iso15693], timeout: .zero))
        guard case .iso15693(let v) = target else { throw NFCTagError(.notSupported, "not ISO 15693") }
        await reader.withField { $0.isTracing = true }
        return (reader, ISO15693Tag(reader: reader, target: v, identity: identity))
    }

    /// Runs `body` on the chip in the field.
    static func onChip<T: Sendable>(_ reader: SimulatedReader, _ body: @escaping @Sendable (ICodeSLIX2) -> T) async throws -> T {
        let result = await reader.withField { field in (field.tagsInField.first as? ICodeSLIX2).map(body) }
        return try #require(result)
    }

    static func frames(_ reader: SimulatedReader) async -> [(command: [UInt8], answer: FieldAnswer)] {
        await reader.withField { $0.trace.map { ($0.command, $0.answer) } }
    }

    /// The datasheet's rule, on 32-bit integers: the random number twice, XORed, sent LSB first.
    static func xorPassword(_ password: UInt32, random: [UInt8]) -> [UInt8] {
        let r = UInt32(random[0]) | UInt32(random[1]) << 8
        let value = password ^ (r << 16 | r)
        return (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    @Test("SET PASSWORD: GET RANDOM NUMBER (22 B2 04 UID), then 22 B3 04 UID 02 and the password XOR the random number twice")
    func setPasswordFrame() async throws {
        let (reader, tag) = try await Self.open()
        try await tag.icodeSetPassword(.write, ICodePassword(0))
        let trace = await Self.frames(reader)
        try #require(trace.count == 2)
        let uidOnAir = Array(Self.uid.reversed())
        #expect(trace[0].command == [0x22, 0xB2, 0x04] + uidOnAir)
        guard case .frame(.data(let randomAnswer)) = trace[0].answer, randomAnswer.count == 3 else {
            Issue.record("GET RANDOM NUMBER answer: \(trace[0].answer)")
            return
        }
        let random = Array(randomAnswer[1...])
        #expect(trace[1].command == [0x22, 0xB3, 0x04] + uidOnAir + [0x02] + Self.xorPassword(0, random: random))
    }

    @Test("protect on a SLIX2: reads and writes of the high page need the passwords; without them a fresh power-up reads error 0F and writes 12")
    func protectSLIX2() async throws {
        let (reader, tag) = try await Self.open()
        let new = try ICodePasswords(hex: "11223344:55667788")
        try await tag.icodeProtect(passwords: new, current: .factoryDefault, protection: ICodeProtection(readProtected: true, firstProtectedBlock: 4))
        // PROTECT PAGE: pointer 4, extended status RH|WH = 30.
        let uidOnAir = Array(Self.uid.reversed())
        #expect(await Self.frames(reader).contains { $0.command == [0x22, 0xB6, 0x04] + uidOnAir + [0x04, 0x30] })
        // WRITE PASSWORD write (02): the new password in plain, LSB first.
        #expect(await Self.frames(reader).contains { $0.command == [0x22, 0xB4, 0x04] + uidOnAir + [0x02, 0x88, 0x77, 0x66, 0x55] })
        let answers = try await Self.onChip(reader) { chip in
            chip.powerOn()
            return [chip.respond(to: [0x22, 0x20] + uidOnAir + [0x03]), chip.respond(to: [0x22, 0x20] + uidOnAir + [0x04]),
                    chip.respond(to: [0x22, 0x21] + uidOnAir + [0x05, 1, 2, 3, 4]),
                    .data([chip.security.passwords[0x01] == 0x1122_3344 && chip.security.passwords[0x02] == 0x5566_7788 ? 1 : 0])]
        }
        #expect(answers[0] == .data([0x00, 0x03, 0x00, 0xFE, 0x00]) || answers[0] == .data([0x00, 0x00, 0x00, 0x00, 0x00]),
                "block 3 is in the low page: public (\(answers[0]))")
        #expect(answers[1] == .data([0x01, 0x0F]))
        #expect(answers[2] == .data([0x01, 0x12]))
        #expect(answers[3] == .data([1]), "the passwords the chip keeps")
        // With both passwords given again, the high page reads.
        try await tag.icodeSetPassword(.read, new.read)
        try await tag.icodeSetPassword(.write, new.write)
        #expect(try await tag.readSingleBlock(4).count == 4)
        // unprotect opens it and sets the passwords back to 00000000.
        try await Self.onChip(reader) { $0.powerOn() }
        try await tag.icodeUnprotect(current: new)
        #expect(try await Self.onChip(reader) { $0.security == ICodeSecurityState(variant: .slix2) })
    }

    @Test("a wrong password: authenticationFailed, nothing written, and the chip silent until power-up")
    func wrongPassword() async throws {
        let (reader, tag) = try await Self.open(.slixS)
        let before = try await Self.onChip(reader) { $0.tagState }
        await #expect(throws: NFCTagError.self) {
            try await tag.icodeProtect(passwords: try ICodePasswords(hex: "01020304"), current: try ICodePasswords(hex: "DEADBEEF"), protection: ICodeProtection())
        }
        do {
            try await tag.icodeSetPassword(.write, ICodePassword(0))
            Issue.record("a silenced chip took a password")
        } catch {
            #expect(error.code == .authenticationFailed || error.code == .connectionLost)
        }
        #expect(try await Self.onChip(reader) { $0.tagState } == before)
        #expect(await Self.frames(reader).allSatisfy { !ICodeCommand.writeClass.contains($0.command[1]) })
        try await Self.onChip(reader) { $0.powerOn() }
        try await tag.icodeSetPassword(.write, .factoryDefault)
    }

    @Test("SLIX-S: PROTECT PAGE per page of 4 blocks (status 10: write by the write password); B8 reports b3 on each block")
    func protectSLIXS() async throws {
        let (reader, tag) = try await Self.open(.slixS, uid: [0xE0, 0x04, 0x02, 0x10, 1, 2, 3, 4])
        try await tag.icodeProtect(passwords: try ICodePasswords(hex: "CAFEBABE"), current: .factoryDefault, protection: ICodeProtection(firstProtectedBlock: 9))
        #expect(try await Self.onChip(reader) { $0.security.pageProtection } == [0, 0, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10])
        let state = try await tag.icodeProtectionState()
        #expect(state.blocks(with: ICodeBlockProtection.writeProtected) == Array(8..<40))
        #expect(state.blocks(with: ICodeBlockProtection.readProtected).isEmpty)
    }

    @Test("SLIX and SLIX-L have no memory passwords: protect is notSupported and sends nothing", arguments: [ICodeVariant.slix, .slixL])
    func noMemoryPasswords(variant: ICodeVariant) async throws {
        let (reader, tag) = try await Self.open(variant)
        await #expect(throws: NFCTagError.self) {
            try await tag.icodeProtect(passwords: .factoryDefault, current: .factoryDefault, protection: ICodeProtection())
        }
        #expect(await Self.frames(reader).isEmpty)
    }

    @Test("privacy: ENABLE PRIVACY hides the chip (no inventory, no read); SET PASSWORD with the privacy password brings it back")
    func privacy() async throws {
        let (reader, tag) = try await Self.open(.slixL, uid: [0xE0, 0x04, 0x03, 0x10, 1, 2, 3, 4])
        try await tag.icodeSetPassword(.privacy, .factoryDefault)
        try await tag.icodeWritePassword(.privacy, ICodePassword(0x0F0F_0F0F))
        try await tag.icodeEnablePrivacy(ICodePassword(0x0F0F_0F0F))
        let hidden = try await Self.onChip(reader) { chip in
            chip.powerOn()
            return chip.security.privacy && chip.respond(to: [0x26, 0x01, 0x00]) == .silence
        }
        #expect(hidden, "in privacy mode, and no inventory answer")
        await #expect(throws: NFCTagError.self) { try await tag.readSingleBlock(0) }
        try await tag.icodeLeavePrivacy(ICodePassword(0x0F0F_0F0F))
        #expect(try await Self.onChip(reader) { !$0.security.privacy })
        #expect(try await tag.readSingleBlock(0).count == 4)
    }

    @Test("the security state survives the tag file; factory chips keep files without the attributes", arguments: ICodeVariant.allCases.filter { !$0.isNTAG5 })
    func tagFile(variant: ICodeVariant) throws {
        let fresh = ICodeSLIX2(uid: Self.uid, variant: variant)
        #expect(fresh.tagState.attributes?["icodePasswords"] == nil)
        var changed = fresh.security
        if let key = changed.passwords.keys.min() { changed.passwords[key] = 0xA1B2_C3D4 }
        changed.privacy = variant.hasPrivacy
        fresh.security = changed
        let restored = try #require(ICodeSLIX2(state: fresh.tagState))
        #expect(restored.variant == variant && restored.security == changed && restored.memory == fresh.memory)
    }

    @Test("64-bit mode with write protection only: unprotect gives the read password too (the chip refuses PROTECT PAGE without it) and opens every block", arguments: [ICodeVariant.slixS, .slix2])
    func unprotectSixtyFourBitWriteOnly(variant: ICodeVariant) async throws {
        let (reader, tag) = try await Self.open(variant)
        let passwords = try ICodePasswords(hex: "0A0B0C0D:01020304")
        try await tag.icodeProtect(passwords: passwords, current: .factoryDefault, protection: ICodeProtection(sixtyFourBit: true))
        #expect(try await Self.onChip(reader) { $0.security.sixtyFourBit && $0.security.passwords[0x01] == 0x0A0B_0C0D })
        try await Self.onChip(reader) { $0.powerOn() }
        try await tag.icodeUnprotect(current: passwords)
        let open = try await Self.onChip(reader) { chip in
            chip.security.extendedProtection == 0 && chip.security.pageProtection.allSatisfy { $0 == ICodePageProtection.publicPage }
        }
        #expect(open, "no page protected after unprotect")
        #expect(try await Self.onChip(reader) { $0.security.passwords[0x01] == 0 && $0.security.passwords[0x02] == 0 }, "both passwords back to 00000000")
    }

    @Test("leaving privacy without a poll: unaddressed 02 B2 04, then 02 B3 04 04 and the password XOR the random number; the chip answers inventory again")
    func leavePrivacyUnaddressed() async throws {
        let (reader, tag) = try await Self.open(.slix2)
        try await tag.icodeSetPassword(.privacy, .factoryDefault)
        try await tag.icodeEnablePrivacy(.factoryDefault)
        try await Self.onChip(reader) { $0.powerOn() }
        #expect(try await reader.poll(for: [.iso15693], timeout: .zero) == nil, "a chip in privacy mode answers no inventory")
        await reader.withField { $0.trace = [] }
        try await ICodePrivacy.leave(.factoryDefault, through: reader, timeout: .seconds(1))
        let trace = await Self.frames(reader)
        try #require(trace.count == 2)
        #expect(trace[0].command == [0x02, 0xB2, 0x04])
        guard case .frame(.data(let randomAnswer)) = trace[0].answer, randomAnswer.count == 3 else {
            Issue.record("GET RANDOM NUMBER answer: \(trace[0].answer)")
            return
        }
        #expect(trace[1].command == [0x02, 0xB3, 0x04, 0x04] + Self.xorPassword(0, random: Array(randomAnswer[1...])))
        #expect(try await reader.poll(for: [.iso15693], timeout: .zero) != nil, "found again")
    }

    @Test("EAS ALARM (22 A5 04 UID): unanswered while EAS is off (false), answered once SET EAS (true); a SLIX answers it too")
    func easAlarm() async throws {
        for variant in [ICodeVariant.slix2, .slix] {
            let uid: [UInt8] = variant == .slix ? [0xE0, 0x04, 0x01, 0x10, 0x53, 0x49, 0x4D, 0x0C] : Self.uid
            let (reader, tag) = try await Self.open(variant, uid: uid)
            #expect(try await tag.icodeEASAlarm() == false)
            try await tag.icodeSetEAS(true)
            #expect(try await tag.icodeEASAlarm() == true)
            let onAir = Array(uid.reversed())
            #expect(await Self.frames(reader).map(\.command) == [[0x22, 0xA5, 0x04] + onAir, [0x22, 0xA2, 0x04] + onAir, [0x22, 0xA5, 0x04] + onAir])
        }
    }

    @Test("WRITE EAS ID (22 A7 04 UID 34 12) then EAS ALARM with the option flag and mask length 0 (62 A5 04 UID 00) gives 1234; the chip holds it; a SLIX sends nothing (notSupported)")
    func writeEASID() async throws {
        let (reader, tag) = try await Self.open(.slixS)
        try await tag.icodeWriteEASID(0x1234)
        #expect(try await Self.onChip(reader) { $0.security.easID } == 0x1234)
        #expect(try await tag.icodeEASID() == 0x1234)
        let onAir = Array(Self.uid.reversed())
        #expect(await Self.frames(reader).map(\.command) == [[0x22, 0xA7, 0x04] + onAir + [0x34, 0x12], [0x62, 0xA5, 0x04] + onAir + [0x00]])
        #expect(await tag.icodeEASSummary() == "off (EAS ALARM not answered), EAS ID 1234")
        let (slixReader, slix) = try await Self.open(.slix, uid: [0xE0, 0x04, 0x01, 0x10, 0x53, 0x49, 0x4D, 0x0D])
        await #expect(throws: NFCTagError.self) { try await slix.icodeWriteEASID(1) }
        #expect(await Self.frames(slixReader).isEmpty, "nothing sent to a chip without an EAS ID")
    }

    @Test("selective EAS ALARM at the chip: mask 16 with its ID answered while EAS is on, another ID or EAS off silent; a bad mask length silent")
    func selectiveEASAlarm() async throws {
        let (reader, tag) = try await Self.open(.slix2)
        try await tag.icodeWriteEASID(0xBEEF)
        let onAir = Array(Self.uid.reversed())
        func alarm(_ parameters: [UInt8]) async throws -> Bool {
            do {
                return !(try await reader.transceive(Bytes([0x62, 0xA5, 0x04] + onAir + parameters), mode: .standard, timeout: .seconds(1))).isEmpty
            } catch where error.code == .timeout { return false }
        }
        #expect(try await alarm([16, 0xEF, 0xBE]) == false, "EAS off")
        try await tag.icodeSetEAS(true)
        #expect(try await alarm([16, 0xEF, 0xBE]))
        #expect(try await alarm([8, 0xEF]))
        #expect(try await alarm([16, 0xEE, 0xBE]) == false)
        #expect(try await alarm([12, 0xEF, 0xBE]) == false)
    }

    @Test("WRITE EAS ID on EAS behind the EAS/AFI password: refused (0F) without it, taken after SET PASSWORD; after LOCK EAS refused as locked (readOnly) and unchanged")
    func easIDProtectedAndLocked() async throws {
        let (reader, tag) = try await Self.open(.slix2)
        try await tag.icodeSetPassword(.easAFI, .factoryDefault)
        try await tag.icodePasswordProtect(afi: false)
        try await Self.onChip(reader) { $0.powerOn() }
        await #expect(throws: NFCTagError.self) { try await tag.icodeWriteEASID(0x0102) }
        #expect(try await Self.onChip(reader) { $0.security.easID } == 0)
        try await tag.icodeSetPassword(.easAFI, .factoryDefault)
        try await tag.icodeWriteEASID(0x0102)
        try await tag.icodeLockEAS()
        do throws(NFCTagError) {
            try await tag.icodeWriteEASID(0x0304)
            Issue.record("a locked EAS ID was written")
        } catch {
            #expect(error.code == .readOnly, "\(error)")
        }
        #expect(try await Self.onChip(reader) { $0.security.easID } == 0x0102)
        let restored = try #require(ICodeSLIX2(state: try await Self.onChip(reader) { $0.tagState }))
        #expect(restored.security.easID == 0x0102 && restored.tagState.attributes?["icodeEASID"] == "0102")
    }

    @Test("a TracingReader records leaving privacy as two unselected raw commands with their answers")
    func leavePrivacyTraced() async throws {
        let (reader, tag) = try await Self.open(.slix2)
        try await tag.icodeSetPassword(.privacy, .factoryDefault)
        try await tag.icodeEnablePrivacy(.factoryDefault)
        try await Self.onChip(reader) { $0.powerOn() }
        let tracing = await TracingReader(reader)
        try await ICodePrivacy.leave(.factoryDefault, through: tracing, timeout: .seconds(1))
        let commands = await tracing.commands
        try #require(commands.count == 2)
        #expect(commands.allSatisfy { $0.unselected && $0.mode == .raw })
        #expect(commands[0].command == Bytes([0x02, 0xB2, 0x04]))
        let random = try #require(try? commands[0].result.get()).array
        try #require(random.count == 3)
        #expect(commands[1].command == Bytes([0x02, 0xB3, 0x04, 0x04] + Self.xorPassword(0, random: Array(random[1...]))))
        #expect(try commands[1].result.get() == Bytes([0x00]))
    }

    @Test("leaving privacy with a wrong password: authenticationFailed, the chip stays hidden")
    func leavePrivacyWrongPassword() async throws {
        let (reader, tag) = try await Self.open(.slixS)
        try await tag.icodeSetPassword(.privacy, .factoryDefault)
        try await tag.icodeEnablePrivacy(.factoryDefault)
        do {
            try await ICodePrivacy.leave(ICodePassword(0x1234_5678), through: reader, timeout: .seconds(1))
            Issue.record("a wrong privacy password was taken")
        } catch {
            #expect(error.code == .authenticationFailed)
        }
        #expect(try await Self.onChip(reader) { $0.security.privacy })
    }

    @Test("EAS: SET/RESET EAS; PASSWORD PROTECT EAS (option clear) then needs the EAS/AFI password; AFI protection (option set) guards WRITE AFI", arguments: ICodeVariant.allCases.filter { !$0.isNTAG5 })
    func easAndAFI(variant: ICodeVariant) async throws {
        let (reader, tag) = try await Self.open(variant)
        try await tag.icodeSetEAS(true)
        #expect(try await Self.onChip(reader) { $0.security.eas })
        try await tag.icodeSetPassword(.easAFI, .factoryDefault)
        try await tag.icodePasswordProtect(afi: false)
        try await tag.icodePasswordProtect(afi: true)
        let uidOnAir = Array(Self.uid.reversed())
        let frames = await Self.frames(reader).map(\.command)
        #expect(frames.contains([0x22, 0xA6, 0x04] + uidOnAir) && frames.contains([0x62, 0xA6, 0x04] + uidOnAir), "A6 with the option flag clear (EAS) and set (AFI)")
        let refused = try await Self.onChip(reader) { chip in
            chip.powerOn()
            return [chip.respond(to: [0x22, 0xA3, 0x04] + uidOnAir), chip.respond(to: [0x22, 0x27] + uidOnAir + [0x07])]
        }
        #expect(refused == [.data([0x01, 0x0F]), .data([0x01, 0x0F])], "RESET EAS and WRITE AFI refused without the password")
        try await tag.icodeSetPassword(.easAFI, .factoryDefault)
        try await tag.icodeSetEAS(false)
        try await tag.writeAFI(0x07)
        #expect(try await Self.onChip(reader) { !$0.security.eas && $0.afi == 0x07 && $0.security.easProtected && $0.security.afiProtected })
        let restored = try await Self.onChip(reader) { ICodeSLIX2(state: $0.tagState).map { $0.security.easProtected && $0.security.afiProtected } }
        #expect(restored == true, "kept in the tag file")
    }

    @Test("DESTROY with the destroy password: the chip never answers again (nor after power-up, nor from its file); a wrong one destroys nothing", arguments: [ICodeVariant.slixS, .slixL, .slix2])
    func destroy(variant: ICodeVariant) async throws {
        let (reader, tag) = try await Self.open(variant)
        await #expect(throws: NFCTagError.self) { try await tag.icodeDestroy(ICodePassword(0x0000_0001)) }
        #expect(try await Self.onChip(reader) { !$0.security.destroyed })
        try await Self.onChip(reader) { $0.powerOn() }
        try await tag.icodeDestroy(.factoryDefault)
        let silent = try await Self.onChip(reader) { chip in
            chip.powerOn()
            return chip.respond(to: [0x26, 0x01, 0x00]) == .silence && !chip.answersPoll && ICodeSLIX2(state: chip.tagState)?.answersPoll == false
        }
        #expect(silent)
    }

    @Test("the plain SLIX has no DESTROY: notSupported, nothing sent")
    func noDestroyOnSLIX() async throws {
        let (reader, tag) = try await Self.open(.slix)
        await #expect(throws: NFCTagError.self) { try await tag.icodeDestroy(.factoryDefault) }
        #expect(await Self.frames(reader).isEmpty)
    }

    @Test("SLIX2 --lock-protection: 22 B7 04 UID 08 after PROTECT PAGE (pointer 08); B8 then shows b4 on every block; PROTECT PAGE on the pointer is refused with 12 and the protection stays")
    func lockConditionSLIX2() async throws {
        let (reader, tag) = try await Self.open()
        try await tag.icodeProtect(
            passwords: try ICodePasswords(hex: "CAFEBABE"), current: .factoryDefault,
            protection: ICodeProtection(firstProtectedBlock: 8, lockCondition: true))
        let trace = await Self.frames(reader)
        let uidOnAir = Array(Self.uid.reversed())
        let locks = trace.filter { $0.command.count > 1 && $0.command[1] == ICodeCommand.lockPageProtectionCondition }
        #expect(locks.map(\.command) == [[0x22, 0xB7, 0x04] + uidOnAir + [0x08]])
        let b6 = try #require(trace.firstIndex { $0.command[1] == 0xB6 }), b7 = try #require(trace.firstIndex { $0.command[1] == 0xB7 })
        #expect(b6 < b7, "PROTECT PAGE before LOCK PAGE PROTECTION CONDITION")
        #expect(try await Self.onChip(reader) { $0.security.lockedConditions } == [0, 1])
        let state = try await tag.icodeProtectionState()
        #expect(state.blocks(with: ICodeBlockProtection.protectionLocked) == Array(0..<80))
        // The chip refuses to change a locked protection, even with the write password given.
        try await tag.icodeSetPassword(.write, ICodePassword(0xCAFE_BABE))
        do {
            try await tag.icodeProtectPage(0, status: ICodePageProtection.publicPage)
            Issue.record("PROTECT PAGE taken on a locked condition")
        } catch {
            #expect(error.code == .readOnly, "\(error)")
        }
        #expect(try await Self.onChip(reader) { ($0.security.protectionPointer, $0.security.extendedProtection) } == (8, 0x20))
    }

    @Test("unprotect on a SLIX-S with every page protected and page 5's condition locked: readOnly before any password is given or page changed (pages 0–4 stay protected, not made public half-way; only B8 sent)")
    func unprotectRefusedWhenLocked() async throws {
        let (reader, tag) = try await Self.open(.slixS, uid: [0xE0, 0x04, 0x02, 0x10, 1, 2, 3, 4])
        try await Self.onChip(reader) { chip in
            var security = chip.security
            security.passwords[ICodePasswordIdentifier.read.rawValue] = 0x1122_3344
            security.passwords[ICodePasswordIdentifier.write.rawValue] = 0x5566_7788
            security.pageProtection = [UInt8](repeating: ICodePageProtection.readAndWrite, count: security.pageProtection.count)
            security.lockedConditions = [5]
            chip.security = security
        }
        let before = try await Self.onChip(reader) { $0.tagState }
        do {
            try await tag.icodeUnprotect(current: try ICodePasswords(hex: "11223344:55667788"))
            Issue.record("unprotect reported success on a locked protection")
        } catch {
            #expect(error.code == .readOnly && error.reason.contains("condition is locked"), "\(error)")
        }
        #expect(try await Self.onChip(reader) { $0.tagState } == before)
        #expect(await Self.frames(reader).allSatisfy { $0.command[1] == ICodeCommand.getMultipleBlockProtectionStatus })
    }
}
