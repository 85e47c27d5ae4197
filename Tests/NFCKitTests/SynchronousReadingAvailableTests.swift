import Foundation
import NFCKit
import NFCTestSupport
import Testing

/// CoreNFC's synchronous `readingAvailable`: answered on the calling thread, from a plain thread
/// and from inside tasks that hold every thread of the cooperative pool.
@Suite("Synchronous readingAvailable", .timeLimit(.minutes(2)))
struct SynchronousReadingAvailableTests {
    @Test("called from a plain thread, readingAvailable answers as the async check does")
    func fromPlainThread() async throws {
        let answers = try await runBlocking {
            [NFCReaderSession.readingAvailable(connection: "sim:ntag215"),
             NFCReaderSession.readingAvailable(connection: "sim:bogus"),
             NFCReaderSession.readingAvailable(connection: "pn532_uart:/dev/no-such-reader")]
        }
        #expect(answers == [true, false, false])
        #expect(await NFCReaderAvailability.check(connection: "sim:ntag215").isAvailable)
        #expect(await !NFCReaderAvailability.check(connection: "sim:bogus").isAvailable)
    }

    @Test("called inside tasks that hold every pool thread at once, readingAvailable still answers (it needs no pool thread)")
    func fromEveryPoolThread() async {
        // As many tasks as the pool has threads: each blocks its thread until all have started
        // (or a generous while has passed, should the pool be narrower), then calls the
        // synchronous check. A check that waited for a pool thread would never answer.
        let width = concurrentJobs
        let arrivals = Arrivals(expected: width)
        let answers = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<width {
                group.addTask {
                    arrivals.arriveAndWait()
                    return NFCReaderSession.readingAvailable(connection: "sim:ntag215")
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(answers == Array(repeating: true, count: width))
    }

    /// A barrier for the tasks above: each waits until `expected` have arrived, for at most a
    /// minute (it is there to make the tasks overlap, not to judge them).
    final class Arrivals: @unchecked Sendable {
        private let condition = NSCondition()
        private var arrived = 0
        private let expected: Int

        init(expected: Int) { self.expected = expected }

        func arriveAndWait() {
            condition.lock()
            defer { condition.unlock() }
            arrived += 1
            condition.broadcast()
            let deadline = Date(timeIntervalSinceNow: 60)
            while arrived < expected, condition.wait(until: deadline) {}
        }
    }
}
