import NDEF
import NFCCore
import NFCTags
import NFCTestSupport
import Testing
import VirtualTags

/// Type 5 NDEF and the ISO 15693 commands against the virtual ICODE SLIX2 in the simulator:
/// detection, read, write, lock, format, "no write before every check passes" and tear safety,
/// asserted on the field's command trace. libnfc's PN532 driver cannot inventory ISO 15693, so
/// the simulator is the only reader these run on.
@Suite("Type 5 NDEF on a virtual ICODE SLIX2", .timeLimit(.minutes(10)))
struct Type5NDEFTests {
    static let uid: [UInt8] = [0xE0, 0x04, 0x01, 0x08, 0x53, 0x49, 0x4D, 0x05]
    static let identity = ChipIdentity(model: "ICODE SLIX2", platform: .type5, family: .icode, memoryBytes: 320)
    static let fresh = Array(ICodeSLIX2(uid: uid).memory)

    /// A traced simulator holding `chip`, inventoried, and the ISO 15693 tag on it.
    static func open(_ chip: sending ICodeSLIX2) async throws -> (SimulatedReader, ISO15693Tag) {
        let reader = SimulatedReader(tags: [chip], emptyFieldWait: .zero)
        let target = try #require(try await reader.poll(for: [.iso15693], timeout: .zero))
        guard case .iso15693(let v) = target else {
            Issue.record("not an ISO 15693 target: \(target)")
            throw NFCTagError(.notSupported, "not ISO 15693")
        }
        await reader.withField { $0.isTracing = true }
        return (reader, ISO15693Tag(reader: reader, target: v, identity: identity))
    }

    /// A fresh SLIX2 (CC `E1 40 27 01`, empty NDEF TLV), with `message` stored when given.
    static func slix2(message: NDEFMessage? = nil, memory: [UInt8]? = nil) throws -> ICodeSLIX2 {
        var bytes = memory ?? fresh
        if let message {
            let encoded = try message.encoded()
            let tlv: [UInt8] = encoded.count < 0xFF
                ? [0x03, UInt8(encoded.count)] : [0x03, 0xFF, UInt8(encoded.count >> 8), UInt8(encoded.count & 0xFF)]
            let area = tlv + encoded + [0xFE]
            bytes.replaceSubrange(4..<(4 + area.count), with: area)
        }
        return ICodeSLIX2(uid: uid, memory: bytes)
    }

    /// The (command code, block number) pairs the field carried; addressed frames put the block
    /// number after the 8 UID bytes.
    static func trace(_ reader: SimulatedReader) async -> [[UInt8]] {
        await reader.withField { field in
            field.trace.map { exchange in
                let c = exchange.command
                return c.count > 10 ? [c[1], c[10]] : [c[1]]
            }
        }
    }

    /// The commands the field carried whose code is `code`.
    static func count(_ reader: SimulatedReader, _ code: UInt8) async -> Int {
        await reader.withField { field in field.trace.filter { $0.command.count > 1 && $0.command[1] == code }.count }
    }

    static func writes(_ reader: SimulatedReader) async -> Int {
        await count(reader, ISO15693Command.writeSingleBlock) + count(reader, ISO15693Command.lockBlock)
    }

    static func url(_ text: String) throws -> NDEFMessage {
        NDEFMessage(records: [try NDEFPayload.wellKnownTypeURIPayload(url: text)])
    }

    /// The memory and block locks of the chip on `reader`.
    static func chip(_ reader: SimulatedReader) async -> (memory: [UInt8], lockedBlocks: [Bool])? {
        await reader.withField { field in
            (((field.currentTag ?? field.removedTags.last) as? ICodeSLIX2)).map { ($0.memory, $0.lockedBlocks) }
        }
    }

    // MARK: - ISO 15693 commands

    @Test("Get system information is parsed: flags 0F, UID, DSFID, AFI, 80 blocks of 4 bytes, IC reference")
    func systemInformation() async throws {
        let chip = ICodeSLIX2(uid: Self.uid, dsfid: 0x11, afi: 0x22)
        let (reader, tag) = try await Self.open(chip)
        let info = try await tag.getSystemInfo()
        #expect(info == ISO15693SystemInfo(
            infoFlags: 0x0F, uid: Bytes(Self.uid), dsfid: 0x11, afi: 0x22, blockCount: 80, blockSize: 4, icReference: 0x01))
        #expect(try await tag.dataStorageFormatIdentifier() == 0x11)
        #expect(try await tag.applicationFamilyIdentifier() == 0x22)
        #expect(tag.icManufacturerCode == 0x04)
        #expect(tag.icSerialNumber == Bytes([0x01, 0x08, 0x53, 0x49, 0x4D, 0x05]))
        // Addressed, high data rate: flags 22, then the UID least significant byte first.
        let first = await reader.withField { $0.trace.first?.command }
        #expect(first == [0x22, 0x2B] + Self.uid.reversed())
    }

    @Test("single and multiple block reads and writes, security status, AFI and DSFID")
    func blockCommands() async throws {
        let (reader, tag) = try await Self.open(ICodeSLIX2(uid: Self.uid))
        try await tag.writeSingleBlock(10, data: Bytes([1, 2, 3, 4]))
        #expect(try await tag.readSingleBlock(10) == Bytes([1, 2, 3, 4]))
        #expect(try await tag.readMultipleBlocks(9..<12) == [Bytes([0, 0, 0, 0]), Bytes([1, 2, 3, 4]), Bytes([0, 0, 0, 0])])
        try await tag.lockBlock(11)
        #expect(try await tag.getMultipleBlockSecurityStatus(10..<12) == [0x00, 0x01])
        #expect(try await tag.readSingleBlockWithSecurityStatus(11).isLocked)
        let blocks = try await tag.readMultipleBlocksWithSecurityStatus(10..<12)
        #expect(blocks.map(\.isLocked) == [false, true])
        try await tag.writeAFI(0x07)
        try await tag.writeDSFID(0x09)
        #expect(try await tag.getSystemInfo().afi == 0x07)
        try await tag.lockAFI()
        try await tag.lockDSFID()
        await #expect { try await tag.writeAFI(0x08) } throws: { ($0 as? NFCTagError)?.code == .readOnly }
        await #expect { try await tag.lockDSFID() } throws: { error in
            guard let error = error as? NFCTagError else { return false }
            return error.code == .tagResponse && ISO15693Error.code(in: error) == ISO15693Error.alreadyLocked
        }
        // Writes carry no option flag on an ICODE chip: flags 22.
        let writeFlags = await reader.withField { $0.trace.first?.command.first }
        #expect(writeFlags == 0x22)
    }

    @Test("a write to a locked block is readOnly naming error 12; block 80 is error 10")
    func lockedBlockWrite() async throws {
        let (_, tag) = try await Self.open(ICodeSLIX2(uid: Self.uid))
        try await tag.lockBlock(5)
        await #expect { try await tag.writeSingleBlock(5, data: Bytes([9, 9, 9, 9])) } throws: { error in
            guard let error = error as? NFCTagError else { return false }
            return error.code == .readOnly && ISO15693Error.code(in: error) == 0x12 && error.reason.contains("12 (block locked")
        }
        await #expect { _ = try await tag.readSingleBlock(80) } throws: { error in
            guard let error = error as? NFCTagError else { return false }
            return error.code == .tagResponse && error.reason.contains("error 10 (block not available)")
        }
        await #expect { try await tag.lockBlock(5) } throws: { error in
            ISO15693Error.code(in: error as! NFCTagError) == ISO15693Error.alreadyLocked
        }
    }

    @Test("commands the SLIX2 lacks answer error 01: write multiple blocks, the extended commands, custom AB")
    func unsupportedCommands() async throws {
        let (reader, tag) = try await Self.open(ICodeSLIX2(uid: Self.uid))
        func isNotSupported(_ error: any Error) -> Bool {
            guard let error = error as? NFCTagError else { return false }
            return error.code == .tagResponse && ISO15693Error.code(in: error) == ISO15693Error.commandNotSupported
        }
        await #expect(performing: { try await tag.writeMultipleBlocks(from: 2, [Bytes([1, 2, 3, 4]), Bytes([5, 6, 7, 8])]) }, throws: isNotSupported)
        await #expect(performing: { _ = try await tag.extendedReadSingleBlock(300) }, throws: isNotSupported)
        await #expect(performing: { try await tag.extendedWriteSingleBlock(300, data: Bytes([1, 2, 3, 4])) }, throws: isNotSupported)
        await #expect(performing: { try await tag.extendedLockBlock(300) }, throws: isNotSupported)
        await #expect(performing: { _ = try await tag.extendedReadMultipleBlocks(0..<2) }, throws: isNotSupported)
        await #expect(performing: { _ = try await tag.extendedGetMultipleBlockSecurityStatus(0..<2) }, throws: isNotSupported)
        await #expect(performing: { _ = try await tag.extendedGetSystemInfo() }, throws: isNotSupported)
        await #expect(performing: { _ = try await tag.customCommand(code: 0xAB, parameters: Bytes()) }, throws: isNotSupported)
        let frames = await reader.withField { $0.trace.map(\.command) }
        // Extended block numbers go least significant byte first: 300 = 2C 01.
        #expect(frames[1] == [0x22, 0x30] + Self.uid.reversed() + [0x2C, 0x01])
        // A custom command carries the manufacturer code 04 before the UID.
        #expect(frames.last == [0x22, 0xAB, 0x04] + Self.uid.reversed())
        // The virtual SLIX2 ignores a custom command with another manufacturer's code.
        await #expect(throws: NFCReaderDeviceError.self) {
            _ = try await reader.transceive(Bytes([0x22, 0xAB, 0x07] + Self.uid.reversed()))
        }
        _ = await reader.withField { $0.trace.removeLast() }
        // Out of range: nothing sent.
        await #expect { _ = try await tag.readSingleBlock(256) } throws: { ($0 as? NFCTagError)?.code == .invalidParameter }
        await #expect { _ = try await tag.customCommand(code: 0x20, parameters: Bytes()) } throws: { ($0 as? NFCTagError)?.code == .invalidParameter }
        #expect(await reader.withField { $0.trace.count } == frames.count)
    }

    // MARK: - NDEF

    /// Fresh SLIX2: READ SINGLE BLOCK 0 (the CC `E1 40 27 01`: Read Multiple Blocks allowed),
    /// READ MULTIPLE BLOCKS 1–8 (the TLV area's first 32 bytes). The T5T area is 39 × 8 = 312
    /// bytes from byte 4, so 308 bytes of message fit behind `03 FF xx xx`.
    @Test("a fresh SLIX2 is read-write and empty, capacity 308, found with 2 commands")
    func freshQuery() async throws {
        let (reader, tag) = try await Self.open(ICodeSLIX2(uid: Self.uid))
        #expect(try await tag.queryNDEFStatus() == NDEFQuery(status: .readWrite, capacity: 308, messageLength: 0))
        #expect(await Self.trace(reader) == [[0x20, 0], [0x23, 1]])
        let frames = await reader.withField { $0.trace.map(\.command) }
        #expect(frames[0] == [0x62, 0x20] + Self.uid.reversed() + [0])
        #expect(frames[1] == [0x62, 0x23] + Self.uid.reversed() + [1, 7])
        #expect(try await tag.readNDEF() == .empty)
    }

    /// Android's NFC stack formats an ICODE SLIX2 with MLEN = blocks × block size / 8 = `28`
    /// (AOSP `rw_i93.cc`), an area that takes in the counter block 79 and runs 4 bytes past the
    /// memory; its detection (`rw_t5t.cc`) takes the area from MLEN alone. NFCKit cuts the area
    /// at the SLIX2's user memory, so such a tag offers the same 308 bytes as one with MLEN `27`
    /// and a full message never writes the counter block.
    @Test("a SLIX2 formatted as Android does (MLEN 28h): capacity 308, a full message leaves the counter block alone")
    func androidFormattedSLIX2() async throws {
        var memory = Self.fresh
        memory.replaceSubrange(0..<4, with: [0xE1, 0x40, 0x28, 0x01])
        let (reader, tag) = try await Self.open(ICodeSLIX2(uid: Self.uid, memory: memory))
        #expect(try await tag.queryNDEFStatus() == NDEFQuery(status: .readWrite, capacity: 308, messageLength: 0))
        let full = NDEFMessage(records: [try .wellKnownTypeURIPayload(url: "https://example.com/" + String(repeating: "f", count: 288))])
        #expect(try full.encoded().count == 308)
        let tooBig = NDEFMessage(records: [try .wellKnownTypeURIPayload(url: "https://example.com/" + String(repeating: "f", count: 289))])
        await #expect(throws: NFCTagError.self) { try await tag.writeNDEF(tooBig) }
        try await tag.writeNDEF(full)
        let stored = await reader.withField { field in (field.currentTag as? ICodeSLIX2)?.memory ?? [] }
        #expect(stored.count == 320)
        #expect(Array(stored.suffix(4)) == [0x00, 0x00, 0x00, 0x00])
        #expect(try await tag.readNDEF() == full)
    }

    /// Blank (formatted) SLIX2, 20-byte message: TLV `03 14` + 20 bytes + `FE` = 23 bytes at
    /// 4…26, blocks 1–6. READ SINGLE 0, READ MULTIPLE 1–8, GET MULTIPLE BLOCK PROTECTION STATUS
    /// 1–6 (no block behind a password); the tag reads empty already (`03 00`), so no
    /// zero-length write is needed: WRITE 2…6 then WRITE 1 (the length) last; read-back READ
    /// MULTIPLE 1–6. 6 writes = the data sheet minimum for 23 bytes in 4-byte blocks.
    @Test("writing a 20-byte URL record on a fresh SLIX2 sends exactly the documented commands")
    func exactWriteTrace() async throws {
        let (reader, tag) = try await Self.open(ICodeSLIX2(uid: Self.uid))
        let message = try Self.url("https://www.example.com/abc")
        #expect(try message.encoded().count == 20)
        try await tag.writeNDEF(message)
        let read = ISO15693Command.readSingleBlock, multiple = ISO15693Command.readMultipleBlocks
        let write = ISO15693Command.writeSingleBlock, protection = ICodeCommand.getMultipleBlockProtectionStatus
        // The custom command carries the maker code 04 before the UID: [code, UID byte 0].
        #expect(
            await Self.trace(reader) == [
                [read, 0], [multiple, 1], [protection, Self.uid[0]],
                [write, 2], [write, 3], [write, 4], [write, 5], [write, 6], [write, 1],
                [multiple, 1],
            ])
        let frames = await reader.withField { $0.trace.map(\.command) }
        #expect(frames[2] == [0x22, protection, 0x04] + Self.uid.reversed() + [1, 5])
        #expect(frames[8] == [0x22, write] + Self.uid.reversed() + [1, 0x03, 0x14, 0xD1, 0x01])
        #expect(frames[9].suffix(2) == [1, 5])
        #expect(try await tag.readNDEF() == message)
        let chip = try #require(await Self.chip(reader))
        #expect(chip.memory[26] == 0xFE)
    }

    @Test("reading a stored 20-byte URL takes 2 commands")
    func readTrace() async throws {
        let message = try Self.url("https://www.example.com/abc")
        let (reader, tag) = try await Self.open(try Self.slix2(message: message))
        #expect(try await tag.readNDEF() == message)
        #expect(await Self.trace(reader) == [[0x20, 0], [0x23, 1]])
        await reader.withField { $0.trace.removeAll() }
        #expect(try await tag.queryNDEFStatus() == NDEFQuery(status: .readWrite, capacity: 308, messageLength: 20))
    }

    @Test("replacing a message zeroes the length first, writes the changed blocks, the length last")
    func replaceOrder() async throws {
        let old = try Self.url("https://old.example/aaaa")
        let (reader, tag) = try await Self.open(try Self.slix2(message: old))
        let new = try Self.url("https://new.example/a-longer-message")
        try await tag.writeNDEF(new)
        let writes = await reader.withField { $0.trace.map(\.command).filter { $0[1] == ISO15693Command.writeSingleBlock } }
        #expect(writes.first?[10] == 1 && writes.first?[12] == 0x00)
        let length = UInt8(try new.encoded().count)
        #expect(writes.last?[10] == 1 && writes.last?[12] == length)
        #expect(try await tag.readNDEF() == new)
        // The same message again: no write at all.
        await reader.withField { $0.trace.removeAll() }
        try await tag.writeNDEF(new)
        #expect(await Self.writes(reader) == 0)
    }

    @Test("a long message takes the 3-byte length and reads back; a message of exactly the capacity fits")
    func longMessages() async throws {
        let (_, tag) = try await Self.open(ICodeSLIX2(uid: Self.uid))
        let long = try Self.url("https://example.com/" + String(repeating: "l", count: 260))
        try await tag.writeNDEF(long)
        #expect(try await tag.readNDEF() == long)
        let capacity = try await tag.queryNDEFStatus().capacity
        let exact = NDEFMessage(records: [NDEFPayload(format: .unknown, type: Bytes(), payload: Bytes([UInt8](repeating: 0x5A, count: capacity - 6)))])
        #expect(try exact.encoded().count == capacity)
        try await tag.writeNDEF(exact)
        #expect(try await tag.readNDEF() == exact)
        let short = try Self.url("https://s.example")
        try await tag.writeNDEF(short)
        #expect(try await tag.readNDEF() == short)
    }

    @Test("a message over the capacity by N bytes fails saying so, with no write sent", arguments: [1, 7])
    func oversize(by over: Int) async throws {
        let (reader, tag) = try await Self.open(ICodeSLIX2(uid: Self.uid))
        let message = NDEFMessage(records: [NDEFPayload(format: .unknown, type: Bytes(), payload: Bytes([UInt8](repeating: 1, count: 308 - 6 + over)))])
        await #expect { try await tag.writeNDEF(message) } throws: { error in
            let error = error as! NFCTagError
            return error.code == .capacityExceeded && error.reason.hasSuffix("by \(over) byte\(over == 1 ? "" : "s")")
        }
        #expect(await Self.writes(reader) == 0)
    }

    @Test("a CC with write access 11b is read-only: query says so, write refused with no write sent")
    func readOnlyCC() async throws {
        var memory = Self.fresh
        memory[1] = 0x43
        let message = try Self.url("https://ro.example")
        let (reader, tag) = try await Self.open(try Self.slix2(message: message, memory: memory))
        #expect(try await tag.queryNDEFStatus().status == .readOnly)
        await #expect { try await tag.writeNDEF(try Self.url("https://x.example")) } throws: { error in
            let error = error as! NFCTagError
            return error.code == .readOnly && error.offset == 1
        }
        #expect(await Self.writes(reader) == 0)
        #expect(try await tag.readNDEF() == message)
    }

    @Test("a locked block in the way refuses the write before any write, naming its address")
    func lockedBlockRefused() async throws {
        let chip = ICodeSLIX2(uid: Self.uid)
        var locks = chip.lockedBlocks
        locks[4] = true
        chip.lockedBlocks = locks
        let (reader, tag) = try await Self.open(chip)
        await #expect { try await tag.writeNDEF(try Self.url("https://www.example.com/abc")) } throws: { error in
            let error = error as! NFCTagError
            return error.code == .readOnly && error.offset == 16
        }
        #expect(await Self.writes(reader) == 0)
    }

    @Test("memory without a CC is not NDEF: query notSupported, read and write notNDEFFormatted, no write")
    func notFormatted() async throws {
        let (reader, tag) = try await Self.open(ICodeSLIX2(uid: Self.uid, memory: [UInt8](repeating: 0, count: 320)))
        #expect(try await tag.queryNDEFStatus() == NDEFQuery(status: .notSupported, capacity: 0, messageLength: 0))
        await #expect { _ = try await tag.readNDEF() } throws: { ($0 as! NFCTagError).code == .notNDEFFormatted }
        await #expect { try await tag.writeNDEF(try Self.url("https://a.example")) } throws: { ($0 as! NFCTagError).code == .notNDEFFormatted }
        #expect(await Self.writes(reader) == 0)
    }

    @Test("a malformed T5T area is reported with the byte offset at fault", arguments: [
        // 8-byte CC form with MLEN 0 in bytes 6–7.
        ([0xE1, 0x40, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00] as [UInt8], 6),
        // NDEF TLV claiming 0xFE bytes in a 16-byte area: its length byte is at 5.
        ([0xE1, 0x40, 0x02, 0x01, 0x03, 0xFE], 5),
        // A proprietary TLV running past the area.
        ([0xE1, 0x40, 0x02, 0x01, 0x00, 0xFD, 0x20], 6),
    ])
    func malformedArea(prefix: [UInt8], offset: Int) async throws {
        var memory = [UInt8](repeating: 0, count: 320)
        memory.replaceSubrange(0..<prefix.count, with: prefix)
        let (reader, tag) = try await Self.open(ICodeSLIX2(uid: Self.uid, memory: memory))
        await #expect { _ = try await tag.queryNDEFStatus() } throws: { error in
            let error = error as! NFCTagError
            return error.code == .malformedTag && error.offset == offset
        }
        await #expect { try await tag.writeNDEF(try Self.url("https://a.example")) } throws: { ($0 as! NFCTagError).code == .malformedTag }
        #expect(await Self.writes(reader) == 0)
    }

    @Test("stored bytes that do not decode give malformedMessage at their tag address")
    func malformedMessage() async throws {
        var memory = Self.fresh
        memory.replaceSubrange(4..<10, with: [0x03, 0x04, 0xD1, 0x01, 0xC8, 0x55])
        let (_, tag) = try await Self.open(ICodeSLIX2(uid: Self.uid, memory: memory))
        await #expect { _ = try await tag.readNDEF() } throws: { error in
            let error = error as! NFCTagError
            return error.code == .malformedMessage && (6...9).contains(error.offset ?? -1)
        }
    }

    /// 8-byte CC `E1 40 00 01 00 00 00 26`: MLEN 0x26 × 8 = 304 bytes from byte 8; the CC's
    /// second half is in block 1, so the NDEF TLV starts in block 2.
    @Test("the 8-byte CC form: area from byte 8, message written and read back")
    func eightByteCC() async throws {
        var memory = [UInt8](repeating: 0, count: 320)
        memory.replaceSubrange(0..<11, with: [0xE1, 0x40, 0x00, 0x01, 0x00, 0x00, 0x00, 0x26, 0x03, 0x00, 0xFE])
        let (reader, tag) = try await Self.open(ICodeSLIX2(uid: Self.uid, memory: memory))
        #expect(try await tag.queryNDEFStatus() == NDEFQuery(status: .readWrite, capacity: 300, messageLength: 0))
        #expect(await Self.trace(reader) == [[0x20, 0], [0x20, 1], [0x23, 2]])
        let message = try Self.url("https://eight.example/cc")
        try await tag.writeNDEF(message)
        #expect(try await tag.readNDEF() == message)
        let chip = try #require(await Self.chip(reader))
        #expect(Array(chip.memory[0..<10]) == [0xE1, 0x40, 0x00, 0x01, 0x00, 0x00, 0x00, 0x26, 0x03, UInt8(try message.encoded().count)])
    }

    @Test("a CC asking for the special frame (feature bit 4) puts the option flag on every write")
    func specialFrame() async throws {
        var memory = Self.fresh
        memory[3] = 0x11
        let (reader, tag) = try await Self.open(ICodeSLIX2(uid: Self.uid, memory: memory))
        try await tag.writeNDEF(try Self.url("https://www.example.com/abc"))
        let flags = await reader.withField { $0.trace.map(\.command).filter { $0[1] == ISO15693Command.writeSingleBlock }.map { $0[0] } }
        #expect(flags.count == 6 && flags.allSatisfy { $0 == 0x62 })
    }

    @Test("a chip refusing Read Multiple Blocks despite the CC is read block by block")
    func readMultipleRefused() async throws {
        let message = try Self.url("https://www.example.com/abc")
        let (simulator, slix) = try await Self.open(try Self.slix2(message: message))
        let adapter = commandAdapter(simulator, refuseReadMultiple: true)
        let tag = Type5Tag(tag: ISO15693Tag(reader: adapter, target: slix.target, identity: Self.identity))
        #expect(try await tag.readNDEF() == message)
        let codes = await adapter.sent.map { $0[1] }
        // READ 0, READ MULTIPLE 1–8 refused, READ 1…6.
        #expect(codes == [0x20, 0x23, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20])
    }

    @Test("a CC with magic E2 switches reads, writes and locks to the extended commands")
    func extendedCommands() async throws {
        var memory = Self.fresh
        memory[0] = 0xE2
        let (simulator, slix) = try await Self.open(ICodeSLIX2(uid: Self.uid, memory: memory))
        let adapter = commandAdapter(simulator, refuseReadMultiple: false)
        let tag = Type5Tag(tag: ISO15693Tag(reader: adapter, target: slix.target, identity: Self.identity))
        let message = try Self.url("https://www.example.com/abc")
        try await tag.writeNDEF(message)
        #expect(try await tag.readNDEF() == message)
        let codes = Set(await adapter.sent.dropFirst().map { $0[1] })
        // 0x20 READ SINGLE BLOCK 0, then the extended commands; B8 (ICODE GET MULTIPLE BLOCK
        // PROTECTION STATUS, one-byte block numbers) before the writes.
        #expect(codes.isSubset(of: [0x20, 0x31, 0x33, ICodeCommand.getMultipleBlockProtectionStatus]) && codes.contains(0x31) && codes.contains(0x33))
        let first = await adapter.sent.first { $0[1] == 0x31 }
        #expect(first.map { Array($0.array[10...11]) } == [2, 0])
        try await tag.writeLock()
        #expect(await adapter.sent.contains { $0[1] == 0x32 })
        #expect(!(await adapter.sent.contains { $0[1] == 0x22 }))
    }

    @Test("answers of any shape from a hostile tag give typed errors, never a trap")
    func hostileAnswers() async throws {
        let reader = ScriptedReader(tag: HostileType5Tag(seed: 0x7515), modulations: [.iso15693], name: "hostile")
        let tag = Type5Tag(tag: ISO15693Tag(reader: reader, target: ISO15693Target(uid: Bytes(Self.uid)), identity: Self.identity))
        let message = try Self.url("https://www.example.com/abc")
        var errors: [NFCTagError.Code: Int] = [:]
        func attempt(_ body: () async throws(NFCTagError) -> Void) async {
            do throws(NFCTagError) {
                try await body()
            } catch {
                #expect(!error.reason.isEmpty, "\(error)")
                errors[error.code, default: 0] += 1
            }
        }
        for _ in 0..<400 {
            await attempt { () async throws(NFCTagError) in _ = try await tag.queryNDEFStatus() }
            await attempt { () async throws(NFCTagError) in _ = try await tag.readNDEF() }
            await attempt { () async throws(NFCTagError) in try await tag.writeNDEF(message) }
            await attempt { () async throws(NFCTagError) in try await tag.format(force: true) }
            await attempt { () async throws(NFCTagError) in try await tag.writeLock() }
            await attempt { () async throws(NFCTagError) in _ = try await tag.tag.getSystemInfo() }
            await attempt { () async throws(NFCTagError) in _ = try await tag.tag.readMultipleBlocks(0..<4) }
        }
        #expect(await reader.trace.count > 2000)
        // Hostile answers are refused as what they are: malformed answers and tag errors, not a
        // single catch-all code.
        #expect(errors.values.reduce(0, +) > 1000, "\(errors)")
        #expect(errors.count >= 2, "\(errors)")
    }

    // MARK: - Lock

    /// writeLock on a fresh SLIX2: READ 0, READ MULTIPLE 1–8; GET MULTIPLE BLOCK PROTECTION
    /// STATUS of blocks 0–78 (3 commands: none behind a password); WRITE 0 (CC byte 1 = `43`); LOCK
    /// BLOCK 1…78 (the T5T area), LOCK BLOCK 0 last; then the read-back: GET MULTIPLE BLOCK
    /// SECURITY STATUS 0–31, 32–63, 64–78 and READ 0 (the CC's write access).
    @Test("writeLock sets the CC write access to 11b, locks every area block and the CC block")
    func writeLock() async throws {
        let message = try Self.url("https://locked.example")
        let (reader, tag) = try await Self.open(try Self.slix2(message: message))
        try await tag.writeLock()
        let trace = await Self.trace(reader)
        #expect(Array(trace.prefix(2)) == [[0x20, 0], [0x23, 1]])
        #expect(Array(trace.dropFirst(2).prefix(3)).allSatisfy { $0.first == ICodeCommand.getMultipleBlockProtectionStatus })
        #expect(Array(trace.dropFirst(5).prefix(1)) == [[0x21, 0]])
        #expect(Array(trace.dropFirst(6)) == (Array(1...78) + [0]).map { [0x22, UInt8($0)] } + [[0x2C, 0], [0x2C, 32], [0x2C, 64], [0x20, 0]])
        let chip = try #require(await Self.chip(reader))
        #expect(chip.memory[1] == 0x43)
        #expect(chip.lockedBlocks == (0..<80).map { $0 < 79 })
        #expect(try await tag.queryNDEFStatus().status == .readOnly)
        #expect(try await tag.readNDEF() == message)
        await reader.withField { $0.trace.removeAll() }
        await #expect { try await tag.writeNDEF(try Self.url("https://x.example")) } throws: { ($0 as! NFCTagError).code == .readOnly }
        #expect(await Self.writes(reader) == 0)
        // Raw writes are refused by the chip itself.
        await #expect { try await tag.writeSingleBlock(0, data: Bytes([0xE1, 0x40, 0x27, 0x01])) } throws: { ($0 as! NFCTagError).code == .readOnly }
        // A second writeLock succeeds: the CC is not written again, blocks already locked
        // (error 11) count as done.
        await reader.withField { $0.trace.removeAll() }
        try await tag.writeLock()
        #expect(await Self.count(reader, ISO15693Command.writeSingleBlock) == 0)
    }

    @Test("writeLock without Lock Block (unknown chip, CC feature bit 3 clear) is notSupported and sends no write")
    func writeLockUnsupported() async throws {
        let (reader, slix) = try await Self.open(ICodeSLIX2(uid: Self.uid))
        let unknown = ISO15693Tag(reader: reader, target: slix.target, identity: ChipIdentity(model: "ISO 15693 tag", platform: .type5))
        await #expect { try await Type5Tag(tag: unknown).writeLock() } throws: { ($0 as! NFCTagError).code == .notSupported }
        #expect(await Self.writes(reader) == 0)
    }

    // MARK: - Format

    /// Blank SLIX2: GET SYSTEM INFORMATION (80 × 4 bytes), READ MULTIPLE 0–31, 32–63, 64–78
    /// (nothing but zeros), GET MULTIPLE BLOCK PROTECTION STATUS 0–1, WRITE 1 (`03 00 FE 00`),
    /// WRITE 0 (CC `E1 40 27 09`) last.
    @Test("format writes a CC from system information and an empty NDEF TLV, TLV block first")
    func formatBlank() async throws {
        let (reader, tag) = try await Self.open(ICodeSLIX2(uid: Self.uid, memory: [UInt8](repeating: 0, count: 320)))
        try await tag.format()
        #expect(await Self.trace(reader) == [
            [0x2B], [0x23, 0], [0x23, 32], [0x23, 64], [ICodeCommand.getMultipleBlockProtectionStatus, Self.uid[0]], [0x21, 1], [0x21, 0],
        ])
        let chip = try #require(await Self.chip(reader))
        #expect(Array(chip.memory[0..<7]) == [0xE1, 0x40, 0x27, 0x09, 0x03, 0x00, 0xFE])
        #expect(try await tag.queryNDEFStatus() == NDEFQuery(status: .readWrite, capacity: 308, messageLength: 0))
        let message = try Self.url("https://formatted.example")
        try await tag.writeNDEF(message)
        #expect(try await tag.readNDEF() == message)
    }

    @Test("format refuses a tag holding a message unless forced, with no write sent")
    func formatRefusesData() async throws {
        let (reader, tag) = try await Self.open(try Self.slix2(message: try Self.url("https://keep.example")))
        await #expect { try await tag.format() } throws: { ($0 as! NFCTagError).code == .alreadyFormatted }
        #expect(await Self.writes(reader) == 0)
        try await tag.format(force: true)
        #expect(try await tag.readNDEF() == .empty)
        // An empty NDEF tag needs no force.
        try await tag.format()
        // A proprietary TLV before an empty NDEF TLV is data.
        var memory = Self.fresh
        memory.replaceSubrange(4..<11, with: [0xFD, 0x02, 0xAA, 0xBB, 0x03, 0x00, 0xFE])
        let (other, proprietary) = try await Self.open(ICodeSLIX2(uid: Self.uid, memory: memory))
        #expect(try await proprietary.queryNDEFStatus().messageLength == 0)
        await #expect { try await proprietary.format() } throws: { ($0 as! NFCTagError).code == .alreadyFormatted }
        #expect(await Self.writes(other) == 0)
    }

    @Test("through NFCTag.connect: identification names the SLIX2 and .ndef is the Type 5 mapping")
    func throughTheTagEnum() async throws {
        let reader = SimulatedReader(tags: [ICodeSLIX2(uid: Self.uid)], emptyFieldWait: .zero)
        let target = try #require(try await reader.poll(for: [.iso15693], timeout: .zero))
        let tag = try await NFCTag.connect(to: target, on: reader)
        #expect(tag.identity.model == "ICODE SLIX2")
        let message = try Self.url("https://enum.example")
        try await tag.ndef.writeNDEF(message)
        #expect(try await tag.ndef.readNDEF() == message)
        guard case .iso15693(let vicinity) = tag else {
            Issue.record("not .iso15693: \(tag)")
            return
        }
        #expect(vicinity.ndefPlatform is Type5Tag)
    }

    // MARK: - Tearing

    static func state(_ chip: ICodeSLIX2) -> TagState { chip.tagState }

    static func makeTag(_ reader: SimulatedReader, _ target: TargetInfo) async throws -> any NFCNDEFTag {
        guard case .iso15693(let v) = target else { throw NFCTagError(.notSupported, "not ISO 15693") }
        return Type5Tag(tag: ISO15693Tag(reader: reader, target: v, identity: identity))
    }

    @Test("tearing sweep of writeNDEF: old, empty or new, never corrupt", arguments: [
        ("https://old.example/o", "https://example.org/a-new-and-longer-message"),
        ("https://example.com/" + String(repeating: "o", count: 270), "https://n.example"),
        ("https://n.example", "https://example.com/" + String(repeating: "n", count: 270)),
    ])
    func tearingWrite(old: String, new: String) async throws {
        let oldMessage = try Self.url(old), newMessage = try Self.url(new)
        let outcomes = try await TearingSweep.run(
            "type 5 write", initial: try Self.slix2(message: oldMessage).tagState, modulations: [.iso15693],
            makeTag: Self.makeTag, operation: { tag throws(NFCTagError) in try await tag.writeNDEF(newMessage) },
            classify: TearingSweep.messageClassifier(old: oldMessage, new: newMessage))
        #expect(outcomes["new", default: 0] >= 1)
        #expect(outcomes["empty", default: 0] >= 1)
    }

    @Test("tearing sweep of the first write on a fresh tag (no zero-length write): empty or new")
    func tearingFirstWrite() async throws {
        let newMessage = try Self.url("https://www.example.com/abc")
        let outcomes = try await TearingSweep.run(
            "type 5 first write", initial: ICodeSLIX2(uid: Self.uid).tagState, modulations: [.iso15693],
            makeTag: Self.makeTag, operation: { tag throws(NFCTagError) in try await tag.writeNDEF(newMessage) },
            classify: TearingSweep.messageClassifier(old: .empty, new: newMessage))
        // 10 commands: 2 reads, GET MULTIPLE BLOCK PROTECTION STATUS, 6 writes, the read-back.
        #expect(outcomes["commands"] == 10)
        #expect(outcomes["new", default: 0] >= 1 && outcomes["old", default: 0] >= 1)
    }

    @Test("a chip that acknowledges LOCK BLOCK without locking: writeLock reads the lock state back and fails (verificationFailed), never reports the tag locked")
    func lockThatDoesNotLock() async throws {
        let message = try Self.url("https://locked.example")
        let reader = SimulatedReader(tags: [LockIgnoringSLIX2(try Self.slix2(message: message))], emptyFieldWait: .zero)
        let target = try #require(try await reader.poll(for: [.iso15693], timeout: .zero))
        guard case .iso15693(let v) = target else {
            Issue.record("not an ISO 15693 target: \(target)")
            return
        }
        let tag = Type5Tag(tag: ISO15693Tag(reader: reader, target: v, identity: Self.identity))
        await #expect { try await tag.writeLock() } throws: { error in
            guard let error = error as? NFCTagError else { return false }
            return error.code == .verificationFailed && error.reason.contains("block 0 reads back unlocked")
        }
        // The chip's own state: no block locked (the wrapper swallowed every LOCK BLOCK).
        let seen = await reader.withField { field in
            ((field.currentTag ?? field.removedTags.last) as? LockIgnoringSLIX2).map { ($0.inner.lockedBlocks, $0.swallowed) }
        }
        let (locked, swallowed) = try #require(seen)
        #expect(locked.allSatisfy { !$0 })
        #expect(swallowed == 79)
    }

    @Test("tearing sweep of writeLock: unchanged, or read-only with the message kept (a rerun completes); never half-locked while reading read-write")
    func tearingLock() async throws {
        let message = try Self.url("https://lock.example")
        let initial = try Self.slix2(message: message).tagState
        let outcomes = try await TearingSweep.run(
            "type 5 lock", initial: initial, modulations: [.iso15693],
            makeTag: Self.makeTag, operation: { tag throws(NFCTagError) in try await tag.writeLock() },
            classifyState: { state, tag in
                guard try await tag.readNDEF() == message else { return "corrupt: message changed" }
                if state == initial { return "unchanged" }
                guard try await tag.queryNDEFStatus().status == .readOnly else { return "corrupt: half-locked but reads read-write" }
                try await tag.writeLock()
                guard try await tag.queryNDEFStatus().status == .readOnly, try await tag.readNDEF() == message else {
                    return "corrupt: a rerun does not complete the lock"
                }
                return "read-only, message kept"
            })
        #expect(outcomes["read-only, message kept", default: 0] >= 1)
        #expect(outcomes["unchanged", default: 0] >= 1)
        #expect(outcomes["commands"] == 89)  // 3 to ask the password protection, 82 to lock, 4 to read the lock state back
    }

    @Test("tearing sweep of format: blank or empty NDEF; forced over a message: old or empty")
    func tearingFormat() async throws {
        let blank = ICodeSLIX2(uid: Self.uid, memory: [UInt8](repeating: 0, count: 320)).tagState
        let oldMessage = try Self.url("https://old.example")
        // "old" only when the message read is exactly the old one; from a blank chip no message
        // can be old.
        func classify(old: NDEFMessage?) -> (any NFCNDEFTag) async throws -> String {
            { tag in
                let query = try await tag.queryNDEFStatus()
                if query.status == .notSupported { return "blank" }
                let read = try await tag.readNDEF()
                return read == .empty ? "empty" : read == old ? "old" : "corrupt: \(read)"
            }
        }
        let fromBlank = try await TearingSweep.run(
            "type 5 format", initial: blank, modulations: [.iso15693], makeTag: Self.makeTag,
            operation: { tag throws(NFCTagError) in try await tag.format(force: false) }, classify: classify(old: nil))
        #expect(fromBlank["empty", default: 0] >= 1)
        let forced = try await TearingSweep.run(
            "type 5 forced format", initial: try Self.slix2(message: oldMessage).tagState,
            modulations: [.iso15693], makeTag: Self.makeTag,
            operation: { tag throws(NFCTagError) in try await tag.format(force: true) }, classify: classify(old: oldMessage))
        #expect(forced["empty", default: 0] >= 1)
    }
}

/// A reader between the tests and the simulator (its trace is what it was asked): refuses Read
/// Multiple Blocks when told to (error `01`), and turns the extended commands `30`–`33`, which
/// the SLIX2 lacks, into `20`–`23` so that the `E2` path can run against the model.
func commandAdapter(_ inner: SimulatedReader, refuseReadMultiple: Bool) -> ScriptedReader {
    ScriptedReader(interposingOn: inner, modulations: [.iso15693], name: "adapter") { command, _ in
        var frame = command.array
        guard frame.count >= 10 else { return .forward(command) }
        if refuseReadMultiple && frame[1] == 0x23 { return .reply(.answer([0x01, 0x01])) }
        switch frame[1] {
        case 0x30, 0x31, 0x32:
            frame[1] -= 0x10
            frame.remove(at: 11)
        case 0x33:
            frame[1] = 0x23
            frame.remove(at: 13)
            frame.remove(at: 11)
        default: break
        }
        return .forward(Bytes(frame))
    }
}

/// A tag that answers pseudo-random bytes: mostly a success flag `00` with a plausible
/// block-sized or random tail, sometimes an error response, sometimes nothing. Exercises every
/// parser of the Type 5 mapping with shapes a real tag could send.
struct HostileType5Tag: ScriptedTag {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    private mutating func next() -> Int {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Int(state >> 33)
    }

    mutating func answer(_ command: Bytes, mode: TransceiveMode) throws(NFCReaderDeviceError) -> Bytes {
        switch next() % 10 {
        case 0: return Bytes()
        case 1: return Bytes([0x01, UInt8(truncatingIfNeeded: next())])
        case 2: throw NFCReaderDeviceError(.timeout, "no answer")
        case 3...6:
            // A block-shaped answer: flags 00, then 1–12 blocks of 4 or 5 bytes with CC-like bytes.
            let per = next() % 2 == 0 ? 4 : 5
            let pool: [UInt8] = [0x00, 0x01, 0x03, 0x27, 0x40, 0x43, 0xE1, 0xE2, 0xFD, 0xFE, 0xFF, 0x14, 0x08]
            return Bytes([0x00] + (0..<(per * (1 + next() % 12))).map { _ in pool[next() % pool.count] })
        default:
            return Bytes((0..<(next() % 24)).map { _ in UInt8(truncatingIfNeeded: next()) })
        }
    }
}

/// A SLIX2 that answers LOCK BLOCK (`22`) with success but locks nothing: what a faulty or
/// counterfeit chip may do. Every other command goes to the real virtual chip.
final class LockIgnoringSLIX2: VirtualTag {
    let inner: ICodeSLIX2
    /// LOCK BLOCK commands answered without locking.
    private(set) var swallowed = 0

    init(_ inner: ICodeSLIX2) { self.inner = inner }

    var modelName: String { inner.modelName }
    var targetInfo: TargetInfo { inner.targetInfo }
    func respond(to frame: [UInt8]) -> TagAnswer {
        if frame.count >= 2, frame[0] & ISO15693RequestFlag.inventory == 0, frame[1] == ISO15693Command.lockBlock {
            swallowed += 1
            return .data([0x00])
        }
        return inner.respond(to: frame)
    }
    func powerOn() { inner.powerOn() }
    func halt() { inner.halt() }
}
