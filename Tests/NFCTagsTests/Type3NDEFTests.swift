import NDEF
import NFCCore
import NFCTags
import NFCTestSupport
import Testing
import VirtualTags

/// Type 3 NDEF over the reader seam against a virtual FeliCa Lite-S in the simulator:
/// detection, read, write, lock, format, "no write before every check passes" and tear safety,
/// asserted on the field's command trace.
@Suite("Type 3 NDEF on a virtual FeliCa Lite-S", .timeLimit(.minutes(10)))
struct Type3NDEFTests {
    static let idm: [UInt8] = [0x01, 0x2E, 0x53, 0x49, 0x4D, 0x00, 0x00, 0x01]

    /// Where block `number` lives in ``FeliCaLiteS/memory``.
    static func offset(_ number: UInt16) -> Int {
        (FeliCaLiteS.blockNumbers.firstIndex(of: number) ?? 0) * FeliCaLiteS.blockSize
    }

    /// A fresh NDEF-formatted Lite-S, its memory edited by `edit`.
    static func chip(_ edit: (inout [UInt8]) -> Void = { _ in }) -> FeliCaLiteS {
        var memory = FeliCaLiteS(idm: idm).memory
        edit(&memory)
        return FeliCaLiteS(idm: idm, memory: memory)
    }

    /// A Lite-S holding `encoded` as its NDEF message (attribute block with Ln, data from block 1).
    static func chip(storing encoded: [UInt8]) -> FeliCaLiteS {
        chip { memory in
            memory.replaceSubrange(0..<16, with: FeliCaLiteS.attributeInformationBlock(length: UInt32(encoded.count)))
            memory.replaceSubrange(16..<(16 + encoded.count), with: encoded)
        }
    }

    /// A blank Lite-S as it leaves the factory for NDEF use: block 0 all zero, SYS_OP 00.
    static func blankChip() -> FeliCaLiteS {
        chip { memory in
            memory.replaceSubrange(0..<16, with: [UInt8](repeating: 0, count: 16))
            memory[offset(0x88) + 3] = 0x00
        }
    }

    /// The platform object for a polled FeliCa target.
    static func type3(_ reader: any NFCReader, _ target: TargetInfo) throws -> Type3Tag {
        guard case .felica(let f) = target else { throw NFCTagError(.notSupported, "not FeliCa") }
        return Type3Tag(feliCa: FeliCaTag(reader: reader, target: f, identity: ChipIdentity(model: "FeliCa Lite-S", platform: .type3, family: .feliCaLite)))
    }

    /// A traced simulator with `chip` on it, polled and selected.
    static func open(_ chip: sending FeliCaLiteS) async throws -> (SimulatedReader, Type3Tag) {
        let reader = SimulatedReader(tags: [chip], emptyFieldWait: .zero)
        await reader.withField { $0.isTracing = true }
        let target = try #require(try await reader.poll(for: [.felica212], timeout: .zero))
        return (reader, try type3(reader, target))
    }

    /// The trace in short: `R 0,1,2,3` (Read Without Encryption of those blocks), `W 0`
    /// (Write Without Encryption), `P 12FC`, or the command code in hex.
    static func trace(_ reader: SimulatedReader) async -> [String] {
        await reader.withField { field in field.trace.map { describe($0.command) } }
    }

    /// A command in short (NFCTestSupport's ``type3Summary(_:)``).
    static func describe(_ command: [UInt8]) -> String { type3Summary(command) }

    /// The data of each Write Without Encryption, in order.
    static func writes(_ reader: SimulatedReader) async -> [[UInt8]] {
        await reader.withField { field in
            field.trace.map(\.command).filter { $0.first == Type3Command.writeWithoutEncryption }.map { Array($0.suffix(16)) }
        }
    }

    static func writeCount(_ reader: SimulatedReader) async -> Int { await writes(reader).count }

    static func url(_ text: String) throws -> NDEFMessage {
        NDEFMessage(records: [try NDEFPayload.wellKnownTypeURIPayload(url: text)])
    }

    /// A message of exactly `length` encoded bytes (one record, TNF unknown).
    static func message(length: Int) -> NDEFMessage {
        let payload = length < 259 ? length - 3 : length - 6
        return NDEFMessage(records: [NDEFPayload(format: .unknown, type: Bytes(), payload: Bytes([UInt8](repeating: 0x5A, count: payload)))])
    }

    static func state(_ reader: SimulatedReader) async -> TagState? {
        await TearingSweep.state(reader)
    }

    // MARK: - Detection and read

    @Test("a fresh Lite-S is read-write with 208 bytes and empty; the query is one Read of blocks 0-3")
    func freshQuery() async throws {
        let (reader, tag) = try await Self.open(Self.chip())
        #expect(try await tag.queryNDEFStatus() == NDEFQuery(status: .readWrite, capacity: 208, messageLength: 0))
        #expect(await Self.trace(reader) == ["R 0,1,2,3"])
        #expect(try await tag.readNDEF() == .empty)
        #expect(await Self.writeCount(reader) == 0)
    }

    @Test("a stored 20-byte URL message is read with one command; 100 bytes take two (Nbr 4)")
    func readCounts() async throws {
        let short = try Self.url("https://www.example.com/abc")
        let shortBytes = try short.encoded()
        #expect(shortBytes.count == 20)
        let (reader, tag) = try await Self.open(Self.chip(storing: shortBytes))
        #expect(try await tag.readNDEF() == short)
        #expect(await Self.trace(reader) == ["R 0,1,2,3"])
        let long = Self.message(length: 100)
        let (reader2, tag2) = try await Self.open(Self.chip(storing: try long.encoded()))
        #expect(try await tag2.readNDEF() == long)
        #expect(await Self.trace(reader2) == ["R 0,1,2,3", "R 4,5,6,7"])
    }

    // MARK: - Write

    /// Formatted empty Lite-S, 20-byte message = blocks 1 and 2. Read 0–3 (attribute block and
    /// the old content of blocks 1–2 in one command); attribute block with WriteF 0F; block 1;
    /// block 2; attribute block with WriteF 00 and Ln 20; read-back of 0–2. The datasheet
    /// minimum is 3 writes (blocks 1, 2 and the attribute block); the 4th (WriteF 0F) is the
    /// Type 3 spec's tear marker.
    @Test("writing a 20-byte URL record on a formatted Lite-S sends exactly the documented commands")
    func exactTrace() async throws {
        let (reader, tag) = try await Self.open(Self.chip())
        let message = try Self.url("https://www.example.com/abc")
        let encoded = try message.encoded()
        #expect(encoded.count == 20)
        try await tag.writeNDEF(message)
        #expect(await Self.trace(reader) == ["R 0,1,2,3", "W 0", "W 1", "W 2", "W 0", "R 0,1,2"])
        let written = await Self.writes(reader)
        #expect(written[0] == FeliCaLiteS.attributeInformationBlock(writeFlag: 0x0F, length: 0))
        #expect(written[1] == Array(encoded[0..<16]))
        #expect(written[2] == Array(encoded[16..<20]) + [UInt8](repeating: 0, count: 12))
        #expect(written[3] == FeliCaLiteS.attributeInformationBlock(length: 20))
        #expect(try await tag.readNDEF() == message)
    }

    @Test("messages of 1 to 208 bytes are written and read back", arguments: [3, 16, 17, 48, 49, 100, 207, 208])
    func roundTrip(length: Int) async throws {
        let (_, tag) = try await Self.open(Self.chip())
        let message = Self.message(length: length)
        #expect(try message.encoded().count == length)
        try await tag.writeNDEF(message)
        #expect(try await tag.readNDEF() == message)
        #expect(try await tag.queryNDEFStatus().messageLength == length)
    }

    @Test("a message over the capacity by N bytes is refused with no write", arguments: [1, 2, 17])
    func oversize(over: Int) async throws {
        let (reader, tag) = try await Self.open(Self.chip())
        let message = Self.message(length: 208 + over)
        do {
            try await tag.writeNDEF(message)
            Issue.record("oversize message written")
        } catch {
            #expect(error.code == .capacityExceeded)
            #expect(error.reason.hasSuffix("by \(over) byte\(over == 1 ? "" : "s")"), "\(error.reason)")
        }
        #expect(await Self.writeCount(reader) == 0)
    }

    @Test("each failed check sends no write: code and offset in block 0", arguments: [
        // (byte of block 0, value, keep checksum valid, code, offset)
        (10, 0x00, true, NFCTagError.Code.readOnly, 10),        // RWFlag 00
        (15, 0x24, false, .notNDEFFormatted, 14),               // checksum
        (0, 0x20, true, .notNDEFFormatted, 0),                  // version 2.0
        (1, 0x00, true, .malformedTag, 1),                      // Nbr 0
        (2, 0x00, true, .malformedTag, 2),                      // Nbw 0
        (9, 0x0E, true, .malformedTag, 9),                      // WriteF neither 00 nor 0F
        (13, 0xD1, true, .malformedTag, 11),                    // Ln 209 > 208
    ] as [(Int, UInt8, Bool, NFCTagError.Code, Int)])
    func checksBeforeWriting(byte: Int, value: UInt8, fixChecksum: Bool, code: NFCTagError.Code, offset: Int) async throws {
        let chip = Self.chip { memory in
            memory[byte] = value
            if fixChecksum {
                let sum = memory[0..<14].reduce(0) { $0 + Int($1) }
                memory[14] = UInt8(sum >> 8)
                memory[15] = UInt8(sum & 0xFF)
            }
        }
        let (reader, tag) = try await Self.open(chip)
        let message = try Self.url("https://www.example.com/abc")
        do {
            try await tag.writeNDEF(message)
            Issue.record("written despite \(code)")
        } catch {
            #expect(error.code == code)
            #expect(error.offset == offset)
        }
        #expect(await Self.writeCount(reader) == 0)
        // Reading reports the same fault; query maps "not NDEF" to notSupported.
        if code == .notNDEFFormatted {
            #expect(try await tag.queryNDEFStatus() == NDEFQuery(status: .notSupported, capacity: 0, messageLength: 0))
        } else if code == .readOnly {
            #expect(try await tag.queryNDEFStatus().status == .readOnly)
        } else {
            await #expect(throws: NFCTagError.self) { try await tag.readNDEF() }
        }
    }

    @Test("an empty message on a formatted tag is read as the empty message, with Ln 0")
    func emptyMessage() async throws {
        let (_, tag) = try await Self.open(Self.chip(storing: try Self.url("https://a.example").encoded()))
        try await tag.writeNDEF(.empty)
        let read = try await tag.readNDEF()
        #expect(read == .empty)
    }

    @Test("stored bytes that do not decode are malformedMessage with their tag memory address")
    func malformedMessage() async throws {
        let (_, tag) = try await Self.open(Self.chip(storing: [0xD1, 0x01, 0x30, 0x55, 0x00]))
        do {
            _ = try await tag.readNDEF()
            Issue.record("garbage decoded")
        } catch {
            #expect(error.code == .malformedMessage)
            #expect((error.offset ?? 0) >= 16)
        }
    }

    @Test("WriteF 0F (an interrupted write) makes read fail at offset 9; query still answers; a new write repairs it")
    func interruptedWrite() async throws {
        let old = try Self.url("https://old.example/1")
        let chip = Self.chip { memory in
            let encoded = (try? old.encoded()) ?? []
            memory.replaceSubrange(0..<16, with: FeliCaLiteS.attributeInformationBlock(writeFlag: 0x0F, length: UInt32(encoded.count)))
            memory.replaceSubrange(16..<(16 + encoded.count), with: encoded)
        }
        let (_, tag) = try await Self.open(chip)
        do {
            _ = try await tag.readNDEF()
            Issue.record("read an interrupted write")
        } catch {
            #expect(error.code == .malformedTag && error.offset == 9)
        }
        #expect(try await tag.queryNDEFStatus().status == .readWrite)
        let new = try Self.url("https://new.example/2")
        try await tag.writeNDEF(new)
        #expect(try await tag.readNDEF() == new)
    }

    @Test("rewriting the same message writes nothing; one changed block costs WriteF 0F, the block, the attribute block")
    func onlyChangedBlocks() async throws {
        let (reader, tag) = try await Self.open(Self.chip())
        try await tag.writeNDEF(try Self.url("https://example.com/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"))
        await reader.withField { $0.trace.removeAll() }
        try await tag.writeNDEF(try Self.url("https://example.com/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"))
        #expect(await Self.writeCount(reader) == 0)
        await reader.withField { $0.trace.removeAll() }
        try await tag.writeNDEF(try Self.url("https://example.com/aaaaaaaaaaaaaaaaaaaaaaaaaaaaab"))
        #expect(await Self.trace(reader).filter { $0.hasPrefix("W") } == ["W 0", "W 3", "W 0"])  // the last character is byte 46 of the message: block 3
    }

    // MARK: - FeliCa commands on the virtual tag

    @Test("Polling FFFF answers 88B4, Polling 12FC answers 12FC; Request System Code lists both")
    func feliCaCommands() async throws {
        let (_, tag) = try await Self.open(Self.chip())
        let feliCa = tag.feliCa
        #expect(try await feliCa.polling(systemCode: 0xFFFF, requestCode: .systemCode).requestData.array == [0x88, 0xB4])
        #expect(try await feliCa.polling(systemCode: 0x12FC, requestCode: .systemCode).requestData.array == [0x12, 0xFC])
        #expect(try await feliCa.polling(systemCode: 0x12FC).manufactureParameter.array == FeliCaLiteS.pmm)
        #expect(try await feliCa.requestSystemCode() == [0x88B4, 0x12FC])
        #expect(try await feliCa.requestService(nodeCodeList: [0x000B, 0x0009, 0x1234]) == [0, 0, 0xFFFF])
        #expect(try await feliCa.requestResponse() == 0)
        do {
            _ = try await feliCa.readWithoutEncryption(serviceCodeList: [0x000B], blockList: [FeliCaBlockListElement(blockNumber: 0x0F)])
            Issue.record("block 0F read")
        } catch {
            #expect(error.code == .tagResponse && error.offset == 0xF0)
            #expect(error.reason.contains("status flags 01 A8"), "\(error.reason)")
        }
    }

    // MARK: - Lock

    /// Read 0 and MC in one command; attribute block with RWFlag 00; MC `00 40 00 01 07 …`;
    /// read-back of 0 and MC. Datasheet minimum: 1 read (MC's other bytes are kept) + 2 writes.
    @Test("writeLock sets RWFlag 00 and the one-way MC bits; after power-on the S_PADs refuse writes")
    func lock() async throws {
        let message = try Self.url("https://www.example.com/abc")
        let (reader, tag) = try await Self.open(Self.chip(storing: try message.encoded()))
        try await tag.writeLock()
        #expect(await Self.trace(reader) == ["R 0,88", "W 0", "W 88", "R 0,88"])
        let written = await Self.writes(reader)
        #expect(written[1] == [0x00, 0x40, 0x00, 0x01, 0x07, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
        // Power cycle: the new MC governs.
        let after = try #require(await Self.state(reader))
        let (reader2, tag2) = try await Self.open(try #require(FeliCaLiteS(state: after)))
        #expect(try await tag2.queryNDEFStatus().status == .readOnly)
        #expect(try await tag2.readNDEF() == message)
        await #expect(throws: NFCTagError.self) { try await tag2.writeNDEF(try Self.url("https://x.example")) }
        #expect(await Self.writeCount(reader2) == 0)
        do {
            try await tag2.feliCa.writeWithoutEncryption(
                serviceCodeList: [0x0009], blockList: [FeliCaBlockListElement(blockNumber: 1)], blockData: [Bytes([UInt8](repeating: 0, count: 16))])
            Issue.record("a locked S_PAD accepted a write")
        } catch {
            #expect(error.code == .tagResponse && error.reason.contains("A8"))
        }
        // Locking again sends no write.
        await reader2.withField { $0.trace.removeAll() }
        try await tag2.writeLock()
        #expect(await Self.trace(reader2) == ["R 0,88", "R 0,88"])
    }

    // MARK: - Format

    /// Blank Lite-S: read 0, MC, 1, 2; read 3–6, 7–10, 11–13 (no data anywhere); MC with
    /// SYS_OP 01; the attribute block; read-back of 0 and MC. Datasheet minimum: 1 read (MC)
    /// and 2 writes; the other reads are the "no data present" check.
    @Test("format of a blank Lite-S: SYS_OP 01 then the attribute block; 12FC answers after power-on")
    func formatBlank() async throws {
        let (reader, tag) = try await Self.open(Self.blankChip())
        // SYS_OP 00: the card has no system 12FC, so polling cannot report one.
        #expect(tag.feliCa.currentSystemCode == 0x88B4)
        #expect(try await tag.queryNDEFStatus().status == .notSupported)
        await reader.withField { $0.trace.removeAll() }
        try await tag.format()
        #expect(await Self.trace(reader) == ["R 0,88,1,2", "R 3,4,5,6", "R 7,8,9,A", "R B,C,D", "W 88", "W 0", "R 0,88"])
        #expect(await Self.writes(reader)[1] == FeliCaLiteS.attributeInformationBlock())
        let after = try #require(await Self.state(reader))
        let (_, tag2) = try await Self.open(try #require(FeliCaLiteS(state: after)))
        #expect(tag2.feliCa.currentSystemCode == 0x12FC)
        #expect(try await tag2.feliCa.polling(systemCode: 0x12FC, requestCode: .systemCode).requestData.array == [0x12, 0xFC])
        #expect(try await tag2.queryNDEFStatus() == NDEFQuery(status: .readWrite, capacity: 208, messageLength: 0))
        try await tag2.writeNDEF(try Self.url("https://www.example.com/abc"))
    }

    @Test("format refuses a tag holding a message or other data unless forced, with no write")
    func formatRefuses() async throws {
        let message = try Self.url("https://www.example.com/abc")
        let (reader, tag) = try await Self.open(Self.chip(storing: try message.encoded()))
        await #expect(throws: NFCTagError.self) { try await tag.format() }
        #expect(await Self.writeCount(reader) == 0)
        try await tag.format(force: true)
        #expect(try await tag.readNDEF() == .empty)

        let dirty = Self.chip { memory in
            memory.replaceSubrange(0..<16, with: [UInt8](repeating: 0, count: 16))
            memory[5 * 16 + 3] = 0x42
        }
        let (reader2, tag2) = try await Self.open(dirty)
        do {
            try await tag2.format()
            Issue.record("formatted over data")
        } catch {
            #expect(error.code == .alreadyFormatted && error.offset == 5 * 16 + 3)
        }
        #expect(await Self.writeCount(reader2) == 0)
    }

    @Test("format with SYS_OP 00 and MC_ALL 00 (frozen) is notSupported, with no write")
    func formatFrozen() async throws {
        let chip = Self.chip { memory in
            memory.replaceSubrange(0..<16, with: [UInt8](repeating: 0, count: 16))
            memory[Self.offset(0x88) + 2] = 0x00
            memory[Self.offset(0x88) + 3] = 0x00
        }
        let (reader, tag) = try await Self.open(chip)
        do {
            try await tag.format()
            Issue.record("formatted a frozen tag")
        } catch {
            #expect(error.code == .notSupported && error.offset == 0x88 * 16 + 3)
        }
        #expect(await Self.writeCount(reader) == 0)
    }

    @Test("format of a formatted empty Lite-S writes nothing; forced over a message it writes only the attribute block")
    func formatAgain() async throws {
        let (reader, tag) = try await Self.open(Self.chip())
        try await tag.format()
        #expect(await Self.trace(reader) == ["R 0,88,1,2", "R 0,88"])
        let (reader2, tag2) = try await Self.open(Self.chip(storing: try Self.url("https://www.example.com/abc").encoded()))
        try await tag2.format(force: true)
        #expect(await Self.trace(reader2) == ["R 0,88,1,2", "W 0", "R 0,88"])
        #expect(try await tag2.readNDEF() == .empty)
    }

    /// The same virtual card seen as a FeliCa that is not a Lite-S (PMm IC type 01).
    static func openAsOtherFeliCa(_ chip: sending FeliCaLiteS) async throws -> (SimulatedReader, Type3Tag) {
        let (reader, liteS) = try await open(chip)
        var target = liteS.feliCa.target
        target.pmm = Bytes([0x01, 0x01] + FeliCaLiteS.pmm.dropFirst(2))
        target.systemCode = 0x88B4  // as after libnfc's Polling for FFFF
        let feliCa = FeliCaTag(reader: reader, target: target, identity: ChipIdentity(model: "FeliCa (IC type 0x01)", platform: .type3))
        #expect(!feliCa.isFeliCaLiteS)
        return (reader, Type3Tag(feliCa: feliCa))
    }

    @Test("on a FeliCa other than the Lite-S: Polling 12FC first, block 0 read alone, lock sets RWFlag only, format is notSupported")
    func otherFeliCa() async throws {
        let message = try Self.url("https://www.example.com/abc")
        let (reader, tag) = try await Self.openAsOtherFeliCa(Self.chip(storing: try message.encoded()))
        #expect(try await tag.readNDEF() == message)
        #expect(await Self.trace(reader) == ["P 12FC", "R 0", "R 1,2"])
        await reader.withField { $0.trace.removeAll() }
        try await tag.writeLock()
        #expect(await Self.trace(reader) == ["P 12FC", "R 0", "W 0", "R 0"])
        #expect(try await tag.queryNDEFStatus().status == .readOnly)
        await reader.withField { $0.trace.removeAll() }
        do {
            try await tag.format(force: true)
            Issue.record("formatted a card of unknown layout")
        } catch {
            #expect(error.code == .notSupported)
        }
        #expect(await Self.trace(reader).isEmpty)
    }

    @Test("a FeliCa card without system 12FC is not NDEF, whatever block 0 holds")
    func noNDEFSystem() async throws {
        let (reader, tag) = try await Self.openAsOtherFeliCa(Self.chip { memory in memory[Self.offset(0x88) + 3] = 0x00 })
        #expect(try await tag.queryNDEFStatus() == NDEFQuery(status: .notSupported, capacity: 0, messageLength: 0))
        #expect(await Self.trace(reader) == ["P 12FC"])
        do {
            _ = try await tag.readNDEF()
            Issue.record("read NDEF without system 12FC")
        } catch {
            #expect(error.code == .notNDEFFormatted)
        }
    }

    // MARK: - Tearing

    static func makeTag(_ reader: SimulatedReader, _ target: TargetInfo) async throws -> any NFCNDEFTag {
        try type3(reader, target)
    }

    /// "old", "new", or "interrupted" (WriteF 0F, detected by readNDEF); anything else is corrupt.
    static func writeClassifier(old: NDEFMessage, new: NDEFMessage) -> (any NFCNDEFTag) async throws -> String {
        { tag in
            do throws(NFCTagError) {
                let read = try await tag.readNDEF()
                return read == old ? "old" : read == new ? "new" : "corrupt: \(read)"
            } catch where error.code == .malformedTag && error.offset == 9 {
                return "interrupted (WriteF 0F)"
            } catch {
                return "corrupt: \(error)"
            }
        }
    }

    @Test("a write torn after any command leaves the old message, WriteF 0F, or the new message")
    func tearingWrite() async throws {
        let old = try Self.url("https://old.example/" + String(repeating: "o", count: 40))
        let new = try Self.url("https://new.example/" + String(repeating: "n", count: 70))
        let initial = Self.chip(storing: try old.encoded()).tagState
        let outcomes = try await TearingSweep.run(
            "Type 3 write", initial: initial, modulations: [.felica212], makeTag: Self.makeTag,
            operation: { tag throws(NFCTagError) in try await tag.writeNDEF(new) },
            classify: Self.writeClassifier(old: old, new: new))
        #expect(outcomes["old"] ?? 0 > 0)
        #expect(outcomes["interrupted (WriteF 0F)"] ?? 0 > 0)
        #expect(outcomes["new"] ?? 0 > 0)
    }

    @Test("a lock torn at any cut leaves the message readable and the tag unchanged, soft-locked (RWFlag 00) or locked; never changed yet read-write")
    func tearingLock() async throws {
        let message = try Self.url("https://www.example.com/abc")
        let initial = Self.chip(storing: try message.encoded()).tagState
        let outcomes = try await TearingSweep.run(
            "Type 3 lock", initial: initial, modulations: [.felica212], makeTag: Self.makeTag,
            operation: { tag throws(NFCTagError) in try await tag.writeLock() },
            classifyState: { state, tag in
                guard (try? await tag.readNDEF()) == message else { return "corrupt: message lost" }
                if state == initial { return "unchanged" }
                let status = try await tag.queryNDEFStatus().status
                guard status == .readOnly else { return "corrupt: changed but reads read-write" }
                // Whether S_PAD1 is still reachable through the read/write service 0009 (the
                // Lite-S answers A8 for a read-only block): the MC written applies from power-on.
                let type3 = try #require(tag as? Type3Tag)
                let refused = await (try? type3.feliCa.readWithoutEncryption(
                    serviceCodeList: [0x0009], blockList: [FeliCaBlockListElement(blockNumber: 1)])) == nil
                return refused ? "locked" : "RWFlag 00 only"
            })
        #expect(outcomes["locked"] ?? 0 > 0)
    }

    @Test("a forced format over a message torn at any cut leaves the old message, WriteF 0F, or an empty one")
    func tearingForcedFormat() async throws {
        let old = try Self.url("https://old.example/" + String(repeating: "o", count: 40))
        let initial = Self.chip(storing: try old.encoded()).tagState
        let outcomes = try await TearingSweep.run(
            "Type 3 forced format", initial: initial, modulations: [.felica212], makeTag: Self.makeTag,
            operation: { tag throws(NFCTagError) in try await tag.format(force: true) },
            classify: Self.writeClassifier(old: old, new: .empty))
        #expect(outcomes["new"] ?? 0 > 0)  // "new" is the empty message here
        #expect(outcomes["old"] ?? 0 > 0 || outcomes["interrupted (WriteF 0F)"] ?? 0 > 0)
    }

    @Test("a format torn after any command leaves a blank, SYS_OP-only or formatted tag")
    func tearingFormat() async throws {
        let initial = Self.blankChip().tagState
        let outcomes = try await TearingSweep.run(
            "Type 3 format", initial: initial, modulations: [.felica212], makeTag: Self.makeTag,
            operation: { tag throws(NFCTagError) in try await tag.format(force: false) },
            classify: { tag in
                let query = try await tag.queryNDEFStatus()
                if query.status == .notSupported { return "not formatted" }
                let read = try await tag.readNDEF()
                return query == NDEFQuery(status: .readWrite, capacity: 208, messageLength: 0) && read == .empty
                    ? "formatted" : "corrupt: \(query)"
            })
        #expect(outcomes["formatted"] ?? 0 > 0)
    }
}
