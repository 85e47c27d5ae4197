import Synchronization

/// A clock tests move by hand, so a 2 s observation window is checked without waiting 2 s.
///
/// `now` changes only through ``advance(by:)``, or, with `advancesWhileSleeping`, through the
/// sleeps themselves (each returns at once having moved the clock to its deadline: for code a
/// test drives step by step in one task). Otherwise a sleep waits until the test advances the
/// clock past its deadline; ``sleeperCount`` tells the test that the code under test is asleep,
/// and ``waitForSleepers(_:)`` waits for that without polling: the test then advances the clock.
public final class ManualClock: Clock, Sendable {
    /// A reading of the clock: the time since it was made.
    public struct Instant: InstantProtocol, Sendable, Hashable, Comparable {
        /// The time since the clock was made.
        public var offset: Duration
        /// The instant `duration` later.
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        /// The time from this instant to `other`.
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        /// Whether `lhs` comes first.
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        var deadline: Duration
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Duration.zero
        var sleepers: [Int: Sleeper] = [:]
        var cancelled: Set<Int> = []
        var nextID = 0
        var sleeperWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())
    private let advancesWhileSleeping: Bool

    /// A clock at zero; with `advancesWhileSleeping`, sleeps move it instead of waiting.
    public init(advancesWhileSleeping: Bool = false) {
        self.advancesWhileSleeping = advancesWhileSleeping
    }

    /// The time now.
    public var now: Instant { Instant(offset: state.withLock { $0.now }) }
    /// No resolution limit.
    public var minimumResolution: Duration { .zero }
    /// How many sleeps wait for the clock to be advanced.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Returns once at least `count` sleeps wait for the clock to be advanced (at once when they
    /// do): the code under test, run in a task of its own, is now asleep on this clock. Not
    /// cancellable: bound it with the test's time limit.
    public func waitForSleepers(_ count: Int = 1) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready: Bool = state.withLock { state in
                if state.sleepers.count >= count { return true }
                state.sleeperWaiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Moves the clock on by `duration`, waking the sleeps whose deadline it reaches.
    public func advance(by duration: Duration) {
        let woken = state.withLock { state in
            state.now += duration
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for id in due.keys { state.sleepers[id] = nil }
            return due.values.map(\.continuation)
        }
        for continuation in woken { continuation.resume() }
    }

    /// Returns once the clock has reached `deadline` (at once when it has, or when the clock
    /// advances while sleeping).
    /// - Throws: `CancellationError` when the task is cancelled.
    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        if advancesWhileSleeping {
            state.withLock { $0.now = max($0.now, deadline.offset) }
            await Task.yield()
            return
        }
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (outcome, ready) = state.withLock { state -> (Result<Void, any Error>?, [CheckedContinuation<Void, Never>]) in
                    if state.cancelled.remove(id) != nil { return (.failure(CancellationError()), []) }
                    if deadline.offset <= state.now { return (.success(()), []) }
                    state.sleepers[id] = Sleeper(deadline: deadline.offset, continuation: continuation)
                    let count = state.sleepers.count
                    let ready = state.sleeperWaiters.filter { $0.count <= count }.map(\.continuation)
                    state.sleeperWaiters.removeAll { $0.count <= count }
                    return (nil, ready)
                }
                for waiter in ready { waiter.resume() }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let sleeper = state.withLock { state in
                guard let sleeper = state.sleepers.removeValue(forKey: id) else {
                    state.cancelled.insert(id)
                    return nil as Sleeper?
                }
                return sleeper
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }
}
