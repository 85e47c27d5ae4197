import NDEF
import NFCCore
import NFCTags
import NFCTestSupport
import Testing
import VirtualTags

/// NDEF on MIFARE Classic (AN1304/AN1305, MAD of AN10787) over the reader seam against the
/// virtual MIFARE Classic 1K in the simulator: detection, read, write, lock, format, tear
/// safety and "no WRITE before every check passes", asserted on the field's command trace.
@Suite("MIFARE Classic NDEF on a virtual MIFARE Classic 1K", .timeLimit(.minutes(10)))
struct ClassicNDEFTests {
    static let uid: [UInt8] = [0xDE, 0xAD, 0xBE, 0xEF]
    static let identity = ChipIdentity(model: "MIFARE Classic 1K", platform: .mifareClassic, family: .mifareClassic, memoryBytes: 1024)
    static let madKey: [UInt8] = [0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5]
    static let nfcKey: [UInt8] = [0xD3, 0xF7, 0xD3, 0xF7, 0xD3, 0xF7]
    static let ffKey = [UInt8](repeating: 0xFF, count: 6)

    // MARK: - Fixtures, built from AN1304 bytes (not by the code under test)

    /// Memory of a 1K card NFC-formatted as NFC formatting tools leave it: MAD1 `14 01 03E1…`,
    /// sector 0 trailer `A0…A5 78 77 88 C1 FF…`, NFC trailers `D3F7… 7F 07 88 40 FF…` (or the
    /// read-only `07 8F 0F 43`), and the TLV stream `03 L message FE` from block 4 on.
    static func formattedMemory(message: [UInt8]? = nil, readOnly: Bool = false) -> [UInt8] {
        var memory = MifareClassic1K.freshMemory(uid: uid)
        let mad: [UInt8] = [0x14, 0x01] + Array([[UInt8]](repeating: [0x03, 0xE1], count: 15).joined())
        memory.replaceSubrange(16..<48, with: mad)
        let madBits: [UInt8] = readOnly ? [0x07, 0x8F, 0x0F, 0xC1] : [0x78, 0x77, 0x88, 0xC1]
        memory.replaceSubrange(48..<64, with: madKey + madBits + ffKey)
        let nfcBits: [UInt8] = readOnly ? [0x07, 0x8F, 0x0F, 0x43] : [0x7F, 0x07, 0x88, 0x40]
        for sector in 1..<16 {
            let trailer = (sector * 4 + 3) * 16
            memory.replaceSubrange(trailer..<trailer + 16, with: nfcKey + nfcBits + ffKey)
        }
        let body = message ?? []
        var tlv: [UInt8] = [0x03] + (body.count < 0xFF ? [UInt8(body.count)] : [0xFF, UInt8(body.count >> 8), UInt8(body.count & 0xFF)])
        tlv += body + [0xFE]
        let addresses = (1..<16).flatMap { sector in (sector * 4 * 16)..<((sector * 4 + 3) * 16) }
        for (address, byte) in zip(addresses, tlv) { memory[address] = byte }
        return memory
    }

    static func card(_ memory: [UInt8]? = nil) -> MifareClassic1K { MifareClassic1K(uid: uid, memory: memory) }

    /// A traced simulator holding `card`, polled, and the NDEF platform on it.
    static func open(_ card: sending MifareClassic1K) async throws -> (SimulatedReader, ClassicNDEFTag) {
        let reader = SimulatedReader(tags: [card], emptyFieldWait: .zero)
        await reader.withField { $0.isTracing = true }
        let info = try #require(try await reader.poll(for: [.iso14443A], timeout: .zero))
        return (reader, try makeTag(reader, info))
    }

    static func makeTag(_ reader: SimulatedReader, _ info: TargetInfo) throws -> ClassicNDEFTag {
        guard case .iso14443A(let target) = info else { throw NFCTagError(.notSupported, "not type A") }
        return ClassicNDEFTag(tag: MiFareTag(reader: reader, target: target, identity: identity))
    }

    /// The field's trace as `AUTH <block> <key>`, `READ <block>`, `WRITE <block>`.
    static func trace(_ reader: SimulatedReader) async -> [String] {
        await reader.withField { field in
            field.trace.map { exchange in
                let block = exchange.command.count > 1 ? Int(exchange.command[1]) : -1
                switch exchange.kind {
                case .authentication:
                    let key = Array(exchange.command.dropFirst())
                    let name = key == madKey ? "MAD" : key == nfcKey ? "NFC" : key == ffKey ? "FF" : "other"
                    return "AUTH \(exchange.command.first.map { Int($0) } ?? -1) \(name)"
                default:
                    switch exchange.command.first {
                    case ClassicCommand.read: return "READ \(block)"
                    case ClassicCommand.write: return "WRITE \(block)"
                    default: return Hex.encode(exchange.command)
                    }
                }
            }
        }
    }

    static func clearTrace(_ reader: SimulatedReader) async { await reader.withField { $0.trace = [] } }

    static func writes(_ reader: SimulatedReader) async -> Int { await trace(reader).filter { $0.hasPrefix("WRITE") }.count }

    static func memory(_ reader: SimulatedReader) async -> [UInt8] {
        await reader.withField { ($0.currentTag as? MifareClassic1K)?.memory ?? [] }
    }

    static func trailer(_ memory: [UInt8], sector: Int) -> [UInt8] {
        Array(memory[((sector * 4 + 3) * 16)..<((sector * 4 + 4) * 16)])
    }

    /// A URI record message of exactly 20 bytes: D1 01 10 55 04 "example.com/abc".
    static func url20() throws -> NDEFMessage {
        NDEFMessage(records: [try NDEFPayload.wellKnownTypeURIPayload(url: "https://example.com/abc")])
    }

    /// A MIME message whose encoding is exactly `size` bytes.
    static func message(ofSize size: Int) throws -> NDEFMessage {
        for count in stride(from: max(0, size - 20), through: size, by: 1) {
            let message = NDEFMessage(records: [
                try NDEFPayload.mimeTypePayload(type: "text/plain", data: Bytes([UInt8](repeating: 0x41, count: count)))
            ])
            if try message.encoded().count == size { return message }
        }
        throw NFCTagError(.invalidParameter, "no message of \(size) bytes")
    }

    // MARK: - Detection and read

    @Test("an NFC-formatted empty 1K is read-write, 716 bytes, empty; query costs 7 commands")
    func formattedEmptyQuery() async throws {
        let (reader, tag) = try await Self.open(Self.card(Self.formattedMemory()))
        #expect(try await tag.queryNDEFStatus() == NDEFQuery(status: .readWrite, capacity: 716, messageLength: 0))
        #expect(await Self.trace(reader) == ["AUTH 3 MAD", "READ 3", "READ 1", "READ 2", "AUTH 7 NFC", "READ 7", "READ 4"])
        #expect(try await tag.readNDEF() == .empty)
        #expect(await Self.writes(reader) == 0)
    }

    @Test("a stored 20-byte URL reads back in 8 commands: MAD, sector 1 trailer, blocks 4 and 5")
    func readStoredURL() async throws {
        let message = try Self.url20()
        let encoded = try message.encoded()
        #expect(encoded.count == 20)
        let (reader, tag) = try await Self.open(Self.card(Self.formattedMemory(message: encoded)))
        #expect(try await tag.readNDEF() == message)
        #expect(await Self.trace(reader) == [
            "AUTH 3 MAD", "READ 3", "READ 1", "READ 2", "AUTH 7 NFC", "READ 7", "READ 4", "READ 5",
        ])
    }

    @Test("a card in transport configuration is not NDEF: query says so, read and write refuse, nothing written")
    func transportCardIsNotNDEF() async throws {
        let (reader, tag) = try await Self.open(Self.card())
        #expect(try await tag.queryNDEFStatus() == NDEFQuery(status: .notSupported, capacity: 0, messageLength: 0))
        await #expect(throws: NFCTagError.self) { try await tag.readNDEF() }
        let message = try Self.url20()
        do {
            try await tag.writeNDEF(message)
            Issue.record("write succeeded")
        } catch {
            #expect(error.code == .notNDEFFormatted)
        }
        #expect(await Self.writes(reader) == 0)
    }

    @Test("a NULL TLV and a Proprietary TLV before the NDEF TLV are stepped over")
    func tlvsBeforeNDEF() async throws {
        let message = try Self.url20()
        var memory = Self.formattedMemory()
        let encoded = try message.encoded()
        let stream: [UInt8] = [0x00, 0x00, 0xFD, 0x02, 0xAA, 0xBB, 0x03, UInt8(encoded.count)] + encoded + [0xFE]
        let addresses = (1..<16).flatMap { sector in (sector * 64)..<(sector * 64 + 48) }
        for (address, byte) in zip(addresses, stream) { memory[address] = byte }
        let (_, tag) = try await Self.open(Self.card(memory))
        #expect(try await tag.readNDEF() == message)
        #expect(try await tag.queryNDEFStatus().capacity == 716 - 6)
        // A write keeps the TLVs before the NDEF TLV.
        let other = NDEFMessage(records: [try NDEFPayload.wellKnownTypeURIPayload(url: "https://b.example")])
        try await tag.writeNDEF(other)
        #expect(try await tag.readNDEF() == other)
    }

    @Test("a MAD with a wrong CRC is a malformed tag at address 16")
    func badMADCRC() async throws {
        var memory = Self.formattedMemory()
        memory[16] ^= 0xFF
        let (_, tag) = try await Self.open(Self.card(memory))
        do {
            _ = try await tag.queryNDEFStatus()
            Issue.record("accepted")
        } catch {
            #expect(error.code == .malformedTag)
            #expect(error.offset == 16)
        }
    }

    // MARK: - Write

    @Test("a 20-byte URL write on an empty formatted card: the exact command sequence, 11 commands + 2 to verify")
    func writeURLSequence() async throws {
        let (reader, tag) = try await Self.open(Self.card(Self.formattedMemory()))
        let message = try Self.url20()
        try await tag.writeNDEF(message)
        #expect(await Self.trace(reader) == [
            "AUTH 3 MAD", "READ 3", "READ 1", "READ 2",  // MAD: GPB, then the directory
            "AUTH 7 NFC", "READ 7", "READ 4",  // first NFC sector: GPB/access bits, the NDEF TLV
            "READ 5",  // the other block the new TLV covers
            "WRITE 4", "WRITE 5", "WRITE 4",  // length 0, the rest, the real length
            "READ 4", "READ 5",  // verify
        ])
        let memory = await Self.memory(reader)
        let encoded = try message.encoded()
        #expect(Array(memory[64..<87]) == [0x03, 0x14] + encoded + [0xFE])
        await Self.clearTrace(reader)
        #expect(try await tag.readNDEF() == message)
    }

    @Test("messages across several sectors: exactly the capacity fits and reads back; a shorter one replaces it")
    func fullCapacity() async throws {
        let (reader, tag) = try await Self.open(Self.card(Self.formattedMemory()))
        let full = try Self.message(ofSize: 716)
        try await tag.writeNDEF(full)
        #expect(try await tag.readNDEF() == full)
        #expect(try await tag.queryNDEFStatus().messageLength == 716)
        // No trailer was touched.
        let memory = await Self.memory(reader)
        for sector in 1..<16 { #expect(Self.trailer(memory, sector: sector) == Self.nfcKey + [0x7F, 0x07, 0x88, 0x40] + Self.ffKey) }
        let short = try Self.url20()
        try await tag.writeNDEF(short)
        #expect(try await tag.readNDEF() == short)
    }

    @Test("a message over capacity by N bytes is refused with N in the reason and no WRITE", arguments: [1, 2, 100])
    func oversize(by over: Int) async throws {
        let (reader, tag) = try await Self.open(Self.card(Self.formattedMemory()))
        let message = try Self.message(ofSize: 716 + over)
        do {
            try await tag.writeNDEF(message)
            Issue.record("accepted")
        } catch {
            #expect(error.code == .capacityExceeded)
            #expect(error.reason.contains("by \(over) byte"))
        }
        #expect(await Self.writes(reader) == 0)
    }

    @Test("a read-only card (07 8F 0F, GPB 43) queries read-only and refuses a write with no WRITE")
    func readOnlyCard() async throws {
        let message = try Self.url20()
        let (reader, tag) = try await Self.open(Self.card(Self.formattedMemory(message: try message.encoded(), readOnly: true)))
        #expect(try await tag.queryNDEFStatus().status == .readOnly)
        #expect(try await tag.readNDEF() == message)
        let other = NDEFMessage(records: [try NDEFPayload.wellKnownTypeURIPayload(url: "https://x.example")])
        do {
            try await tag.writeNDEF(other)
            Issue.record("accepted")
        } catch {
            #expect(error.code == .readOnly)
            #expect(error.offset == 7 * 16 + 9)
        }
        #expect(await Self.writes(reader) == 0)
    }

    // MARK: - Commands

    @Test("a wrong key gives authenticationFailed without the key in the error; the card answers again afterwards")
    func wrongKey() async throws {
        let (reader, tag) = try await Self.open(Self.card(Self.formattedMemory()))
        let wrong: [UInt8] = [0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC]
        do {
            try await tag.tag.authenticate(sector: 1, keyType: .a, key: Bytes(wrong))
            Issue.record("accepted")
        } catch {
            #expect(error.code == .authenticationFailed)
            #expect(!error.description.contains("123456"))
            #expect(!error.description.contains("12 34 56"))
        }
        try await tag.tag.authenticate(sector: 1, keyType: .a, key: Bytes(Self.nfcKey))
        #expect(try await tag.tag.readBlock(4)[0] == 0x03)
        _ = reader
        await #expect(throws: NFCTagError.self) { try await tag.tag.authenticate(sector: 16, keyType: .a, key: Bytes(Self.nfcKey)) }
        await #expect(throws: NFCTagError.self) { try await tag.tag.authenticate(sector: 1, keyType: .a, key: Bytes([1, 2, 3])) }
    }

    @Test("value blocks: write, increment, decrement, restore and transfer, read as values")
    func valueBlocks() async throws {
        let (_, ndef) = try await Self.open(Self.card())
        let tag = ndef.tag
        try await tag.authenticate(sector: 1, keyType: .a, key: Bytes(Self.ffKey))
        try await tag.writeValue(100, block: 4)
        #expect(try await tag.readValue(block: 4) == ClassicValueBlock(value: 100, address: 4))
        try await tag.increment(block: 4, by: 23)
        try await tag.transfer(block: 4)
        #expect(try await tag.readValue(block: 4).value == 123)
        try await tag.decrement(block: 4, by: 200)
        try await tag.transfer(block: 4)
        #expect(try await tag.readValue(block: 4).value == -77)
        try await tag.restore(block: 4)
        try await tag.transfer(block: 5)
        #expect(try await tag.readValue(block: 5) == ClassicValueBlock(value: -77, address: 4))
        // A data block that is not a value block: INCREMENT is refused, READ decodes with the offset.
        try await tag.writeBlock(6, [UInt8](repeating: 0x11, count: 16))
        await #expect(throws: NFCTagError.self) { try await tag.increment(block: 6, by: 1) }
        try await tag.authenticate(sector: 1, keyType: .a, key: Bytes(Self.ffKey))
        do {
            _ = try await tag.readValue(block: 6)
            Issue.record("accepted")
        } catch {
            #expect(error.code == .malformedTag)
            #expect(error.offset == 6 * 16 + 4)
        }
        await #expect(throws: NFCTagError.self) { try await tag.writeBlock(0, [UInt8](repeating: 0, count: 16)) }
        await #expect(throws: NFCTagError.self) { try await tag.readBlock(64) }
    }

    @Test("MiFareTag's NDEF platform for a Classic is the MAD mapping")
    func platformDispatch() async throws {
        let message = try Self.url20()
        let (_, tag) = try await Self.open(Self.card(Self.formattedMemory(message: try message.encoded())))
        #expect(tag.tag.mifareFamily == .classic)
        #expect(try await tag.tag.readNDEF() == message)
    }

    // MARK: - Format and lock

    @Test("format of a transport card: the MAD, trailers and empty TLV of AN1304; query then says empty")
    func formatBlank() async throws {
        let (reader, tag) = try await Self.open(Self.card())
        try await tag.format()
        let memory = await Self.memory(reader)
        #expect(Array(memory[16..<20]) == [0x14, 0x01, 0x03, 0xE1])
        #expect(Self.trailer(memory, sector: 0) == Self.madKey + [0x78, 0x77, 0x88, 0xC1] + Self.ffKey)
        for sector in 1..<16 { #expect(Self.trailer(memory, sector: sector) == Self.nfcKey + [0x7F, 0x07, 0x88, 0x40] + Self.ffKey) }
        #expect(Array(memory[64..<67]) == [0x03, 0x00, 0xFE])
        #expect(memory == Self.formattedMemory())
        let trace = await Self.trace(reader)
        #expect(trace.filter { $0.hasPrefix("WRITE") }.count == 19)
        // Probe: the MAD key A is refused (not NDEF yet): 1 AUTH. Checks: 16 × (AUTH, READ
        // trailer, READ data blocks) = 16 + 16 + 47; writes: sectors 15…0, sector 15 still
        // authenticated from the checks: 15 AUTH + 19 WRITE.
        #expect(trace.filter { $0.hasPrefix("AUTH") }.count == 32)
        #expect(trace.count == 1 + 79 + 34)
        #expect(try await tag.queryNDEFStatus() == NDEFQuery(status: .readWrite, capacity: 716, messageLength: 0))
    }

    @Test("format refuses a card holding data (no WRITE) unless forced; forced, it leaves an empty NDEF card")
    func formatRefusesData() async throws {
        let message = try Self.url20()
        let (reader, tag) = try await Self.open(Self.card(Self.formattedMemory(message: try message.encoded())))
        do {
            try await tag.format()
            Issue.record("accepted")
        } catch {
            #expect(error.code == .alreadyFormatted)
        }
        #expect(await Self.writes(reader) == 0)
        // Forced on an NDEF card: only the TLV length changes (one WRITE), keys and MAD stay.
        try await tag.format(force: true)
        #expect(await Self.writes(reader) == 1)
        #expect(try await tag.readNDEF() == .empty)
        let after = await Self.memory(reader)
        #expect(Array(after[64..<67]) == [0x03, 0x00, 0xFE])
        #expect(Array(after[0..<64]) == Array(Self.formattedMemory()[0..<64]))
        for sector in 1..<16 { #expect(Self.trailer(after, sector: sector) == Self.nfcKey + [0x7F, 0x07, 0x88, 0x40] + Self.ffKey) }
        // Formatted and empty: nothing to do, nothing written.
        try await tag.format()
        #expect(await Self.writes(reader) == 1)
        // A transport card with data in sector 5 is refused at that byte.
        var memory = MifareClassic1K.freshMemory(uid: Self.uid)
        memory[5 * 64 + 17] = 0x42
        let (reader2, tag2) = try await Self.open(Self.card(memory))
        do {
            try await tag2.format()
            Issue.record("accepted")
        } catch {
            #expect(error.code == .alreadyFormatted)
            #expect(error.offset == 5 * 64 + 17)
        }
        #expect(await Self.writes(reader2) == 0)
    }

    @Test("writeLock: NFC trailers D3F7… 07 8F 0F 43, MAD trailer A0… 07 8F 0F C1; the message stays; writes refused")
    func lock() async throws {
        let message = try Self.url20()
        let (reader, tag) = try await Self.open(Self.card(Self.formattedMemory(message: try message.encoded())))
        try await tag.writeLock()
        let memory = await Self.memory(reader)
        for sector in 1..<16 { #expect(Self.trailer(memory, sector: sector) == Self.nfcKey + [0x07, 0x8F, 0x0F, 0x43] + Self.ffKey) }
        #expect(Self.trailer(memory, sector: 0) == Self.madKey + [0x07, 0x8F, 0x0F, 0xC1] + Self.ffKey)
        #expect(memory == Self.formattedMemory(message: try message.encoded(), readOnly: true))
        let trace = await Self.trace(reader)
        #expect(trace.filter { $0.hasPrefix("WRITE") }.count == 16)
        // Detection 7; checks 16 × (AUTH key B, READ trailer); writes 16, sector 15 still
        // authenticated from the checks: 15 AUTH; each trailer read back after its write: 16 READ.
        let expected: Int = 7 + 32 + 31 + 16
        #expect(trace.count == expected)
        #expect(try await tag.queryNDEFStatus().status == .readOnly)
        #expect(try await tag.readNDEF() == message)
        await Self.clearTrace(reader)
        await #expect(throws: NFCTagError.self) { try await tag.writeNDEF(message) }
        try await tag.writeLock()  // nothing left to lock
        #expect(await Self.writes(reader) == 0)
        await #expect(throws: NFCTagError.self) { try await tag.format(force: true) }
        #expect(await Self.writes(reader) == 0)
    }

    @Test("a card that acknowledges the trailer WRITEs without storing them: writeLock reads each trailer back and fails (verificationFailed), never reports the card locked")
    func lockThatDoesNotLock() async throws {
        let message = try Self.url20()
        let memory = Self.formattedMemory(message: try message.encoded())
        let reader = SimulatedReader(tags: [TrailerIgnoringClassic(Self.card(memory))], emptyFieldWait: .zero)
        let info = try #require(try await reader.poll(for: [.iso14443A], timeout: .zero))
        let tag = try Self.makeTag(reader, info)
        await #expect { try await tag.writeLock() } throws: { error in
            guard let error = error as? NFCTagError else { return false }
            // Sector 1 (the first NFC sector) is written first; its access bits sit at 7 × 16 + 6.
            return error.code == .verificationFailed && error.offset == 7 * 16 + 6 && error.reason.contains("sector 1")
        }
        let after: [UInt8] = await reader.withField { field in
            guard let card = field.currentTag as? TrailerIgnoringClassic else { return [] }
            return card.inner.memory
        }
        #expect(after == memory)
    }

    @Test("writeLock with a key B the card refuses writes nothing")
    func lockWrongKeyB() async throws {
        let (reader, ndef) = try await Self.open(Self.card(Self.formattedMemory()))
        let tag = ClassicNDEFTag(tag: ndef.tag, keyB: [1, 2, 3, 4, 5, 6])
        do {
            try await tag.writeLock()
            Issue.record("accepted")
        } catch {
            #expect(error.code == .authenticationFailed)
        }
        #expect(await Self.writes(reader) == 0)
        #expect(try await tag.queryNDEFStatus().status == .readWrite)
    }

    // MARK: - Tearing

    static func sweepTag(_ reader: SimulatedReader, _ info: TargetInfo) async throws -> any NFCNDEFTag {
        try makeTag(reader, info)
    }

    @Test("tearing a write at every command leaves the old, an empty or the new message", arguments: [
        (60, 20), (20, 100), (200, 700),
    ])
    func tearingWrite(oldSize: Int, newSize: Int) async throws {
        let old = try Self.message(ofSize: oldSize)
        let new = try Self.message(ofSize: newSize)
        let initial = Self.card(Self.formattedMemory(message: try old.encoded())).tagState
        let outcomes = try await TearingSweep.run(
            "classic write \(oldSize)→\(newSize)", initial: initial, makeTag: Self.sweepTag,
            operation: { tag throws(NFCTagError) in try await tag.writeNDEF(new) },
            classify: TearingSweep.messageClassifier(old: old, new: new))
        #expect((outcomes["new"] ?? 0) >= 1)
    }

    @Test("tearing a lock at every cut: unchanged, or read-only (every sector trailer written so far is seen) and a rerun completes; never half-locked while reading read-write")
    func tearingLock() async throws {
        let message = try Self.url20()
        let initial = Self.card(Self.formattedMemory(message: try message.encoded())).tagState
        let outcomes = try await TearingSweep.run(
            "classic lock", initial: initial, makeTag: Self.sweepTag,
            operation: { tag throws(NFCTagError) in try await tag.writeLock() },
            classifyState: { state, tag in
                guard try await tag.readNDEF() == message else { return "corrupt: message changed" }
                if state.memory == initial.memory { return "unchanged" }
                let status = try await tag.queryNDEFStatus().status
                guard status == .readOnly else { return "corrupt: half-locked but reads read-write" }
                try await tag.writeLock()
                guard try await tag.queryNDEFStatus().status == .readOnly, try await tag.readNDEF() == message else {
                    return "corrupt: lock cannot be completed"
                }
                return "read-only, lock completed on rerun"
            })
        #expect(outcomes["unchanged"] ?? 0 >= 1)
        #expect(outcomes["read-only, lock completed on rerun"] ?? 0 >= 1)
    }

    @Test("tearing a forced format over a message at every cut leaves the old message or an empty one")
    func tearingForcedFormat() async throws {
        let old = try Self.message(ofSize: 200)
        let initial = Self.card(Self.formattedMemory(message: try old.encoded())).tagState
        let outcomes = try await TearingSweep.run(
            "classic forced format", initial: initial, makeTag: Self.sweepTag,
            operation: { tag throws(NFCTagError) in try await tag.format(force: true) },
            classify: TearingSweep.messageClassifier(old: old, new: .empty))
        #expect(outcomes["empty"] ?? 0 >= 1)
        #expect(outcomes["old"] ?? 0 >= 1)
    }

    @Test("tearing a format at every command leaves a card that is not NDEF yet (and formats when forced) or empty NDEF")
    func tearingFormat() async throws {
        let initial = Self.card().tagState
        let outcomes = try await TearingSweep.run(
            "classic format", initial: initial, makeTag: Self.sweepTag,
            operation: { tag throws(NFCTagError) in try await tag.format() },
            classify: { tag in
                do {
                    if try await tag.queryNDEFStatus().status == .notSupported {
                        try await tag.format(force: true)
                        return try await tag.readNDEF() == .empty ? "not NDEF, formats when forced" : "corrupt: forced format"
                    }
                    return try await tag.readNDEF() == .empty ? "empty" : "corrupt: not empty"
                } catch {
                    return "corrupt: \(error)"
                }
            })
        #expect(outcomes["empty"] ?? 0 >= 1)
    }
}

/// MIFARE Classic 4K (MAD2, sectors 32–39 of 16 blocks) against a memory image behind the
/// reader seam: the virtual cards model the 1K only.
@Suite("MIFARE Classic NDEF on a 4K memory image (MAD2)", .timeLimit(.minutes(10)))
struct Classic4KNDEFTests {
    static let identity = ChipIdentity(model: "MIFARE Classic 4K", platform: .mifareClassic, family: .mifareClassic, memoryBytes: 4096)

    static func open(_ memory: [UInt8] = Classic4KMemory.freshMemory()) async throws -> (ScriptedReader, ClassicNDEFTag) {
        let reader = ScriptedReader(tag: Classic4KMemory(memory: memory), target: Classic4KMemory.target, modulations: [.iso14443A],
                                    name: "MIFARE Classic 4K image")
        guard case .iso14443A(let target)? = try await reader.poll(for: [.iso14443A], timeout: .zero) else {
            throw NFCTagError(.notSupported, "no target")
        }
        return (reader, ClassicNDEFTag(tag: MiFareTag(reader: reader, target: target, identity: identity)))
    }

    /// The memory image as the tag on `reader` holds it now.
    static func memory(_ reader: ScriptedReader) async throws -> [UInt8] {
        try #require(await reader.tag(as: Classic4KMemory.self)).memory
    }

    @Test("format writes MAD2 (sector 16, GPB C2) and NFC trailers up to sector 39; 3356 bytes fit and read back")
    func formatAndFill() async throws {
        let (reader, tag) = try await Self.open()
        try await tag.format()
        let memory = try await Self.memory(reader)
        let mad2 = Array(memory[1024..<1072])
        #expect(MADDirectory.crc(mad2[1...]) == mad2[0])
        #expect(Array(memory[54..<58]) == [0x78, 0x77, 0x88, 0xC2])
        #expect(Array(memory[(67 * 16 + 6)..<(67 * 16 + 10)]) == [0x78, 0x77, 0x88, 0xC2])
        #expect(Array(memory[(143 * 16)..<(143 * 16 + 10)]) == ClassicNDEFTag.nfcSectorKeyA + [0x7F, 0x07, 0x88, 0x40])
        #expect(Array(memory[(255 * 16 + 6)..<(255 * 16 + 10)]) == [0x7F, 0x07, 0x88, 0x40])
        #expect(try await tag.queryNDEFStatus() == NDEFQuery(status: .readWrite, capacity: 3356, messageLength: 0))
        for size in [1500, 3356] {
            let message = try ClassicNDEFTests.message(ofSize: size)
            try await tag.writeNDEF(message)
            #expect(try await tag.readNDEF() == message)
        }
        let over = try ClassicNDEFTests.message(ofSize: 3357)
        await #expect(throws: NFCTagError.self) { try await tag.writeNDEF(over) }
    }

    @Test("a message running from sector 15 over the MAD2 sector into sector 17 reads back; sector 16 is untouched")
    func acrossMAD2Sector() async throws {
        let (reader, tag) = try await Self.open()
        try await tag.format()
        let before = Array(try await Self.memory(reader)[1024..<1088])
        let message = try ClassicNDEFTests.message(ofSize: 15 * 48 + 30)
        try await tag.writeNDEF(message)
        #expect(try await tag.readNDEF() == message)
        #expect(Array(try await Self.memory(reader)[1024..<1088]) == before)
        #expect(try await Self.memory(reader)[17 * 64] != 0)
    }

    @Test("writeLock locks both MAD sectors and every NFC sector, 16-block ones included")
    func lock4K() async throws {
        let (reader, tag) = try await Self.open()
        try await tag.format()
        try await tag.writeLock()
        let memory = try await Self.memory(reader)
        for sector in [0, 16] {
            let trailer = ClassicLayout.classic4K.trailerBlock(ofSector: sector) * 16
            #expect(Array(memory[(trailer + 6)..<(trailer + 9)]) == [0x07, 0x8F, 0x0F])
        }
        for sector in [1, 15, 17, 32, 39] {
            let trailer = ClassicLayout.classic4K.trailerBlock(ofSector: sector) * 16
            #expect(Array(memory[(trailer + 6)..<(trailer + 10)]) == [0x07, 0x8F, 0x0F, 0x43])
        }
        #expect(try await tag.queryNDEFStatus().status == .readOnly)
    }
}

/// A MIFARE Classic 4K memory image behind the reader seam: keys are checked against the
/// sector trailers, READ hides key A, WRITE refuses block 0; access bits are not enforced (the
/// virtual 1K card covers them).
struct Classic4KMemory: ScriptedTag {
    private(set) var memory: [UInt8]
    private var authenticatedSector: Int?
    private let layout = ClassicLayout.classic4K

    init(memory: [UInt8]) { self.memory = memory }

    /// The card as the test's reader finds it.
    static let target = TargetInfo.iso14443A(ISO14443ATarget(uid: Bytes([1, 2, 3, 4]), atqa: Bytes([0x02, 0x00]), sak: 0x18))

    /// Transport configuration: every trailer `FF…FF FF 07 80 69 FF…FF`.
    static func freshMemory() -> [UInt8] {
        var memory = [UInt8](repeating: 0, count: 4096)
        memory.replaceSubrange(0..<8, with: [1, 2, 3, 4, 4, 0x18, 0x02, 0x00])
        for sector in 0..<40 {
            let trailer = ClassicLayout.classic4K.trailerBlock(ofSector: sector) * 16
            memory.replaceSubrange(trailer..<(trailer + 16), with: MifareClassic1K.transportTrailer)
        }
        return memory
    }

    mutating func selected() { authenticatedSector = nil }
    mutating func deselected() { authenticatedSector = nil }

    mutating func answer(_ command: Bytes, mode: TransceiveMode) throws(NFCReaderDeviceError) -> Bytes {
        let frame = command.array
        guard frame.count >= 2, let sector = authenticatedSector, layout.sector(ofBlock: Int(frame[1])) == sector else {
            authenticatedSector = nil
            throw NFCReaderDeviceError(.nak, "NAK", detail: 4)
        }
        let block = Int(frame[1])
        let range = (block * 16)..<(block * 16 + 16)
        switch frame[0] {
        case ClassicCommand.read:
            var data = Array(memory[range])
            if layout.isTrailer(block) { data.replaceSubrange(0..<6, with: [UInt8](repeating: 0, count: 6)) }
            return Bytes(data)
        case ClassicCommand.write where frame.count == 18 && block != 0:
            memory.replaceSubrange(range, with: frame[2...])
            return Bytes([0x0A])
        default:
            authenticatedSector = nil
            throw NFCReaderDeviceError(.nak, "NAK", detail: 4)
        }
    }

    mutating func authenticate(block: UInt8, keyType: ClassicKeyType, key: Bytes) throws(NFCReaderDeviceError) {
        let sector = layout.sector(ofBlock: Int(block))
        let trailer = layout.trailerBlock(ofSector: sector) * 16
        let stored = keyType == .a ? memory[trailer..<(trailer + 6)] : memory[(trailer + 10)..<(trailer + 16)]
        guard Array(stored) == key.array else {
            authenticatedSector = nil
            throw NFCReaderDeviceError(.authenticationFailed, "refused")
        }
        authenticatedSector = sector
    }
}

/// A MIFARE Classic 1K that acknowledges WRITEs to sector trailers but keeps the old trailer:
/// what a faulty card or a clone with locked trailers may do. Everything else goes to the real
/// virtual card.
final class TrailerIgnoringClassic: ClassicVirtualTag {
    let inner: MifareClassic1K
    private var swallowing = false

    init(_ inner: MifareClassic1K) { self.inner = inner }

    var modelName: String { inner.modelName }
    var targetInfo: TargetInfo { inner.targetInfo }
    func respond(to frame: [UInt8]) -> TagAnswer {
        if swallowing {
            swallowing = false
            return .ack
        }
        if frame.count >= 2, frame[0] == ClassicCommand.write, frame[1] % 4 == 3 {
            // The 2-frame WRITE: ACK the command, then ACK the 16 bytes without storing them.
            if frame.count == 2 { swallowing = true }
            return .ack
        }
        return inner.respond(to: frame)
    }
    func authenticate(block: UInt8, keyType: ClassicKeyType, key: [UInt8]) -> Bool {
        inner.authenticate(block: block, keyType: keyType, key: key)
    }
    func powerOn() { inner.powerOn() }
    func halt() {
        swallowing = false
        inner.halt()
    }
}
