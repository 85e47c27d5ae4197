import NFCCore
import NFCTags
import NFCTestSupport
import Testing
import VirtualTags

/// `TagPresenceTracker`'s observation windows on a clock the test moves: the debounce is
/// measured on the tracker's clock, so a 2 s window is checked in a few milliseconds.
@Suite("TagPresenceTracker on a manual clock", .timeLimit(.minutes(1)))
struct TrackerClockTests {
    /// Steps the tracker until a departure, at most `limit` steps.
    static func stepUntilDeparture(
        _ tracker: inout TagPresenceTracker, on reader: any NFCReader, limit: Int = 1000
    ) async throws -> (departure: TagPresenceTracker.Departure?, steps: Int) {
        for step in 1...limit {
            if let departure = try await tracker.step(on: reader, for: [.iso14443A]).departure { return (departure, step) }
        }
        return (nil, limit)
    }

    @Test("a tag gone for less than the 2 s debounce on the clock has not left; at 2 s it departs, its stay measured on the clock")
    func debounceWindow() async throws {
        let reader = try SimulatorConfiguration.makeReader("sim:ntag215?poll-wait=0")
        let clock = ManualClock(advancesWhileSleeping: true)
        var tracker = TagPresenceTracker(options: .init(debounce: .seconds(2), pollSlice: .milliseconds(20)), clock: clock)
        let first = try await tracker.step(on: reader, for: [.iso14443A])
        #expect(first.arrival != nil)
        await tracker.release(on: reader)
        clock.advance(by: .seconds(3))
        await reader.withField { $0.removeTag() }
        let removed = clock.now
        // Each empty poll is followed by a 50 ms pause (the minimum poll interval) on the clock.
        let (departure, steps) = try await Self.stepUntilDeparture(&tracker, on: reader)
        let gone = try #require(departure)
        let waited = removed.duration(to: clock.now)
        #expect(waited >= .seconds(2) && waited < .seconds(2) + .milliseconds(200), "\(waited)")
        #expect(steps == 41, "\(steps)")
        #expect(gone.duration == .seconds(3), "\(gone.duration)")
        #expect(tracker.present == nil)
    }

    @Test("a tag back within the debounce time on the clock is neither a departure nor a new arrival")
    func backWithinWindow() async throws {
        let reader = try SimulatorConfiguration.makeReader("sim:ntag215?poll-wait=0")
        let clock = ManualClock(advancesWhileSleeping: true)
        var tracker = TagPresenceTracker(options: .init(debounce: .seconds(1), pollSlice: .milliseconds(20)), clock: clock)
        #expect(try await tracker.step(on: reader, for: [.iso14443A]).arrival != nil)
        await tracker.release(on: reader)
        await reader.withField { $0.removeTag() }
        // 900 ms on the clock: 18 empty polls of 50 ms.
        for _ in 0..<18 {
            let seen = try await tracker.step(on: reader, for: [.iso14443A])
            #expect(seen.departure == nil && seen.arrival == nil)
        }
        await reader.withField { field in if let tag = field.removedTags.last { field.present(tag) } }
        let back = try await tracker.step(on: reader, for: [.iso14443A])
        #expect(back.departure == nil && back.arrival == nil)
        #expect(tracker.present != nil)
    }
}
