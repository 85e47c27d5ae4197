import NDEF
import NFCCore
import NFCTags
import Testing
import VirtualTags

/// Tearing of the ST25 write paths: the chip leaves the field after, or inside, each command.
/// Protect/unprotect: the state left behind (the virtual chip's registers and passwords, read from
/// its tag file, not from NFCTags) must be one a user can recover from — every password the old or
/// the new one, and area 1 protected only behind passwords the user holds. NDEF writes on an
/// ST25DV64K past block 255 (extended commands) and its `E2` format: old, empty or new.
@Suite("ST25 protect, unprotect, write and format torn at every command", .timeLimit(.minutes(3)))
struct ST25ProtectTearingTests {
    static let uid: [UInt8] = [0xE0, 0x02, 0x24, 0x10, 0x53, 0x49, 0x4D, 0x09]
    static let new = ST25Password(bytes: [0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0x80])!
    static let zero = [UInt8](repeating: 0, count: 8)

    /// The ST25DV04K the protect and unprotect sweeps run on.
    static let identity = TearingSweep.type5Identity("ST25DV04K", family: .st25, blockCount: 128, icReference: 0x24)

    static func tag(_ reader: SimulatedReader, _ target: TargetInfo) throws -> ISO15693Tag {
        try TearingSweep.iso15693Tag(reader, target, identity: identity)
    }

    /// Runs `operation` from `initial` cut at every point; returns the chips left behind.
    static func sweep(_ initial: TagState, _ operation: (ISO15693Tag) async throws(NFCTagError) -> Void) async throws -> [ST25VirtualTag] {
        try await TearingSweep.iso15693States(initial, identity: identity, minimumCommands: 5, operation)
            .map { try #require(ST25VirtualTag(state: $0)) }
    }

    static func recoverable(_ chip: ST25VirtualTag, holding passwords: [[UInt8]]) -> Bool {
        chip.passwords.prefix(2).allSatisfy { passwords.contains($0) } && [0x00, 0x05].contains(chip.areaRegisters[0])
    }

    @Test("protect torn anywhere: passwords old or new; area 1 write-protected only behind password 1 the user holds")
    func protect() async throws {
        let chips = try await Self.sweep(ST25VirtualTag(.st25dv04k, uid: Self.uid).tagState) { tag throws(NFCTagError) in
            try await tag.st25Protect(password: Self.new, current: .factoryDefault)
        }
        for chip in chips { #expect(Self.recoverable(chip, holding: [Self.zero, Self.new.bytes]), "\(chip.areaRegisters) \(chip.passwords)") }
        #expect(chips.contains { $0.areaRegisters[0] == 0x05 && $0.passwords[0] == Self.new.bytes && $0.passwords[1] == Self.new.bytes })
        #expect(chips.contains { $0.areaRegisters[0] == 0x00 })
        // A rerun with the same files finishes the job from any cut.
        for chip in chips {
            let (reader, target) = try await TearingSweep.open(chip.tagState, modulations: [.iso15693])
            try await Self.tag(reader, target).st25Protect(password: Self.new, current: .factoryDefault)
            let doneState = try #require(await TearingSweep.state(reader))
            let done = try #require(ST25VirtualTag(state: doneState))
            #expect(done.areaRegisters[0] == 0x05 && done.passwords[0] == Self.new.bytes && done.passwords[1] == Self.new.bytes)
        }
    }

    @Test("unprotect torn anywhere: area 1 still protected only while password 1 is one the user holds")
    func unprotect() async throws {
        let (reader, target) = try await TearingSweep.open(ST25VirtualTag(.st25dv04k, uid: Self.uid).tagState, modulations: [.iso15693])
        try await Self.tag(reader, target).st25Protect(password: Self.new, current: .factoryDefault)
        let protected = try #require(await TearingSweep.state(reader))
        let chips = try await Self.sweep(protected) { tag throws(NFCTagError) in try await tag.st25Unprotect(current: Self.new) }
        for chip in chips { #expect(Self.recoverable(chip, holding: [Self.zero, Self.new.bytes]), "\(chip.areaRegisters) \(chip.passwords)") }
        for chip in chips where chip.areaRegisters[0] != 0 { #expect(chip.passwords[1] == Self.new.bytes) }
        #expect(chips.contains { $0.areaRegisters[0] == 0 && $0.passwords.allSatisfy { $0 == Self.zero } })
    }

    static func makeTag(_ reader: SimulatedReader, _ target: TargetInfo) async throws -> any NFCNDEFTag {
        guard case .iso15693(let v) = target else { throw NFCTagError(.notSupported, "not ISO 15693") }
        var identity = ChipIdentity(model: "ST25DV64K", platform: .type5, family: .st25, memoryBytes: 8192)
        identity.blockCount = 2048
        return Type5Tag(tag: ISO15693Tag(reader: reader, target: v, identity: identity))
    }

    static func text(_ value: String) throws -> NDEFMessage {
        NDEFMessage(records: [try NDEFPayload.wellKnownTypeTextPayload(string: value, locale: "en")])
    }

    @Test("writeNDEF on an ST25DV64K across block 255 (extended commands), torn anywhere: old, empty or new")
    func tearingLargeWrite() async throws {
        let old = try Self.text(String(repeating: "o", count: 1100)), new = try Self.text(String(repeating: "n", count: 1030))
        let chip = ST25VirtualTag(.st25dv64k, uid: [0xE0, 0x02, 0x26, 0x10, 0x53, 0x49, 0x4D, 0x09])
        let (reader, target) = try await TearingSweep.open(chip.tagState, modulations: [.iso15693])
        try await Self.makeTag(reader, target).writeNDEF(old)
        let initial = try #require(await TearingSweep.state(reader))
        let outcomes = try await TearingSweep.run(
            "ST25DV64K write", initial: initial, modulations: [.iso15693], makeTag: Self.makeTag,
            operation: { tag throws(NFCTagError) in try await tag.writeNDEF(new) },
            classify: TearingSweep.messageClassifier(old: old, new: new))
        #expect(outcomes["new", default: 0] >= 1 && outcomes["empty", default: 0] >= 1)
    }

    @Test("format of a blank ST25DV64K (8-byte E2 CC over two blocks), torn anywhere: blank or formatted, never a half CC that parses")
    func tearingFormat() async throws {
        let chip = ST25VirtualTag(.st25dv64k, uid: [0xE0, 0x02, 0x26, 0x10, 0x53, 0x49, 0x4D, 0x0A])
        var image = chip.tagFileImage
        for i in 0..<16 { image[i] = 0 }
        chip.tagFileImage = image
        let outcomes = try await TearingSweep.run(
            "ST25DV64K format", initial: chip.tagState, modulations: [.iso15693], makeTag: Self.makeTag,
            operation: { tag throws(NFCTagError) in try await tag.format(force: false) },
            classifyState: { state, tag in
                let query = try await tag.queryNDEFStatus()
                if query.status == .notSupported { return "blank" }
                guard try await tag.readNDEF() == .empty, query.capacity == 8184 - 4 else { return "corrupt: \(query)" }
                return "formatted"
            })
        #expect(outcomes["formatted", default: 0] >= 1 && outcomes["blank", default: 0] >= 1)
    }
}
