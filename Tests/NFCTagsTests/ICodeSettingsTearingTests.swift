import NFCCore
import NFCTags
import NFCTestSupport
import Testing
import VirtualTags

/// Tearing of the ICODE write paths added after protect/unprotect: EAS/AFI password and
/// protection, leaving privacy, and unprotect of a 64-bit-mode chip. The chip leaves the field
/// after, or inside, each command; the state left behind is read from the tag file's state (not
/// from NFCTags) and must be one a user holding the old and new passwords can recover from.
@Suite("ICODE settings, privacy and 64-bit unprotect torn at every command", .timeLimit(.minutes(2)))
struct ICodeSettingsTearingTests {
    static let uid: [UInt8] = [0xE0, 0x04, 0x02, 0x10, 0x53, 0x49, 0x4D, 0x0A]

    static func tag(_ reader: SimulatedReader, _ target: TargetInfo, _ model: ChipModel) throws -> ISO15693Tag {
        guard case .iso15693(let v) = target else { throw NFCTagError(.notSupported, "not ISO 15693") }
        return ISO15693Tag(reader: reader, target: v, identity: ChipIdentity(model, platform: .type5, family: .icode))
    }

    /// A simulator holding the chip of `state`, polled; a chip that answers no poll (privacy) is
    /// left unselected, its target taken from the chip.
    static func open(_ state: TagState) async throws -> (SimulatedReader, TargetInfo) {
        let chip = try #require(ICodeSLIX2(state: state))
        let info = chip.targetInfo
        let reader = SimulatedReader(tags: [chip], emptyFieldWait: .zero)
        await reader.withField { $0.isTracing = true }
        return (reader, try await reader.poll(for: [.iso15693], timeout: .zero) ?? info)
    }

    /// Runs `operation` from `initial` uncut, then cut after and inside every command it sends;
    /// returns the uncut state and the states left behind.
    static func sweep(
        _ initial: TagState, _ model: ChipModel, _ operation: (SimulatedReader, ISO15693Tag) async throws(NFCTagError) -> Void
    ) async throws -> (whole: ICodeSecurityState, torn: [ICodeSecurityState]) {
        let (referenceReader, referenceTarget) = try await open(initial)
        let before = await referenceReader.commandCount
        try await operation(referenceReader, try tag(referenceReader, referenceTarget, model))
        let total = await referenceReader.commandCount - before
        #expect(total >= 2)
        let wholeState = try #require(await TearingSweep.state(referenceReader))
        let whole = try #require(ICodeSLIX2(state: wholeState)).security
        var states: [ICodeSecurityState] = []
        for cut in (1...total).map(TearingSweep.Cut.after) + (1...total).map(TearingSweep.Cut.during) {
            let (reader, target) = try await open(initial)
            let start = await reader.commandCount
            await reader.withField { $0.faultPlan = cut.plan(from: start) }
            let torn = try tag(reader, target, model)
            do throws(NFCTagError) {
                try await operation(reader, torn)
            } catch {
                #expect(error.code == .connectionLost || error.code == .authenticationFailed, "\(cut): \(error)")
            }
            let after = try #require(await TearingSweep.state(reader))
            states.append(try #require(ICodeSLIX2(state: after)).security)
        }
        return (whole, states)
    }

    @Test("--password eas-afi --protect-eas --protect-afi on a SLIX-S torn anywhere: the EAS/AFI password old or new, and EAS/AFI only ever protected by the new one")
    func easAFIProtection() async throws {
        let initial = ICodeSLIX2(uid: Self.uid, variant: .slixS).tagState
        let new = ICodePassword(0x0BAD_CAFE)
        let (whole, states) = try await Self.sweep(initial, .icodeSLIXS) { _, tag throws(NFCTagError) in
            try await tag.icodeApply(ICodeSettings(password: .easAFI, protectEAS: true, protectAFI: true), password: new, current: .factoryDefault)
        }
        #expect(whole.easProtected && whole.afiProtected && whole.passwords[0x10] == new.value)
        for state in states {
            let password = state.passwords[0x10] ?? 0
            #expect([0, new.value].contains(password), "\(state)")
            if state.easProtected || state.afiProtected { #expect(password == new.value, "protected only once the new password is in place") }
        }
    }

    @Test("--eas-id 1234 --eas lock on a SLIX-L with EAS behind the EAS/AFI password, torn anywhere: the EAS ID 0000 or 1234, and EAS locked only with 1234")
    func easIDAndLock() async throws {
        let chip = ICodeSLIX2(uid: [0xE0, 0x04, 0x03, 0x10, 0x53, 0x49, 0x4D, 0x0B], variant: .slixL)
        chip.security.passwords[0x10] = 0x0BAD_CAFE
        chip.security.easProtected = true
        let (whole, states) = try await Self.sweep(chip.tagState, .icodeSLIXL) { _, tag throws(NFCTagError) in
            try await tag.icodeApply(ICodeSettings(eas: .lock, easID: 0x1234), password: ICodePassword(0x0BAD_CAFE), current: .factoryDefault)
        }
        #expect(whole.easID == 0x1234 && whole.easLocked)
        for state in states {
            #expect([0, 0x1234].contains(state.easID), "\(state)")
            if state.easLocked { #expect(state.easID == 0x1234, "locked only after the new EAS ID is in place") }
        }
    }

    @Test("hostile EAS ALARM answers: an error answer is tagResponse, a 1-byte EAS ID answer is tagResponse, silence to the EAS ID request is tagResponse; info's summary says unknown and never traps", arguments: [
        [[0x01, 0x0F]], [[0x00], [0x00, 0x12]], [[0x00], nil], [[0x00, 0xFF], [0x01]], [nil, [0x00, 0x34, 0x12, 0x99]],
    ] as [[[UInt8]?]])
    func hostileEASAnswers(answers: [[UInt8]?]) async throws {
        let replies = answers.map { answer -> ScriptedExchange in
            .anyCommand(answer.map { ScriptedReply.answer($0) } ?? .error(NFCReaderDeviceError(.timeout, "silent (scripted)")))
        }
        let reader = ScriptedReader(script: replies)
        let uid = Bytes([0xE0, 0x04, 0x01, 0x08, 0x53, 0x49, 0x4D, 0x0E])
        let tag = ISO15693Tag(reader: reader, target: ISO15693Target(uid: uid), identity: ChipIdentity(.icodeSLIX2, platform: .type5, family: .icode))
        let summary = await tag.icodeEASSummary()
        switch answers {
        case [[0x01, 0x0F]]: #expect(summary.hasPrefix("unknown ("), "\(summary)")
        case [nil, [0x00, 0x34, 0x12, 0x99]]: #expect(summary == "off (EAS ALARM not answered), EAS ID 1234", "bytes after the EAS ID are the chip's: \(summary)")
        default: #expect(summary.hasPrefix("on (EAS ALARM answered), EAS ID unknown ("), "\(summary)")
        }
    }

    @Test("leaving privacy torn anywhere: the chip hidden or found, its privacy password unchanged")
    func leavePrivacy() async throws {
        let chip = ICodeSLIX2(uid: Self.uid, variant: .slix2)
        chip.security.passwords[0x04] = 0x5A5A_1234
        chip.security.privacy = true
        let (whole, states) = try await Self.sweep(chip.tagState, .icodeSLIX2) { reader, _ throws(NFCTagError) in
            try await ICodePrivacy.leave(ICodePassword(0x5A5A_1234), through: reader, timeout: .seconds(1))
        }
        #expect(!whole.privacy)
        for state in states { #expect(state.passwords[0x04] == 0x5A5A_1234, "\(state)") }
        #expect(states.contains { $0.privacy } && states.contains { !$0.privacy })
    }

    @Test("unprotect of a 64-bit SLIX2 with write protection only, torn anywhere: never a page guarded by a password the user does not hold")
    func sixtyFourBitUnprotect() async throws {
        let chip = ICodeSLIX2(uid: Self.uid, variant: .slix2)
        let passwords = ICodePasswords(read: ICodePassword(0x0A0B_0C0D), write: ICodePassword(0x0102_0304))
        chip.security.passwords[0x01] = passwords.read.value
        chip.security.passwords[0x02] = passwords.write.value
        chip.security.sixtyFourBit = true
        chip.security.extendedProtection = ICodePageProtection.writeHigh
        let (whole, states) = try await Self.sweep(chip.tagState, .icodeSLIX2) { _, tag throws(NFCTagError) in
            try await tag.icodeUnprotect(current: passwords)
        }
        #expect(whole.extendedProtection == 0 && whole.passwords[0x01] == 0 && whole.passwords[0x02] == 0)
        for state in states {
            let read = state.passwords[0x01] ?? 0, write = state.passwords[0x02] ?? 0
            #expect([0, passwords.read.value].contains(read) && [0, passwords.write.value].contains(write), "\(state)")
            if state.extendedProtection != 0 {
                #expect(read == passwords.read.value && write == passwords.write.value, "a protected page keeps the passwords given")
            }
        }
    }
}
