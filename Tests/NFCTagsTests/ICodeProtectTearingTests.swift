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

    /// Runs `operation` from `initial` cut at every point; returns the states left behind.
    static func sweep(_ initial: TagState, _ operation: (ISO15693Tag) async throws(NFCTagError) -> Void) async throws -> [ICodeSecurityState] {
        try await TearingSweep.iso15693States(
            initial, identity: ChipIdentity(.icodeSLIXS, platform: .type5, family: .icode), minimumCommands: 11, operation
        ).map { try #require(ICodeSLIX2(state: $0)).security }
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

    @Test("protect --lock-protection on a SLIX-S torn anywhere, also right before and after each B7: a locked condition only ever on a page protected by both new passwords; run again with the new passwords, it completes")
    func protectLockingConditions() async throws {
        let initial = ICodeSLIX2(uid: Self.uid, variant: .slixS).tagState
        let protection = ICodeProtection(readProtected: true, firstProtectedBlock: 8, lockCondition: true)
        let states = try await TearingSweep.iso15693States(
            initial, identity: ChipIdentity(.icodeSLIXS, platform: .type5, family: .icode), minimumCommands: 20
        ) { tag throws(NFCTagError) in
            try await tag.icodeProtect(passwords: Self.new, current: .factoryDefault, protection: protection)
        }
        var sawPartlyLocked = false
        for tagState in states {
            let state = try #require(ICodeSLIX2(state: tagState)).security
            #expect(Self.recoverable(state, before: .factoryDefault, after: Self.new), "\(state)")
            for page in state.lockedConditions {
                #expect(state.pageProtection[page] == 0x11, "page \(page) locked while \(state.pageProtection[page])")
                #expect(state.passwords[0x01] == Self.new.read.value && state.passwords[0x02] == Self.new.write.value)
            }
            #expect(state.lockedConditions.isSubset(of: Set(2..<10)), "pages below the first protected one never locked")
            if !state.lockedConditions.isEmpty && state.lockedConditions != Set(2..<10) {
                sawPartlyLocked = true
                // A rerun with the passwords now on the chip leaves the locked pages alone and finishes.
                let (reader, target) = try await TearingSweep.open(tagState, modulations: [.iso15693])
                let tag = try TearingSweep.iso15693Tag(reader, target, identity: ChipIdentity(.icodeSLIXS, platform: .type5, family: .icode))
                try await tag.icodeProtect(passwords: Self.new, current: Self.new, protection: protection)
            }
        }
        #expect(sawPartlyLocked, "a cut between two B7 was swept")
        let securities = try states.map { try #require(ICodeSLIX2(state: $0)).security }
        #expect(securities.contains { $0.lockedConditions == Set(2..<10) })
    }

    @Test("protect --lock-protection on a SLIX2 torn anywhere: the condition is locked only with the pointer at 8 and the high page write-protected by the new password")
    func protectLockingConditionSLIX2() async throws {
        let uid: [UInt8] = [0xE0, 0x04, 0x01, 0x08, 0x53, 0x49, 0x4D, 0x0A]
        let initial = ICodeSLIX2(uid: uid, variant: .slix2).tagState
        let states = try await TearingSweep.iso15693States(
            initial, identity: ChipIdentity(.icodeSLIX2, platform: .type5, family: .icode), minimumCommands: 8
        ) { tag throws(NFCTagError) in
            try await tag.icodeProtect(passwords: Self.new, current: .factoryDefault, protection: ICodeProtection(firstProtectedBlock: 8, lockCondition: true))
        }
        for tagState in states {
            let state = try #require(ICodeSLIX2(state: tagState)).security
            #expect([ICodePassword.factoryDefault.value, Self.new.write.value].contains(state.passwords[0x02] ?? 0), "\(state)")
            if !state.lockedConditions.isEmpty {
                #expect(state.protectionPointer == 8 && state.extendedProtection == 0x20 && state.passwords[0x02] == Self.new.write.value, "\(state)")
            }
        }
        let securities = try states.map { try #require(ICodeSLIX2(state: $0)).security }
        #expect(securities.contains { !$0.lockedConditions.isEmpty })
        #expect(securities.contains { $0.lockedConditions.isEmpty && $0.extendedProtection == 0x20 }, "a cut right before B7")
    }
}
