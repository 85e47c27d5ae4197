import NDEF
import NFCCore
import NFCTags
import Testing
import VirtualTags

/// NFC Forum Type 1 (Topaz 96 / Topaz 512) on the simulator: detection, read, tear-safe write,
/// lock and format, against the virtual chips' memory.
@Suite("Type 1 (Topaz) NDEF on the simulator", .timeLimit(.minutes(2)))
struct Type1NDEFTests {
    static let uid: [UInt8] = [0x01, 0x53, 0x49, 0x4D, 0x00, 0x00, 0x01]

    static func open(_ tag: sending TopazTag) async throws -> (SimulatedReader, NFCTag) {
        let reader = SimulatedReader(tags: [tag], emptyFieldWait: .zero)
        await reader.withField { $0.isTracing = true }
        let target = try #require(try await reader.poll(for: [.jewel], timeout: .zero))
        return (reader, try await NFCTag.connect(to: target, on: reader))
    }

    /// The memory of the chip on `reader`.
    static func memory(_ reader: SimulatedReader) async throws -> [UInt8] {
        try #require(await reader.withField { ($0.currentTag as? TopazTag)?.memory })
    }

    /// The tag-file state of the chip on `reader`.
    static func state(_ reader: SimulatedReader) async throws -> TagState {
        try #require(await reader.withField { ($0.currentTag as? TopazTag)?.tagState })
    }

    static func message(_ text: String) throws -> NDEFMessage {
        NDEFMessage(records: [try NDEFPayload.wellKnownTypeTextPayload(string: text, locale: "en")])
    }

    @Test("a delivered Topaz 96 is identified by RID, holds an empty NDEF message, read-write, 90 bytes of capacity")
    func topaz96Query() async throws {
        let (_, tag) = try await Self.open(TopazTag(.topaz96, uid: Self.uid))
        guard case .miFare(let mifare) = tag, mifare.type1 != nil else { Issue.record("not a Type 1 tag: \(tag)"); return }
        #expect(tag.identity.model == "Topaz 96 (BCM20203T96)" && tag.identity.platform == .type1 && tag.identity.memoryBytes == 120)
        #expect(tag.identifier == Bytes([0x01, 0x53, 0x49, 0x4D]))
        let query = try await tag.ndef.queryNDEFStatus()
        #expect(query == NDEFQuery(status: .readWrite, capacity: 90, messageLength: 0))
        #expect(try await tag.ndef.readNDEF() == .empty)
    }

    @Test("a Topaz is CoreNFC's MIFARE tag of unknown family: its Jewel target kept, UID and SENS_RES mapped, raw Type 1 frames through sendMiFareCommand")
    func topazIsMiFareOfUnknownFamily() async throws {
        let (_, tag) = try await Self.open(TopazTag(.topaz96, uid: Self.uid))
        guard case .miFare(let mifare) = tag else { Issue.record("not .miFare: \(tag)"); return }
        #expect(mifare.mifareFamily == .unknown && mifare.type2 == nil)
        let type1 = try #require(mifare.type1)
        #expect(type1.target == JewelTarget(sensRes: Bytes(TopazTag.sensRes), id: Bytes([0x01, 0x53, 0x49, 0x4D])))
        #expect(mifare.target == ISO14443ATarget(uid: Bytes([0x01, 0x53, 0x49, 0x4D]), atqa: Bytes([0x00, 0x0C]), sak: 0))
        #expect(mifare.ndefPlatform is Type1Tag)
        // RID, sent raw: HR0 11 HR1 48 (Topaz 96) and the UID, parsed by the frame parser.
        let answer = try await mifare.sendMiFareCommand(Bytes(Type1Frame.readIdentification()))
        let rid = try Type1Answer.identification(answer.array)
        #expect(rid.hr0 == 0x11 && rid.hr1 == 0x48 && rid.uid == [0x01, 0x53, 0x49, 0x4D])
        // No ISO-DEP: an APDU is refused before anything is sent.
        let select = try ISO7816APDU(instructionClass: 0x00, instructionCode: 0xA4, p1Parameter: 0x04, p2Parameter: 0x00)
        let error = await #expect(throws: NFCTagError.self) { _ = try await mifare.sendMiFareISO7816Command(select) }
        #expect(error?.code == .notSupported)
    }

    @Test("a delivered Topaz 512 has its Lock and Memory Control TLVs skipped: 462 bytes of capacity, as nfcpy states")
    func topaz512Query() async throws {
        let (_, tag) = try await Self.open(TopazTag(.topaz512, uid: Self.uid))
        #expect(tag.identity.model == "Topaz 512 (BCM20203T512)")
        let query = try await tag.ndef.queryNDEFStatus()
        #expect(query == NDEFQuery(status: .readWrite, capacity: 462, messageLength: 0))
    }

    @Test("write then read on both models; a 300-byte message on the Topaz 512 takes the 3-byte length and skips blocks D–F",
          arguments: [TopazTag.Model.topaz96, .topaz512])
    func writeRead(model: TopazTag.Model) async throws {
        let (reader, tag) = try await Self.open(TopazTag(model, uid: Self.uid))
        let text = String(repeating: "t", count: model == .topaz96 ? 60 : 300)
        let message = try Self.message(text)
        try await tag.ndef.writeNDEF(message, verify: true)
        #expect(try await tag.ndef.readNDEF() == message)
        let memory = try await Self.memory(reader)
        // Judged from the chip's memory: NDEF TLV after the CC (and, on the 512, the control
        // TLVs), the message bytes around the reserved blocks.
        let encoded = try message.encoded()
        let tlvStart = model == .topaz96 ? 12 : 22
        let usable = (tlvStart..<memory.count).filter { !(104..<128).contains($0) }
        let length: [UInt8] = encoded.count < 255 ? [UInt8(encoded.count)] : [0xFF, UInt8(encoded.count >> 8), UInt8(encoded.count & 0xFF)]
        let expected = [0x03] + length + encoded
        #expect(usable.prefix(expected.count).map { memory[$0] } == expected)
        #expect(memory[104..<120].allSatisfy { $0 == 0 })
    }

    @Test("a message one byte too long is refused before any write", arguments: [TopazTag.Model.topaz96, .topaz512])
    func tooLong(model: TopazTag.Model) async throws {
        let (reader, tag) = try await Self.open(TopazTag(model, uid: Self.uid))
        let before = try await Self.memory(reader)
        let capacity = try await tag.ndef.queryNDEFStatus().capacity
        // A text record of n characters encodes to n + 7 bytes (short record) or n + 10.
        let overhead = capacity + 1 - 7 < 256 ? 7 : 10
        let message = try Self.message(String(repeating: "x", count: capacity + 1 - overhead))
        #expect(try message.encoded().count == capacity + 1)
        await #expect(throws: NFCTagError.self) { try await tag.ndef.writeNDEF(message, verify: true) }
        #expect(try await Self.memory(reader) == before)
        let writes = await reader.withField { $0.trace.filter { [0x53, 0x1A, 0x54, 0x1B].contains($0.command.first ?? 0) }.count }
        #expect(writes == 0)
    }

    @Test("the tearing sweep of a write: every cut after and inside each command leaves the old, an empty or the new message",
          arguments: [TopazTag.Model.topaz96, .topaz512])
    func tearingWrite(model: TopazTag.Model) async throws {
        let old = try Self.message("old message")
        let new = try Self.message(String(repeating: "n", count: model == .topaz96 ? 40 : 280))
        let chip = TopazTag(model, uid: Self.uid)
        #expect(chip.setNDEFMessage(try old.encoded()))
        let outcomes = try await TearingSweep.run(
            "Type 1 write \(model.rawValue)", initial: chip.tagState, modulations: [.jewel],
            makeTag: { reader, target in try await NFCTag.connect(to: target, on: reader).ndef },
            operation: { tag throws(NFCTagError) in try await tag.writeNDEF(new, verify: false) },
            classify: TearingSweep.messageClassifier(old: old, new: new))
        #expect((outcomes["new"] ?? 0) > 0 && (outcomes["empty"] ?? 0) > 0 && (outcomes["old"] ?? 0) > 0)
    }

    @Test("lock sets CC3, the dynamic lock bits and LOCK0/LOCK1: read-only afterwards, writes refused, no gap left",
          arguments: [TopazTag.Model.topaz96, .topaz512])
    func lock(model: TopazTag.Model) async throws {
        let (reader, tag) = try await Self.open(TopazTag(model, uid: Self.uid))
        let message = try Self.message("locked")
        try await tag.ndef.writeNDEF(message, verify: true)
        try await tag.ndef.writeLock()
        let memory = try await Self.memory(reader)
        #expect(memory[11] == 0x0F && memory[112] == 0xFF && memory[113] == 0xFF)
        if model == .topaz512 { #expect(memory[0x7A..<0x80].allSatisfy { $0 == 0xFF }) }
        let (_, fresh) = try await Self.open(try #require(TopazTag(model, state: try await Self.state(reader))))
        #expect(try await fresh.ndef.queryNDEFStatus().status == .readOnly)
        #expect(try await fresh.ndef.readNDEF() == message)
        #expect(try await fresh.ndef.readOnlyGaps().isEmpty)
        let again = try Self.message("again")
        await #expect { try await fresh.ndef.writeNDEF(again, verify: true) } throws: { ($0 as? NFCTagError)?.code == .readOnly }
    }

    @Test("format of an all-zero chip writes the layout nfcpy writes; a tag holding a message is refused without force",
          arguments: [TopazTag.Model.topaz96, .topaz512])
    func format(model: TopazTag.Model) async throws {
        var blank = TopazTag(model, uid: Self.uid).tagState
        var memory = [UInt8](repeating: 0, count: model.memorySize)
        memory.replaceSubrange(0..<7, with: Self.uid)
        blank.memory = Hex.encode(memory)
        let (reader, tag) = try await Self.open(try #require(TopazTag(model, state: blank)))
        #expect(try await tag.ndef.queryNDEFStatus().status == .notSupported)
        try await tag.ndef.format(force: false)
        #expect(Array(try await Self.memory(reader)[8..<(8 + model.formatLayout.count)]) == model.formatLayout)
        #expect(try await tag.ndef.readNDEF() == .empty)
        try await tag.ndef.writeNDEF(try Self.message("data"), verify: true)
        await #expect { try await tag.ndef.format(force: false) } throws: { ($0 as? NFCTagError)?.code == .alreadyFormatted }
        try await tag.ndef.format(force: true)
        #expect(try await tag.ndef.readNDEF() == .empty)
    }

    @Test("the tearing sweep of a lock: each cut leaves the message, read-write untouched or read-only (CC3 first), never lock bits under a writable CC",
          arguments: [TopazTag.Model.topaz96, .topaz512])
    func tearingLock(model: TopazTag.Model) async throws {
        let message = try Self.message("lock me")
        let chip = TopazTag(model, uid: Self.uid)
        #expect(chip.setNDEFMessage(try message.encoded()))
        let outcomes = try await TearingSweep.run(
            "Type 1 lock \(model.rawValue)", initial: chip.tagState, modulations: [.jewel],
            makeTag: { reader, target in try await NFCTag.connect(to: target, on: reader).ndef },
            operation: { tag throws(NFCTagError) in try await tag.writeLock() },
            classifyState: { state, tag in
                guard try await tag.readNDEF() == message else { return "corrupt: message changed" }
                let memory = try Hex.decode(state.memory)
                let status = try await tag.queryNDEFStatus().status
                let lockBits = memory[112] != 0 || memory[113] != 0 || (model == .topaz512 && memory[0x7A..<0x80].contains { $0 != 0 })
                switch status {
                case .readWrite: return lockBits ? "corrupt: lock bits under a writable CC" : "unchanged"
                case .readOnly: return try await tag.readOnlyGaps().isEmpty ? "locked" : "read-only, lock bits to set"
                case .notSupported: return "corrupt: not NDEF"
                }
            })
        #expect(outcomes["unchanged"] != nil && outcomes["locked"] != nil)
    }

    @Test("the tearing sweep of a format from blank: each cut leaves the tag unformatted or formatted empty")
    func tearingFormat() async throws {
        var blank = TopazTag(.topaz512, uid: Self.uid).tagState
        var memory = [UInt8](repeating: 0, count: 512)
        memory.replaceSubrange(0..<7, with: Self.uid)
        blank.memory = Hex.encode(memory)
        let outcomes = try await TearingSweep.run(
            "Type 1 format", initial: blank, modulations: [.jewel],
            makeTag: { reader, target in try await NFCTag.connect(to: target, on: reader).ndef },
            operation: { tag throws(NFCTagError) in try await tag.format(force: false) },
            classify: { tag in
                let query = try await tag.queryNDEFStatus()
                if query.status == .notSupported { return "blank" }
                return try await tag.readNDEF() == .empty ? "empty" : "corrupt"
            })
        #expect(outcomes["blank"] != nil && outcomes["empty"] != nil)
    }

    @Test("a read of the Topaz 96 is one RALL; of the Topaz 512 RALL, READ8 of block F and RSEG of segments 1–3")
    func commandTrace() async throws {
        for (model, expected) in [(TopazTag.Model.topaz96, [UInt8(0x00)]), (.topaz512, [0x00, 0x02, 0x10, 0x10, 0x10])] {
            let (reader, tag) = try await Self.open(TopazTag(model, uid: Self.uid))
            let start = await reader.withField { $0.trace.count }
            _ = try await tag.ndef.readNDEF()
            let sent = await reader.withField { $0.trace.dropFirst(start).compactMap(\.command.first) }
            #expect(sent == expected, "\(model)")
        }
    }
}

/// The Type 1 answer and TLV parsers on hostile input: every rule refused with its offset.
@Suite("Type 1 parsers on hostile answers and images", .timeLimit(.minutes(2)))
struct Type1ParsingTests {
    static func image(_ tail: [UInt8], size: Int = 120) -> [UInt8] {
        var memory = [UInt8](repeating: 0, count: size)
        memory.replaceSubrange(0..<4, with: [0x01, 0x02, 0x03, 0x04])
        memory.replaceSubrange(8..<(8 + tail.count), with: tail)
        return memory
    }

    @Test("every truncated prefix of a RALL, RID, RSEG and READ8 answer is refused")
    func truncatedAnswers() {
        let rall = [0x11, 0x48] + [UInt8](repeating: 0xAA, count: 120)
        for length in 0..<rall.count { #expect(throws: NFCTagError.self) { try Type1Answer.readAll(Array(rall.prefix(length))) } }
        let rid: [UInt8] = [0x11, 0x48, 1, 2, 3, 4]
        for length in 0..<rid.count { #expect(throws: NFCTagError.self) { try Type1Answer.identification(Array(rid.prefix(length))) } }
        let segment = [0x10] + [UInt8](repeating: 0, count: 128)
        for length in 0..<segment.count { #expect(throws: NFCTagError.self) { try Type1Answer.segment(Array(segment.prefix(length)), segment: 1) } }
        let block = [0x10] + [UInt8](repeating: 0, count: 8)
        for length in 0..<block.count { #expect(throws: NFCTagError.self) { try Type1Answer.block(Array(block.prefix(length)), block: 16) } }
        #expect(throws: NFCTagError.self) { try Type1Answer.byte([], address: 3) }
    }

    @Test("answers naming another address, block or segment are refused at offset 0")
    func wrongAddress() {
        #expect(throws: NFCTagError.self) { try Type1Answer.byte([0x05, 0xAA], address: 4) }
        #expect((try? Type1Answer.byte([0x04, 0xAA], address: 4)) == 0xAA)
        #expect((try? Type1Answer.byte([0xAA], address: 4)) == 0xAA)
        #expect { _ = try Type1Answer.block([0x11] + [UInt8](repeating: 0, count: 8), block: 16) } throws: {
            ($0 as? NFCTagError)?.code == .tagResponse && ($0 as? NFCTagError)?.offset == 0
        }
        #expect(throws: NFCTagError.self) { try Type1Answer.segment([0x20] + [UInt8](repeating: 0, count: 128), segment: 1) }
    }

    @Test("hostile images: each rule refused with its code and byte address")
    func hostileImages() {
        func code(_ memory: [UInt8], hr0: UInt8 = 0x11) -> (NFCTagError.Code, Int?)? {
            do throws(NFCTagError) {
                _ = try Type1TLVArea.parse(memory: memory, hr0: hr0)
                return nil
            } catch {
                return (error.code, error.offset)
            }
        }
        #expect(code(Self.image([0xE1, 0x10, 0x0E, 0x00, 0x03, 0x00]), hr0: 0x21)! == (.notNDEFFormatted, 0))
        #expect(code(Self.image([0xE2, 0x10, 0x0E, 0x00, 0x03, 0x00]))! == (.notNDEFFormatted, 8))
        #expect(code(Self.image([0xE1, 0x20, 0x0E, 0x00, 0x03, 0x00]))! == (.notNDEFFormatted, 9))
        #expect(code(Self.image([0xE1, 0x10, 0x0E, 0x00, 0xFE]))! == (.notNDEFFormatted, 12))
        // An NDEF length past the 92 usable bytes (12…103).
        #expect(code(Self.image([0xE1, 0x10, 0x0E, 0x00, 0x03, 91]))! == (.malformedTag, 13))
        #expect(code(Self.image([0xE1, 0x10, 0x0E, 0x00, 0x03, 90])) == nil)
        // A Lock Control TLV with 2 value bytes.
        #expect(code(Self.image([0xE1, 0x10, 0x0E, 0x00, 0x01, 0x02, 0xF2, 0x30, 0x03, 0x00]))! == (.malformedTag, 13))
        // A 3-byte length cut by the end of the area, a proprietary TLV running past it.
        #expect(code(Self.image([0xE1, 0x10, 0x0E, 0x00, 0xFD, 0xFF, 0x10, 0x00]))!.0 == .malformedTag)
        // A CC naming 2048 bytes on a 120-byte image: the parse stays within the image.
        #expect(code(Self.image([0xE1, 0x10, 0xFF, 0x00, 0x03, 0x00])) == nil)
        // A Memory Control TLV naming a huge area far away is harmless.
        #expect(code(Self.image([0xE1, 0x10, 0x0E, 0x00, 0x02, 0x03, 0xFF, 0xFF, 0x0F, 0x03, 0x00])) == nil)
        // Every truncated prefix of a formatted Topaz 512 image fails or parses, never traps.
        let full = Self.image(Type1FormatLayout.dynamicLayout, size: 512)
        for length in 0..<full.count { _ = code(Array(full.prefix(length)), hr0: 0x12) }
        #expect(code(Array(full.prefix(11)), hr0: 0x12)! == (.malformedTag, 11))
    }

    @Test("a message past byte 128 on a reader that stops there is refused as not supported, not as malformed")
    func shortReach() {
        var memory = Self.image(Type1FormatLayout.dynamicLayout, size: 128)
        memory[23] = 200
        #expect { _ = try Type1TLVArea.parse(memory: memory, hr0: 0x12, reachedAll: false) } throws: {
            ($0 as? NFCTagError)?.code == .notSupported
        }
    }
}
