import Foundation

/// Runs one device actor's jobs, in order, on a thread of its own: the executor of every reader
/// that wraps a blocking C library (LibNFC's devices and context, PCSC's readers).
///
/// libnfc's and pcsc-lite's calls block for as long as a USB or serial round trip, a round trip
/// to pcscd, or a poll takes. Run on Swift's cooperative pool, which has as many threads as
/// cores, they would stall unrelated tasks; each open device gets its own thread instead, which
/// ends when the device is closed.
public final class DeviceThreadExecutor: SerialExecutor, @unchecked Sendable {
    /// Guards `jobs` and `stopped`; signals the thread when there is work.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopped = false

    /// Starts the thread.
    public init(name: String) {
        let thread = Thread { [self] in self.runLoop() }
        thread.name = name
        thread.start()
    }

    /// Queues `job` to run on the thread after those already queued.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// This executor, for an actor's `unownedExecutor`.
    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Lets the thread end once the jobs already queued have run. Only for when nothing can
    /// enqueue any more (the owning actor's deinit): a job enqueued later would never run.
    public func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    private func runLoop() {
        while true {
            condition.lock()
            while jobs.isEmpty && !stopped { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedSerialExecutor())
        }
    }
}
