import NFCTags
import Testing
import VirtualTags

/// The ISO/IEC 15693-3 air states every virtual vicinity chip keeps (ICODE, ST25, Tag-it/NTAG 5/
/// ICODE DNA), driven frame by frame: inventory with a mask, STAY QUIET, SELECT and the select
/// flag, RESET TO READY.
@Suite("ISO 15693 air states of every virtual vicinity chip", .timeLimit(.minutes(1)))
struct ISO15693AirInterfaceTests {
    /// One chip of each class, each with its UID (most significant byte first).
    static func chips() -> [(name: String, tag: any VirtualTag, uid: [UInt8])] {
        let icode: [UInt8] = [0xE0, 0x04, 0x01, 0x08, 0x12, 0x34, 0x56, 0x78]
        let st: [UInt8] = [0xE0, 0x02, 0x24, 0x00, 0x12, 0x34, 0x56, 0x78]
        let tagIt: [UInt8] = [0xE0, 0x07, 0x80, 0x00, 0x12, 0x34, 0x56, 0x78]
        return [
            ("ICODE SLIX2", ICodeSLIX2(uid: icode), icode),
            ("ST25DV04K", ST25VirtualTag(.st25dv04k, uid: st), st),
            ("Tag-it HF-I Plus", Type5Chip(.tagItHFIPlus, uid: tagIt), tagIt),
        ]
    }

    /// Flags: high data rate; `| 0x20` addressed; `| 0x10` select; inventory `0x26`.
    static let plain: UInt8 = 0x02, addressed: UInt8 = 0x22, selectFlag: UInt8 = 0x12

    @Test("inventory answers with the UID on the air, and a mask that differs from the UID's low bits silences it")
    func inventoryMask() {
        for (name, tag, uid) in Self.chips() {
            let air = Array(uid.reversed())
            guard case .data(let answer) = tag.respond(to: [0x26, ISO15693Command.inventory, 0x00]) else {
                Issue.record("\(name): no inventory answer"); continue
            }
            #expect(Array(answer.suffix(8)) == air, "\(name)")
            #expect(tag.respond(to: [0x26, ISO15693Command.inventory, 0x08, air[0]]) != .silence, "\(name)")
            #expect(tag.respond(to: [0x26, ISO15693Command.inventory, 0x08, air[0] ^ 0x01]) == .silence, "\(name)")
        }
    }

    @Test("STAY QUIET silences inventory until RESET TO READY addressed to it")
    func stayQuiet() {
        for (name, tag, uid) in Self.chips() {
            let air = Array(uid.reversed())
            #expect(tag.respond(to: [Self.addressed, ISO15693Command.stayQuiet] + air) == .silence, "\(name)")
            #expect(tag.respond(to: [0x26, ISO15693Command.inventory, 0x00]) == .silence, "\(name)")
            #expect(tag.respond(to: [Self.addressed, ISO15693Command.resetToReady] + air) == .data([0x00]), "\(name)")
            #expect(tag.respond(to: [0x26, ISO15693Command.inventory, 0x00]) != .silence, "\(name)")
        }
    }

    @Test("a selected chip answers the select flag, and a SELECT of another UID returns it to ready, where the select flag is not for it")
    func selectOfAnotherUIDDeselects() {
        for (name, tag, uid) in Self.chips() {
            let air = Array(uid.reversed())
            var other = air
            other[0] ^= 0xFF
            #expect(tag.respond(to: [Self.addressed, ISO15693Command.select] + air) == .data([0x00]), "\(name)")
            #expect(tag.respond(to: [Self.selectFlag, ISO15693Command.readSingleBlock, 0x00]) != .silence, "\(name)")
            #expect(tag.respond(to: [Self.addressed, ISO15693Command.select] + other) == .silence, "\(name)")
            #expect(tag.respond(to: [Self.selectFlag, ISO15693Command.readSingleBlock, 0x00]) == .silence, "\(name): still selected")
            #expect(tag.respond(to: [Self.plain, ISO15693Command.readSingleBlock, 0x00]) != .silence, "\(name)")
        }
    }

    @Test("a custom command with another maker's code, or an address of another UID, is not answered")
    func foreignCustomAndAddress() {
        for (name, tag, uid) in Self.chips() {
            var other = Array(uid.reversed())
            other[7] ^= 0x01
            #expect(tag.respond(to: [Self.plain, 0xA0, uid[1] ^ 0x0F]) == .silence, "\(name)")
            #expect(tag.respond(to: [Self.addressed, ISO15693Command.readSingleBlock] + other + [0x00]) == .silence, "\(name)")
        }
    }
}
