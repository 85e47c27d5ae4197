import NDEF
import NFCCore
import NFCTags
import NFCTestSupport
import Testing
import VirtualTags

/// NTAG 5 passwords and area 0's protection through the ICODE code of NFCTags (the NTAG 5 takes
/// the same GET RANDOM NUMBER / SET PASSWORD / WRITE PASSWORD / PROTECT PAGE frames) and GET NXP
/// SYSTEM INFORMATION for the protection state. Frames are checked byte for byte against the
/// layout the data sheets give (flags, command, manufacturer code `04`, UID least significant
/// byte first, parameters); what the chip keeps is read from its tag file's state, not from
/// NFCTags.
@Suite("NTAG 5 passwords and area protection", .timeLimit(.minutes(3)))
struct NTAG5PasswordTests {
    static let new = ICodePasswords(read: ICodePassword(0x1122_3344), write: ICodePassword(0x5566_7788))

    /// A simulator holding `chip`, identified, tracing.
    static func open(_ chip: sending Type5Chip) async throws -> (SimulatedReader, ISO15693Tag) {
        let reader = SimulatedReader(tags: [chip], emptyFieldWait: .zero)
        let target = try #require(try await reader.poll(for: [.iso15693], timeout: .zero))
        guard case .iso15693(let v) = target else { throw NFCTagError(.notSupported, "not ISO 15693") }
        let identity = await ChipIdentification.identify(target, on: reader, probesNDEF: false)
        await reader.withField { $0.isTracing = true }
        return (reader, ISO15693Tag(reader: reader, target: v, identity: identity))
    }

    static func chip(_ profile: Type5ChipProfile) -> Type5Chip { Type5Chip(profile, uid: profile.defaultUID) }

    /// The chip's tag file as the field holds it now.
    static func tagState(_ reader: SimulatedReader) async throws -> TagState {
        try #require(await reader.withField { ($0.currentTag as? Type5Chip)?.tagState })
    }

    @Test("identification maps the NTAG 5 chips to the ICODE password code (passwords, pointer protection, 64-bit mode)", arguments: [
        (Type5ChipProfile.ntag5Switch, ICodeVariant.ntag5Switch), (.ntag5Link, .ntag5LinkOrBoost), (.ntag5Boost, .ntag5LinkOrBoost),
    ])
    func variant(profile: Type5ChipProfile, expected: ICodeVariant) async throws {
        let (_, tag) = try await Self.open(Self.chip(profile))
        let variant = try #require(tag.icodeVariant)
        #expect(variant == expected)
        #expect(variant.usesProtectionPointer && variant.isNTAG5 && variant.has64BitMode && variant.hasPrivacy)
        #expect(tag.identity.blockCount == variant.blockCount)
    }

    @Test("protect on an NTAG 5 link sends exactly GET NXP SYSTEM INFORMATION (a locked condition is looked for before any write), GET RANDOM NUMBER, SET PASSWORD (write) XOR the random number, WRITE PASSWORD, SET PASSWORD with the new one, PROTECT PAGE 00 20, GET NXP SYSTEM INFORMATION")
    func protectTrace() async throws {
        let chip = Self.chip(.ntag5Link)
        let uidOnAir = Array(chip.uid.reversed())
        let (reader, tag) = try await Self.open(chip)
        try await tag.icodeProtect(passwords: ICodePasswords(read: .factoryDefault, write: Self.new.write), current: .factoryDefault, protection: ICodeProtection())
        let all = await reader.withField { $0.trace }
        // Flags 22 (addressed, high data rate), command, NXP's 04, the UID on the air.
        let head = { (command: UInt8) in [0x22, command, 0x04] + uidOnAir }
        #expect(all.first?.command == head(0xAB), "the protection state read before anything is written")
        let trace = Array(all.dropFirst())
        let frames = trace.map(\.command)
        #expect(frames.count == 7, "\(frames.map { Hex.encode($0) })")
        guard frames.count == 7 else { return }
        #expect(frames[0] == head(0xB2))
        #expect(frames[2] == head(0xB4) + [0x02, 0x88, 0x77, 0x66, 0x55], "WRITE PASSWORD: identifier 02, Password[31:0] least significant byte first")
        #expect(frames[3] == head(0xB2) && frames[5] == head(0xB6) + [0x00, 0x20], "PROTECT PAGE: pointer 00, write protection of the high part")
        #expect(frames[6] == head(0xAB))
        // SET PASSWORD: identifier, then Password XOR {random, random} (both 16-bit halves).
        for (setIndex, password) in [(1, UInt32(0)), (4, Self.new.write.value)] {
            guard case .frame(.data(let randomAnswer)) = trace[setIndex - 1].answer else {
                Issue.record("GET RANDOM NUMBER unanswered")
                continue
            }
            let random = Array(randomAnswer.dropFirst())
            #expect(random.count == 2)
            let plain = (0..<4).map { UInt8(truncatingIfNeeded: password >> (8 * $0)) }
            let expected = [plain[0] ^ random[0], plain[1] ^ random[1], plain[2] ^ random[0], plain[3] ^ random[1]]
            #expect(frames[setIndex] == head(0xB3) + [0x02] + expected, "SET PASSWORD \(setIndex)")
        }
        let state = try await Self.tagState(reader)
        #expect(state.attributes?["icodePasswords"]?.contains("02=55667788") == true, "\(String(describing: state.attributes))")
        let protection = hex(try #require(state.attributes?["icodeProtection"]))
        // Locked mask, privacy, 64-bit, pointer 00, condition 20 (write high).
        #expect(Array(protection.prefix(5)) == [0x00, 0x00, 0x00, 0x00, 0x20], "\(protection)")
    }

    @Test("after protect --read-protect from block 8 the chip refuses a read and a write of the high part from a fresh power-up, answers the low part, and GET NXP SYSTEM INFORMATION reports pointer 08 and condition 30")
    func protectionEnforced() async throws {
        let (reader, tag) = try await Self.open(Self.chip(.ntag5Switch))
        try await tag.icodeProtect(passwords: Self.new, current: .factoryDefault, protection: ICodeProtection(readProtected: true, firstProtectedBlock: 8))
        let state = try await Self.tagState(reader)
        let fresh = try #require(Type5Chip(state: state))
        let uidOnAir = Array(fresh.uid.reversed())
        fresh.powerOn()
        #expect(fresh.respond(to: [0x22, 0x20] + uidOnAir + [0x08]) == .data([0x01, 0x0F]), "high part: read refused")
        #expect(fresh.respond(to: [0x22, 0x21] + uidOnAir + [0x09, 1, 2, 3, 4]) == .data([0x01, 0x12]), "high part: write refused")
        if case .data(let low) = fresh.respond(to: [0x22, 0x20] + uidOnAir + [0x07]) { #expect(low.first == 0x00) } else { Issue.record("no answer") }
        #expect(fresh.respond(to: [0x22, 0xAB, 0x04] + uidOnAir) == .data([0x00, 0x08, 0x30, 0x00, 0xFF, 0xF1, 0x07, 0x20]))
        let info = try await tag.nxpSystemInformation()
        #expect(info.protectionPointer == 8 && info.protectionCondition == 0x30)
        #expect(try await tag.icodeProtectionState().blocks(with: ICodeBlockProtection.readProtected) == Array(8..<128))
    }

    @Test("a wrong current password: SET PASSWORD is refused (authenticationFailed), nothing is written, the chip's state is unchanged")
    func wrongPassword() async throws {
        let (reader, tag) = try await Self.open(Self.chip(.ntag5Link))
        try await tag.icodeProtect(passwords: Self.new, current: .factoryDefault, protection: ICodeProtection())
        let before = try await Self.tagState(reader)
        let fresh = try #require(Type5Chip(state: before))
        let (other, second) = try await Self.open(fresh)
        do throws(NFCTagError) {
            try await second.icodeUnprotect(current: ICodePasswords(read: ICodePassword(1), write: ICodePassword(2)))
            Issue.record("a wrong password was taken")
        } catch {
            #expect(error.code == .authenticationFailed, "\(error)")
        }
        #expect(try await Self.tagState(other) == before)
    }

    @Test("unprotect opens the chip: pointer 00 condition 00, passwords back to 00000000 (no security attributes left), a write goes through")
    func unprotect() async throws {
        let (reader, tag) = try await Self.open(Self.chip(.ntag5Boost))
        try await tag.icodeProtect(passwords: Self.new, current: .factoryDefault, protection: ICodeProtection(readProtected: true))
        try await tag.icodeUnprotect(current: Self.new)
        let state = try await Self.tagState(reader)
        let protection = state.attributes?["icodeProtection"].map { hex($0) } ?? []
        #expect(protection.isEmpty || Array(protection.dropFirst(3).prefix(2)) == [0x00, 0x00], "\(protection)")
        #expect(state.attributes?["icodePasswords"].map { !$0.contains("55667788") && !$0.contains("11223344") } ?? true)
        let fresh = try #require(Type5Chip(state: state))
        fresh.powerOn()
        #expect(fresh.respond(to: [0x22, 0x31] + Array(fresh.uid.reversed()) + [0x00, 0x01, 1, 2, 3, 4]) == .data([0x00]), "EXTENDED WRITE of block 256")
    }

    @Test("the pointer is one byte: protect from block 256 on a link is refused before anything is sent")
    func pointerRange() async throws {
        let (reader, tag) = try await Self.open(Self.chip(.ntag5Link))
        let before = await reader.commandCount
        await #expect(throws: NFCTagError.self) {
            try await tag.icodeProtect(passwords: Self.new, current: .factoryDefault, protection: ICodeProtection(firstProtectedBlock: 256))
        }
        #expect(await reader.commandCount == before)
    }

    @Test("GET NXP SYSTEM INFORMATION decodes VivoKey's capture of a real NTAG 5 link (FF 00 00 FF F1 07 64: host interface GPIO and I²C) and refuses short answers and unknown condition bits")
    func systemInformationParser() throws {
        let info = try NXPSystemInformation(answer: [0xFF, 0x00, 0x00, 0xFF, 0xF1, 0x07, 0x64])
        #expect(info.protectionPointer == 0xFF && info.protectionCondition == 0 && !info.protectionLocked)
        #expect(info.hostInterface == 3)
        #expect(info.blockStatuses(blockCount: 512).allSatisfy { $0 == 0 })
        for hostile: [UInt8] in [[], [0xFF], [0xFF, 0x00, 0x00, 0xFF, 0xF1, 0x07], [0x00, 0x04, 0, 0, 0, 0, 0], [0x00, 0xC0, 0, 0, 0, 0, 0]] {
            #expect(throws: NFCTagError.self) { try NXPSystemInformation(answer: hostile) }
        }
        let capture: [UInt8] = [0xFF, 0x00, 0x00, 0xFF, 0xF1, 0x07, 0x64]
        for length in 0..<capture.count {
            #expect(throws: NFCTagError.self, "a prefix of \(length) bytes") { try NXPSystemInformation(answer: capture.prefix(length)) }
        }
        #expect(try NXPSystemInformation(answer: capture).bytes == capture, "encodes back")
        let locked = try NXPSystemInformation(answer: [0x10, 0x33, 0x08, 0, 0, 0, 0])
        let statuses = locked.blockStatuses(blockCount: 32)
        #expect(statuses[0] == 0x0E && statuses[16] == 0x0E, "both parts read+write protected, condition locked")
    }

    @Test("tag files whose NTAG 5 security attributes do not decode are refused")
    func hostileTagFiles() throws {
        let chip = Self.chip(.ntag5Link)
        var security = chip.security
        security.passwords[0x02] = 0x0102_0304
        chip.security = security
        let state = chip.tagState
        #expect(Type5Chip(state: state) != nil)
        for (key, value) in [("icodePasswords", "02=zz"), ("icodeProtection", "00"), ("icodeEAS", "FF")] {
            var broken = state
            broken.attributes?[key] = value
            #expect(Type5Chip(state: broken) == nil, "\(key)=\(value)")
        }
    }

    /// Runs `operation` on `initial` cut after and inside every command; the security states
    /// left behind, read from the tag file.
    static func sweep(_ initial: TagState, _ operation: (ISO15693Tag) async throws(NFCTagError) -> Void) async throws -> [ICodeSecurityState] {
        let identity = TearingSweep.type5Identity(ChipModel.ntag5LinkOrBoost.rawValue, family: .icode, blockCount: 512)
        return try await TearingSweep.iso15693States(initial, identity: identity, minimumCommands: 7, operation)
            .map { try #require(Type5Chip(state: $0)).security }
    }

    /// Whether a user holding the passwords before and after can always open `state`: each
    /// password old or new, and the high part protected only once the new ones are in place.
    static func recoverable(_ state: ICodeSecurityState, before: ICodePasswords, after: ICodePasswords) -> Bool {
        let read = state.passwords[ICodePasswordIdentifier.read.rawValue] ?? 0
        let write = state.passwords[ICodePasswordIdentifier.write.rawValue] ?? 0
        return [before.read.value, after.read.value].contains(read) && [before.write.value, after.write.value].contains(write)
    }

    @Test("protect --read-protect on an NTAG 5 link torn after or inside any command: passwords old or new, the high part protected only under the new ones")
    func protectTearing() async throws {
        let initial = Self.chip(.ntag5Link).tagState
        let states = try await Self.sweep(initial) { tag throws(NFCTagError) in
            try await tag.icodeProtect(passwords: Self.new, current: .factoryDefault, protection: ICodeProtection(readProtected: true))
        }
        for state in states { #expect(Self.recoverable(state, before: .factoryDefault, after: Self.new), "\(state)") }
        for state in states where state.extendedProtection != 0 {
            #expect(state.passwords[0x01] == Self.new.read.value && state.passwords[0x02] == Self.new.write.value)
            #expect(state.extendedProtection == 0x30 && state.protectionPointer == 0)
        }
        #expect(states.contains { $0.extendedProtection == 0x30 } && states.contains { $0.extendedProtection == 0 })
    }

    @Test("unprotect of a protected NTAG 5 link torn after or inside any command: never protected by a password the user does not hold; some cut leaves the factory state")
    func unprotectTearing() async throws {
        let chip = Self.chip(.ntag5Link)
        var security = chip.security
        security.passwords[0x01] = Self.new.read.value
        security.passwords[0x02] = Self.new.write.value
        security.protectionPointer = 0
        security.extendedProtection = 0x30
        chip.security = security
        let states = try await Self.sweep(chip.tagState) { tag throws(NFCTagError) in try await tag.icodeUnprotect(current: Self.new) }
        for state in states { #expect(Self.recoverable(state, before: Self.new, after: .factoryDefault), "\(state)") }
        for state in states where state.extendedProtection != 0 {
            #expect(state.passwords[0x01] == Self.new.read.value && state.passwords[0x02] == Self.new.write.value)
        }
        #expect(states.contains { $0.extendedProtection == 0 && $0.passwords[0x02] == 0 && $0.passwords[0x01] == 0 })
    }
}
