import NFCCore
import NFCTags
import NFCTestSupport
import Testing
import VirtualTags

/// `TagPresenceTracker`'s observation window on a clock the test moves: each step that pauses
/// runs in a task of its own, the test waits until that pause sleeps on the clock
/// (`ManualClock.waitForSleepers`) and then advances the clock itself. Nothing spins, nothing
/// waits for real time: a 2 s window is checked in milliseconds.
@Suite("TagPresenceTracker's debounce window on a manual clock", .timeLimit(.minutes(1)))
struct TrackerClockTests {
    /// One step that ends in a pause on `clock`: once the pause sleeps, the clock moves on by
    /// `advance`; the tracker after the step, and what the step observed.
    static func step(
        _ tracker: TagPresenceTracker, on reader: any NFCReader, clock: ManualClock, advancing advance: Duration
    ) async throws -> (TagPresenceTracker, TagPresenceTracker.Observation) {
        let task = Task {
            var tracker = tracker
            let observation = try await tracker.step(on: reader, for: [.iso14443A])
            return (tracker, observation)
        }
        await clock.waitForSleepers()
        clock.advance(by: advance)
        return try await task.value
    }

    @Test("a tag gone for less than the 2 s debounce on the clock has not left; at 2 s it departs, its stay measured on the clock")
    func debounceWindow() async throws {
        let reader = try SimulatorConfiguration.makeReader("sim:ntag215?poll-wait=0")
        let clock = ManualClock()
        var tracker = TagPresenceTracker(options: .init(debounce: .seconds(2), pollSlice: .milliseconds(20)), clock: clock)
        #expect(try await tracker.step(on: reader, for: [.iso14443A]).arrival != nil)
        await tracker.release(on: reader)
        clock.advance(by: .seconds(3))
        await reader.withField { $0.removeTag() }
        // Gone since 3 s: the first empty poll starts the window, then 1.9 s and 2.0 s.
        var seen: TagPresenceTracker.Observation
        (tracker, seen) = try await Self.step(tracker, on: reader, clock: clock, advancing: .milliseconds(1900))
        #expect(seen.departure == nil && seen.arrival == nil)
        (tracker, seen) = try await Self.step(tracker, on: reader, clock: clock, advancing: .milliseconds(100))
        #expect(seen.departure == nil, "1.9 s is inside the window")
        (tracker, seen) = try await Self.step(tracker, on: reader, clock: clock, advancing: .milliseconds(50))
        let gone = try #require(seen.departure, "2 s on the clock closes the window")
        #expect(gone.duration == .seconds(3), "\(gone.duration)")
        #expect(tracker.present == nil)
    }

    @Test("a tag back within the debounce time on the clock is neither a departure nor a new arrival")
    func backWithinWindow() async throws {
        let reader = try SimulatorConfiguration.makeReader("sim:ntag215?poll-wait=0")
        let clock = ManualClock()
        var tracker = TagPresenceTracker(options: .init(debounce: .seconds(1), pollSlice: .milliseconds(20)), clock: clock)
        #expect(try await tracker.step(on: reader, for: [.iso14443A]).arrival != nil)
        await tracker.release(on: reader)
        await reader.withField { $0.removeTag() }
        var seen: TagPresenceTracker.Observation
        (tracker, seen) = try await Self.step(tracker, on: reader, clock: clock, advancing: .milliseconds(900))
        #expect(seen.departure == nil && seen.arrival == nil)
        (tracker, seen) = try await Self.step(tracker, on: reader, clock: clock, advancing: .milliseconds(50))
        #expect(seen.departure == nil && seen.arrival == nil, "0.9 s is inside the window")
        await reader.withField { field in if let tag = field.removedTags.last { field.present(tag) } }
        // Found again: the tracker checks its presence on the reader (no pause on the clock).
        let back = try await tracker.step(on: reader, for: [.iso14443A])
        #expect(back.departure == nil && back.arrival == nil)
        #expect(tracker.present != nil)
    }
}
