import NDEF
import NFCCore
import NFCTags
import Testing
import VirtualTags

/// Type 2 NDEF over the reader seam against virtual NTAG21x chips in the simulator: detection,
/// read, write, tear safety and "no write before every check passes", asserted on the field's
/// command trace.
@Suite("Type 2 NDEF on virtual NTAG21x", .timeLimit(.minutes(10)))
struct Type2NDEFTests {
    static let uid: [UInt8] = [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]

    /// A traced simulator with `tag` on it, polled and selected.
    /// The command (code, page) pairs the field carried.
    static func trace(_ reader: SimulatedReader) async -> [[UInt8]] {
        await reader.withField { field in field.trace.map { Array($0.command.prefix(2)) } }
    }

    /// The chip starts from `state` if given, else factory state, with `message` stored if given.
    static func open(
        _ model: NTAG21xTag.Model, message: NDEFMessage? = nil, state: TagState? = nil
    ) async throws -> (SimulatedReader, Type2Tag) {
        let chip = try #require(state.map { NTAG21xTag(model, state: $0) } ?? NTAG21xTag(model, uid: uid))
        if let message { #expect(chip.setNDEFMessage(try message.encoded())) }
        let reader = SimulatedReader(tags: [chip], emptyFieldWait: .zero)
        await reader.withField { $0.isTracing = true }
        _ = try #require(try await reader.poll(for: [.iso14443A], timeout: .zero))
        return (reader, Type2Tag(reader: reader))
    }

    /// The state of the chip on `reader`, in the field or taken away.
    static func state(_ reader: SimulatedReader) async -> TagState? {
        await reader.withField { field in ((field.currentTag ?? field.removedTags.last) as? NTAG21xTag)?.tagState }
    }

    /// The commands the field carried, by first byte.
    static func commands(_ reader: SimulatedReader, _ code: UInt8) async -> Int {
        await reader.withField { field in field.trace.filter { $0.command.first == code }.count }
    }

    static func url(_ text: String) throws -> NDEFMessage {
        NDEFMessage(records: [try NDEFPayload.wellKnownTypeURIPayload(url: text)])
    }

    @Test("a factory NTAG21x is read-write, empty, with its capacity", arguments: [
        (NTAG21xTag.Model.ntag213, 137), (.ntag215, 492), (.ntag216, 868),
    ])
    func factoryQuery(model: NTAG21xTag.Model, capacity: Int) async throws {
        let (reader, tag) = try await Self.open(model)
        let query = try await tag.queryNDEFStatus()
        #expect(query == NDEFQuery(status: .readWrite, capacity: capacity, messageLength: 0))
        #expect(try await tag.readNDEF() == .empty)
        #expect(await Self.commands(reader, Type2Command.write) == 0)
    }

    @Test("a URL message written is read back, on each model", arguments: NTAG21xTag.Model.allCases)
    func writeAndRead(model: NTAG21xTag.Model) async throws {
        let (_, tag) = try await Self.open(model)
        let message = try Self.url("https://example.com/nfckit")
        try await tag.writeNDEF(message)
        #expect(try await tag.readNDEF() == message)
        let query = try await tag.queryNDEFStatus()
        #expect(query.messageLength == (try message.encoded()).count)
    }

    @Test("a long message takes the 3-byte length and reads back")
    func longMessage() async throws {
        let (_, tag) = try await Self.open(.ntag215)
        let message = try Self.url("https://example.com/" + String(repeating: "a", count: 400))
        try await tag.writeNDEF(message)
        #expect(try await tag.readNDEF() == message)
        // Then a short one over it (1-byte length again).
        let short = try Self.url("https://b.example")
        try await tag.writeNDEF(short)
        #expect(try await tag.readNDEF() == short)
    }

    @Test("a message of exactly the capacity fits; one byte more fails with no WRITE sent",
          arguments: [NTAG21xTag.Model.ntag213, .ntag215])
    func capacityEdge(model: NTAG21xTag.Model) async throws {
        let (reader, tag) = try await Self.open(model)
        let capacity = try await tag.queryNDEFStatus().capacity
        // One record of TNF unknown, no type: 3 header bytes (short record) or 6 (long) + payload.
        func message(_ length: Int) -> NDEFMessage {
            let payloadCount = length < 259 ? length - 3 : length - 6
            return NDEFMessage(records: [NDEFPayload(format: .unknown, type: Bytes(), payload: Bytes([UInt8](repeating: 0x5A, count: payloadCount)))])
        }
        let tooBig = message(capacity + 1)
        #expect(try tooBig.encoded().count == capacity + 1)
        await #expect {
            try await tag.writeNDEF(tooBig)
        } throws: { error in
            let error = error as! NFCTagError
            return error.code == .capacityExceeded && error.reason.hasSuffix("by 1 byte")
        }
        #expect(await Self.commands(reader, Type2Command.write) == 0)
        let fits = message(capacity)
        #expect(try fits.encoded().count == capacity)
        try await tag.writeNDEF(fits)
        #expect(try await tag.readNDEF() == fits)
    }

    @Test("rewriting with a message that shares its pages writes only the pages that change")
    func onlyChangedPages() async throws {
        let (reader, tag) = try await Self.open(.ntag215)
        try await tag.writeNDEF(try Self.url("https://example.com/aaaaaaaaaaaaaaaaaaaaaaaaaaaa"))
        await reader.withField { $0.trace.removeAll() }
        // Same length, last character differs: one data page changes (plus nothing else).
        try await tag.writeNDEF(try Self.url("https://example.com/aaaaaaaaaaaaaaaaaaaaaaaaaaab"))
        let oneWrite = await reader.withField { $0.trace.filter { $0.command.first == Type2Command.write }.map { $0.command } }
        #expect(oneWrite.count == 1, "\(oneWrite)")
        await reader.withField { $0.trace.removeAll() }
        // Same message again: no WRITE at all.
        try await tag.writeNDEF(try Self.url("https://example.com/aaaaaaaaaaaaaaaaaaaaaaaaaaab"))
        #expect(await Self.commands(reader, Type2Command.write) == 0)
        await reader.withField { $0.trace.removeAll() }
        // Length changes and a middle page: length page zeroed, data page, length page = 3 writes.
        try await tag.writeNDEF(try Self.url("https://example.com/aaaaaaaaaaaaXaaaaaaaaaaaaaaab1"))
        let writes = await reader.withField { $0.trace.filter { $0.command.first == Type2Command.write }.map { $0.command } }
        #expect(writes.first?[1] == 4 && writes.last?[1] == 4)
        #expect(writes.first?[3] == 0x00)
    }

    /// Blank NTAG215, 20-byte message: TLV `03 14` + 20 bytes + `FE` = 23 bytes on pages 4–9.
    /// READ 0 (CC), READ 4 (finds `03 00`); WRITE 5…9 (the bytes after the Terminator TLV on
    /// page 9 are written 00, not read first), WRITE 4 with the length last; read-back READ 4,
    /// READ 8. The blank tag's `03 00` already reads as
    /// an empty message while pages 5–9 are written (tear safety without a length-0 WRITE
    /// first): the datasheet minimum of 6 WRITEs (pages 4–9).
    @Test("writing a 20-byte URL record on a blank NTAG215 sends exactly the documented commands")
    func exactTrace() async throws {
        let (reader, tag) = try await Self.open(.ntag215)
        let message = try Self.url("https://www.example.com/abc")
        #expect(try message.encoded().count == 20)
        try await tag.writeNDEF(message)
        let read = Type2Command.read, write = Type2Command.write
        #expect(
            await Self.trace(reader) == [
                [read, 0], [read, 4],
                [write, 5], [write, 6], [write, 7], [write, 8], [write, 9], [write, 4],
                [read, 4], [read, 8],
            ])
        // Page 4, with the length, is written last.
        let lastWrite = await reader.withField { $0.trace[7].command }
        #expect(lastWrite == [write, 4, 0x03, 0x14, 0xD1, 0x01])
    }

    @Test("with FAST_READ, a 300-byte message is read in 64-byte answers")
    func fastRead() async throws {
        let message = try Self.url("https://example.com/" + String(repeating: "f", count: 300))
        let (reader, _) = try await Self.open(.ntag215, message: message)
        let tag = Type2Tag(reader: reader, usesFastRead: true)
        #expect(try message.encoded().count == 320)
        #expect(try await tag.readNDEF() == message)
        // A 320-byte message (long record: 7 header bytes + 313 payload) behind `03 FF 01 40` ends
        // at byte 16 + 4 + 320 − 1 = 339, page 84. One FAST_READ of pages 0–15 (CC and TLV
        // header), then pages 16–84 by FAST_READ, 16 pages at most each: 6 commands, the fewest
        // 64-byte answers that cover 85 pages.
        let trace = await Self.trace(reader)
        #expect(trace.filter { $0[0] == Type2Command.read } == [])
        let fastReads = await reader.withField { $0.trace.map(\.command).filter { $0[0] == Type2Command.fastRead } }
        #expect(fastReads == [[0x3A, 0, 15], [0x3A, 16, 31], [0x3A, 32, 47], [0x3A, 48, 63], [0x3A, 64, 79], [0x3A, 80, 84]])
        #expect(trace.count == 6)
    }

    @Test("GET_VERSION's identity switches FAST_READ on for NTAG21x, off for an original Ultralight")
    func identityChoosesFastRead() async throws {
        let (reader, _) = try await Self.open(.ntag216)
        let target = try #require(try await reader.poll(for: [.iso14443A], timeout: .zero))
        let identity = await ChipIdentification.identify(target, on: reader)
        #expect(Type2Tag(reader: reader, identity: identity).usesFastRead)
        #expect(!Type2Tag.hasFastRead(ChipIdentity(model: "MIFARE Ultralight", platform: .type2, family: .ultralight, memoryBytes: 48)))
        #expect(Type2Tag.hasFastRead(ChipIdentity(model: "MIFARE Ultralight EV1 (MF0UL21)", platform: .type2, family: .ultralightEV1)))
        let tag = Type2Tag(reader: reader, identity: identity)
        let message = try Self.url("https://example.com/" + String(repeating: "x", count: 600))
        try await tag.writeNDEF(message)
        #expect(try await tag.readNDEF() == message)
    }

    @Test("a tag whose CC3 says read-only gives readOnly and no WRITE")
    func readOnly() async throws {
        let (reader, tag) = try await Self.open(.ntag213)
        // CC is OTP: writing 0F into CC3 ORs it in.
        _ = try await reader.transceive(Bytes([Type2Command.write, 3, 0x00, 0x00, 0x00, 0x0F]))
        await reader.withField { $0.trace.removeAll() }
        #expect(try await tag.queryNDEFStatus().status == .readOnly)
        await #expect {
            try await tag.writeNDEF(try Self.url("https://example.com"))
        } throws: { ($0 as! NFCTagError).code == .readOnly }
        #expect(await Self.commands(reader, Type2Command.write) == 0)
        #expect(try await tag.readNDEF() == .empty)
    }

    @Test("an answer corrupted on the air during a WRITE is reported, and the tag stays old, empty or new")
    func rfErrorDuringWrite() async throws {
        let old = try Self.url("https://old.example")
        let new = try Self.url("https://example.com/a-much-longer-new-message")
        for k in 3...12 {
            let (reader, tag) = try await Self.open(.ntag213, message: old)
            let start = await reader.commandCount
            await reader.withField { $0.faultPlan = FaultPlan(rfErrorOnCommands: [start + k]) }
            await #expect(throws: NFCTagError.self) { try await tag.writeNDEF(new) }
            let state = try #require(await Self.state(reader), "no chip state after k = \(k)")
            let (_, again) = try await Self.open(.ntag213, state: state)
            let read = try await again.readNDEF()
            #expect(read == old || read == .empty || read == new, "k = \(k)")
        }
    }

    @Test("stored bytes that are not an NDEF message give malformedMessage with the tag address")
    func malformedStoredMessage() async throws {
        let (reader, tag) = try await Self.open(.ntag215)
        // 03 04 then a record header claiming a 200-byte payload in 4 bytes.
        _ = try await reader.transceive(Bytes([Type2Command.write, 4, 0x03, 0x04, 0xD1, 0x01]))
        _ = try await reader.transceive(Bytes([Type2Command.write, 5, 0xC8, 0x55, 0xFE, 0x00]))
        await #expect {
            _ = try await tag.readNDEF()
        } throws: { error in
            let error = error as! NFCTagError
            return error.code == .malformedMessage && (18...21).contains(error.offset ?? -1)
        }
    }

    @Test("an unformatted Ultralight EV1 is not supported")
    func notFormatted() async throws {
        let reader = SimulatedReader(tags: [UltralightEV1Tag(.mf0ul11, uid: Self.uid)], emptyFieldWait: .zero)
        _ = try #require(try await reader.poll(for: [.iso14443A], timeout: .zero))
        let tag = Type2Tag(reader: reader)
        #expect(try await tag.queryNDEFStatus() == NDEFQuery(status: .notSupported, capacity: 0, messageLength: 0))
        await #expect {
            _ = try await tag.readNDEF()
        } throws: { ($0 as! NFCTagError).code == .notNDEFFormatted }
        await reader.withField { $0.isTracing = true }
        await #expect {
            try await tag.writeNDEF(try Self.url("https://example.com"))
        } throws: { ($0 as! NFCTagError).code == .notNDEFFormatted }
        #expect(await Self.commands(reader, Type2Command.write) == 0)
    }

    /// For each cut point k of a write sequence, the tag leaves right after command k: afterwards
    /// it reads as the old message, an empty one, or the new one.
    @Test("tearing sweep: old, empty or new, never corrupt", arguments: [
        (NTAG21xTag.Model.ntag213, "https://example.com/old", "https://example.org/a-new-and-longer-message"),
        (.ntag215, "https://example.com/" + String(repeating: "o", count: 300), "https://n.example"),
        (.ntag215, "https://n.example", "https://example.com/" + String(repeating: "n", count: 300)),
    ])
    func tearing(model: NTAG21xTag.Model, old: String, new: String) async throws {
        let oldMessage = try Self.url(old)
        let newMessage = try Self.url(new)
        // Count the commands of an uninterrupted write.
        let (referenceReader, referenceTag) = try await Self.open(model, message: oldMessage)
        let before = await referenceReader.commandCount
        try await referenceTag.writeNDEF(newMessage)
        let total = await referenceReader.commandCount - before
        #expect(await Self.commands(referenceReader, Type2Command.write) >= 3)

        var outcomes: [String: Int] = [:]
        for k in 1...total {
            let (reader, tag) = try await Self.open(model, message: oldMessage)
            let start = await reader.commandCount
            await reader.withField { $0.faultPlan = FaultPlan(leaveAfterCommand: start + k) }
            var interrupted = false
            do {
                try await tag.writeNDEF(newMessage)
            } catch {
                interrupted = true
                #expect(error.code == .connectionLost)
            }
            #expect(interrupted == (k < total), "k = \(k)")
            // A fresh reader on the same chip state.
            guard let state = await Self.state(reader) else {
                Issue.record("no chip state after k = \(k)")
                return
            }
            let (_, again) = try await Self.open(model, state: state)
            let read = try await again.readNDEF()
            let outcome = read == oldMessage ? "old" : read == .empty ? "empty" : read == newMessage ? "new" : "corrupt"
            #expect(outcome != "corrupt", "k = \(k)")
            outcomes[outcome, default: 0] += 1
        }
        #expect(outcomes["corrupt"] == nil)
        #expect(outcomes["new", default: 0] >= 1)
        #expect(outcomes["empty", default: 0] >= 1)
        print("tearing sweep \(model.rawValue), \(total) cut points: \(outcomes.sorted { $0.key < $1.key })")
    }
}
