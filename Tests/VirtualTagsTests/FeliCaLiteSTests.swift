import NFCTestSupport
import NFCTags
import Testing
import VirtualTags

/// FeliCa Lite-S against the FeliCa Lite-S User's Manual and NFC Forum Type 3 Tag.
@Suite("FeliCa Lite-S", .timeLimit(.minutes(5)))
struct FeliCaLiteSTests {
    static let idm: [UInt8] = [0x01, 0x2E, 0x3C, 0x4D, 0x5E, 0x6F, 0x70, 0x81]
    static let readOnly: [UInt8] = [0x0B, 0x00]
    static let readWrite: [UInt8] = [0x09, 0x00]

    /// A 2-byte block list element for `block`.
    static func element(_ block: UInt8) -> [UInt8] { [0x80, block] }

    static func read(_ service: [UInt8], _ elements: [[UInt8]]) -> [UInt8] {
        [Type3Command.readWithoutEncryption] + idm + [0x01] + service + [UInt8(elements.count)] + elements.flatMap { $0 }
    }

    static func write(_ service: [UInt8], _ elements: [[UInt8]], _ data: [UInt8]) -> [UInt8] {
        [Type3Command.writeWithoutEncryption] + idm + [0x01] + service + [UInt8(elements.count)] + elements.flatMap { $0 } + data
    }

    static func writeStatus(_ flag1: UInt8, _ flag2: UInt8) -> TagAnswer { .data([0x09] + idm + [flag1, flag2]) }
    static func readStatus(_ flag1: UInt8, _ flag2: UInt8) -> TagAnswer { .data([0x07] + idm + [flag1, flag2]) }
    static func readData(_ blocks: [UInt8]) -> TagAnswer { .data([0x07] + idm + [0x00, 0x00, UInt8(blocks.count / 16)] + blocks) }

    @Test("Polling with FFFF, 12FC or a wildcard byte answers 01, IDm and PMm",
          arguments: [[0xFF, 0xFF], [0x12, 0xFC], [0x12, 0xFF], [0xFF, 0xFC], [0x88, 0xB4]] as [[UInt8]])
    func pollingMatchingSystemCode(systemCode: [UInt8]) {
        let tag = FeliCaLiteS(idm: Self.idm)
        #expect(tag.respond(to: [Type3Command.polling] + systemCode + [0x00, 0x00]) == .data([0x01] + Self.idm + FeliCaLiteS.pmm))
    }

    @Test("Polling with another system code is not answered", arguments: [[0xFE, 0x00], [0x00, 0x03], [0x12, 0xFD]] as [[UInt8]])
    func pollingOtherSystemCode(systemCode: [UInt8]) {
        let tag = FeliCaLiteS(idm: Self.idm)
        #expect(tag.respond(to: [Type3Command.polling] + systemCode + [0x00, 0x00]) == .silence)
    }

    @Test("Polling with request code 01 appends the matched system code: 12FC when asked, 88B4 for FFFF")
    func pollingRequestCode() {
        let tag = FeliCaLiteS(idm: Self.idm)
        #expect(tag.respond(to: [Type3Command.polling, 0x12, 0xFC, 0x01, 0x00]) == .data([0x01] + Self.idm + FeliCaLiteS.pmm + [0x12, 0xFC]))
        #expect(tag.respond(to: [Type3Command.polling, 0xFF, 0xFF, 0x01, 0x00]) == .data([0x01] + Self.idm + FeliCaLiteS.pmm + [0x88, 0xB4]))
        #expect(FeliCaLiteS.pmm[1] == 0xF1)
        #expect(tag.targetInfo == .felica(FeliCaTarget(idm: .init(Self.idm), pmm: .init(FeliCaLiteS.pmm), systemCode: 0x12FC, bitRate: 212)))
    }

    @Test("With SYS_OP 00 (no NDEF) the tag answers 88B4 but not 12FC")
    func pollingWithoutNDEF() {
        let tag = FeliCaLiteS(idm: Self.idm)
        var mc = FeliCaLiteS.ndefMemoryConfiguration
        mc[3] = 0x00
        #expect(tag.respond(to: Self.write(Self.readWrite, [Self.element(0x88)], mc)) == Self.writeStatus(0, 0))
        #expect(tag.respond(to: [Type3Command.polling, 0x12, 0xFC, 0x00, 0x00]) != .silence)  // until power-on
        tag.powerOn()
        #expect(tag.respond(to: [Type3Command.polling, 0x12, 0xFC, 0x00, 0x00]) == .silence)
        #expect(tag.respond(to: [Type3Command.polling, 0x88, 0xB4, 0x00, 0x00]) != .silence)
    }

    @Test("The fresh attribute information block: Ver 10, Nbr 4, Nbw 1, Nmaxb 13, RW, checksum 0023")
    func attributeBlock() {
        let tag = FeliCaLiteS(idm: Self.idm)
        let expected: [UInt8] = [0x10, 0x04, 0x01, 0x00, 0x0D, 0, 0, 0, 0, 0x00, 0x01, 0, 0, 0, 0x00, 0x23]
        #expect(tag.respond(to: Self.read(Self.readOnly, [Self.element(0)])) == Self.readData(expected))
        let block = FeliCaLiteS.attributeInformationBlock(length: 0x0102)
        let sum = block[0..<14].reduce(0) { $0 + Int($1) }
        #expect(Int(block[14]) << 8 | Int(block[15]) == sum)
        #expect(Array(block[11..<14]) == [0x00, 0x01, 0x02])
    }

    @Test("Read with either service code; write through 0009", arguments: [readOnly, readWrite])
    func readWithEachService(service: [UInt8]) {
        let tag = FeliCaLiteS(idm: Self.idm)
        let data = [UInt8](repeating: 0x5A, count: 16)
        #expect(tag.respond(to: Self.write(Self.readWrite, [Self.element(3)], data)) == Self.writeStatus(0, 0))
        #expect(tag.respond(to: Self.read(service, [Self.element(3)])) == Self.readData(data))
    }

    @Test("Write through the read-only service 000B is refused: 01 A6")
    func writeReadOnlyServiceRefused() {
        let tag = FeliCaLiteS(idm: Self.idm)
        let data = [UInt8](repeating: 1, count: 16)
        #expect(tag.respond(to: Self.write(Self.readOnly, [Self.element(1)], data)) == Self.writeStatus(0x01, FeliCaStatusFlag.illegalServiceCode))
        #expect(tag.respond(to: Self.read(Self.readOnly, [Self.element(1)])) == Self.readData([UInt8](repeating: 0, count: 16)))
    }

    @Test("Block list element forms: 2-byte 80 nn and 3-byte 00 nn 00 address the same block")
    func blockListElementForms() {
        let tag = FeliCaLiteS(idm: Self.idm)
        let twoByte = tag.respond(to: Self.read(Self.readOnly, [Self.element(0x82)]))
        let threeByte = tag.respond(to: Self.read(Self.readOnly, [[0x00, 0x82, 0x00]]))
        #expect(twoByte == threeByte)
        #expect(twoByte == Self.readData(Self.idm + [UInt8](repeating: 0, count: 8)))
        // Mixed forms in one command, 4 blocks.
        let mixed = tag.respond(to: Self.read(Self.readOnly, [Self.element(0), [0x00, 0x83, 0x00], Self.element(0x85), [0x00, 0x01, 0x00]]))
        guard case .data(let bytes) = mixed else {
            Issue.record("no answer")
            return
        }
        #expect(bytes.count == 1 + 8 + 3 + 64)
        #expect(Array(bytes[12 + 16..<12 + 32]) == Self.idm + FeliCaLiteS.pmm)
        #expect(Array(bytes[12 + 32..<12 + 34]) == [0x12, 0xFC])
    }

    @Test("Status flags for illegal numbers of services and blocks, service code, order, access mode, block number, read-only block via 0009",
          arguments: [
            (read(readOnly, []), readStatus(0xFF, FeliCaStatusFlag.illegalNumberOfBlocks)),
            (read(readOnly, [element(0), element(1), element(2), element(3), element(4)]), readStatus(0xFF, FeliCaStatusFlag.illegalNumberOfBlocks)),
            ([Type3Command.readWithoutEncryption] + idm + [0x02, 0x0B, 0x00, 0x09, 0x00, 0x01, 0x80, 0x00], readStatus(0xFF, FeliCaStatusFlag.illegalNumberOfServices)),
            (read([0x0F, 0x10], [element(0)]), readStatus(0x01, FeliCaStatusFlag.illegalServiceCode)),
            (read(readOnly, [element(0), [0x81, 0x01]]), readStatus(0x02, FeliCaStatusFlag.illegalServiceCodeListOrder)),
            (read(readOnly, [[0x90, 0x01]]), readStatus(0x01, FeliCaStatusFlag.illegalAccessMode)),
            (read(readOnly, [element(0x0F)]), readStatus(0x01, FeliCaStatusFlag.illegalBlockNumber)),
            (read(readOnly, [[0x00, 0x00, 0x01]]), readStatus(0x01, FeliCaStatusFlag.illegalBlockNumber)),
            (read(readWrite, [element(0), element(0x83)]), readStatus(0x02, FeliCaStatusFlag.illegalBlockNumber)),
            (write(readWrite, [element(0x83)], [UInt8](repeating: 0, count: 16)), writeStatus(0x01, FeliCaStatusFlag.illegalBlockNumber)),
            (write(readWrite, [element(1), element(2), element(3)], [UInt8](repeating: 0, count: 48)), writeStatus(0xFF, FeliCaStatusFlag.illegalNumberOfBlocks)),
          ] as [([UInt8], TagAnswer)])
    func statusFlags(command: [UInt8], expected: TagAnswer) {
        let tag = FeliCaLiteS(idm: Self.idm)
        #expect(tag.respond(to: command) == expected)
    }

    @Test("Clearing an MC_SP bit makes the S_PAD read-only from the next power-on, for good")
    func memoryConfigurationLock() {
        let tag = FeliCaLiteS(idm: Self.idm)
        let data = [UInt8](repeating: 0x77, count: 16)
        var mc = FeliCaLiteS.ndefMemoryConfiguration
        mc[0] = 0xFD  // S_PAD1 read-only
        #expect(tag.respond(to: Self.write(Self.readWrite, [Self.element(0x88)], mc)) == Self.writeStatus(0, 0))
        tag.powerOn()
        #expect(tag.respond(to: Self.write(Self.readWrite, [Self.element(1)], data)) == Self.writeStatus(0x01, FeliCaStatusFlag.illegalBlockNumber))
        #expect(tag.respond(to: Self.write(Self.readWrite, [Self.element(2)], data)) == Self.writeStatus(0, 0))
        // One-way: setting the bit again does not restore write access.
        #expect(tag.respond(to: Self.write(Self.readWrite, [Self.element(0x88)], FeliCaLiteS.ndefMemoryConfiguration)) == Self.writeStatus(0, 0))
        tag.powerOn()
        #expect(tag.respond(to: Self.write(Self.readWrite, [Self.element(1)], data)) == Self.writeStatus(0x01, FeliCaStatusFlag.illegalBlockNumber))
    }

    @Test("MC_ALL 00 makes the system blocks and MC bytes 2–5 read-only for good")
    func memoryConfigurationAllLock() {
        let tag = FeliCaLiteS(idm: Self.idm)
        var mc = FeliCaLiteS.ndefMemoryConfiguration
        mc[2] = 0x00
        mc[1] = 0x7F  // MC_SP bit 15: MC's own bits frozen too
        #expect(tag.respond(to: Self.write(Self.readWrite, [Self.element(0x88)], mc)) == Self.writeStatus(0, 0))
        tag.powerOn()
        let id = Self.idm + [UInt8](repeating: 0xAB, count: 8)
        #expect(tag.respond(to: Self.write(Self.readWrite, [Self.element(0x82)], id)) == Self.writeStatus(0x01, FeliCaStatusFlag.illegalBlockNumber))
        #expect(tag.respond(to: Self.write(Self.readWrite, [Self.element(0x88)], FeliCaLiteS.ndefMemoryConfiguration))
            == Self.writeStatus(0x01, FeliCaStatusFlag.illegalBlockNumber))
        #expect(tag.respond(to: Self.read(Self.readOnly, [Self.element(0x88)])) == Self.readData(mc))
    }

    @Test("Read and write restriction bits (MC bytes 6–9) demand authentication: B1")
    func restrictionBits() {
        let tag = FeliCaLiteS(idm: Self.idm)
        var mc = FeliCaLiteS.ndefMemoryConfiguration
        mc[6] = 0x10  // S_PAD4: read after authentication
        mc[8] = 0x20  // S_PAD5: write after authentication
        #expect(tag.respond(to: Self.write(Self.readWrite, [Self.element(0x88)], mc)) == Self.writeStatus(0, 0))
        tag.powerOn()
        #expect(tag.respond(to: Self.read(Self.readOnly, [Self.element(4)])) == Self.readStatus(0x01, FeliCaStatusFlag.authenticationRequired))
        #expect(tag.respond(to: Self.write(Self.readWrite, [Self.element(5)], [UInt8](repeating: 1, count: 16)))
            == Self.writeStatus(0x01, FeliCaStatusFlag.authenticationRequired))
        #expect(tag.respond(to: Self.read(Self.readOnly, [Self.element(5)])) == Self.readData([UInt8](repeating: 0, count: 16)))
        // One-way: writing zeros does not clear the restriction bits.
        #expect(tag.respond(to: Self.write(Self.readWrite, [Self.element(0x88)], FeliCaLiteS.ndefMemoryConfiguration)) == Self.writeStatus(0, 0))
        tag.powerOn()
        #expect(tag.respond(to: Self.read(Self.readOnly, [Self.element(0x88)])) == Self.readData(mc))
    }

    @Test("The ID block keeps IDm in bytes 0–7; only bytes 8–15 are written")
    func idBlockWrite() {
        let tag = FeliCaLiteS(idm: Self.idm)
        let written = [UInt8](repeating: 0xEE, count: 16)
        #expect(tag.respond(to: Self.write(Self.readWrite, [Self.element(0x82)], written)) == Self.writeStatus(0, 0))
        #expect(tag.respond(to: Self.read(Self.readOnly, [Self.element(0x82)])) == Self.readData(Self.idm + [UInt8](repeating: 0xEE, count: 8)))
    }

    @Test("Writes count in WCNT; RC and CK read back as zeros")
    func writeCounterAndWriteOnlyBlocks() {
        let tag = FeliCaLiteS(idm: Self.idm)
        let key = [UInt8](repeating: 0x42, count: 16)
        #expect(tag.respond(to: Self.write(Self.readWrite, [Self.element(0x87)], key)) == Self.writeStatus(0, 0))
        #expect(tag.respond(to: Self.write(Self.readWrite, [Self.element(0x80), Self.element(5)], key + key)) == Self.writeStatus(0, 0))
        #expect(tag.respond(to: Self.read(Self.readOnly, [Self.element(0x87), Self.element(0x90)]))
            == Self.readData([UInt8](repeating: 0, count: 16) + [3] + [UInt8](repeating: 0, count: 15)))
    }

    @Test("Commands for another IDm, truncated or unknown are not answered", arguments: [
        [], [Type3Command.polling, 0xFF], [Type3Command.readWithoutEncryption] + [UInt8](repeating: 0, count: 8) + [1, 0x0B, 0, 1, 0x80, 0],
        [Type3Command.readWithoutEncryption] + idm, [Type3Command.readWithoutEncryption] + idm + [1, 0x0B],
        [Type3Command.readWithoutEncryption] + idm + [1, 0x0B, 0, 1, 0x00, 0x01],
        [Type3Command.writeWithoutEncryption] + idm + [1, 0x09, 0, 1, 0x80, 0x01, 0xAA], [0x40] + idm,
    ] as [[UInt8]])
    func silence(command: [UInt8]) {
        let tag = FeliCaLiteS(idm: Self.idm)
        #expect(tag.respond(to: command) == .silence)
    }

    @Test("Request Response, Request Service and Request System Code")
    func requestCommands() {
        let tag = FeliCaLiteS(idm: Self.idm)
        #expect(tag.respond(to: [Type3Command.requestResponse] + Self.idm) == .data([0x05] + Self.idm + [0x00]))
        #expect(tag.respond(to: [Type3Command.requestService] + Self.idm + [2, 0x0B, 0x00, 0x48, 0x10])
            == .data([0x03] + Self.idm + [2, 0x00, 0x00, 0xFF, 0xFF]))
        #expect(tag.respond(to: [Type3Command.requestSystemCode] + Self.idm) == .data([0x0D] + Self.idm + [2, 0x88, 0xB4, 0x12, 0xFC]))
    }

    @Test("Memory round-trips through the accessor; a wrong length is ignored")
    func memoryAccessor() {
        let tag = FeliCaLiteS(idm: Self.idm)
        var memory = tag.memory
        #expect(memory.count == FeliCaLiteS.memorySize)
        memory[16] = 0x99
        let copy = FeliCaLiteS(idm: Self.idm, memory: memory)
        #expect(copy.memory == memory)
        copy.memory = [1, 2, 3]
        #expect(copy.memory == memory)
    }

    @Test("Twenty thousand pseudo-random commands for this IDm never trap")
    func randomCommands() {
        var generator = SeededGenerator(seed: 0xFE11CA)
        let tag = FeliCaLiteS(idm: Self.idm)
        let commands: [UInt8] = [0x00, 0x02, 0x04, 0x06, 0x08, 0x0C]
        for _ in 0..<20_000 {
            let command = commands[Int(generator.next() % UInt64(commands.count))]
            let length = Int(generator.next() % 48)
            var body = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            if body.count >= 1 && generator.next() % 2 == 0 { body[0] = 1 }  // one service, mostly
            if body.count >= 3 && generator.next() % 2 == 0 { body[1] = 0x09; body[2] = 0 }
            if body.count >= 4 { body[3] = UInt8(generator.next() % 5) }
            let frame = command == Type3Command.polling ? [command] + body : [command] + Self.idm + body
            _ = tag.respond(to: frame)
            if generator.next() % 64 == 0 { tag.powerOn() }
        }
        #expect(tag.memory.count == FeliCaLiteS.memorySize)
    }
}
