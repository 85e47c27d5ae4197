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

    /// Runs the sweep.
    /// - Parameters:
    ///   - initial: the tag before the operation.
    ///   - makeTag: the platform object for a selected target.
    ///   - operation: what is interrupted.
    ///   - classify: names what a tag holds afterwards (e.g. "old", "empty", "new"); a name
    ///     starting with "corrupt" fails the test.
    /// - Returns: how often each outcome came, plus the number of commands of the whole operation
    ///   under key "commands".
    static func run(
        _ label: String, initial: TagState, modulations: [Modulation] = [.iso14443A],
        makeTag: @escaping (SimulatedReader, TargetInfo) async throws -> any NFCNDEFTag,
        operation: (any NFCNDEFTag) async throws(NFCTagError) -> Void,
        classify: (any NFCNDEFTag) async throws -> String
    ) async throws -> [String: Int] {
        let (referenceReader, referenceTarget) = try await open(initial, modulations: modulations)
        let referenceTag = try await makeTag(referenceReader, referenceTarget)
        let before = await referenceReader.commandCount
        try await operation(referenceTag)
        let total = await referenceReader.commandCount - before
        #expect(total > 0)
        var outcomes: [String: Int] = [:]
        for k in 1...max(total, 1) {
            let (reader, target) = try await open(initial, modulations: modulations)
            let tag = try await makeTag(reader, target)
            let start = await reader.commandCount
            await reader.withField { $0.faultPlan = FaultPlan(leaveAfterCommand: start + k) }
            var interrupted = false
            do {
                try await operation(tag)
            } catch {
                interrupted = true
                #expect(error.code == .connectionLost, "\(label) k = \(k): \(error)")
            }
            #expect(interrupted == (k < total), "\(label): k = \(k) of \(total)")
            let after = try #require(await state(reader), "no tag state after k = \(k)")
            let (freshReader, freshTarget) = try await open(after, modulations: modulations)
            let outcome = try await classify(try await makeTag(freshReader, freshTarget))
            #expect(!outcome.hasPrefix("corrupt"), "\(label) k = \(k): \(outcome)")
            outcomes[outcome, default: 0] += 1
        }
        print("tearing sweep \(label), \(total) cut points: \(outcomes.sorted { $0.key < $1.key })")
        outcomes["commands"] = total
        return outcomes
    }

    /// The usual classifier of a write: "old", "empty" or "new" by the message read; anything
    /// else (including a read error) is "corrupt: …".
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
