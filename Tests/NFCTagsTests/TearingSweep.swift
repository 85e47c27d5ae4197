import NDEF
import NFCTags
import Testing
import VirtualTags

/// The tearing sweep of every platform: an operation is run on a fresh copy of a tag once per
/// cut point k (the tag leaves the field right after its k-th command), and the tag left behind
/// is classified by reading it on a fresh reader.
enum TearingSweep {
    /// A simulator holding a tag restored from `state`, polled and selected.
    static func open(_ state: TagState, modulations: [Modulation]) async throws -> (SimulatedReader, TargetInfo) {
        let model = try #require(TagModel.named(state.model), "no model \(state.model)")
        let tag = try #require(model.restore(state), "state does not fit \(state.model)")
        let reader = SimulatedReader(tags: [tag], emptyFieldWait: .zero)
        await reader.withField { $0.isTracing = true }
        let target = try #require(try await reader.poll(for: modulations, timeout: .zero))
        return (reader, target)
    }

    /// The state of the tag on `reader`, in the field or taken away.
    static func state(_ reader: SimulatedReader) async -> TagState? {
        await reader.withField { field in ((field.currentTag ?? field.removedTags.last) as? any PersistentVirtualTag)?.tagState }
    }

    /// Where a sweep cuts: right after command k was answered, or inside command k (the tag acts
    /// on it, e.g. a WRITE is done, but its answer is lost as the tag leaves).
    enum Cut: Hashable, CustomStringConvertible {
        case after(Int)
        case during(Int)

        var description: String {
            switch self {
            case .after(let k): "after command \(k)"
            case .during(let k): "inside command \(k)"
            }
        }

        /// The fault plan for a field whose command count is `start` now.
        func plan(from start: Int) -> FaultPlan {
            switch self {
            case .after(let k): FaultPlan(leaveAfterCommand: start + k)
            case .during(let k): FaultPlan(leaveDuringCommand: start + k)
            }
        }
    }

    /// Runs the sweep with a classifier of the tag alone.
    static func run(
        _ label: String, initial: TagState, modulations: [Modulation] = [.iso14443A],
        makeTag: @escaping (SimulatedReader, TargetInfo) async throws -> any NFCNDEFTag,
        operation: (any NFCNDEFTag) async throws(NFCTagError) -> Void,
        classify: (any NFCNDEFTag) async throws -> String
    ) async throws -> [String: Int] {
        try await run(label, initial: initial, modulations: modulations, makeTag: makeTag, operation: operation,
                      classifyState: { _, tag in try await classify(tag) })
    }

    /// Runs the sweep: every cut point after a command and inside a command of the operation.
    /// - Parameters:
    ///   - initial: the tag before the operation.
    ///   - makeTag: the platform object for a selected target.
    ///   - operation: what is interrupted.
    ///   - classifyState: names what a tag holds afterwards (e.g. "old", "empty", "new") from
    ///     its state and the platform object on a fresh reader; a name starting with "corrupt"
    ///     fails the test.
    /// - Returns: how often each outcome came, plus the number of commands of the whole operation
    ///   under key "commands" and the number of cut points under "cut points".
    static func run(
        _ label: String, initial: TagState, modulations: [Modulation] = [.iso14443A],
        makeTag: @escaping (SimulatedReader, TargetInfo) async throws -> any NFCNDEFTag,
        operation: (any NFCNDEFTag) async throws(NFCTagError) -> Void,
        classifyState: (TagState, any NFCNDEFTag) async throws -> String
    ) async throws -> [String: Int] {
        let (referenceReader, referenceTarget) = try await open(initial, modulations: modulations)
        let referenceTag = try await makeTag(referenceReader, referenceTarget)
        let before = await referenceReader.commandCount
        try await operation(referenceTag)
        let total = await referenceReader.commandCount - before
        #expect(total > 0)
        var outcomes: [String: Int] = [:]
        let cuts = (1...max(total, 1)).map(Cut.after) + (1...max(total, 1)).map(Cut.during)
        for cut in cuts {
            let (reader, target) = try await open(initial, modulations: modulations)
            let tag = try await makeTag(reader, target)
            let start = await reader.commandCount
            await reader.withField { $0.faultPlan = cut.plan(from: start) }
            var interrupted = false
            do {
                try await operation(tag)
            } catch {
                interrupted = true
                #expect(error.code == .connectionLost, "\(label) \(cut): \(error)")
            }
            switch cut {
            case .after(let k): #expect(interrupted == (k < total), "\(label): \(cut) of \(total)")
            case .during: #expect(interrupted, "\(label): \(cut) of \(total) reported success")
            }
            let after = try #require(await state(reader), "no tag state \(cut)")
            let (freshReader, freshTarget) = try await open(after, modulations: modulations)
            let outcome = try await classifyState(after, try await makeTag(freshReader, freshTarget))
            #expect(!outcome.hasPrefix("corrupt"), "\(label) \(cut): \(outcome)")
            outcomes[outcome, default: 0] += 1
        }
        print("tearing sweep \(label), \(total) commands, \(cuts.count) cut points (after and inside each command): \(outcomes.sorted { $0.key < $1.key })")
        outcomes["commands"] = total
        outcomes["cut points"] = cuts.count
        return outcomes
    }

    /// The usual classifier of a write: "old" (exactly the old message), "empty" or "new" by
    /// the message read; anything else (including a read error) is "corrupt: …".
    static func messageClassifier(old: NDEFMessage, new: NDEFMessage) -> (any NFCNDEFTag) async throws -> String {
        { tag in
            do {
                let read = try await tag.readNDEF()
                return read == old ? "old" : read == .empty ? "empty" : read == new ? "new" : "corrupt: \(read)"
            } catch {
                return "corrupt: \(error)"
            }
        }
    }
}

extension TearingSweep {
    /// A Type 5 chip as identification names it: `model`, `family`, `blockCount` blocks of
    /// 4 bytes and, where the chip reports one, its IC reference.
    static func type5Identity(_ model: String, family: ChipFamily, blockCount: Int, icReference: UInt8? = nil) -> ChipIdentity {
        var identity = ChipIdentity(model: model, platform: .type5, family: family)
        identity.blockCount = blockCount
        identity.blockSize = 4
        identity.icReference = icReference
        return identity
    }

    /// An ISO 15693 tag on `reader` for the selected `target`, as `identity` describes the chip.
    static func iso15693Tag(_ reader: SimulatedReader, _ target: TargetInfo, identity: ChipIdentity) throws -> ISO15693Tag {
        guard case .iso15693(let v) = target else { throw NFCTagError(.notSupported, "not ISO 15693") }
        return ISO15693Tag(reader: reader, target: v, identity: identity)
    }

    /// The sweep of a Type 5 chip's protect, unprotect, password or configuration step (NTAG 5,
    /// ICODE, ST25DV, ST25TV): `operation` is run on a tag restored from `initial` once whole
    /// (at least `minimumCommands` commands), then once per cut after and inside each of its
    /// commands on a fresh copy. A torn operation may fail only as the chip leaving the field:
    /// `connectionLost`, or `authenticationFailed` (silence inside a password command reads as
    /// a refused password).
    /// - Returns: the state each cut leaves behind, read from the simulator's tag (its tag
    ///   file), not from NFCTags; the caller decodes the chip from it and judges it.
    static func iso15693States(
        _ initial: TagState, identity: ChipIdentity, minimumCommands: Int = 1,
        _ operation: (ISO15693Tag) async throws(NFCTagError) -> Void
    ) async throws -> [TagState] {
        let (referenceReader, referenceTarget) = try await open(initial, modulations: [.iso15693])
        let before = await referenceReader.commandCount
        try await operation(try iso15693Tag(referenceReader, referenceTarget, identity: identity))
        let total = await referenceReader.commandCount - before
        #expect(total >= minimumCommands, "\(total) commands")
        var states: [TagState] = []
        let points = Array(stride(from: 1, through: total, by: 1))
        for cut in points.map(Cut.after) + points.map(Cut.during) {
            let (reader, target) = try await open(initial, modulations: [.iso15693])
            let start = await reader.commandCount
            await reader.withField { $0.faultPlan = cut.plan(from: start) }
            let torn = try iso15693Tag(reader, target, identity: identity)
            do throws(NFCTagError) {
                try await operation(torn)
            } catch {
                #expect(error.code == .connectionLost || error.code == .authenticationFailed, "\(cut): \(error)")
            }
            states.append(try #require(await state(reader), "no tag state \(cut)"))
        }
        return states
    }
}

extension TearingSweep {
    /// The classifier of an NDEF write judged from both sides, then finished: the message a
    /// fresh reader reads ("old", "empty" or "new", as ``messageClassifier(old:new:)``) must be
    /// the one `independent` parses from the tag's state (its tag file, without NFCTags' read
    /// path), and writing `new` again on the torn tag must complete and read back as `new`.
    /// Anything else is "corrupt: …".
    /// - Parameter independent: the message the state holds (`.empty` for a zero length), or
    ///   an error when its bytes are no message.
    static func writeClassifier(
        old: NDEFMessage, new: NDEFMessage, independent: @escaping @Sendable (TagState) throws -> NDEFMessage
    ) -> (TagState, any NFCNDEFTag) async throws -> String {
        let byReader = messageClassifier(old: old, new: new)
        return { state, tag in
            let outcome = try await byReader(tag)
            guard !outcome.hasPrefix("corrupt") else { return outcome }
            let expected = outcome == "old" ? old : outcome == "new" ? new : NDEFMessage.empty
            do {
                let stored = try independent(state)
                guard stored == expected else { return "corrupt: the reader read \(outcome), the tag file holds \(stored)" }
            } catch {
                return "corrupt: the reader read \(outcome), the tag file holds no message: \(error)"
            }
            do {
                try await tag.writeNDEF(new, verify: true)
                let again = try await tag.readNDEF()
                return again == new ? outcome : "corrupt: the re-run wrote, then read \(again)"
            } catch {
                return "corrupt: the re-run failed: \(error)"
            }
        }
    }
}
