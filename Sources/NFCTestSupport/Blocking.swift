import Foundation

/// Runs `body`, which blocks (waits for a child process, sleeps in a loop), on a thread of its
/// own, and suspends the calling task until it is done.
///
/// A synchronous test blocks one of Swift concurrency's cooperative threads, and there are only
/// as many as cores: on a two-core machine two long tool runs (the docs' examples run for tens of
/// seconds) starve every asynchronous test of the run, whose waits with a deadline then expire
/// although nothing is wrong. Through here the wait happens off that pool. At most
/// `concurrentJobs` bodies run at once (others wait their turn, suspended), so that moving work
/// off the pool does not start every child process of a parameterized test together.
public func runBlocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    await JobGate.blocking.enter()
    let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, any Error>, Never>) in
        Thread { continuation.resume(returning: Result { try body() }) }.start()
    }
    await JobGate.blocking.leave()
    return try result.get()
}

/// How many ``runBlocking(_:)`` bodies may run at once: the number of cores, as many as the
/// cooperative pool would have run.
public let concurrentJobs = max(2, ProcessInfo.processInfo.activeProcessorCount)

/// A queue that lets at most `slots` jobs run at once: in front of ``runBlocking(_:)``, and in
/// front of ``runTool(_:_:environment:input:timeout:in:mergingStandardError:)``'s children (an
/// awaited child holds no thread, so without it every test of a run would start its tools
/// together, and the machine's two cores would starve the tests that measure short windows).
actor JobGate {
    /// ``runBlocking(_:)``'s: ``concurrentJobs``.
    static let blocking = JobGate(slots: concurrentJobs)
    /// The short-lived children's: twice ``concurrentJobs`` (a child mostly waits for I/O or a tag).
    static let children = JobGate(slots: 2 * concurrentJobs)

    private let slots: Int
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(slots: Int) { self.slots = slots }

    func enter() async {
        if running < slots {
            running += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func leave() {
        if waiting.isEmpty {
            running -= 1
        } else {
            // The slot passes straight to the next waiter.
            waiting.removeFirst().resume()
        }
    }
}
