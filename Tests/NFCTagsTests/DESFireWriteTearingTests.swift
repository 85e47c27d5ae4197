import NDEF
import NFCCore
import NFCTags
import NFCTestSupport
import Testing
import VirtualTags

/// The NDEF write of a MIFARE DESFire formatted by this tool (NXP AN11004's Type 4 application:
/// ISO SELECT, then UPDATE BINARY of NLEN 0000, the message, and the new NLEN) cut after and
/// inside each of its commands, on the virtual EV1, EV2 and EV3 (issue 30). Each cut is judged
/// twice: by a fresh reader, and by parsing the NDEF file in the tag file's DESFire image
/// without NFCTags; then the write is run again on the torn tag and must complete.
@Suite("MIFARE DESFire: tearing sweep of the Type 4 NDEF write", .timeLimit(.minutes(5)))
struct DESFireWriteTearingTests {
    static let uid = hex("04 44 46 57 54 45 01")

    static func url(_ text: String) throws -> NDEFMessage {
        NDEFMessage(records: [try NDEFPayload.wellKnownTypeURIPayload(url: text)])
    }

    /// A blank DESFire of `generation` formatted by `format` (factory keys), then holding `old`
    /// when given (written by this tool): the state the sweep starts from.
    static func formatted(_ generation: DESFireVirtualTag.Generation, holding old: NDEFMessage?) async throws -> TagState {
        let (reader, target) = try await TearingSweep.open(DESFireVirtualTag(uid: uid, generation: generation).tagState, modulations: [.iso14443A])
        let tag = try await NFCTag.connect(to: target, on: reader).ndef
        try await tag.format(force: false)
        if let old { try await tag.writeNDEF(old, verify: true) }
        return try #require(await TearingSweep.state(reader))
    }

    /// The message in the tag file's NDEF file (AN11004: application 000001, file E104), parsed
    /// from the image's bytes: NLEN (2 bytes, big-endian), then that many bytes of message.
    @Sendable static func storedMessage(_ state: TagState) throws -> NDEFMessage {
        let chip = try #require(DESFireVirtualTag(state: state), "the tag file is no DESFire")
        let mapping = DESFire.TypeFourMapping.self
        let application = try #require(chip.image.applications.first { $0.aid == mapping.applicationID }, "no NDEF application")
        let file = try #require(application.files.first { $0.isoFileID == mapping.ndefFileID }, "no NDEF file").data
        try #require(file.count >= 2, "NDEF file of \(file.count) bytes")
        let length = Int(file[0]) << 8 | Int(file[1])
        try #require(2 + length <= file.count, "NLEN \(length) past the \(file.count)-byte file")
        return length == 0 ? .empty : try NDEFMessage(bytes: Array(file[2..<(2 + length)]))
    }

    @Test("tearing sweep of writeNDEF after format: cut after or inside any command, a fresh reader and the tag file agree on the old, an empty or the new message, never corrupt, and a re-run completes it",
          arguments: DESFireVirtualTag.Generation.allCases, [false, true])
    func writeTearingSweep(generation: DESFireVirtualTag.Generation, holdsMessage: Bool) async throws {
        // The new message is longer than the old one and takes several UPDATE BINARY chunks.
        let old = holdsMessage ? try Self.url("https://example.com/old") : nil
        let new = try Self.url("https://example.com/" + String(repeating: "new-message/", count: 12))
        let initial = try await Self.formatted(generation, holding: old)
        let outcomes = try await TearingSweep.run(
            "DESFire \(generation.rawValue) write\(holdsMessage ? " over a message" : " after format")", initial: initial,
            makeTag: { reader, target in try await NFCTag.connect(to: target, on: reader).ndef },
            operation: { tag throws(NFCTagError) in try await tag.writeNDEF(new, verify: false) },
            classifyState: TearingSweep.writeClassifier(old: old ?? .empty, new: new, independent: Self.storedMessage))
        #expect(outcomes.keys.allSatisfy { !$0.hasPrefix("corrupt") }, "\(outcomes)")
        // SELECT application, SELECT file, NLEN 0000, at least two chunks, NLEN.
        #expect(outcomes["commands", default: 0] >= 5, "\(outcomes)")
        // Over a message, the cuts between NLEN 0000 and the new NLEN leave it empty; right after
        // format, the old message is the empty one (named "old").
        #expect(outcomes["new", default: 0] > 0 && outcomes["old", default: 0] > 0, "\(outcomes)")
        #expect((outcomes["empty", default: 0] > 0) == holdsMessage, "\(outcomes)")
    }
}
