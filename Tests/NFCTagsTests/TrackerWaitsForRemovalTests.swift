import NFCCore
import NFCTags
import NFCTestSupport
import Testing

@Suite("the presence tracker waits in the reader's waitForRemoval while a tag stays", .timeLimit(.minutes(1)))
struct TrackerWaitsForRemovalTests {
    static let target = TargetInfo.iso14443A(ISO14443ATarget(uid: [4, 9, 8, 7, 6, 5, 4], atqa: [0x44, 0x00], sak: 0x00))

    @Test("a tag that stays: one presence check after it is found again, then only the reader's waits; taken away: its departure")
    func staysThenLeaves() async throws {
        // A reader told when its tag leaves (as a PC/SC reader is by pcscd), counting every
        // presence check, which such a reader must not need while a tag stays.
        let reader = ScriptedReader(script: [], target: Self.target, modulations: [.iso14443A])
        await reader.announceRemovals()
        var tracker = TagPresenceTracker(options: .init(pollSlice: .milliseconds(20)))
        let first = try await tracker.step(on: reader, for: [.iso14443A])
        #expect(first.arrival?.identifier == Self.target.identifier)
        await tracker.release(on: reader)
        for _ in 0..<5 {
            let seen = try await tracker.step(on: reader, for: [.iso14443A])
            #expect(seen.arrival == nil && seen.departure == nil)
        }
        // Found again once (one check whether the reader can tell presence), then five slices
        // spent in the reader's own wait rather than in presence checks.
        #expect(await reader.presenceChecks == 1)
        #expect(await reader.removalWaits.count >= 5)
        await reader.removeTag()
        var departed = false
        for _ in 0..<5 where !departed {
            departed = try await tracker.step(on: reader, for: [.iso14443A]).departure?.identifier == Self.target.identifier
        }
        #expect(departed)
        #expect(await reader.presenceChecks == 1, "the departure came from the wait, not from presence checks")
    }
}
