import Synchronization

/// A value behind a mutex, shareable between tasks: what a test's callbacks and collectors
/// write and its body reads.
public final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    /// Holds `value`.
    public init(_ value: Value) { mutex = Mutex(value) }

    /// Runs `body` with the value, exclusively.
    public func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }
}

/// Polls `condition` every 20 ms until it holds (true) or `limit` has passed (false): a test
/// waits for an event with a deadline, never for a guessed duration. It runs on the caller's
/// actor (e.g. the main actor, for state that lives there).
public func eventually(within limit: Duration, isolation: isolated (any Actor)? = #isolation, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return condition()
}

/// Waits until the asynchronous `condition` holds (true) or `limit` passed (false).
public func eventuallyAsync(within limit: Duration, isolation: isolated (any Actor)? = #isolation,
                            _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return await condition()
}

/// Collects what an asynchronous sequence with a typed error yields (a session's tags or
/// messages, a tag watcher's events), in a task of its own, so that a test can wait for "the
/// next element" with a deadline and see how the sequence ended.
public final class EventCollector<Events: AsyncSequence & Sendable>: Sendable where Events.Element: Sendable {
    private let state = Locked<(elements: [Events.Element], ended: Result<Void, Events.Failure>?)>(([], nil))
    private let task: Task<Void, Never>

    /// Starts iterating `events`.
    public init(_ events: Events) {
        let state = self.state
        task = Task {
            var iterator = events.makeAsyncIterator()
            do throws(Events.Failure) {
                while let element = try await iterator.next(isolation: nil) {
                    state.withLock { $0.elements.append(element) }
                }
                state.withLock { $0.ended = .success(()) }
            } catch {
                state.withLock { $0.ended = .failure(error) }
            }
        }
    }

    /// Every element so far, oldest first.
    public var elements: [Events.Element] { state.withLock { $0.elements } }
    /// How the sequence ended, or nil while it runs.
    public var ended: Result<Void, Events.Failure>? { state.withLock { $0.ended } }

    /// The error the sequence ended with, if it threw.
    public var endError: Events.Failure? {
        if case .failure(let error) = ended { return error }
        return nil
    }

    /// Stops iterating (cancels the collecting task).
    public func stop() { task.cancel() }

    /// Waits until `count` elements came (true) or `limit` passed (false).
    public func wait(forCount count: Int, within limit: Duration = .seconds(30)) async -> Bool {
        await eventually(within: limit) { elements.count >= count }
    }

    /// Waits for the sequence to end; its ending, or nil when it did not within `limit`.
    public func waitForEnd(within limit: Duration = .seconds(30)) async -> Result<Void, Events.Failure>? {
        _ = await eventually(within: limit) { ended != nil }
        return ended
    }
}

/// Collects the strings of a stream (e.g. a session's prompts) until it finishes.
public final class StreamCollector<Element: Sendable>: Sendable {
    private let collected = Locked<[Element]>([])
    private let task: Task<Void, Never>

    /// Starts iterating `stream`.
    public init(_ stream: AsyncStream<Element>) {
        let collected = self.collected
        task = Task { for await element in stream { collected.withLock { $0.append(element) } } }
    }

    /// Every element, once the stream has finished.
    public func all() async -> [Element] {
        await task.value
        return collected.withLock { $0 }
    }
}

/// The error of type `type` that `body` threw, or nil when it threw nothing (or another type).
public func thrownError<E: Error>(_ type: E.Type, by body: () async throws -> Void) async -> E? {
    do {
        try await body()
        return nil
    } catch {
        return error as? E
    }
}
