import NDEF
import NFCCore
import NFCTags
import NFCTestSupport
import Testing
import VirtualTags

/// TI Tag-it HF-I Plus, NXP NTAG 5 switch and ICODE DNA as virtual chips (`Type5Chip`): named by
/// identification from what they answer, written and locked as NFC Forum Type 5 with the option
/// flag a Tag-it needs, torn at every command, restored only from images that fit. Memory is
/// judged by ``T5TJudge``, written here from the Type 5 rules, not by NFCTags.
@Suite("Tag-it HF-I Plus, NTAG 5 and ICODE DNA as Type 5 tags", .timeLimit(.minutes(3)))
struct Type5ChipsTests {
    /// A simulator holding `chip`, inventoried and identified, tracing.
    static func open(_ chip: sending Type5Chip) async throws -> (SimulatedReader, ISO15693Tag) {
        let reader = SimulatedReader(tags: [chip], emptyFieldWait: .zero)
        let target = try #require(try await reader.poll(for: [.iso15693], timeout: .zero))
        guard case .iso15693(let v) = target else { throw NFCTagError(.notSupported, "not ISO 15693") }
        let identity = await ChipIdentification.identify(target, on: reader, probesNDEF: false)
        await reader.withField { $0.isTracing = true }
        return (reader, ISO15693Tag(reader: reader, target: v, identity: identity))
    }

    /// The frames the field carried.
    static func frames(_ reader: SimulatedReader) async -> [[UInt8]] {
        await reader.withField { $0.trace.map(\.command) }
    }

    static func chip(_ profile: Type5ChipProfile) -> Type5Chip { Type5Chip(profile, uid: profile.defaultUID) }

    /// The memory and block locks of the chip on `reader`.
    static func state(_ reader: SimulatedReader) async throws -> (memory: [UInt8], locks: [Bool]) {
        try #require(await reader.withField { field in (field.currentTag as? Type5Chip).map { ($0.memory, $0.lockedBlocks) } })
    }

    @Test("identification names each chip from its UID and the memory GET SYSTEM INFORMATION reports", arguments: [
        (Type5ChipProfile.tagItHFIPlus, "Tag-it HF-I Plus", "Texas Instruments", 256),
        (Type5ChipProfile.tagItHFIStandard, "Tag-it HF-I Standard", "Texas Instruments", 32),
        (Type5ChipProfile.tagItHFIPro, "Tag-it HF-I Pro", "Texas Instruments", 32),
        (Type5ChipProfile.ntag5Switch, "NTAG 5 switch (NTP5210)", "NXP", 512),
        (Type5ChipProfile.ntag5Link, "NTAG 5 link or boost (NTP53x2, NTA5332)", "NXP", 2048),
        (Type5ChipProfile.ntag5Boost, "NTAG 5 link or boost (NTP53x2, NTA5332)", "NXP", 2048),
        (Type5ChipProfile.icodeDNA, "ICODE DNA", "NXP", 252),
    ])
    func identified(profile: Type5ChipProfile, model: String, maker: String, bytes: Int) async throws {
        let (_, tag) = try await Self.open(Self.chip(profile))
        #expect(tag.identity.model == model)
        #expect(tag.identity.manufacturer == maker)
        #expect(tag.identity.memoryBytes == bytes && tag.identity.blockSize == 4)
        #expect(tag.identity.platform == .type5)
        #expect(tag.writeOptionFlag == profile.writesNeedOptionFlag, "only the Tag-its write with the option flag")
        #expect((tag.identity.memoryFromModelTable != nil) == profile.singleBlockCommandsOnly, "the memory from the model table only for the Standard and Pro")
    }

    @Test("NTAG 5 link: GET SYSTEM INFORMATION saturates at FF 03 with IC reference 01 (as a real link answers), so identification asks EXTENDED GET SYSTEM INFORMATION (3B 3F) and finds 512 blocks; the boost answers without an IC reference")
    func ntag5LinkSystemInformation() async throws {
        let link = Self.chip(.ntag5Link)
        let uidOnAir = Array(link.uid.reversed())
        // Flags, 2B, then info flags 0F, UID, DSFID, AFI, memory FF 03, IC reference 01: the
        // layout of VivoKey ntag5sensor's capture of two real NTAG 5 links.
        #expect(link.respond(to: [0x02, 0x2B]) == .data([0x00, 0x0F] + uidOnAir + [0x00, 0x00, 0xFF, 0x03, 0x01]))
        #expect(link.respond(to: [0x02, 0x3B, 0x3F]) == .data([0x00, 0x1F] + uidOnAir + [0x00, 0x00, 0xFF, 0x01, 0x03, 0x01]))
        let boost = Self.chip(.ntag5Boost)
        #expect(boost.respond(to: [0x02, 0x2B]) == .data([0x00, 0x07] + Array(boost.uid.reversed()) + [0x00, 0x00, 0xFF, 0x03]))
        let (reader, tag) = try await Self.open(Self.chip(.ntag5Link))
        #expect(tag.identity.blockCount == 512 && tag.identity.icReference == 0x01)
        _ = reader
        // Another chip's extended commands stay unanswered as before.
        let dna = Self.chip(.icodeDNA)
        #expect(dna.respond(to: [0x02, 0x30, 0x00, 0x00]) == .data([0x01, 0x01]))
    }

    @Test("a 1200-byte message on an NTAG 5 link: the CC is E2 (2-byte block numbers) and every write is EXTENDED WRITE SINGLE BLOCK (31, block number least significant byte first), blocks past 255 included; the file's memory holds it")
    func ntag5LinkLongMessage() async throws {
        let (reader, tag) = try await Self.open(Self.chip(.ntag5Link))
        let ndef = Type5Tag(tag: tag)
        let text = String(repeating: "n5", count: 600)
        try await ndef.writeNDEF(NDEFMessage(records: [try NDEFPayload.wellKnownTypeTextPayload(string: text, locale: "en")]), verify: false)
        let frames = await Self.frames(reader)
        let writes = frames.filter { $0.count > 1 && ($0[1] == ISO15693Command.writeSingleBlock || $0[1] == ISO15693Command.extendedWriteSingleBlock) }
        #expect(!writes.isEmpty && writes.allSatisfy { $0[1] == ISO15693Command.extendedWriteSingleBlock }, "\(writes.map { $0[1] })")
        // Flags 22 (addressed, high data rate), 31, UID (8), block low, block high, 4 data bytes.
        #expect(writes.allSatisfy { $0.count == 2 + 8 + 2 + 4 && $0[0] == 0x22 })
        let blocks = writes.map { Int($0[10]) | Int($0[11]) << 8 }
        #expect(blocks.contains { $0 > 255 }, "\(blocks)")
        let after = try await Self.state(reader)
        let judged = try #require(T5TJudge(memory: after.memory))
        #expect(judged.capabilityContainer == [0xE2, 0x40, 0xFF, 0x01])
        #expect(judged.text == text)
    }

    @Test("format --force on an NTAG 5 link sizes the CC from EXTENDED GET SYSTEM INFORMATION: magic E2, MLEN FF (2040 bytes), an empty NDEF TLV")
    func ntag5LinkFormat() async throws {
        let chip = Self.chip(.ntag5Link)
        #expect(chip.setNDEFMessage([0xD0, 0x00, 0x00]))
        let (reader, tag) = try await Self.open(chip)
        try await Type5Tag(tag: tag).format(force: true)
        let judged = try #require(T5TJudge(memory: try await Self.state(reader).memory))
        #expect(judged.capabilityContainer.prefix(3) == [0xE2, 0x40, 0xFF], "\(judged.capabilityContainer)")
        #expect(judged.area == 2040 && judged.message == [])
        let asked = await Self.frames(reader).contains { $0.count >= 2 && $0[1] == ISO15693Command.extendedGetSystemInformation }
        #expect(asked, "the plain answer's 256 blocks sent format to the extended form")
    }

    @Test("type indicator 11b without a memory size it knows names both candidates; TI's Proxmark3-only product bits name a Plus")
    func sharedIndicator() {
        let uid = Bytes([0xE0, 0x04, 0x01, 0x18, 1, 2, 3, 4])
        #expect(ISO15693ChipTable.identity(uid: uid, systemInfo: nil).model == "ICODE DNA or NTAG 5")
        #expect(ISO15693ChipTable.identity(uid: uid, systemInfo: ISO15693ChipMemory(icReference: nil, blockCount: 512, blockSize: 4)).model
            == "NTAG 5 link or boost (NTP53x2, NTA5332)")
        let ti = ISO15693ChipTable.identity(uid: Bytes([0xE0, 0x07, 0x12, 0, 1, 2, 3, 4]), systemInfo: nil)
        #expect(ti.model == "Tag-it HF-I Plus" && ti.family == .tagIt)
        #expect(ti.identificationSource?.contains("Proxmark3") == true)
    }

    @Test("format and write on a blank Tag-it: every WRITE SINGLE BLOCK carries the option flag (62), the CC says Lock Block and Special Frame, the message reads back")
    func tagItFormatAndWrite() async throws {
        let (reader, tag) = try await Self.open(Self.chip(.tagItHFIPlus))
        let ndef = Type5Tag(tag: tag)
        try await ndef.format(force: false)
        try await ndef.writeNDEF(NDEFMessage(records: [try NDEFPayload.wellKnownTypeURIPayload(url: "https://ti.example/1")]), verify: false)
        let writes = await Self.frames(reader).filter { $0.count > 1 && $0[1] == ISO15693Command.writeSingleBlock }
        #expect(!writes.isEmpty)
        #expect(writes.allSatisfy { $0[0] == 0x62 }, "flags: high data rate, addressed, option: \(writes.map { $0[0] })")
        let judged = try #require(T5TJudge(memory: try await Self.state(reader).memory))
        #expect(judged.features & 0x18 == 0x18, "CC byte 3 \(judged.features): Lock Block and Special Frame")
        #expect(judged.area == 248, "MLEN 1F: (256 − 4) / 8 whole 8-byte units")
        #expect(judged.message?.count == 17, "D1 01 0D 55 04 and ti.example/1")
    }

    @Test("Tag-it HF-I Standard and Pro: identification and format send no GET (EXTENDED) SYSTEM INFORMATION; format's exact commands: READ MULTIPLE refused once, READ SINGLE BLOCK 0–6 with security status, WRITE SINGLE BLOCK 1 then 0 with the option flag; CC E1 40 03 18", arguments: [Type5ChipProfile.tagItHFIStandard, .tagItHFIPro])
    func tagItStandardProFormat(profile: Type5ChipProfile) async throws {
        let chip = Self.chip(profile)
        let reader = SimulatedReader(tags: [chip], emptyFieldWait: .zero)
        await reader.withField { $0.isTracing = true }
        let target = try #require(try await reader.poll(for: [.iso15693], timeout: .zero))
        guard case .iso15693(let v) = target else { throw NFCTagError(.notSupported, "not ISO 15693") }
        let identity = await ChipIdentification.identify(target, on: reader, probesNDEF: false)
        #expect(identity.blockCount == 8 && identity.blockSize == 4)
        #expect(identity.memoryFromModelTable?.contains("I93_TAG_IT_HF_I_STD_PRO_CHIP_INLAY_NUM_USER_BLK") == true)
        await reader.withField { $0.trace = [] }
        let ndef = Type5Tag(tag: ISO15693Tag(reader: reader, target: v, identity: identity))
        try await ndef.format(force: false)
        let onAir = Array(profile.defaultUID.reversed())
        let frames = await Self.frames(reader)
        // Format reads what the CC and area will cover (blocks 0–6) with each block's security
        // status: READ MULTIPLE once (refused: 01 01), then READ SINGLE BLOCK each; then the TLV
        // block, the CC block last.
        let reads = (0...6).map { [0x62, 0x20] + onAir + [UInt8($0)] }
        #expect(frames == [[0x62, 0x23] + onAir + [0x00, 0x06]] + reads + [
            [0x62, 0x21] + onAir + [0x01, 0x03, 0x00, 0xFE, 0x00],
            [0x62, 0x21] + onAir + [0x00, 0xE1, 0x40, 0x03, 0x18],
        ], "\(frames.map { Hex.encode($0) })")
        #expect(!frames.contains { $0.count > 1 && ($0[1] == 0x2B || $0[1] == 0x3B) }, "no system information asked")
        #expect(frames.filter { $0.count > 1 && $0[1] == ISO15693Command.writeSingleBlock }.map { $0[0] } == [0x62, 0x62])
        let memory = try await Self.state(reader).memory
        #expect(Array(memory.prefix(8)) == [0xE1, 0x40, 0x03, 0x18, 0x03, 0x00, 0xFE, 0x00], "\(Hex.encode(memory))")
        #expect(memory.dropFirst(8).allSatisfy { $0 == 0 }, "nothing past block 1, and nothing in the blocks past the user area")
        // 28 bytes of area (MLEN 03): a 45-byte message does not fit, and nothing changes.
        await #expect(throws: NFCTagError.self) {
            try await ndef.writeNDEF(NDEFMessage(records: [try NDEFPayload.wellKnownTypeURIPayload(url: "https://" + String(repeating: "x", count: 40))]), verify: false)
        }
        #expect(try await Self.state(reader).memory == memory, "a message too long for 8 blocks writes nothing")
    }

    @Test("hostile Tag-it HF-I Standard images: a CC whose MLEN reaches past the 8 user blocks and an NDEF length past them: reading fails, never reads past block 7, and a write is refused with nothing changed", arguments: [
        [0xE1, 0x40, 0x05, 0x18, 0x03, 0x03, 0xD0, 0x00, 0x00, 0xFE],
        [0xE1, 0x40, 0x03, 0x18, 0x03, 0x1E, 0xD1, 0x01],
        [0xE1, 0x40, 0xFF, 0x18, 0x03, 0xFF, 0x01, 0x00],
    ] as [[UInt8]])
    func tagItStandardHostile(image: [UInt8]) async throws {
        let chip = Self.chip(.tagItHFIStandard)
        var memory = chip.tagFileImage
        memory.replaceSubrange(0..<image.count, with: image)
        chip.tagFileImage = memory
        let (reader, tag) = try await Self.open(chip)
        let ndef = Type5Tag(tag: tag)
        let message = NDEFMessage(records: [try NDEFPayload.wellKnownTypeURIPayload(url: "https://" + String(repeating: "h", count: 30))])
        if image[2] != 0x05 { await #expect(throws: NFCTagError.self) { _ = try await ndef.readNDEF() } } else { _ = try? await ndef.readNDEF() }
        await #expect(throws: NFCTagError.self) { try await ndef.writeNDEF(message, verify: false) }
        #expect(try await Self.state(reader).memory == Array(memory.prefix(44)), "nothing changed")
        let past = await Self.frames(reader).filter { $0.count > 10 && [0x20, 0x21, 0x22].contains($0[1]) && $0[10] >= 8 }
        #expect(past.isEmpty, "no command past the user area: \(past.map { Hex.encode($0) })")
    }

    @Test("a Tag-it HF-I Standard answers GET SYSTEM INFORMATION, READ MULTIPLE BLOCKS and WRITE AFI with error 01, and reads blocks past its user area")
    func tagItStandardRefusals() async throws {
        let (reader, _) = try await Self.open(Self.chip(.tagItHFIStandard))
        let onAir = Array(Type5ChipProfile.tagItHFIStandard.defaultUID.reversed())
        for frame in [[0x22, 0x2B] + onAir, [0x22, 0x23] + onAir + [0, 1], [0x62, 0x27] + onAir + [0x07], [0x22, 0x2C] + onAir + [0, 1]] {
            #expect(try await reader.transceive(Bytes(frame), mode: .standard, timeout: .seconds(1)) == Bytes([0x01, 0x01]), "\(Hex.encode(frame))")
        }
        #expect(try await reader.transceive(Bytes([0x22, 0x20] + onAir + [10]), mode: .standard, timeout: .seconds(1)) == Bytes([0, 0, 0, 0, 0]))
        #expect(try await reader.transceive(Bytes([0x22, 0x20] + onAir + [11]), mode: .standard, timeout: .seconds(1)) == Bytes([0x01, 0x10]))
    }

    @Test("a Tag-it refuses a write or lock without the option flag (error 03) and keeps its memory")
    func tagItWithoutOptionFlag() async throws {
        let (reader, identified) = try await Self.open(Self.chip(.tagItHFIPlus))
        var tag = identified
        tag.writeOptionFlag = false
        do throws(NFCTagError) {
            try await tag.writeSingleBlock(3, data: Bytes([1, 2, 3, 4]))
            Issue.record("a write without the option flag was accepted")
        } catch {
            #expect(ISO15693Error.code(in: error) == ISO15693Error.optionNotSupported, "\(error)")
        }
        await #expect(throws: NFCTagError.self) { try await tag.lockBlock(3) }
        let after = try await Self.state(reader)
        #expect(after.memory.allSatisfy { $0 == 0 } && !after.locks.contains(true))
    }

    @Test("lock on each chip: the CC becomes read-only and every block of the area and CC is locked, the Tag-it's LOCK BLOCKs with the option flag", arguments: Type5ChipProfile.all)
    func lock(profile: Type5ChipProfile) async throws {
        let (reader, tag) = try await Self.open(Self.chip(profile))
        let ndef = Type5Tag(tag: tag)
        if !profile.deliveredFormatted { try await ndef.format(force: false) }
        try await ndef.writeNDEF(NDEFMessage(records: [try NDEFPayload.wellKnownTypeURIPayload(url: "https://lock.example")]), verify: false)
        try await ndef.writeLock()
        let after = try await Self.state(reader)
        let judged = try #require(T5TJudge(memory: after.memory))
        #expect(judged.writeAccess == 3)
        let areaBlocks = (4 + judged.area + 3) / 4
        #expect(after.locks.prefix(areaBlocks).allSatisfy { $0 }, "\(after.locks)")
        let locks = await Self.frames(reader).filter { $0.count > 1 && $0[1] == ISO15693Command.lockBlock }
        #expect(locks.allSatisfy { ($0[0] & ISO15693RequestFlag.option != 0) == profile.writesNeedOptionFlag })
        await #expect(throws: NFCTagError.self) { try await ndef.writeNDEF(.empty, verify: false) }
    }

    @Test("a write torn after or inside any command leaves the old, an empty or the new message, never a corrupt one", arguments: Type5ChipProfile.all)
    func tearing(profile: Type5ChipProfile) async throws {
        let chip = Self.chip(profile)
        let old = NDEFMessage(records: [try NDEFPayload.wellKnownTypeURIPayload(url: "https://old.example/a")])
        // The Standard and Pro hold 28 bytes of area: a new message that fits (19 bytes).
        let tail = String(repeating: "b", count: profile.userMemorySize < 64 ? 2 : 40)
        let new = NDEFMessage(records: [try NDEFPayload.wellKnownTypeURIPayload(url: "https://new.example/" + tail)])
        #expect(chip.setNDEFMessage(try old.encoded()))
        let oldBytes = try old.encoded(), newBytes = try new.encoded()
        let outcomes = try await TearingSweep.run(
            "\(profile.modelKey) write", initial: chip.tagState, modulations: [.iso15693],
            makeTag: { reader, target in
                let identity = await ChipIdentification.identify(target, on: reader, probesNDEF: false)
                guard case .iso15693(let v) = target else { throw NFCTagError(.notSupported, "not ISO 15693") }
                return Type5Tag(tag: ISO15693Tag(reader: reader, target: v, identity: identity))
            },
            operation: { tag throws(NFCTagError) in try await tag.writeNDEF(new, verify: false) },
            classifyState: { state, _ in
                let image = try #require(try? Hex.decode(state.memory))
                guard let judged = T5TJudge(memory: Array(image.prefix(profile.memorySize))) else { return "corrupt: no T5T area" }
                switch judged.message {
                case oldBytes: return "old"
                case newBytes: return "new"
                case []: return "empty"
                default: return "corrupt: \(judged.message.map { Hex.encode($0) } ?? "no NDEF TLV")"
                }
            })
        #expect(outcomes["new", default: 0] > 0 && outcomes["old", default: 0] > 0, "\(outcomes)")
        #expect(!outcomes.keys.contains { $0.hasPrefix("corrupt") }, "\(outcomes)")
    }

    @Test("format of a blank Tag-it (Plus; Standard and Pro sized by the model table) torn after or inside any command leaves it not NDEF formatted (no CC magic) or an empty NDEF tag, never a CC over a broken area", arguments: [
        Type5ChipProfile.tagItHFIPlus, .tagItHFIStandard, .tagItHFIPro,
    ])
    func formatTearing(profile: Type5ChipProfile) async throws {
        let blank = Self.chip(profile).tagState
        let outcomes = try await TearingSweep.run(
            "\(profile.modelKey) format", initial: blank, modulations: [.iso15693],
            makeTag: { reader, target in
                let identity = await ChipIdentification.identify(target, on: reader, probesNDEF: false)
                guard case .iso15693(let v) = target else { throw NFCTagError(.notSupported, "not ISO 15693") }
                return Type5Tag(tag: ISO15693Tag(reader: reader, target: v, identity: identity))
            },
            operation: { tag throws(NFCTagError) in try await tag.format(force: false) },
            classifyState: { state, _ in
                let memory = Array(try #require(try? Hex.decode(state.memory)).prefix(profile.memorySize))
                // No CC magic: not NDEF formatted, as before (the TLV block is written first).
                if memory[0] != 0xE1 { return "blank" }
                guard let judged = T5TJudge(memory: memory) else { return "corrupt: \(Hex.encode(Array(memory.prefix(8))))" }
                return judged.message == [] && judged.features & 0x10 != 0 ? "empty" : "corrupt: \(judged)"
            })
        #expect(outcomes["blank", default: 0] > 0 && outcomes["empty", default: 0] > 0, "\(outcomes)")
        #expect(!outcomes.keys.contains { $0.hasPrefix("corrupt") }, "\(outcomes)")
    }

    @Test("tag files that do not fit are refused: another model, a short UID, an image one byte short or long, a signature not 32 bytes")
    func hostileTagFiles() throws {
        let state = Self.chip(.icodeDNA).tagState
        #expect(Type5Chip(state: state) != nil)
        var other = state
        other.model = "slix2"
        #expect(Type5Chip(state: other) == nil)
        var shortUID = state
        shortUID.uid = "E0040118"
        #expect(Type5Chip(state: shortUID) == nil)
        for delta in [-2, 2] {
            var image = state
            image.memory = delta < 0 ? String(state.memory.dropLast(2)) : state.memory + "00"
            #expect(Type5Chip(state: image) == nil, "\(delta)")
        }
        var signature = state
        signature.attributes = ["signature": "0011"]
        #expect(Type5Chip(state: signature) == nil)
        var garbage = state
        garbage.memory = "zz" + state.memory.dropFirst(2)
        #expect(Type5Chip(state: garbage) == nil)
    }

    @Test("ICODE DNA answers READ SIGNATURE with the signature it was given; NTAG 5 and the Tag-it answer error 01; AUTHENTICATE (35) is not modelled (01)")
    func signatureAndAuthenticate() async throws {
        let dna = Self.chip(.icodeDNA)
        let authenticate = [0x22, 0x35] + dna.uid.reversed() + [0x00, 0x00]
        #expect(dna.respond(to: authenticate) == .data([0x01, 0x01]))
        dna.originalitySignature = [UInt8](repeating: 0x5A, count: 32)
        let (_, tag) = try await Self.open(dna)
        #expect(try await tag.readNXPSignature() == Bytes([UInt8](repeating: 0x5A, count: 32)))
        for profile in [Type5ChipProfile.ntag5Switch, .tagItHFIPlus] {
            let chip = Self.chip(profile)
            let frame = [0x22, 0xBD, chip.uid[1]] + chip.uid.reversed()
            #expect(chip.respond(to: frame) == .data([0x01, 0x01]), "\(profile.modelKey)")
        }
    }
}
