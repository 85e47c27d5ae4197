import Foundation

/// Runs one async operation to its end on the thread that asks for its result, for NFCKit's
/// synchronous CoreNFC spellings (``NFCReaderSession/readingAvailable``).
///
/// The operation runs in a detached task whose executor preference is this executor, and the
/// calling thread runs that task's jobs itself until the operation has finished: its nonisolated
/// code and the default actors it calls run on the caller's thread, the device actors on their own
/// threads (``NFCTags/DeviceThreadExecutor``). Nothing is left to Swift's cooperative pool, so a
/// caller that is itself a pool thread (a synchronous call made inside a `Task`) cannot starve the
/// operation of threads, however busy the pool is.
final class CallerThreadTaskExecutor: TaskExecutor, @unchecked Sendable {
    /// Guards `jobs` and `finished`; signals the calling thread when there is work or the end.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var finished = false

    private init() {}

    /// Queues `job` for the calling thread.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// `operation`'s result, computed with this thread running the operation's jobs; blocks the
    /// thread until then.
    static func run<Value: Sendable>(_ operation: @escaping @Sendable () async -> Value) -> Value {
        let executor = CallerThreadTaskExecutor()
        let result = Result<Value>()
        Task.detached(executorPreference: executor) {
            result.store(await operation())
            executor.finish()
        }
        executor.runJobsUntilFinished()
        return result.stored(orElse: { preconditionFailure("the operation finished without storing its result") })
    }

    /// Marks the operation finished (from its own last job).
    private func finish() {
        condition.lock()
        finished = true
        condition.signal()
        condition.unlock()
    }

    /// Runs the queued jobs on this thread, waiting for more, until the operation has finished.
    private func runJobsUntilFinished() {
        while true {
            condition.lock()
            while jobs.isEmpty && !finished { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    /// The operation's value, handed from its task to the calling thread.
    private final class Result<Value: Sendable>: @unchecked Sendable {
        private let lock = NSLock()
        private var value: Value?
        func store(_ value: Value) { lock.withLock { self.value = value } }
        func stored(orElse missing: () -> Value) -> Value { lock.withLock { value } ?? missing() }
    }
}
