/// A clock read as the time since a fixed origin (the moment this value was made), whatever
/// clock is behind it: how ``TagPresenceTracker`` and NFCKit's `TagWatcher` measure their
/// windows and pauses, so a test can hand in a clock it advances itself instead of waiting.
public struct ElapsedClock: Sendable {
    private let elapsed: @Sendable () -> Duration
    private let sleeper: @Sendable (Duration) async throws -> Void

    /// Reads `clock` from now on.
    public init(_ clock: any Clock<Duration>) {
        (elapsed, sleeper) = Self.readings(of: clock)
    }

    private static func readings<C: Clock<Duration>>(of clock: C)
        -> (@Sendable () -> Duration, @Sendable (Duration) async throws -> Void)
    {
        let origin = clock.now
        return ({ origin.duration(to: clock.now) }, { try await clock.sleep(for: $0) })
    }

    /// The time since this value was made, on its clock.
    public var now: Duration { elapsed() }

    /// Sleeps `duration` on the clock.
    /// - Throws: `CancellationError` when the task is cancelled.
    public func sleep(for duration: Duration) async throws { try await sleeper(duration) }
}
