import NFCTags
import NFCTestSupport
import Testing
import VirtualTags

/// Seeded random frames into every ISO 15693 virtual chip but the SLIX2 (which has its own in
/// ``SLIX2Tests``): the ST25TV/ST25DV models, ``Type5Chip`` (Tag-it, NTAG 5, ICODE DNA) and the
/// ICODE SLIX family, with the standard commands, the extended ones and the whole custom range
/// `A0`–`BF` under ST's (`02`) and NXP's (`04`) manufacturer codes, addressed and not. Whatever
/// comes in, a chip never traps and every answer is a well-formed ISO/IEC 15693-3 response:
/// a flags byte with only the error (bit 1) and extension (bit 4) flags possible, and after an
/// error flag exactly one error code byte.
@Suite("Random frames into the ISO 15693 virtual chips", .timeLimit(.minutes(2)))
struct Type5RandomFramesTests {
    /// Commands the frames carry: Part 3's mandatory and optional ones, the extended ones and
    /// every custom command.
    static let commands: [UInt8] = [0x01, 0x02, 0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2A, 0x2B, 0x2C, 0x30, 0x31, 0x32, 0x33, 0x3B, 0x3C]
        + Array(0xA0...0xBF)

    /// Why an answer is not a well-formed ISO 15693 response, or nil when it is one.
    static func malformation(_ answer: TagAnswer) -> String? {
        switch answer {
        case .silence: return nil
        case .ack, .nak: return "an ISO 14443 ACK/NAK"
        case .data(let bytes):
            guard let flags = bytes.first else { return "an empty answer" }
            if flags & ~UInt8(0x09) != 0 { return "flags \(flags) set RFU bits" }
            if flags & 0x01 != 0 && bytes.count != 2 { return "an error answer of \(bytes.count) bytes" }
            return nil
        }
    }

    /// Sends `count` seeded random frames to `chip` (whose UID is `uid`, most significant byte
    /// first) and returns the first malformed answer with its frame, if any.
    static func hammer(_ chip: some VirtualTag, uid: [UInt8], seed: UInt64, count: Int = 4000) -> String? {
        var generator = SeededGenerator(seed: seed)
        let uidOnAir = Array(uid.reversed())
        func byte() -> UInt8 { UInt8(truncatingIfNeeded: generator.next()) }
        for _ in 0..<count {
            let command = commands[Int(generator.next() % UInt64(commands.count))]
            // Flags: data rate and option at random; addressed (bit 6) in half the frames,
            // sometimes select (bit 5) or inventory (bit 3) or anything at all.
            var flags = byte() & 0x42
            if generator.next() % 2 == 0 { flags |= 0x20 }
            switch generator.next() % 8 {
            case 0: flags = byte()
            case 1: flags |= 0x10
            default: break
            }
            var frame: [UInt8] = [flags, command]
            if command >= 0xA0 { frame.append(generator.next() % 2 == 0 ? 0x02 : 0x04) }
            if flags & 0x20 != 0 && generator.next() % 4 != 0 { frame += uidOnAir }
            frame += (0..<Int(generator.next() % 14)).map { _ in byte() }
            if generator.next() % 16 == 0 { frame = Array(frame.prefix(Int(generator.next() % 4))) }
            let answer = chip.respond(to: frame)
            if let problem = malformation(answer) { return "\(problem) for \(frame.map { String($0, radix: 16) }): \(answer)" }
            if generator.next() % 64 == 0 { chip.powerOn() }
        }
        return nil
    }

    @Test("ST25TV02K, ST25DV04K and ST25DV64K: a few thousand random frames, custom range under 02 and 04, addressed and not: no trap, every answer well-formed", arguments: ST25VirtualTag.Variant.allCases)
    func st25(variant: ST25VirtualTag.Variant) {
        let uid: [UInt8] = [0xE0, 0x02, variant.icReference, 0x10, 0x53, 0x49, 0x4D, 0x01]
        let chip = ST25VirtualTag(variant, uid: uid)
        #expect(Self.hammer(chip, uid: uid, seed: 0x5725_0000 + UInt64(variant.icReference)) == nil)
        #expect(chip.memory.count == variant.blockCount * ST25VirtualTag.blockSize)
    }

    @Test("Type5Chip (Tag-it HF-I Plus, Standard, NTAG 5 switch and link, ICODE DNA): random frames: no trap, every answer well-formed", arguments: Type5ChipProfile.all)
    func type5Chip(profile: Type5ChipProfile) {
        let chip = Type5Chip(profile, uid: profile.defaultUID)
        #expect(Self.hammer(chip, uid: profile.defaultUID, seed: 0x7_5C41 &+ UInt64(profile.blockCount)) == nil, "\(profile.modelKey)")
        #expect(chip.memory.count == profile.blockCount * profile.blockSize)
    }

    @Test("ICODE SLIX, SLIX-S, SLIX-L and SLIX2: random frames with the custom range A0–BF: no trap, every answer well-formed", arguments: [ICodeVariant.slix, .slixS, .slixL, .slix2])
    func icode(variant: ICodeVariant) {
        let uid: [UInt8] = [0xE0, 0x04, 0x01, 0x08, 0x12, 0x34, 0x56, 0x78]
        let chip = ICodeSLIX2(uid: uid, variant: variant)
        #expect(Self.hammer(chip, uid: uid, seed: 0x1C0D_E000 &+ UInt64(chip.memory.count)) == nil, "\(variant)")
    }
}
