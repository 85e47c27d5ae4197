import NFCTestSupport
import NFCTags
import Testing
import VirtualTags

/// MIFARE Classic 1K against the MF1S50yyX/V1 datasheet, section 8.7 and 10.
@Suite("MIFARE Classic 1K", .timeLimit(.minutes(5)))
struct ClassicTests {
    static let uid: [UInt8] = [0xDE, 0xAD, 0xBE, 0xEF]
    static let keyA: [UInt8] = [0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5]
    static let keyB: [UInt8] = [0xB0, 0xB1, 0xB2, 0xB3, 0xB4, 0xB5]
    static let transport = MifareClassic1K.transportKey

    /// A card whose sector 1 has keys A/B and the given conditions (data blocks 4–6, trailer 7).
    static func card(sector1 conditions: [UInt8]) -> MifareClassic1K {
        let card = MifareClassic1K(uid: uid)
        var memory = card.memory
        let trailer = keyA + ClassicAccessBits(conditions: conditions).bytes + [0x69] + keyB
        memory.replaceSubrange(7 * 16..<8 * 16, with: trailer)
        card.memory = memory
        return card
    }

    static func writeBlock(_ card: MifareClassic1K, _ block: UInt8, _ data: [UInt8]) -> [TagAnswer] {
        [card.respond(to: [ClassicCommand.write, block]), card.respond(to: data)]
    }

    @Test("A fresh card has the manufacturer block, transport trailers and ATQA 04 00 / SAK 08")
    func freshCard() {
        let card = MifareClassic1K(uid: Self.uid)
        let bcc = Self.uid.reduce(0, ^)
        #expect(Array(card.memory[0..<8]) == Self.uid + [bcc, 0x08, 0x04, 0x00])
        for sector in 0..<16 {
            let start = (sector * 4 + 3) * 16
            #expect(Array(card.memory[start..<start + 16]) == Self.transport + [0xFF, 0x07, 0x80, 0x69] + Self.transport)
        }
        guard case .iso14443A(let target) = card.targetInfo else {
            Issue.record("not ISO 14443-A")
            return
        }
        #expect(target.atqa.array == [0x04, 0x00])
        #expect(target.sak == 0x08)
        #expect(target.uid.array == Self.uid)
    }

    @Test("Access bits FF 07 80 decode to the transport configuration and encode back")
    func accessBitsRoundTrip() {
        let bits = ClassicAccessBits(bytes: [0xFF, 0x07, 0x80])
        #expect(bits == ClassicAccessBits.transport)
        #expect(ClassicAccessBits.transport.bytes == [0xFF, 0x07, 0x80])
        for value in 0..<8 {
            let c = UInt8(value)
            let encoded = ClassicAccessBits(conditions: [c, 7 - c, c, (c + 1) % 8])
            #expect(ClassicAccessBits(bytes: encoded.bytes) == encoded)
        }
    }

    @Test("Authentication with the right key A or B succeeds", arguments: [ClassicKeyType.a, .b])
    func authenticationRightKey(keyType: ClassicKeyType) {
        let card = Self.card(sector1: [0, 0, 0, 3])
        #expect(card.authenticate(block: 5, keyType: keyType, key: keyType == .a ? Self.keyA : Self.keyB))
    }

    @Test("Authentication with a wrong key, a short key or the other sector's key fails",
          arguments: [ClassicKeyType.a, .b])
    func authenticationWrongKey(keyType: ClassicKeyType) {
        let card = Self.card(sector1: [0, 0, 0, 3])
        #expect(!card.authenticate(block: 5, keyType: keyType, key: keyType == .a ? Self.keyB : Self.keyA))
        // A refused key leaves the card idle: it answers nothing, not even the right key, until
        // it is selected again (MF1S50 8.5).
        #expect(card.respond(to: [ClassicCommand.read, 4]) == .silence)
        #expect(!card.authenticate(block: 5, keyType: keyType, key: keyType == .a ? Self.keyA : Self.keyB))
        card.powerOn()
        #expect(!card.authenticate(block: 5, keyType: keyType, key: [0xA0]))
        card.powerOn()
        #expect(!card.authenticate(block: 5, keyType: keyType, key: Self.transport))
        card.powerOn()
        #expect(!card.authenticate(block: 64, keyType: keyType, key: Self.transport))
        card.powerOn()
        // Failed authentication leaves nothing authenticated.
        #expect(card.respond(to: [ClassicCommand.read, 4]) == .nak(ClassicNAK.invalidOperation))
    }

    @Test("Transport configuration: key A reads and writes data blocks")
    func transportKeyAReadWrite() {
        let card = MifareClassic1K(uid: Self.uid)
        #expect(card.authenticate(block: 4, keyType: .a, key: Self.transport))
        let data = [UInt8](0..<16)
        #expect(Self.writeBlock(card, 4, data) == [.ack, .ack])
        #expect(card.respond(to: [ClassicCommand.read, 4]) == .data(data))
        // The PN532 single-frame form of WRITE.
        #expect(card.respond(to: [ClassicCommand.write, 5] + data.reversed()) == .ack)
        #expect(card.respond(to: [ClassicCommand.read, 5]) == .data(data.reversed()))
    }

    @Test("Transport configuration: key B is readable, so it authenticates but grants nothing")
    func transportKeyBUnusable() {
        let card = MifareClassic1K(uid: Self.uid)
        #expect(card.authenticate(block: 4, keyType: .b, key: Self.transport))
        #expect(card.respond(to: [ClassicCommand.read, 4]) == .nak(ClassicNAK.invalidOperation))
    }

    @Test("Trailer read hides key A; key B shows only where readable")
    func trailerReadHidesKeyA() {
        let transport = MifareClassic1K(uid: Self.uid)
        #expect(transport.authenticate(block: 7, keyType: .a, key: Self.transport))
        #expect(transport.respond(to: [ClassicCommand.read, 7])
            == .data([0, 0, 0, 0, 0, 0, 0xFF, 0x07, 0x80, 0x69] + Self.transport))

        let card = Self.card(sector1: [0, 0, 0, 3])  // trailer 011: key B not readable
        let bits = ClassicAccessBits(conditions: [0, 0, 0, 3]).bytes
        #expect(card.authenticate(block: 7, keyType: .b, key: Self.keyB))
        #expect(card.respond(to: [ClassicCommand.read, 7])
            == .data([0, 0, 0, 0, 0, 0] + bits + [0x69, 0, 0, 0, 0, 0, 0]))
    }

    /// Table 8 of MF1S50yyX/V1, read and write columns: (condition, read A, read B, write A, write B).
    static let dataBlockTable: [(UInt8, Bool, Bool, Bool, Bool)] = [
        (0, true, true, true, true), (1, true, true, false, false), (2, true, true, false, false),
        (3, false, true, false, true), (4, true, true, false, true), (5, false, true, false, false),
        (6, true, true, false, true), (7, false, false, false, false),
    ]

    @Test("Every data block condition of Table 8 grants READ and WRITE to the right keys", arguments: dataBlockTable)
    func dataBlockConditions(row: (UInt8, Bool, Bool, Bool, Bool)) {
        let (condition, readA, readB, writeA, writeB) = row
        for (keyType, key, canRead, canWrite) in [(ClassicKeyType.a, Self.keyA, readA, writeA), (.b, Self.keyB, readB, writeB)] {
            let card = Self.card(sector1: [condition, 0, 0, 3])  // trailer 011: key B not readable
            #expect(card.authenticate(block: 4, keyType: keyType, key: key))
            let read = card.respond(to: [ClassicCommand.read, 4])
            #expect((read == .data([UInt8](repeating: 0, count: 16))) == canRead, "condition \(condition) key \(keyType) read")
            #expect(card.authenticate(block: 4, keyType: keyType, key: key))
            let write = card.respond(to: [ClassicCommand.write, 4] + [UInt8](repeating: 0x33, count: 16))
            #expect((write == .ack) == canWrite, "condition \(condition) key \(keyType) write")
        }
    }

    @Test("Trailer rows 000, 010 and 001 make key B readable: key B then grants nothing", arguments: [0, 1, 2] as [UInt8])
    func readableKeyBGrantsNothing(condition: UInt8) {
        let card = Self.card(sector1: [0, 0, 0, condition])
        #expect(card.authenticate(block: 4, keyType: .b, key: Self.keyB))
        #expect(card.respond(to: [ClassicCommand.read, 4]) == .nak(ClassicNAK.invalidOperation))
        #expect(card.authenticate(block: 7, keyType: .a, key: Self.keyA))
        guard case .data(let trailer) = card.respond(to: [ClassicCommand.read, 7]) else {
            Issue.record("trailer not readable with key A")
            return
        }
        #expect(Array(trailer[10..<16]) == Self.keyB)
    }

    @Test("Trailer rows 100, 110 and 111 freeze key A and the access bits for key A", arguments: [4, 6, 7] as [UInt8])
    func frozenTrailerForKeyA(condition: UInt8) {
        let card = Self.card(sector1: [0, 0, 0, condition])
        #expect(card.authenticate(block: 7, keyType: .a, key: Self.keyA))
        #expect(card.respond(to: [ClassicCommand.write, 7]) == .nak(ClassicNAK.invalidOperation))
    }

    @Test("Data condition 100: read with A or B, write with B only")
    func condition100() {
        let card = Self.card(sector1: [4, 4, 4, 3])
        #expect(card.authenticate(block: 4, keyType: .a, key: Self.keyA))
        #expect(card.respond(to: [ClassicCommand.read, 4]) == .data([UInt8](repeating: 0, count: 16)))
        #expect(card.respond(to: [ClassicCommand.write, 4]) == .nak(ClassicNAK.invalidOperation))
        #expect(card.authenticate(block: 4, keyType: .b, key: Self.keyB))
        #expect(Self.writeBlock(card, 4, [UInt8](repeating: 0x11, count: 16)) == [.ack, .ack])
        #expect(card.respond(to: [ClassicCommand.read, 4]) == .data([UInt8](repeating: 0x11, count: 16)))
    }

    @Test("Data condition 011: only key B reads and writes")
    func condition011() {
        let card = Self.card(sector1: [3, 3, 3, 3])
        #expect(card.authenticate(block: 5, keyType: .a, key: Self.keyA))
        #expect(card.respond(to: [ClassicCommand.read, 5]) == .nak(ClassicNAK.invalidOperation))
        #expect(card.authenticate(block: 5, keyType: .b, key: Self.keyB))
        #expect(card.respond(to: [ClassicCommand.read, 5]) == .data([UInt8](repeating: 0, count: 16)))
    }

    @Test("Data condition 111: nothing is allowed")
    func condition111() {
        let card = Self.card(sector1: [7, 7, 7, 3])
        #expect(card.authenticate(block: 6, keyType: .b, key: Self.keyB))
        #expect(card.respond(to: [ClassicCommand.read, 6]) == .nak(ClassicNAK.invalidOperation))
    }

    @Test("Trailer 011: key B changes the keys; key A cannot")
    func trailerCondition011() {
        let card = Self.card(sector1: [0, 0, 0, 3])
        let bits = ClassicAccessBits(conditions: [0, 0, 0, 3]).bytes
        let newTrailer = Self.transport + bits + [0x69] + Self.transport
        #expect(card.authenticate(block: 7, keyType: .a, key: Self.keyA))
        #expect(card.respond(to: [ClassicCommand.write, 7]) == .nak(ClassicNAK.invalidOperation))
        #expect(card.authenticate(block: 7, keyType: .b, key: Self.keyB))
        #expect(Self.writeBlock(card, 7, newTrailer) == [.ack, .ack])
        #expect(card.authenticate(block: 4, keyType: .a, key: Self.transport))
        #expect(!card.authenticate(block: 4, keyType: .a, key: Self.keyA))
    }

    @Test("Block 0, the manufacturer block, is never written")
    func manufacturerBlockReadOnly() {
        let card = MifareClassic1K(uid: Self.uid)
        #expect(card.authenticate(block: 0, keyType: .a, key: Self.transport))
        #expect(card.respond(to: [ClassicCommand.write, 0]) == .nak(ClassicNAK.invalidOperation))
    }

    @Test("Access to another sector without re-authentication is refused")
    func crossSectorRefused() {
        let card = MifareClassic1K(uid: Self.uid)
        #expect(card.authenticate(block: 4, keyType: .a, key: Self.transport))
        #expect(card.respond(to: [ClassicCommand.read, 8]) == .nak(ClassicNAK.invalidOperation))
        // The error dropped the authentication too.
        #expect(card.respond(to: [ClassicCommand.read, 4]) == .nak(ClassicNAK.invalidOperation))
    }

    @Test("halt() and powerOn() drop the authentication")
    func haltDropsAuthentication() {
        let card = MifareClassic1K(uid: Self.uid)
        #expect(card.authenticate(block: 4, keyType: .a, key: Self.transport))
        card.halt()
        #expect(card.respond(to: [ClassicCommand.read, 4]) == .nak(ClassicNAK.invalidOperation))
        #expect(card.authenticate(block: 4, keyType: .a, key: Self.transport))
        card.powerOn()
        #expect(card.respond(to: [ClassicCommand.read, 4]) == .nak(ClassicNAK.invalidOperation))
    }

    @Test("Access bits whose inverted copies disagree block the sector")
    func invalidAccessBitsBlockSector() {
        let card = MifareClassic1K(uid: Self.uid)
        #expect(card.authenticate(block: 7, keyType: .a, key: Self.transport))
        let broken = Self.transport + [0xFF, 0x07, 0x81, 0x69] + Self.transport
        #expect(Self.writeBlock(card, 7, broken) == [.ack, .ack])  // the chip takes it: sector lost
        #expect(card.accessBits(sector: 1) == nil)
        #expect(!card.authenticate(block: 4, keyType: .a, key: Self.transport))
        card.powerOn()  // the refusal left the card idle
        #expect(card.authenticate(block: 8, keyType: .a, key: Self.transport))
    }

    @Test("Value block: increment, decrement, restore and transfer")
    func valueOperations() {
        let card = MifareClassic1K(uid: Self.uid)
        #expect(card.authenticate(block: 4, keyType: .a, key: Self.transport))
        #expect(Self.writeBlock(card, 4, MifareClassic1K.valueBlock(100, address: 4)) == [.ack, .ack])
        #expect(card.respond(to: [ClassicCommand.increment, 4]) == .ack)
        #expect(card.respond(to: [25, 0, 0, 0]) == .silence)  // passive ACK
        #expect(card.respond(to: [ClassicCommand.transfer, 4]) == .ack)
        #expect(card.respond(to: [ClassicCommand.read, 4]) == .data(MifareClassic1K.valueBlock(125, address: 4)))
        // Single-frame DECREMENT (as a PN532 sends it), then TRANSFER to block 5.
        #expect(card.respond(to: [ClassicCommand.decrement, 4, 0x2D, 0x01, 0, 0]) == .ack)
        #expect(card.respond(to: [ClassicCommand.transfer, 5]) == .ack)
        #expect(card.respond(to: [ClassicCommand.read, 5]) == .data(MifareClassic1K.valueBlock(-176, address: 4)))
        // RESTORE copies block 5 to block 6.
        #expect(card.respond(to: [ClassicCommand.restore, 5, 0, 0, 0, 0]) == .ack)
        #expect(card.respond(to: [ClassicCommand.transfer, 6]) == .ack)
        #expect(card.respond(to: [ClassicCommand.read, 6]) == .data(MifareClassic1K.valueBlock(-176, address: 4)))
    }

    @Test("Value operations on a block not in value format are refused")
    func valueFormatCheck() {
        let card = MifareClassic1K(uid: Self.uid)
        #expect(card.authenticate(block: 4, keyType: .a, key: Self.transport))
        var corrupt = MifareClassic1K.valueBlock(7, address: 4)
        corrupt[5] ^= 0x01
        #expect(Self.writeBlock(card, 4, corrupt) == [.ack, .ack])
        #expect(card.respond(to: [ClassicCommand.increment, 4]) == .nak(ClassicNAK.invalidOperation))
        #expect(MifareClassic1K.value(fromBlock: corrupt) == nil)
        #expect(MifareClassic1K.value(fromBlock: MifareClassic1K.valueBlock(-1, address: 9)) == -1)
    }

    @Test("Data condition 110: key A decrements but cannot increment; key B increments")
    func condition110() {
        let card = Self.card(sector1: [6, 6, 6, 3])
        var memory = card.memory
        memory.replaceSubrange(4 * 16..<5 * 16, with: MifareClassic1K.valueBlock(10, address: 4))
        card.memory = memory
        #expect(card.authenticate(block: 4, keyType: .a, key: Self.keyA))
        #expect(card.respond(to: [ClassicCommand.increment, 4]) == .nak(ClassicNAK.invalidOperation))
        #expect(card.authenticate(block: 4, keyType: .a, key: Self.keyA))
        #expect(card.respond(to: [ClassicCommand.decrement, 4, 1, 0, 0, 0]) == .ack)
        #expect(card.respond(to: [ClassicCommand.transfer, 4]) == .ack)
        #expect(card.authenticate(block: 4, keyType: .b, key: Self.keyB))
        #expect(card.respond(to: [ClassicCommand.increment, 4, 5, 0, 0, 0]) == .ack)
        #expect(card.respond(to: [ClassicCommand.transfer, 4]) == .ack)
        #expect(card.respond(to: [ClassicCommand.read, 4]) == .data(MifareClassic1K.valueBlock(14, address: 4)))
    }

    @Test("Any frame, of any length, gets an answer without trapping",
          arguments: [[], [0x30], [0xA0], [0xC1, 0xFF], [0xB0, 4, 4], [0x50, 0x00], [0xFF, 0xFF, 0xFF]] as [[UInt8]])
    func totalParser(frame: [UInt8]) {
        let card = MifareClassic1K(uid: Self.uid)
        _ = card.authenticate(block: 4, keyType: .a, key: Self.transport)
        _ = card.respond(to: frame)
        _ = card.respond(to: frame)
    }

    @Test("Twenty thousand pseudo-random frames, authenticated or not, never trap")
    func randomFrames() {
        var generator = SeededGenerator(seed: 0xC1A5_51C1)
        let card = MifareClassic1K(uid: Self.uid)
        let commands: [UInt8] = [0x30, 0xA0, 0xC0, 0xC1, 0xC2, 0xB0, 0x50, 0x60, 0xFF]
        for _ in 0..<20_000 {
            if generator.next() % 8 == 0 {
                _ = card.authenticate(block: UInt8(truncatingIfNeeded: generator.next() % 70), keyType: .a, key: Self.transport)
            }
            let length = Int(generator.next() % 24)
            var frame = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            if !frame.isEmpty { frame[0] = commands[Int(generator.next() % UInt64(commands.count))] }
            _ = card.respond(to: frame)
        }
        #expect(card.memory.count == MifareClassic1K.memorySize)
    }
}
