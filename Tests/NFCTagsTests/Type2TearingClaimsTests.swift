import NDEF
import NFCCore
import NFCTags
import Testing
import VirtualTags

/// The tearing claims of docs/tags.md for Type 2, each swept at every cut point (after each
/// command and inside each command) through the sequence users run: `NFCTag.connect`
/// identifies the chip (GET_VERSION), so writes use FAST_READ, read CFG0/CFG1 and verify.
@Suite("Type 2 tearing: every write, lock, format and password change of docs/tags.md", .timeLimit(.minutes(10)))
struct Type2TearingClaimsTests {
    static let uid: [UInt8] = [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]

    static func url(_ text: String) throws -> NDEFMessage {
        NDEFMessage(records: [try NDEFPayload.wellKnownTypeURIPayload(url: text)])
    }

    /// The platform object as users get it: identified by `NFCTag.connect`, re-selected.
    static func identified(password: NTAGPassword? = nil) -> (SimulatedReader, TargetInfo) async throws -> any NFCNDEFTag {
        { reader, target in
            guard case .miFare(var tag) = try await NFCTag.connect(to: target, on: reader) else {
                throw NFCTagError(.notSupported, "not a MIFARE tag")
            }
            tag.password = password
            _ = try await reader.poll(for: [.iso14443A], timeout: .zero)
            return try #require(tag.type2)
        }
    }

    /// A factory chip of `model` (an Ultralight EV1 formatted first), holding `message` if given
    /// (written the way users write it).
    static func chip(_ model: String, message: NDEFMessage?) async throws -> TagState {
        let entry = try #require(TagModel.named(model), "no model \(model)")
        var state = try #require((entry.make(uid, TagModelOptions()) as? any PersistentVirtualTag)?.tagState)
        if model.hasPrefix("ultralight") {
            state = try await finalState(state) { tag throws(NFCTagError) in try await tag.format(force: false) }
        }
        if let message {
            state = try await finalState(state) { tag throws(NFCTagError) in try await tag.writeNDEF(message) }
        }
        return state
    }

    /// The state an uninterrupted `operation` leaves.
    static func finalState(
        _ initial: TagState, password: NTAGPassword? = nil, _ operation: (any NFCNDEFTag) async throws(NFCTagError) -> Void
    ) async throws -> TagState {
        let (reader, target) = try await TearingSweep.open(initial, modulations: [.iso14443A])
        try await operation(try await identified(password: password)(reader, target))
        return try #require(await TearingSweep.state(reader))
    }

    /// Stands in for a failed cast (the sweep then fails on its outcomes).
    static let noType2 = Type2Tag(reader: SimulatedReader(tags: [], emptyFieldWait: .zero))

    static func memory(_ state: TagState) throws -> [UInt8] { try Hex.decode(state.memory) }

    // MARK: - write

    @Test("writeNDEF through NFCTag.connect (FAST_READ, CFG read, writes, verify): old, empty or new", arguments: [
        ("ntag213", "https://example.com/old", "https://example.org/a-new-and-longer-message"),
        ("ntag215", "https://example.com/" + String(repeating: "o", count: 300), "https://n.example"),
        ("ntag216", "https://n.example", "https://example.com/" + String(repeating: "n", count: 600)),
        ("ultralight-ev1-mf0ul21", "https://n.example", "https://example.com/" + String(repeating: "n", count: 90)),
    ])
    func write(model: String, old: String, new: String) async throws {
        let oldMessage = try Self.url(old), newMessage = try Self.url(new)
        let initial = try await Self.chip(model, message: oldMessage)
        // The identified sequence: it starts with FAST_READ and reads CFG before the first WRITE.
        let (reader, target) = try await TearingSweep.open(initial, modulations: [.iso14443A])
        let tag = try await Self.identified()(reader, target)
        await reader.withField { $0.trace = [] }
        try await tag.writeNDEF(newMessage)
        let codes = await reader.withField { $0.trace.map { $0.command[0] } }
        #expect(codes.first == Type2Command.fastRead, "\(codes)")
        let firstWrite = try #require(codes.firstIndex(of: Type2Command.write))
        let profile = try #require((tag as? Type2Tag)?.profile)
        let configurationPage = profile.configurationPage
        let commands = await reader.withField { $0.trace.map { $0.command } }
        // CFG0-CFG1 come by their own FAST_READ, or, when the message reaches page 16, with the
        // READ of the dynamic lock page just before them (the lock-bit check's one READ).
        let lockPageRead = profile.dynamicLockPage.map { [Type2Command.read, UInt8($0)] }
        #expect(
            commands[..<firstWrite].contains([Type2Command.fastRead, UInt8(configurationPage), UInt8(configurationPage + 1)])
                || (profile.dynamicLockPage == configurationPage - 1 && lockPageRead.map { commands[..<firstWrite].contains($0) } == true),
            "no FAST_READ of CFG0-CFG1 (nor READ of the dynamic lock page before them) before the first WRITE: \(codes)")
        #expect(codes.last == Type2Command.fastRead || codes.last == Type2Command.read, "no verification: \(codes)")

        let outcomes = try await TearingSweep.run(
            "\(model) identified write", initial: initial, makeTag: Self.identified(),
            operation: { tag throws(NFCTagError) in try await tag.writeNDEF(newMessage) },
            classify: TearingSweep.messageClassifier(old: oldMessage, new: newMessage))
        #expect(outcomes["new", default: 0] >= 1)
        #expect(outcomes["empty", default: 0] + outcomes["old", default: 0] >= 1)
        #expect(outcomes["cut points"] == 2 * codes.count)
    }

    @Test("writeNDEF on a factory tag, whose `03 00` already reads as an empty message (no length-0 WRITE first): torn anywhere, empty or new",
          arguments: ["ntag213", "ntag215"])
    func writeOnBlank(model: String) async throws {
        let newMessage = try Self.url("https://example.com/t/0453494D000001?n=00001")
        let initial = try await Self.chip(model, message: nil)
        let outcomes = try await TearingSweep.run(
            "\(model) blank write", initial: initial, makeTag: Self.identified(),
            operation: { tag throws(NFCTagError) in try await tag.writeNDEF(newMessage) },
            classify: TearingSweep.messageClassifier(old: .empty, new: newMessage))
        #expect(outcomes["new", default: 0] >= 1)
        #expect(outcomes["old", default: 0] >= 1)
        #expect(!outcomes.keys.contains { $0.hasPrefix("corrupt") }, "\(outcomes)")
    }

    // MARK: - forced format

    @Test("format(force:) over a message on an NTAG215: the old message or an empty one")
    func forcedFormat() async throws {
        let old = try Self.url("https://example.com/" + String(repeating: "f", count: 100))
        let outcomes = try await TearingSweep.run(
            "NTAG215 forced format", initial: try await Self.chip("ntag215", message: old), makeTag: Self.identified(),
            operation: { tag throws(NFCTagError) in try await tag.format(force: true) },
            classify: TearingSweep.messageClassifier(old: old, new: .empty))
        #expect(outcomes["empty", default: 0] >= 1)
        #expect(outcomes["old", default: 0] >= 1)
    }

    // MARK: - writeLock

    /// Exact: "unchanged" (every byte as before), "locked" (every byte as an uninterrupted lock
    /// leaves them), or "read-only, partly locked" — CC3 already says read-only, and a rerun
    /// brings every byte to the locked state. Lock bits set on a tag that still reads as
    /// read-write (half-locked without saying so) are corrupt; so is a changed message.
    @Test("writeLock: unchanged, locked, or read-only and completed by a rerun; never half-locked while reading read-write",
          arguments: ["ntag213", "ntag215", "ntag216", "ultralight", "ultralight-ev1-mf0ul21"])
    func writeLock(model: String) async throws {
        let message = try Self.url("https://example.com/lock-me")
        let initial = try await Self.chip(model, message: message)
        let locked = try Self.memory(try await Self.finalState(initial) { tag throws(NFCTagError) in try await tag.writeLock() })
        let unchanged = try Self.memory(initial)
        #expect(locked != unchanged)
        let outcomes = try await TearingSweep.run(
            "\(model) writeLock", initial: initial, makeTag: Self.identified(),
            operation: { tag throws(NFCTagError) in try await tag.writeLock() },
            classifyState: { state, tag in
                let bytes = try Self.memory(state)
                guard try await tag.readNDEF() == message else { return "corrupt: the message changed" }
                if bytes == unchanged { return "unchanged" }
                let status = try await tag.queryNDEFStatus().status
                guard status == .readOnly else {
                    return "corrupt: half-locked (\(zip(bytes, unchanged).filter { $0 != $1 }.count) bytes changed) but reads read-write"
                }
                if bytes == locked { return "locked" }
                let rerun = try await Self.finalState(state) { tag throws(NFCTagError) in try await tag.writeLock() }
                return try Self.memory(rerun) == locked ? "read-only, partly locked; a rerun completes" : "corrupt: a rerun does not complete the lock"
            })
        #expect(outcomes["unchanged", default: 0] >= 1)
        #expect(outcomes["locked", default: 0] >= 1)
    }

    // MARK: - password

    /// AUTH0 (CFG0 byte 3), PWD and PACK of an NTAG215 (pages 83h, 85h, 86h) from its state.
    static func passwordFields(_ state: TagState) throws -> (auth0: UInt8, password: [UInt8], pack: [UInt8]) {
        let bytes = try memory(state)
        return (bytes[0x83 * 4 + 3], Array(bytes[(0x85 * 4)..<(0x85 * 4 + 4)]), Array(bytes[(0x86 * 4)..<(0x86 * 4 + 2)]))
    }

    /// Whether a stranger (no password) can write a message, on a copy of `state`.
    static func strangerWrites(_ state: TagState) async throws -> Bool {
        let probe = try url("https://stranger.example")
        do {
            _ = try await finalState(state) { tag throws(NFCTagError) in try await tag.writeNDEF(probe) }
            return true
        } catch let error as NFCTagError where error.code == .passwordRequired || error.code == .authenticationFailed {
            return false
        }
    }

    /// Whether the holder of `password` can write, on a copy of `state`.
    static func ownerWrites(_ state: TagState, _ password: NTAGPassword) async throws -> Bool {
        let probe = try url("https://owner.example")
        do {
            _ = try await finalState(state, password: password) { tag throws(NFCTagError) in try await tag.writeNDEF(probe) }
            return true
        } catch let error as NFCTagError where error.code == .authenticationFailed {
            return false
        }
    }

    @Test("setPassword torn anywhere: unprotected (anyone writes), or protected by exactly the new password; never by one nobody knows")
    func setPassword() async throws {
        let password = try NTAGPassword(hex: "CAFEF00D:1234")
        let initial = try await Self.chip("ntag215", message: try Self.url("https://example.com/protect-me"))
        let outcomes = try await TearingSweep.run(
            "NTAG215 setPassword", initial: initial, makeTag: Self.identified(),
            operation: { tag throws(NFCTagError) in try await (tag as? Type2Tag ?? Self.noType2).setPassword(password) },
            classifyState: { state, _ in
                let fields = try Self.passwordFields(state)
                if fields.auth0 > 0x86 {
                    return try await Self.strangerWrites(state) ? "unprotected" : "corrupt: AUTH0 off, yet a write is refused"
                }
                guard fields.password == [0xCA, 0xFE, 0xF0, 0x0D], fields.pack == [0x12, 0x34] else {
                    return "corrupt: protected (AUTH0 \(fields.auth0)) by PWD \(Hex.encode(fields.password)) PACK \(Hex.encode(fields.pack))"
                }
                guard try await !Self.strangerWrites(state), try await Self.ownerWrites(state, password) else {
                    return "corrupt: protection does not behave"
                }
                return "protected by the new password"
            })
        #expect(outcomes["unprotected", default: 0] >= 1)
        #expect(outcomes["protected by the new password", default: 0] >= 1)
    }

    @Test("removePassword torn anywhere: still protected by the old password, or unprotected")
    func removePassword() async throws {
        let password = try NTAGPassword(hex: "11223344:5566")
        let plain = try await Self.chip("ntag215", message: try Self.url("https://example.com/unprotect-me"))
        let initial = try await Self.finalState(plain) { tag throws(NFCTagError) in try await (tag as? Type2Tag ?? Self.noType2).setPassword(password) }
        #expect(try Self.passwordFields(initial).auth0 == 4)
        let outcomes = try await TearingSweep.run(
            "NTAG215 removePassword", initial: initial, makeTag: Self.identified(password: password),
            operation: { tag throws(NFCTagError) in try await (tag as? Type2Tag ?? Self.noType2).removePassword() },
            classifyState: { state, _ in
                let fields = try Self.passwordFields(state)
                if fields.auth0 > 0x86 {
                    return try await Self.strangerWrites(state) ? "unprotected" : "corrupt: AUTH0 off, yet a write is refused"
                }
                guard fields.password == [0x11, 0x22, 0x33, 0x44], fields.pack == [0x55, 0x66],
                      try await Self.ownerWrites(state, password), try await !Self.strangerWrites(state) else {
                    return "corrupt: protected by a password that is not the old one"
                }
                return "protected by the old password"
            })
        #expect(outcomes["unprotected", default: 0] >= 1)
        #expect(outcomes["protected by the old password", default: 0] >= 1)
    }
}
