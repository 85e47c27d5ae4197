import Foundation
import NFCCore
import NFCTags
import Testing
import VirtualTags

/// ST25TV02K area protection on the in-process simulator. Frames are checked against the layouts
/// the public sources give (ST25 SDK `ST25TVTag`, `ST25TVRegisterArea1SecurityAttribute`,
/// `TagHelper.xorBetweenPwdAndRandomNbr`; ST's st25tags `st25dv_pwm.c`): flags 22, code, 02, UID
/// LSB first; READ CONFIGURATION A0 with register 06/00/01; PRESENT PASSWORD B3 with the number
/// and 4 (one area: 8) bytes XOR R0 R1 R0 R1 …; WRITE PASSWORD B1 with 4 clear bytes (one area:
/// numbers 1 and 2 for the two halves); WRITE CONFIGURATION A1 with the register and the value
/// whose bits 1–0 are the protection (01 write, 10 read and write) and bit 2 MEM_ORG kept.
/// State is read from the tag file (a fresh ST25VirtualTag from it), not from NFCTags.
@Suite("ST25TV02K area protection", .timeLimit(.minutes(3)))
struct ST25TVProtectTests {
    static let uid = ST25Tests.uid(.st25tv02k)
    static let new = ST25TVAreaPassword(bytes: [0xC0, 0xFF, 0xEE, 0x42])!
    static let wide = ST25TVAreaPassword(bytes: [0x10, 0x32, 0x54, 0x76, 0x98, 0xBA, 0xDC, 0xFE])!

    /// The chip with one user area (A1SA 04), as the SDK's `setNumberOfAreas(1)` leaves it.
    static func singleArea() async throws -> ST25VirtualTag {
        let (reader, tag) = try await ST25Tests.open(ST25VirtualTag(.st25tv02k, uid: uid))
        try await tag.st25tvWriteConfiguration(ST25TVRegister.area1Security, ST25TVRegister.singleAreaBit, password: .factoryDefault)
        return try #require(await ST25Tests.chip(reader))
    }

    static func custom(_ reader: SimulatedReader) async -> [(command: [UInt8], answer: [UInt8]?)] {
        await reader.withField { $0.trace }.filter { $0.command.count > 2 && $0.command[2] == 0x02 }.map { ($0.command, ST25TVTests.answer($0)) }
    }

    @Test("protect area 1 with two areas: READ CONFIGURATION 06 00 01, PRESENT 3, PRESENT 1, WRITE PASSWORD 1, PRESENT 3, WRITE CONFIGURATION 00 01, WRITE PASSWORD 3, read back; then a write without password is refused, with PRESENT PASSWORD 1 it is taken")
    func protectTwoAreas() async throws {
        let (reader, tag) = try await ST25Tests.open(ST25VirtualTag(.st25tv02k, uid: Self.uid))
        try await tag.st25tvProtect(try ST25TVProtection(area: 1), password: Self.new, current: nil)
        let air = Array(Self.uid.reversed())
        let exchanges = await Self.custom(reader)
        let randoms = exchanges.filter { $0.command[1] == 0xB4 }.compactMap { $0.answer.map { Array($0.dropFirst()) } }
        try #require(randoms.count == 3)
        func covered(_ r: [UInt8], _ p: [UInt8]) -> [UInt8] { p.enumerated().map { $0.element ^ r[$0.offset % 2] } }
        let zero: [UInt8] = [0, 0, 0, 0]
        #expect(exchanges.map(\.command) == [
            [0x22, 0xA0, 0x02] + air + [0x06], [0x22, 0xA0, 0x02] + air + [0x00], [0x22, 0xA0, 0x02] + air + [0x01],
            [0x22, 0xB4, 0x02] + air, [0x22, 0xB3, 0x02] + air + [0x03] + covered(randoms[0], zero),
            [0x22, 0xB4, 0x02] + air, [0x22, 0xB3, 0x02] + air + [0x01] + covered(randoms[1], zero),
            [0x22, 0xB1, 0x02] + air + [0x01, 0xC0, 0xFF, 0xEE, 0x42],
            [0x22, 0xB4, 0x02] + air, [0x22, 0xB3, 0x02] + air + [0x03] + covered(randoms[2], zero),
            [0x22, 0xA1, 0x02] + air + [0x00, 0x01],
            [0x22, 0xB1, 0x02] + air + [0x03, 0xC0, 0xFF, 0xEE, 0x42],
            [0x22, 0xA0, 0x02] + air + [0x00],
        ])
        let chip = try #require(await ST25Tests.chip(reader))
        #expect(chip.areaRegisters[0] == 0x01 && Array(chip.passwords[1].prefix(4)) == Self.new.bytes && Array(chip.passwords[3].prefix(4)) == Self.new.bytes)
        #expect(Array(chip.passwords[2].prefix(4)) == zero)

        let (fresh, again) = try await ST25Tests.open(chip)
        #expect(try await again.readSingleBlock(0).count == 4, "area 1 stays readable")
        await #expect(throws: NFCTagError.self) { try await again.writeSingleBlock(1, data: Bytes([1, 2, 3, 4])) }
        try await again.writeSingleBlock(40, data: Bytes([1, 2, 3, 4]))
        try await again.st25tvPresentPassword(1, ST25TVPassword(bytes: Self.new.bytes)!)
        try await again.writeSingleBlock(1, data: Bytes([5, 6, 7, 8]))
        let written = try #require(await ST25Tests.chip(fresh))
        #expect(Array(written.memory[4..<8]) == [5, 6, 7, 8] && Array(written.memory[160..<164]) == [1, 2, 3, 4])
        #expect(try await again.st25tvConfigurationSummary().contains("area 1 (blocks 0–31): write needs password 1; area 2 (blocks 32 on): open"))
    }

    @Test("one area (MEM_ORG): protect --read-protect presents password 1 with 8 covered bytes, writes its halves as WRITE PASSWORD 1 and 2, sets A1SA 06 (MEM_ORG kept) and password 3 to the first half; reads need the password; unprotect opens it and sets the passwords back to zeros")
    func protectOneArea() async throws {
        let start = try await Self.singleArea()
        let (reader, tag) = try await ST25Tests.open(start)
        try await tag.st25tvProtect(try ST25TVProtection(area: 1, readProtected: true), password: Self.wide, current: nil)
        let air = Array(Self.uid.reversed())
        let exchanges = await Self.custom(reader)
        let presents = exchanges.filter { $0.command[1] == 0xB3 }.map { Array($0.command.dropFirst(11)) }
        #expect(presents.map(\.first) == [3, 1, 3])
        #expect(presents.map(\.count) == [5, 9, 5], "password 1 is presented with 8 bytes")
        #expect(exchanges.map(\.command).filter { $0[1] == 0xB1 } == [
            [0x22, 0xB1, 0x02] + air + [0x01, 0x10, 0x32, 0x54, 0x76], [0x22, 0xB1, 0x02] + air + [0x02, 0x98, 0xBA, 0xDC, 0xFE],
            [0x22, 0xB1, 0x02] + air + [0x03, 0x10, 0x32, 0x54, 0x76],
        ])
        #expect(exchanges.map(\.command).contains([0x22, 0xA1, 0x02] + air + [0x00, 0x06]))
        let chip = try #require(await ST25Tests.chip(reader))
        #expect(chip.areaRegisters[0] == 0x06)

        let (againReader, again) = try await ST25Tests.open(chip)
        await #expect(throws: NFCTagError.self) { try await again.readSingleBlock(50) }
        #expect(try await again.st25tvConfigurationSummary().contains("one area (64-bit password 1), read and write need password 1"))
        // Two areas' lengths are refused before anything is written.
        await #expect { try await again.st25tvUnprotect(area: 1, current: Self.new) } throws: { ($0 as? NFCTagError)?.code == .invalidParameter }
        await #expect { try await again.st25tvProtect(try ST25TVProtection(area: 2), password: Self.wide, current: nil) } throws: {
            ($0 as? NFCTagError)?.code == .invalidParameter
        }
        try await again.st25tvUnprotect(area: 1, current: Self.wide)
        let open = try #require(await ST25Tests.chip(againReader))
        #expect(open.areaRegisters[0] == ST25TVRegister.singleAreaBit)
        #expect(open.passwords.allSatisfy { $0 == [UInt8](repeating: 0, count: 8) })
    }

    @Test("a wrong current password is authenticationFailed and a locked configuration (LOCK_CFG) readOnly, each with the tag file unchanged")
    func refusals() async throws {
        let (reader, tag) = try await ST25Tests.open(ST25VirtualTag(.st25tv02k, uid: Self.uid))
        try await tag.st25tvProtect(try ST25TVProtection(area: 2, readProtected: true), password: Self.new, current: nil)
        let protected = try #require(await ST25Tests.chip(reader))
        #expect(protected.areaRegisters[1] == 0x02)
        let (wrongReader, wrongTag) = try await ST25Tests.open(try #require(ST25VirtualTag(state: protected.tagState)))
        let other = ST25TVAreaPassword(bytes: [9, 9, 9, 9])!
        await #expect { try await wrongTag.st25tvUnprotect(area: 2, current: other) } throws: { ($0 as? NFCTagError)?.code == .authenticationFailed }
        await #expect { try await wrongTag.st25tvProtect(try ST25TVProtection(area: 1), password: other, current: other) } throws: {
            ($0 as? NFCTagError)?.code == .authenticationFailed
        }
        #expect(try #require(await ST25Tests.chip(wrongReader)).tagFileImage == protected.tagFileImage)

        let (lockedReader, lockedTag) = try await ST25Tests.open(ST25VirtualTag(.st25tv02k, uid: Self.uid))
        try await lockedTag.st25tvWriteConfiguration(ST25TVRegister.lockConfiguration, 0x01, password: .factoryDefault)
        let locked = try #require(await ST25Tests.chip(lockedReader))
        await #expect { try await lockedTag.st25tvProtect(try ST25TVProtection(area: 1), password: Self.new, current: nil) } throws: {
            ($0 as? NFCTagError)?.code == .readOnly
        }
        #expect(try #require(await ST25Tests.chip(lockedReader)).tagFileImage == locked.tagFileImage)
        let writes = await Self.custom(lockedReader).filter { [0xB1, 0xA1, 0xB3].contains($0.command[1]) }
        #expect(writes.count == 2, "only the LOCK_CFG write's PRESENT and WRITE CONFIGURATION: \(writes.map(\.command))")
    }

    @Test("hostile registers: RFU bits set in both attributes and LOCK_CFG's upper bits are kept, never taken for a lock or a mode; area 2 of a one-area chip and a 4-byte password on it are refused with nothing written")
    func hostileRegisters() async throws {
        let chip = ST25VirtualTag(.st25tv02k, uid: Self.uid)
        var image = chip.tagFileImage
        let registers = 64 * 5 + 3
        image[registers] = 0xF8  // RFU bits, two areas, open
        image[registers + 1] = 0xFC  // RFU bits, area 2 open
        image[registers + 6] = 0xFE  // LOCK_CFG bit 0 clear
        chip.tagFileImage = image
        let (reader, tag) = try await ST25Tests.open(chip)
        try await tag.st25tvProtect(try ST25TVProtection(area: 2), password: Self.new, current: nil)
        let protected = try #require(await ST25Tests.chip(reader))
        #expect(protected.areaRegisters[0] == 0xF8 && protected.areaRegisters[1] == 0xFD && protected.areaRegisters[6] == 0xFE)
        #expect(try await tag.st25tvConfigurationSummary().contains("area 2 (blocks 32 on): write needs password 2"))

        let single = ST25VirtualTag(.st25tv02k, uid: Self.uid)
        var singleImage = single.tagFileImage
        singleImage[registers] = 0xFF  // one area, read needs password 1, never writable, RFU set
        single.tagFileImage = singleImage
        let (singleReader, singleTag) = try await ST25Tests.open(single)
        await #expect { try await singleTag.st25tvProtect(try ST25TVProtection(area: 2), password: Self.wide, current: nil) } throws: {
            ($0 as? NFCTagError)?.code == .invalidParameter
        }
        await #expect { try await singleTag.st25tvProtect(try ST25TVProtection(area: 1), password: Self.new, current: nil) } throws: {
            ($0 as? NFCTagError)?.code == .invalidParameter
        }
        await #expect(throws: NFCTagError.self) { try await singleTag.writeSingleBlock(3, data: Bytes([1, 1, 1, 1])) }
        #expect(try #require(await ST25Tests.chip(singleReader)).tagFileImage == singleImage)
        #expect(try await singleTag.st25tvConfigurationSummary().contains("one area (64-bit password 1), read needs password 1, never writable"))
    }

    @Test("traces redact all 8 bytes of a one-area PRESENT PASSWORD 1")
    func sixtyFourBitRedaction() {
        var redactor = ReaderTraceRedactor()
        _ = redactor.redact(.poll([.iso15693]), .found(.iso15693(ISO15693Target(uid: Bytes(Self.uid)))))
        let frame = [0x22, 0xB3, 0x02] + Array(Self.uid.reversed()) + [0x01, 1, 2, 3, 4, 5, 6, 7, 8]
        let (sent, _) = redactor.redact(.transceive(TraceBytes(frame), .standard), .answer(TraceBytes([0x00])))
        #expect(sent == .transceive(TraceBytes(values: frame.prefix(12).map { Optional($0) } + [UInt8?](repeating: nil, count: 8)), .standard))
    }

    @Test("the area attribute decodes every byte: bits 1–0 the protection, bit 2 one or two areas")
    func attributeDecoding() {
        #expect(ST25TVAreaSecurity(0x05).protection == 1 && ST25TVAreaSecurity(0x06).protectsReads && ST25TVAreaSecurity(0x07).refusesWrites)
        #expect(!ST25TVAreaSecurity(0x04).protectsWrites)
        #expect(ST25TVRegister.summary(area1: 0x04, area2: 0x03, lockConfiguration: 0)
            == "area 1 attribute 04: one area (64-bit password 1), open; configuration writable with password 3")
        #expect(ST25TVRegister.summary(area1: 0x03, area2: 0x01, lockConfiguration: 1)
            == "area 1 attribute 03: two areas; area 1 (blocks 0–31): read needs password 1, never writable; area 2 (blocks 32 on): write needs password 2; configuration locked for good")
        // An ST25TV512 (16 blocks): where area 2 begins is not public, so no block range is named.
        #expect(ST25TVRegister.summary(area1: 0x01, area2: 0x00, lockConfiguration: 0, blockCount: 16)
            == "area 1 attribute 01: two areas; area 1: write needs password 1; area 2 (where it begins on this chip is not public): open; configuration writable with password 3")
        #expect(ST25TVRegister.firstBlock(ofArea: 2, blockCount: 16) == nil && ST25TVRegister.firstBlock(ofArea: 2, blockCount: 64) == 32)
        #expect(ST25TVAreaPassword(bytes: [1, 2, 3]) == nil && (try? ST25TVAreaPassword(hex: "0011 2233")) == ST25TVAreaPassword(bytes: [0, 0x11, 0x22, 0x33]))
        #expect(Self.wide.configuration.bytes == [0x10, 0x32, 0x54, 0x76])
    }
}

extension ST25ProtectTearingTests {
    static let tvNew = ST25TVAreaPassword(bytes: [0xAB, 0xCD, 0xEF, 0x01])!
    static let tvWide = ST25TVAreaPassword(bytes: [0x01, 0x12, 0x23, 0x34, 0x45, 0x56, 0x67, 0x78])!

    /// Area 1's password as the chip holds it: 4 bytes, or with one area passwords 1 and 2 together.
    static func tvArea1Password(_ chip: ST25VirtualTag) -> [UInt8] {
        let first = Array(chip.passwords[1].prefix(4))
        return chip.areaRegisters[0] & ST25TVRegister.singleAreaBit != 0 ? first + Array(chip.passwords[2].prefix(4)) : first
    }

    /// Reruns `operation` on every chip and returns the chips it leaves.
    static func tvRerun(_ chips: [ST25VirtualTag], _ operation: (ISO15693Tag) async throws(NFCTagError) -> Void) async throws -> [ST25VirtualTag] {
        var done: [ST25VirtualTag] = []
        for chip in chips {
            let (reader, target) = try await TearingSweep.open(chip.tagState, modulations: [.iso15693])
            try await operation(try tvTag(reader, target))
            let state = try #require(await TearingSweep.state(reader))
            done.append(try #require(ST25VirtualTag(state: state)))
        }
        return done
    }

    static func singleAreaState() async throws -> TagState {
        let (reader, target) = try await TearingSweep.open(
            ST25VirtualTag(.st25tv02k, uid: [0xE0, 0x02, 0x23, 0x10, 0x53, 0x49, 0x4D, 0x0C]).tagState, modulations: [.iso15693])
        try await tvTag(reader, target).st25tvWriteConfiguration(ST25TVRegister.area1Security, ST25TVRegister.singleAreaBit, password: .factoryDefault)
        return try #require(await TearingSweep.state(reader))
    }

    @Test("ST25TV02K protect (two areas, 32-bit) torn after and inside every command: passwords 1 and 3 old or new, area 1 protected only behind the new one; a rerun finishes")
    func tvProtectTwoAreas() async throws {
        let fresh = ST25VirtualTag(.st25tv02k, uid: [0xE0, 0x02, 0x23, 0x10, 0x53, 0x49, 0x4D, 0x0D]).tagState
        let protect = { (tag: ISO15693Tag) async throws(NFCTagError) in
            try await tag.st25tvProtect(try ST25TVProtection(area: 1), password: Self.tvNew, current: nil)
        }
        let chips = try await Self.tvSweep(fresh, protect)
        let zero: [UInt8] = [0, 0, 0, 0]
        for chip in chips {
            let p1 = Self.tvArea1Password(chip), p3 = Array(chip.passwords[3].prefix(4))
            #expect([zero, Self.tvNew.bytes].contains(p1) && [zero, Self.tvNew.bytes].contains(p3), "\(chip.passwords)")
            #expect([0x00, 0x01].contains(chip.areaRegisters[0]))
            if chip.areaRegisters[0] != 0 { #expect(p1 == Self.tvNew.bytes, "protected only behind the new password") }
        }
        #expect(chips.contains { $0.areaRegisters[0] == 0 } && chips.contains { $0.areaRegisters[0] == 1 })
        for done in try await Self.tvRerun(chips, protect) {
            #expect(done.areaRegisters[0] == 0x01 && Self.tvArea1Password(done) == Self.tvNew.bytes && Array(done.passwords[3].prefix(4)) == Self.tvNew.bytes)
        }
    }

    @Test("ST25TV02K protect and unprotect with one area (64-bit password in two halves) torn anywhere: the password old, new or the half-changed one a rerun also tries; the area protected only behind a password the user holds; reruns finish")
    func tvOneArea() async throws {
        let start = try await Self.singleAreaState()
        let zero8 = [UInt8](repeating: 0, count: 8)
        let halfway = try #require(Self.tvWide.firstHalf(over: .factoryDefault(sixtyFourBit: true))).bytes
        let protect = { (tag: ISO15693Tag) async throws(NFCTagError) in
            try await tag.st25tvProtect(try ST25TVProtection(area: 1, readProtected: true), password: Self.tvWide, current: nil)
        }
        let chips = try await Self.tvSweep(start, protect)
        for chip in chips {
            let p1 = Self.tvArea1Password(chip)
            #expect([zero8, Self.tvWide.bytes, halfway].contains(p1), "\(chip.passwords)")
            #expect(chip.areaRegisters[0] & ST25TVRegister.singleAreaBit != 0, "MEM_ORG kept")
            if chip.areaRegisters[0] & 0x03 != 0 { #expect(p1 == Self.tvWide.bytes) }
        }
        #expect(chips.contains { Self.tvArea1Password($0) == halfway }, "a cut between the two halves is swept")
        let protected = try await Self.tvRerun(chips, protect)
        for done in protected { #expect(done.areaRegisters[0] == 0x06 && Self.tvArea1Password(done) == Self.tvWide.bytes) }

        let unprotect = { (tag: ISO15693Tag) async throws(NFCTagError) in _ = try await tag.st25tvUnprotect(area: 1, current: Self.tvWide) }
        let back = try #require(ST25TVAreaPassword.factoryDefault(sixtyFourBit: true).firstHalf(over: Self.tvWide)).bytes
        let opened = try await Self.tvSweep(try #require(protected.first).tagState, unprotect)
        for chip in opened {
            let p1 = Self.tvArea1Password(chip)
            #expect([zero8, Self.tvWide.bytes, back].contains(p1), "\(chip.passwords)")
            if chip.areaRegisters[0] & 0x03 != 0 {
                #expect(p1 == Self.tvWide.bytes && Array(chip.passwords[3].prefix(4)) == Array(Self.tvWide.bytes.prefix(4)))
            }
        }
        for done in try await Self.tvRerun(opened, unprotect) {
            #expect(done.areaRegisters[0] == ST25TVRegister.singleAreaBit && done.passwords.allSatisfy { $0 == zero8 })
        }
    }

    @Test("ST25TV02K unprotect (two areas) torn anywhere: area 1 protected only while passwords 1 and 3 are the current ones; a rerun opens it with every password back to zeros")
    func tvUnprotectTwoAreas() async throws {
        let (reader, target) = try await TearingSweep.open(
            ST25VirtualTag(.st25tv02k, uid: [0xE0, 0x02, 0x23, 0x10, 0x53, 0x49, 0x4D, 0x0E]).tagState, modulations: [.iso15693])
        try await Self.tvTag(reader, target).st25tvProtect(try ST25TVProtection(area: 1), password: Self.tvNew, current: nil)
        let protected = try #require(await TearingSweep.state(reader))
        let unprotect = { (tag: ISO15693Tag) async throws(NFCTagError) in _ = try await tag.st25tvUnprotect(area: 1, current: Self.tvNew) }
        let chips = try await Self.tvSweep(protected, unprotect)
        for chip in chips where chip.areaRegisters[0] != 0 {
            #expect(Self.tvArea1Password(chip) == Self.tvNew.bytes && Array(chip.passwords[3].prefix(4)) == Self.tvNew.bytes, "\(chip.passwords)")
        }
        #expect(chips.contains { $0.areaRegisters[0] == 0 && $0.passwords.allSatisfy { $0 == [UInt8](repeating: 0, count: 8) } })
        for done in try await Self.tvRerun(chips, unprotect) {
            #expect(done.areaRegisters[0] == 0 && done.passwords.allSatisfy { $0 == [UInt8](repeating: 0, count: 8) })
        }
    }
}
