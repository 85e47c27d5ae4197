import NFCTestSupport
import NFCTags
import Testing
import VirtualTags

/// ICODE SLIX2 against ISO/IEC 15693-3 and the SL2S2602 datasheet.
@Suite("ICODE SLIX2", .timeLimit(.minutes(5)))
struct SLIX2Tests {
    static let uid: [UInt8] = [0xE0, 0x04, 0x01, 0x08, 0x12, 0x34, 0x56, 0x78]
    static let uidOnAir: [UInt8] = uid.reversed()
    /// High data rate, not addressed.
    static let plain: UInt8 = ISO15693RequestFlag.dataRate
    /// High data rate, addressed.
    static let addressed: UInt8 = ISO15693RequestFlag.dataRate | ISO15693RequestFlag.address

    static func error(_ code: UInt8) -> TagAnswer { .data([0x01, code]) }

    @Test("the sim:slix2 default UID carries the SLIX2 type indicator (UID bits 37–36 = 01), so it identifies as a SLIX2")
    func defaultUIDIdentifiesAsSLIX2() async throws {
        let model = try #require(TagModel.named("slix2"))
        let reader = SimulatedReader(tags: [model.make(model.defaultUID, TagModelOptions())], emptyFieldWait: .zero)
        let target = try #require(try await reader.poll(for: [.iso15693], timeout: .zero))
        #expect(model.defaultUID[3] & 0x18 == 0x08)
        #expect(await ChipIdentification.identify(target, on: reader).model == "ICODE SLIX2")
    }

    @Test("Inventory answers flags 00, DSFID and the UID least significant byte first")
    func inventory() {
        let tag = ICodeSLIX2(uid: Self.uid, dsfid: 0x42)
        #expect(tag.respond(to: [0x26, ISO15693Command.inventory, 0x00]) == .data([0x00, 0x42] + Self.uidOnAir))
    }

    @Test("Inventory mask: a matching mask is answered, another is not",
          arguments: [([8, 0x78] as [UInt8], true), ([8, 0x79], false), ([4, 0x08], true), ([12, 0x78, 0x06], true), ([12, 0x78, 0x07], false)])
    func inventoryMask(parameters: [UInt8], answers: Bool) {
        let tag = ICodeSLIX2(uid: Self.uid)
        let answer = tag.respond(to: [0x26, ISO15693Command.inventory] + parameters)
        #expect((answer != .silence) == answers)
    }

    @Test("Inventory with AFI: answered for 00 or the tag's AFI only")
    func inventoryAFI() {
        let tag = ICodeSLIX2(uid: Self.uid, afi: 0x07)
        #expect(tag.respond(to: [0x36, ISO15693Command.inventory, 0x07, 0x00]) != .silence)
        #expect(tag.respond(to: [0x36, ISO15693Command.inventory, 0x00, 0x00]) != .silence)
        #expect(tag.respond(to: [0x36, ISO15693Command.inventory, 0x08, 0x00]) == .silence)
    }

    @Test("Get System Information: info flags 0F, UID, DSFID, AFI, 4F blocks, 03 block size, IC reference")
    func systemInformation() {
        let tag = ICodeSLIX2(uid: Self.uid, dsfid: 0x01, afi: 0x02)
        #expect(tag.respond(to: [Self.plain, ISO15693Command.getSystemInformation])
            == .data([0x00, 0x0F] + Self.uidOnAir + [0x01, 0x02, 0x4F, 0x03, ICodeSLIX2.icReference]))
    }

    @Test("A fresh tag holds the Type 5 capability container E1 40 27 01 and an empty NDEF TLV")
    func freshCapabilityContainer() {
        let tag = ICodeSLIX2(uid: Self.uid)
        #expect(tag.respond(to: [Self.plain, ISO15693Command.readSingleBlock, 0]) == .data([0x00, 0xE1, 0x40, 0x27, 0x01]))
        #expect(Array(tag.memory[4..<7]) == [0x03, 0x00, 0xFE])
        #expect(tag.memory.count == 320)
        #expect(tag.targetInfo == .iso15693(ISO15693Target(uid: .init(Self.uid), dsfid: 0)))
    }

    @Test("Write then read a single block, addressed and not")
    func writeReadSingleBlock() {
        let tag = ICodeSLIX2(uid: Self.uid)
        #expect(tag.respond(to: [Self.addressed, ISO15693Command.writeSingleBlock] + Self.uidOnAir + [5, 1, 2, 3, 4]) == .data([0x00]))
        #expect(tag.respond(to: [Self.plain, ISO15693Command.readSingleBlock, 5]) == .data([0x00, 1, 2, 3, 4]))
        #expect(Array(tag.memory[20..<24]) == [1, 2, 3, 4])
    }

    @Test("A request addressed to another UID is not answered")
    func otherUIDIgnored() {
        let tag = ICodeSLIX2(uid: Self.uid)
        var other = Self.uidOnAir
        other[0] ^= 0xFF
        #expect(tag.respond(to: [Self.addressed, ISO15693Command.readSingleBlock] + other + [0]) == .silence)
    }

    @Test("Option flag puts the block security status before the data")
    func optionFlag() {
        let tag = ICodeSLIX2(uid: Self.uid)
        let option = Self.plain | ISO15693RequestFlag.option
        #expect(tag.respond(to: [Self.plain, ISO15693Command.lockBlock, 1]) == .data([0x00]))
        #expect(tag.respond(to: [option, ISO15693Command.readSingleBlock, 1]) == .data([0x00, 0x01, 0x03, 0x00, 0xFE, 0x00]))
        #expect(tag.respond(to: [option, ISO15693Command.readMultipleBlocks, 0, 1])
            == .data([0x00, 0x00, 0xE1, 0x40, 0x27, 0x01, 0x01, 0x03, 0x00, 0xFE, 0x00]))
    }

    @Test("Lock block: writing a locked block gives error 12, locking again error 11")
    func lockBlock() {
        let tag = ICodeSLIX2(uid: Self.uid)
        #expect(tag.respond(to: [Self.plain, ISO15693Command.lockBlock, 9]) == .data([0x00]))
        #expect(tag.respond(to: [Self.plain, ISO15693Command.writeSingleBlock, 9, 1, 1, 1, 1])
            == Self.error(ISO15693Error.lockedBlockCannotBeChanged))
        #expect(tag.respond(to: [Self.plain, ISO15693Command.lockBlock, 9]) == Self.error(ISO15693Error.alreadyLocked))
        #expect(tag.lockedBlocks[9])
    }

    @Test("Blocks beyond 79 are not available", arguments: [
        [ISO15693Command.readSingleBlock, 80], [ISO15693Command.writeSingleBlock, 80, 0, 0, 0, 0],
        [ISO15693Command.lockBlock, 200], [ISO15693Command.readMultipleBlocks, 79, 1],
        [ISO15693Command.getMultipleBlockSecurityStatus, 70, 10],
    ] as [[UInt8]])
    func blockNotAvailable(request: [UInt8]) {
        let tag = ICodeSLIX2(uid: Self.uid)
        #expect(tag.respond(to: [Self.plain] + request) == Self.error(ISO15693Error.blockNotAvailable))
    }

    @Test("Read multiple blocks returns consecutive blocks")
    func readMultiple() {
        var memory = [UInt8](repeating: 0, count: 320)
        for i in 0..<320 { memory[i] = UInt8(i & 0xFF) }
        let tag = ICodeSLIX2(uid: Self.uid, memory: memory)
        #expect(tag.respond(to: [Self.plain, ISO15693Command.readMultipleBlocks, 2, 2]) == .data([0x00] + Array(8..<20)))
        #expect(tag.respond(to: [Self.plain, ISO15693Command.readMultipleBlocks, 76, 3]) == .data([0x00] + memory[304..<320]))
    }

    @Test("Get multiple block security status reports locked blocks as 01")
    func securityStatus() {
        let tag = ICodeSLIX2(uid: Self.uid)
        _ = tag.respond(to: [Self.plain, ISO15693Command.lockBlock, 3])
        #expect(tag.respond(to: [Self.plain, ISO15693Command.getMultipleBlockSecurityStatus, 2, 2]) == .data([0x00, 0x00, 0x01, 0x00]))
    }

    @Test("Select flag: answered only once selected; Stay quiet silences unaddressed requests")
    func selectAndQuiet() {
        let tag = ICodeSLIX2(uid: Self.uid)
        let selectFlag = Self.plain | ISO15693RequestFlag.select
        #expect(tag.respond(to: [selectFlag, ISO15693Command.readSingleBlock, 0]) == .silence)
        #expect(tag.respond(to: [Self.addressed, ISO15693Command.select] + Self.uidOnAir) == .data([0x00]))
        #expect(tag.respond(to: [selectFlag, ISO15693Command.readSingleBlock, 0]) == .data([0x00, 0xE1, 0x40, 0x27, 0x01]))
        #expect(tag.respond(to: [Self.addressed, ISO15693Command.stayQuiet] + Self.uidOnAir) == .silence)
        #expect(tag.respond(to: [Self.plain, ISO15693Command.readSingleBlock, 0]) == .silence)
        #expect(tag.respond(to: [0x26, ISO15693Command.inventory, 0x00]) == .silence)
        tag.powerOn()
        #expect(tag.respond(to: [0x26, ISO15693Command.inventory, 0x00]) != .silence)
    }

    @Test("Writing 01 00 00 00 to block 79 increments the 16-bit counter; other values preset it")
    func counterBlock() {
        let tag = ICodeSLIX2(uid: Self.uid)
        #expect(tag.respond(to: [Self.plain, ISO15693Command.writeSingleBlock, 79, 0xFF, 0x00, 0x00, 0x00]) == .data([0x00]))
        #expect(tag.respond(to: [Self.plain, ISO15693Command.writeSingleBlock, 79, 0x01, 0x00, 0x00, 0x00]) == .data([0x00]))
        #expect(tag.respond(to: [Self.plain, ISO15693Command.readSingleBlock, 79]) == .data([0x00, 0x00, 0x01, 0x00, 0x00]))
        #expect(tag.respond(to: [Self.plain, ISO15693Command.writeSingleBlock, 79, 0x01, 0x00, 0x00, 0x00]) == .data([0x00]))
        #expect(tag.respond(to: [Self.plain, ISO15693Command.readSingleBlock, 79]) == .data([0x00, 0x01, 0x01, 0x00, 0x00]))
    }

    @Test("The tag file image keeps memory, block locks, DSFID, AFI and their locks")
    func tagFileImageRoundTrip() {
        let tag = ICodeSLIX2(uid: Self.uid, dsfid: 0x05, afi: 0x06)
        _ = tag.respond(to: [Self.plain, ISO15693Command.writeSingleBlock, 2, 9, 8, 7, 6])
        _ = tag.respond(to: [Self.plain, ISO15693Command.lockBlock, 2])
        _ = tag.respond(to: [Self.plain, ISO15693Command.lockAFI])
        let image = tag.tagFileImage
        #expect(image.count == ICodeSLIX2.tagFileImageSize)
        let copy = ICodeSLIX2(uid: Self.uid)
        copy.tagFileImage = image
        #expect(copy.memory == tag.memory && copy.lockedBlocks == tag.lockedBlocks)
        #expect(copy.afi == 0x06 && copy.dsfid == 0x05 && copy.afiLocked && !copy.dsfidLocked)
        #expect(copy.respond(to: [Self.plain, ISO15693Command.writeSingleBlock, 2, 0, 0, 0, 0])
            == Self.error(ISO15693Error.lockedBlockCannotBeChanged))
        copy.tagFileImage = [1, 2, 3]
        #expect(copy.tagFileImage == image)
    }

    @Test("Write and lock AFI and DSFID")
    func afiAndDSFID() {
        let tag = ICodeSLIX2(uid: Self.uid)
        #expect(tag.respond(to: [Self.plain, ISO15693Command.writeAFI, 0x33]) == .data([0x00]))
        #expect(tag.respond(to: [Self.plain, ISO15693Command.lockAFI]) == .data([0x00]))
        #expect(tag.respond(to: [Self.plain, ISO15693Command.writeAFI, 0x34]) == Self.error(ISO15693Error.lockedBlockCannotBeChanged))
        #expect(tag.respond(to: [Self.plain, ISO15693Command.writeDSFID, 0x44]) == .data([0x00]))
        #expect(tag.afi == 0x33 && tag.dsfid == 0x44)
    }

    @Test("Unknown commands answer error 01; truncated requests error 02 or silence", arguments: [
        ([SLIX2Tests.plain, 0x3F], SLIX2Tests.error(ISO15693Error.commandNotSupported)),
        ([SLIX2Tests.plain, ISO15693Command.readSingleBlock], SLIX2Tests.error(ISO15693Error.commandNotRecognized)),
        ([SLIX2Tests.plain, ISO15693Command.writeSingleBlock, 1, 2], SLIX2Tests.error(ISO15693Error.commandNotRecognized)),
        ([SLIX2Tests.addressed, ISO15693Command.readSingleBlock, 1, 2], TagAnswer.silence),
        ([SLIX2Tests.plain], TagAnswer.silence),
        ([], TagAnswer.silence),
        ([0x26, ISO15693Command.inventory], TagAnswer.silence),
        ([0x26, ISO15693Command.inventory, 64], TagAnswer.silence),
    ] as [([UInt8], TagAnswer)])
    func malformed(request: [UInt8], expected: TagAnswer) {
        let tag = ICodeSLIX2(uid: Self.uid)
        #expect(tag.respond(to: request) == expected)
    }

    @Test("Twenty thousand pseudo-random requests never trap")
    func randomRequests() {
        var generator = SeededGenerator(seed: 0x15_693)
        let tag = ICodeSLIX2(uid: Self.uid)
        let commands: [UInt8] = [0x01, 0x02, 0x20, 0x21, 0x22, 0x23, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2A, 0x2B, 0x2C, 0xA0]
        for _ in 0..<20_000 {
            let length = Int(generator.next() % 16)
            var frame = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            if frame.count >= 2 { frame[1] = commands[Int(generator.next() % UInt64(commands.count))] }
            if frame.count >= 10 && generator.next() % 2 == 0 { frame.replaceSubrange(2..<10, with: Self.uidOnAir) }
            _ = tag.respond(to: frame)
            if generator.next() % 64 == 0 { tag.powerOn() }
        }
        #expect(tag.memory.count == ICodeSLIX2.memorySize)
    }
}
