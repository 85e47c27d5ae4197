import Foundation
import NFCCore
import NFCKit
import NFCTags
import Synchronization

/// A value behind a mutex, shareable between tasks.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) { mutex = Mutex(value) }

    func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }
}

/// Polls `condition` every 20 ms until it holds (true) or `limit` has passed (false).
func eventually(within limit: Duration, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return condition()
}

/// Waits until the asynchronous `condition` holds (true) or `limit` passed (false).
func eventuallyAsync(within limit: Duration, _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return await condition()
}

/// Collects what a session reports, in a task of its own, so that tests can wait for "the next
/// tag" with a deadline and see how the sequence ended.
final class SessionCollector<Element: Sendable>: Sendable {
    private let state = Locked<(elements: [Element], ended: Result<Void, NFCReaderSessionError>?)>(([], nil))
    private let task: Task<Void, Never>

    init(_ events: NFCReaderSessionEvents<Element>) {
        let state = self.state
        task = Task {
            do throws(NFCReaderSessionError) {
                for try await element in events { state.withLock { $0.elements.append(element) } }
                state.withLock { $0.ended = .success(()) }
            } catch {
                state.withLock { $0.ended = .failure(error) }
            }
        }
    }

    var elements: [Element] { state.withLock { $0.elements } }
    var ended: Result<Void, NFCReaderSessionError>? { state.withLock { $0.ended } }

    /// Waits until `count` elements came (true) or `limit` passed (false).
    func wait(forCount count: Int, within limit: Duration = .seconds(30)) async -> Bool {
        await eventually(within: limit) { elements.count >= count }
    }

    /// Waits for the sequence to end; its ending, or nil when it did not within `limit`.
    func waitForEnd(within limit: Duration = .seconds(30)) async -> Result<Void, NFCReaderSessionError>? {
        _ = await eventually(within: limit) { ended != nil }
        return ended
    }

    /// The error the sequence ended with, if it threw.
    var endError: NFCReaderSessionError? {
        if case .failure(let error) = ended { return error }
        return nil
    }
}

/// Collects prompt strings until the stream finishes.
final class PromptCollector: Sendable {
    private let prompts = Locked<[String]>([])
    private let task: Task<Void, Never>

    init(_ stream: AsyncStream<String>) {
        let prompts = self.prompts
        task = Task { for await prompt in stream { prompts.withLock { $0.append(prompt) } } }
    }

    /// Every prompt, once the stream has finished.
    func all() async -> [String] {
        await task.value
        return prompts.withLock { $0 }
    }
}

/// The code of a session error thrown by `body`, or nil when it did not throw.
func sessionErrorCode(_ body: () async throws -> Void) async -> NFCReaderSessionError.Code? {
    do {
        try await body()
        return nil
    } catch {
        return (error as? NFCReaderSessionError)?.code
    }
}
