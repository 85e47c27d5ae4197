import NFCCore
import NFCTags
import Testing
import VirtualTags

/// ST25DV areas 2–4 through ``ISO15693Tag/st25Protect(_:password:current:)`` and
/// ``ISO15693Tag/st25Unprotect(area:current:)`` on the in-process simulator: frames checked
/// against DS10925's layouts written out here (flags 22, code, 02, UID LSB first, parameters:
/// a register pointer and its value for READ/WRITE CONFIGURATION, a password number and 8 bytes
/// for PRESENT/WRITE PASSWORD; RFAxSS at 04/06/08/0A, ENDA1–3 at 05/07/09, password number in
/// bits 1–0 and protection in bits 3–2), state read from the virtual chip's tag file.
@Suite("ST25DV areas 2–4", .timeLimit(.minutes(3)))
struct ST25AreaTests {
    static let zero = [UInt8](repeating: 0, count: 8)
    static let bytes: [UInt8] = [0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88]

    @Test("protect area 2 from block 64, read-protected, password 2: PRESENT 0 and 2, ENDA2 read, RFA2SS 0A, then ENDA1 07, WRITE PASSWORD 2 and 0, both read back; reads of area 2 refused after")
    func protectAreaTwoFrames() async throws {
        let uid = ST25Tests.uid(.st25dv04k)
        let (reader, tag) = try await ST25Tests.open(ST25VirtualTag(.st25dv04k, uid: uid))
        let new = try #require(ST25Password(bytes: Self.bytes))
        let protection = try ST25AreaProtection(area: 2, readProtected: true, firstBlock: 64)
        try await tag.st25Protect(protection, password: new, current: .factoryDefault)
        let air = Array(uid.reversed())
        let sent = await reader.withField { $0.trace }.map(\.command).filter { $0.count > 2 && $0[2] == 0x02 }
        #expect(sent == [
            [0x22, 0xB3, 0x02] + air + [0x00] + Self.zero,
            [0x22, 0xB3, 0x02] + air + [0x02] + Self.zero,
            [0x22, 0xA0, 0x02] + air + [0x07],
            [0x22, 0xA1, 0x02] + air + [0x06, 0x0A],
            [0x22, 0xA1, 0x02] + air + [0x05, 0x07],
            [0x22, 0xB1, 0x02] + air + [0x02] + Self.bytes,
            [0x22, 0xB1, 0x02] + air + [0x00] + Self.bytes,
            [0x22, 0xA0, 0x02] + air + [0x06],
            [0x22, 0xA0, 0x02] + air + [0x05],
        ])
        let chip = try #require(await ST25Tests.chip(reader))
        #expect(chip.areaRegisters == [0x00, 0x07, 0x0A, 0x0F, 0x00, 0x0F, 0x00])
        #expect(chip.passwords == [Self.bytes, Self.zero, Self.bytes, Self.zero])

        let (_, fresh) = try await ST25Tests.open(try #require(ST25VirtualTag(state: chip.tagState)))
        await #expect { _ = try await fresh.readSingleBlock(64) } throws: { ISO15693Error.code(in: $0 as! NFCTagError) == 0x15 }
        #expect(try await fresh.readSingleBlock(63).count == 4)
        #expect(try await fresh.st25AreaSummary(blockCount: 128) == "area 1 (blocks 0–63): open; area 2 (blocks 64–127): read and write need password 2")
    }

    @Test("three areas with one password: area 3 from block 96 behind password 3; unprotect area 2 keeps password 0 (area 3 still protected); unprotect area 3 sets every password back to zeros; bounds stay")
    func threeAreas() async throws {
        let (reader, tag) = try await ST25Tests.open(ST25VirtualTag(.st25dv04k, uid: ST25Tests.uid(.st25dv04k)))
        let new = try #require(ST25Password(bytes: Self.bytes))
        try await tag.st25Protect(try ST25AreaProtection(area: 2, firstBlock: 64), password: new, current: .factoryDefault)
        try await tag.st25Protect(try ST25AreaProtection(area: 3, readProtected: true, firstBlock: 96), password: new, current: new)
        var chip = try #require(await ST25Tests.chip(reader))
        #expect(chip.areaRegisters == [0x00, 0x07, 0x06, 0x0B, 0x0B, 0x0F, 0x00])
        #expect(chip.passwords == [Self.bytes, Self.zero, Self.bytes, Self.bytes])
        #expect(try await tag.st25AreaSummary(blockCount: 128)
            == "area 1 (blocks 0–63): open; area 2 (blocks 64–95): write needs password 2; area 3 (blocks 96–127): read and write need password 3")

        try await tag.st25Unprotect(area: 2, current: new)
        chip = try #require(await ST25Tests.chip(reader))
        #expect(chip.areaRegisters == [0x00, 0x07, 0x00, 0x0B, 0x0B, 0x0F, 0x00])
        #expect(chip.passwords == [Self.bytes, Self.zero, Self.zero, Self.bytes])
        try await tag.st25Unprotect(area: 3, current: new)
        chip = try #require(await ST25Tests.chip(reader))
        #expect(chip.areaRegisters == [0x00, 0x07, 0x00, 0x0B, 0x00, 0x0F, 0x00])
        #expect(chip.passwords.allSatisfy { $0 == Self.zero })
    }

    @Test("bounds that do not fit are refused before anything is written: area 3 on a chip whose area 2 is empty, a block past the next area's end, block 0 or 12 (not a multiple of 8)")
    func badBounds() async throws {
        let (reader, tag) = try await ST25Tests.open(ST25VirtualTag(.st25dv04k, uid: ST25Tests.uid(.st25dv04k)))
        let new = try #require(ST25Password(bytes: Self.bytes))
        let before = try #require(await ST25Tests.chip(reader)).tagState
        await #expect { try await tag.st25Protect(try ST25AreaProtection(area: 3, firstBlock: 32), password: new, current: .factoryDefault) }
            throws: { ($0 as? NFCTagError)?.code == .invalidParameter }
        await #expect { try await tag.st25Protect(try ST25AreaProtection(area: 2, firstBlock: 128), password: new, current: .factoryDefault) }
            throws: { ($0 as? NFCTagError)?.code == .invalidParameter }
        #expect(try #require(await ST25Tests.chip(reader)).tagState == before)
        #expect(throws: NFCTagError.self) { try ST25AreaProtection(area: 2, firstBlock: 12) }
        #expect(throws: NFCTagError.self) { try ST25AreaProtection(area: 2, firstBlock: 0) }
        #expect(throws: NFCTagError.self) { try ST25AreaProtection(area: 1, readProtected: true) }
        #expect(throws: NFCTagError.self) { try ST25AreaProtection(area: 5) }
        #expect(throws: NFCTagError.self) { try ST25AreaProtection(area: 4, passwordNumber: 0) }
        #expect(try ST25AreaProtection(area: 4).passwordNumber == 3)
    }

    @Test("hostile registers: ENDAx past the memory or at 00 and RFAxSS with high bits set are summarised without a crash, area 1 first")
    func hostileRegisters() async throws {
        for value in [UInt8(0x00), 0x0F, 0x10, 0x7F, 0xFF] {
            let chip = ST25VirtualTag(.st25dv04k, uid: ST25Tests.uid(.st25dv04k))
            var image = chip.tagFileImage
            let registers = 128 * 5 + 3
            for index in 0..<7 { image[registers + index] = index % 2 == 0 ? value ^ 0xF0 : value }
            chip.tagFileImage = image
            let (_, tag) = try await ST25Tests.open(chip)
            let summary = try await tag.st25AreaSummary(blockCount: 128)
            #expect(summary.hasPrefix("area 1 (blocks 0–"), "\(value): \(summary)")
        }
    }
}

extension ST25ProtectTearingTests {
    @Test("protect area 2 from block 64 torn anywhere: blocks enter area 2 only once it is protected; passwords 0 and 2 old or new, password 1 untouched; a rerun finishes")
    func protectAreaTwo() async throws {
        let protection = try ST25AreaProtection(area: 2, readProtected: true, firstBlock: 64)
        let chips = try await Self.sweep(ST25VirtualTag(.st25dv04k, uid: Self.uid).tagState) { tag throws(NFCTagError) in
            try await tag.st25Protect(protection, password: Self.new, current: .factoryDefault)
        }
        let held = [Self.zero, Self.new.bytes]
        for chip in chips {
            let registers = chip.areaRegisters, passwords = chip.passwords
            #expect(held.contains(passwords[0]) && held.contains(passwords[2]) && passwords[1] == Self.zero, "\(passwords)")
            #expect([0x00, 0x0A].contains(registers[2]) && [0x0F, 0x07].contains(registers[1]), "\(registers)")
            #expect(registers[1] == 0x0F || registers[2] == 0x0A, "blocks 64–127 in an open area 2: \(registers)")
        }
        #expect(chips.contains { $0.areaRegisters[1] == 0x07 && $0.areaRegisters[2] == 0x0A && $0.passwords[2] == Self.new.bytes })
        for chip in chips {
            let (reader, target) = try await TearingSweep.open(chip.tagState, modulations: [.iso15693])
            try await Self.tag(reader, target).st25Protect(protection, password: Self.new, current: .factoryDefault)
            let doneState = try #require(await TearingSweep.state(reader))
            let done = try #require(ST25VirtualTag(state: doneState))
            #expect(done.areaRegisters[1] == 0x07 && done.areaRegisters[2] == 0x0A && done.passwords[0] == Self.new.bytes && done.passwords[2] == Self.new.bytes)
        }
    }

    @Test("unprotect area 2 torn anywhere: area 2 protected only while password 2 is the one the user holds; bounds never move")
    func unprotectAreaTwo() async throws {
        let (reader, target) = try await TearingSweep.open(ST25VirtualTag(.st25dv04k, uid: Self.uid).tagState, modulations: [.iso15693])
        try await Self.tag(reader, target).st25Protect(try ST25AreaProtection(area: 2, readProtected: true, firstBlock: 64), password: Self.new, current: .factoryDefault)
        let protected = try #require(await TearingSweep.state(reader))
        let chips = try await Self.sweep(protected) { tag throws(NFCTagError) in try await tag.st25Unprotect(area: 2, current: Self.new) }
        for chip in chips {
            #expect(chip.areaRegisters[1] == 0x07 && [0x00, 0x0A].contains(chip.areaRegisters[2]), "\(chip.areaRegisters)")
            if chip.areaRegisters[2] != 0 { #expect(chip.passwords[2] == Self.new.bytes && chip.passwords[0] == Self.new.bytes) }
            #expect(chip.passwords.allSatisfy { [Self.zero, Self.new.bytes].contains($0) })
        }
        #expect(chips.contains { $0.areaRegisters[2] == 0 && $0.passwords.allSatisfy { $0 == Self.zero } })
    }
}
