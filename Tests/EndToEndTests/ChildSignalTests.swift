import Foundation
import NFCTestSupport
import Testing

/// The programs a test starts end on SIGTERM although the test runner hands its children a mask
/// with SIGTERM, SIGINT and SIGHUP blocked (libdispatch's threads block the signals it watches,
/// and a child inherits the mask of the thread that started it): each program unblocks them at
/// start. Before, `terminate()` did nothing and a full run left emulators running.
@Suite("A child of the test process ends on SIGTERM", .tags(.endToEnd), .timeLimit(.minutes(2)))
struct ChildSignalTests {
    /// Each program, with arguments that keep it running until it is stopped.
    static let programs: [String: [String]] = [
        "pn532-emulator": ["--tag", "ntag215"],
        "pcsc-reader-emulator": ["--tag", "ntag215", "--port", "1", "--wait", "120"],
        "nfctool": ["ndef", "decode"],  // reads its standard input, which stays open
    ]

    @Test("started with the termination signals blocked, it ends within 10 s of terminate()",
          arguments: ["pn532-emulator", "pcsc-reader-emulator", "nfctool"])
    func endsOnTerminate(_ name: String) async throws {
        let executable = try #require(Executables.built(name), "\(name) is not built")
        let input = Pipe()  // held open: nfctool ndef decode waits on it
        let process = Process()
        process.executableURL = executable
        process.arguments = Self.programs[name] ?? []
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let ended = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { ended.continuation.yield($0.terminationStatus) }
        try await Self.startWithSignalsBlocked(process)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        process.terminate()
        let status = await Self.first(of: ended.stream, within: .seconds(10))
        #expect(status != nil, "\(name) was still running 10 s after SIGTERM")
        #expect(status == SIGTERM || status == 128 + SIGTERM, "\(name) ended with \(String(describing: status))")
        try? input.fileHandleForWriting.close()
    }

    /// Starts `process` from a thread of its own that blocks SIGTERM, SIGINT and SIGHUP, as the
    /// test runner's threads may: the child inherits that mask.
    static func startWithSignalsBlocked(_ process: Process) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            Thread.detachNewThread {
                var blocked = sigset_t()
                sigemptyset(&blocked)
                for number in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&blocked, number) }
                pthread_sigmask(SIG_BLOCK, &blocked, nil)
                continuation.resume(with: Result { try process.run() })
            }
        }
    }

    /// The stream's first value, or nil when none came within `limit`.
    static func first(of stream: AsyncStream<Int32>, within limit: Duration) async -> Int32? {
        await withTaskGroup(of: Int32?.self) { group in
            group.addTask { for await value in stream { return value }; return nil }
            group.addTask { try? await Task.sleep(for: limit); return nil }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}
