import NFCCore
import NFCTags
import Testing
import VirtualTags

/// Tearing of ICODE protect and unprotect: the chip leaves the field after, or inside, each
/// command; the security state left behind (read from the tag file's state, not from NFCTags) must
/// be one a user can recover from: every password the old or the new one, and a protected page
/// only ever guarded by passwords the user holds.
@Suite("ICODE protect and unprotect torn at every command", .timeLimit(.minutes(2)))
struct ICodeProtectTearingTests {
    static let uid: [UInt8] = [0xE0, 0x04, 0x02, 0x10, 0x53, 0x49, 0x4D, 0x09]
    static let new = ICodePasswords(read: ICodePassword(0x1122_3344), write: ICodePassword(0x5566_7788))

    static func tag(_ reader: SimulatedReader, _ target: TargetInfo) throws -> ISO15693Tag {
        guard case .iso15693(let v) = target else { throw NFCTagError(.notSupported, "not ISO 15693") }
        return ISO15693Tag(reader: reader, target: v, identity: ChipIdentity(.icodeSLIXS, platform: .type5, family: .icode))
    }

    /// Runs `operation` from `initial` cut at every point; returns the states left behind.
    static func sweep(_ initial: TagState, _ operation: (ISO15693Tag) async throws(NFCTagError) -> Void) async throws -> [ICodeSecurityState] {
        let (referenceReader, referenceTarget) = try await TearingSweep.open(initial, modulations: [.iso15693])
        let before = await referenceReader.commandCount
        try await operation(try tag(referenceReader, referenceTarget))
        let total = await referenceReader.commandCount - before
        #expect(total > 10)
        var states: [ICodeSecurityState] = []
        for cut in (1...total).map(TearingSweep.Cut.after) + (1...total).map(TearingSweep.Cut.during) {
            let (reader, target) = try await TearingSweep.open(initial, modulations: [.iso15693])
            let start = await reader.commandCount
            await reader.withField { $0.faultPlan = cut.plan(from: start) }
            let torn = try tag(reader, target)
            do throws(NFCTagError) {
                try await operation(torn)
            } catch {
                // Silence inside SET PASSWORD reads as a refused password: the chip left.
                #expect(error.code == .connectionLost || error.code == .authenticationFailed, "\(cut): \(error)")
            }
            let after = try #require(await TearingSweep.state(reader))
            states.append(try #require(ICodeSLIX2(state: after)).security)
        }
        return states
    }

    /// Whether `state` is one a user holding the passwords before and after can always open.
    static func recoverable(_ state: ICodeSecurityState, before: ICodePasswords, after: ICodePasswords) -> Bool {
        let read = state.passwords[ICodePasswordIdentifier.read.rawValue] ?? 0
        let write = state.passwords[ICodePasswordIdentifier.write.rawValue] ?? 0
        guard [before.read.value, after.read.value].contains(read), [before.write.value, after.write.value].contains(write) else { return false }
        return state.pageProtection.allSatisfy { [0x00, 0x11].contains($0) }
    }

    @Test("protect --read-protect on a SLIX-S torn anywhere: passwords old or new, pages public or read+write protected")
    func protect() async throws {
        let initial = ICodeSLIX2(uid: Self.uid, variant: .slixS).tagState
        let states = try await Self.sweep(initial) { tag throws(NFCTagError) in
            try await tag.icodeProtect(passwords: Self.new, current: .factoryDefault, protection: ICodeProtection(readProtected: true))
        }
        for state in states { #expect(Self.recoverable(state, before: .factoryDefault, after: Self.new), "\(state)") }
        // Pages only get protected once both new passwords are in place.
        for state in states where state.pageProtection.contains(0x11) {
            #expect(state.passwords[0x01] == Self.new.read.value && state.passwords[0x02] == Self.new.write.value)
        }
        #expect(states.contains { $0.pageProtection.allSatisfy { $0 == 0x11 } })
    }

    @Test("unprotect on a protected SLIX-S torn anywhere: never a page guarded by a password the user does not hold")
    func unprotect() async throws {
        let chip = ICodeSLIX2(uid: Self.uid, variant: .slixS)
        var security = chip.security
        security.passwords[0x01] = Self.new.read.value
        security.passwords[0x02] = Self.new.write.value
        security.pageProtection = [UInt8](repeating: 0x11, count: security.pageProtection.count)
        chip.security = security
        let states = try await Self.sweep(chip.tagState) { tag throws(NFCTagError) in try await tag.icodeUnprotect(current: Self.new) }
        for state in states { #expect(Self.recoverable(state, before: Self.new, after: .factoryDefault), "\(state)") }
        // A page still protected is guarded by the passwords given, never by 00000000 alone half-way.
        for state in states where state.pageProtection.contains(0x11) {
            #expect(state.passwords[0x01] == Self.new.read.value && state.passwords[0x02] == Self.new.write.value)
        }
        #expect(states.contains { $0 == ICodeSecurityState(variant: .slixS) })
    }
}
