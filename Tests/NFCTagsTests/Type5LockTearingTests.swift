import NDEF
import NFCCore
import NFCTags
import NFCTestSupport
import Testing
import VirtualTags

/// Tearing sweeps of `writeLock` on the Type 5 chips beyond the SLIX2 (whose sweep is in
/// ``Type5NDEFTests``): the Tag-it HF-I Plus's LOCK BLOCK with the option flag, and the EXTENDED
/// LOCK BLOCK (`32`, 2-byte block numbers, an `E2` CC) of the ST25DV64K and the NTAG 5 link. The
/// tag is cut after and inside every command; what each cut leaves is read on a fresh reader:
/// the message is kept, the tag is either still writable or read-only, and a re-run of the lock
/// finishes, read-only with the message.
@Suite("Type 5 lock torn at every command: Tag-it, ST25DV64K, NTAG 5 link", .timeLimit(.minutes(3)))
struct Type5LockTearingTests {
    /// The message each chip holds before the lock.
    static func message() throws -> NDEFMessage {
        NDEFMessage(records: [try NDEFPayload.wellKnownTypeURIPayload(url: "https://lock.example/t5")])
    }

    /// The platform object of a chip on `reader`, as identification names it (the Tag-it's
    /// option flag and the extended commands come from there).
    static func makeTag(_ reader: SimulatedReader, _ target: TargetInfo) async throws -> any NFCNDEFTag {
        guard case .iso15693(let v) = target else { throw NFCTagError(.notSupported, "not ISO 15693") }
        let identity = await ChipIdentification.identify(target, on: reader, probesNDEF: false)
        return Type5Tag(tag: ISO15693Tag(reader: reader, target: v, identity: identity))
    }

    /// The state of `chip` after NFCTags formatted it (when `format`) and wrote ``message``.
    static func written(_ chip: sending any VirtualTag, format: Bool) async throws -> TagState {
        let reader = SimulatedReader(tags: [chip], emptyFieldWait: .zero)
        let target = try #require(try await reader.poll(for: [.iso15693], timeout: .zero))
        let tag = try await makeTag(reader, target)
        if format { try await tag.format(force: false) }
        try await tag.writeNDEF(try Self.message())
        return try #require(await TearingSweep.state(reader))
    }

    /// The sweep of writeLock from `initial`; every outcome names a state that is not corrupt.
    static func sweep(_ label: String, initial: TagState) async throws -> [String: Int] {
        let expected = try Self.message()
        return try await TearingSweep.run(
            label, initial: initial, modulations: [.iso15693], makeTag: Self.makeTag,
            operation: { tag throws(NFCTagError) in try await tag.writeLock() },
            classifyState: { state, tag in
                guard try await tag.readNDEF() == expected else { return "corrupt: message changed" }
                let before = try await tag.queryNDEFStatus().status
                guard before == .readOnly || before == .readWrite else { return "corrupt: status \(before)" }
                try await tag.writeLock()
                guard try await tag.queryNDEFStatus().status == .readOnly, try await tag.readNDEF() == expected else {
                    return "corrupt: a rerun does not finish the lock"
                }
                if state == initial { return "unchanged" }
                return before == .readOnly ? "read-only, message kept" : "still writable, message kept"
            })
    }

    /// The lock frames (LOCK BLOCK `22` or EXTENDED LOCK BLOCK `32`) an uninterrupted writeLock
    /// from `initial` sends.
    static func lockFrames(_ initial: TagState) async throws -> [[UInt8]] {
        let (reader, target) = try await TearingSweep.open(initial, modulations: [.iso15693])
        let tag = try await makeTag(reader, target)
        await reader.withField { $0.trace = [] }
        try await tag.writeLock()
        return await reader.withField { $0.trace.map { Array($0.command) } }.filter {
            $0.count > 1 && ($0[1] == ISO15693Command.lockBlock || $0[1] == ISO15693Command.extendedLockBlock)
        }
    }

    /// A chip with an 8-byte `E2` CC whose T5T area is 128 bytes (MLEN `0010`): the lock locks
    /// 34 blocks with EXTENDED LOCK BLOCK, so the sweep cuts every one of its commands in
    /// reasonable time (the whole 8 KB of an ST25DV64K would be 2048 locks).
    static func smallE2Area(_ chip: some VirtualTag) {
        for (block, data) in [(0, [0xE2, 0x40, 0x00, 0x01]), (1, [0x00, 0x00, 0x00, 0x10]), (2, [0x03, 0x00, 0xFE, 0x00])] as [(UInt8, [UInt8])] {
            #expect(chip.respond(to: [0x02, ISO15693Command.writeSingleBlock, block] + data) == .data([0x00]))
        }
    }

    @Test("Tag-it HF-I Plus: writeLock (CC write, LOCK BLOCK with the option flag, read-back) cut after and inside every command: message kept, writable or read-only, a rerun locks it")
    func tagIt() async throws {
        let initial = try await Self.written(Type5Chip(.tagItHFIPlus, uid: Type5ChipProfile.tagItHFIPlus.defaultUID), format: true)
        let locks = try await Self.lockFrames(initial)
        #expect(locks.count > 60 && locks.allSatisfy { $0[1] == ISO15693Command.lockBlock && $0[0] & 0x40 != 0 }, "LOCK BLOCK with the option flag: \(locks.count) \(locks.prefix(3))")
        let outcomes = try await Self.sweep("tag-it lock", initial: initial)
        #expect(outcomes["read-only, message kept", default: 0] >= 1)
        #expect(outcomes["unchanged", default: 0] >= 1)
        #expect(outcomes["commands", default: 0] > 64, "a LOCK BLOCK per block of the area")
    }

    @Test("ST25DV64K: writeLock with EXTENDED LOCK BLOCK (E2 CC) cut after and inside every command: message kept, writable or read-only, a rerun locks it")
    func st25dv64k() async throws {
        let chip = ST25VirtualTag(.st25dv64k, uid: [0xE0, 0x02, 0x26, 0x10, 0x53, 0x49, 0x4D, 0x0B])
        Self.smallE2Area(chip)
        let initial = try await Self.written(chip, format: false)
        let locks = try await Self.lockFrames(initial)
        #expect(locks.count == 34 && locks.allSatisfy { $0[1] == ISO15693Command.extendedLockBlock }, "EXTENDED LOCK BLOCK: \(locks.prefix(3))")
        let outcomes = try await Self.sweep("st25dv64k lock", initial: initial)
        #expect(outcomes["read-only, message kept", default: 0] >= 1)
        #expect(outcomes["unchanged", default: 0] >= 1)
        #expect(outcomes["commands", default: 0] > 32)
    }

    @Test("NTAG 5 link: writeLock with EXTENDED LOCK BLOCK (E2 CC) cut after and inside every command: message kept, writable or read-only, a rerun locks it")
    func ntag5Link() async throws {
        let chip = Type5Chip(.ntag5Link, uid: Type5ChipProfile.ntag5Link.defaultUID)
        Self.smallE2Area(chip)
        let initial = try await Self.written(chip, format: false)
        let locks = try await Self.lockFrames(initial)
        #expect(locks.count == 34 && locks.allSatisfy { $0[1] == ISO15693Command.extendedLockBlock }, "EXTENDED LOCK BLOCK: \(locks.prefix(3))")
        let outcomes = try await Self.sweep("ntag5-link lock", initial: initial)
        #expect(outcomes["read-only, message kept", default: 0] >= 1)
        #expect(outcomes["unchanged", default: 0] >= 1)
        #expect(outcomes["commands", default: 0] > 32)
    }
}
