public import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What one run of a child process left behind: the one result of ``runTool(_:_:environment:input:timeout:in:mergingStandardError:)``
/// and ``ChildProcess/finish(within:)``.
public struct ToolRun: Sendable {
    /// The exit status; 128 + N when signal N ended it.
    public let status: Int32
    /// Standard output (with standard error when the run merged them).
    public let standardOutput: String
    /// Standard error (empty when the run merged it into standard output).
    public let standardError: String
    /// Whether it had to be killed at its time limit.
    public let timedOut: Bool

    /// Standard output, then standard error: everything the child printed (in the order it
    /// printed it when the run merged the two).
    public var output: String { standardOutput + standardError }

    /// A run's result.
    public init(status: Int32, standardOutput: String, standardError: String, timedOut: Bool) {
        self.status = status
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.timedOut = timedOut
    }
}

/// A child process whose end is awaited, never polled: `Process.terminationHandler` (or, when a
/// grandchild keeps Foundation from noticing, a thread waiting in `waitid`) resumes the waiters, its standard output and error are drained by a thread of their own each (so a child
/// never stalls on a full pipe and no cooperative thread waits in `read`), and a time limit
/// ends it with SIGTERM, then SIGKILL.
///
/// ```swift
/// let watch = try ChildProcess(nfctool, ["watch", "--device", "sim:ntag215"], environment: [:])
/// #expect(await watch.waitForOutput { $0.contains("arrived") })
/// watch.signal(SIGINT)
/// let run = await watch.finish(within: 20)
/// ```
public final class ChildProcess: Sendable {
    private struct State: Sendable {
        var standardOutput: [UInt8] = []
        var standardError: [UInt8] = []
        var openStreams: Int
        var exitStatus: Int32?
        var timedOut = false
        var exitWaiters: [@Sendable (Int32) -> Void] = []
        var streamWaiters: [@Sendable () -> Void] = []
    }

    /// The process; started by ``init(_:_:environment:in:mergingStandardError:)``.
    public let process: Process
    private let input: Pipe
    private let state: Locked<State>

    /// The child's process identifier.
    public var processIdentifier: Int32 { process.processIdentifier }

    /// Starts `tool` with `arguments` and `environment` (nil: this process's) in `directory`,
    /// its standard input a pipe (``write(_:)``, ``closeInput()``), standard error into standard
    /// output when `mergingStandardError`.
    /// - Throws: what `Process.run()` throws when the tool cannot be started.
    public init(_ tool: String, _ arguments: [String], environment: [String: String]?, in directory: URL? = nil,
                mergingStandardError: Bool = false) throws {
        let process = Process()
        let input = Pipe()
        let output = Pipe()
        let errors = mergingStandardError ? nil : Pipe()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = directory }
        process.standardInput = input
        process.standardOutput = output
        // Merged: the same pipe's write end (Process closes the parent's copy of it once, through
        // `standardOutput`).
        process.standardError = errors ?? output.fileHandleForWriting
        let state = Locked(State(openStreams: errors == nil ? 1 : 2))
        self.process = process
        self.input = input
        self.state = state
        process.terminationHandler = { process in
            Self.exited(process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus, state)
        }
        ignoreBrokenPipes
        try process.run()
        Self.watchExit(of: process.processIdentifier, state)
        Self.drain(output.fileHandleForReading, isError: false, of: state)
        if let errors { Self.drain(errors.fileHandleForReading, isError: true, of: state) }
    }

    /// Records the exit status (the first report wins) and tells the waiters.
    private static func exited(_ status: Int32, _ state: Locked<State>) {
        let waiters = state.withLock { state -> [@Sendable (Int32) -> Void] in
            guard state.exitStatus == nil else { return [] }
            state.exitStatus = status
            defer { state.exitWaiters = [] }
            return state.exitWaiters
        }
        for waiter in waiters { waiter(status) }
    }

    /// The second witness of the exit, on a thread of its own: `waitid` with `WNOWAIT` (the
    /// child is left for Foundation to reap). On Linux Foundation learns of an exit only when
    /// its socket to the child closes, and a grandchild that lives on (the server `pg_ctl start`
    /// leaves running) holds that socket: its termination handler would then wait for the
    /// grandchild. When Foundation has reaped the child first, `waitid` fails and the handler
    /// has reported.
    private static func watchExit(of pid: Int32, _ state: Locked<State>) {
        Thread {
            var info = siginfo_t()
            var result: Int32
            repeat { result = waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) } while result == -1 && errno == EINTR
            guard result == 0 else { return }
            let code = info._sifields._sigchld.si_status
            exited(info.si_code == Int32(CLD_EXITED) ? code : 128 + code, state)
        }.start()
    }

    /// Reads `handle` to its end on a thread of its own, appending to standard output or error.
    private static func drain(_ handle: FileHandle, isError: Bool, of state: Locked<State>) {
        let descriptor = handle.fileDescriptor
        let thread = Thread {
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count > 0 {
                    let bytes = Array(chunk[0..<count])
                    state.withLock { state in
                        if isError { state.standardError += bytes } else { state.standardOutput += bytes }
                    }
                } else if count < 0 && errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            let waiters = state.withLock { state in
                state.openStreams -= 1
                guard state.openStreams == 0 else { return [] as [@Sendable () -> Void] }
                defer { state.streamWaiters = [] }
                return state.streamWaiters
            }
            // Closed here, at its end, not when Foundation lets go of the process: a test run
            // starts thousands of children, and a process holding more than 1024 descriptors
            // crashes libnfc's select() on the next serial port it opens.
            try? handle.close()
            for waiter in waiters { waiter() }
        }
        thread.start()
    }

    /// Standard output so far.
    public var standardOutput: String { state.withLock { String(decoding: $0.standardOutput, as: UTF8.self) } }
    /// Standard error so far (empty when merged into standard output).
    public var standardError: String { state.withLock { String(decoding: $0.standardError, as: UTF8.self) } }
    /// The exit status once the child has ended (128 + N for signal N), else nil.
    public var exitStatus: Int32? { state.withLock { $0.exitStatus } }

    /// Writes `text` to the child's standard input.
    /// - Throws: when the child has closed it.
    public func write(_ text: String) throws { try input.fileHandleForWriting.write(contentsOf: Data(text.utf8)) }

    /// Closes the child's standard input (it reads end of file).
    public func closeInput() { try? input.fileHandleForWriting.close() }

    /// Sends `signal` to the child, if it still runs.
    public func signal(_ signal: Int32) {
        guard exitStatus == nil else { return }
        kill(process.processIdentifier, signal)
    }

    /// Calls `body` once with the exit status: at once when the child has ended, else from the
    /// termination handler.
    private func onExit(_ body: @escaping @Sendable (Int32) -> Void) {
        let status: Int32? = state.withLock { state in
            if let status = state.exitStatus { return status }
            state.exitWaiters.append(body)
            return nil
        }
        if let status { body(status) }
    }

    /// Waits for the child to end; its exit status.
    public func exit() async -> Int32 {
        await withCheckedContinuation { continuation in onExit { continuation.resume(returning: $0) } }
    }

    /// Waits for the child to end for at most `seconds`, then ends it (SIGTERM, SIGKILL after
    /// 2 s) and reports it timed out; then waits (at most 2 s more) for its output to end, which
    /// a grandchild may hold open, and returns all of it.
    public func finish(within seconds: Double) async -> ToolRun {
        let timer = Task { [self] in
            try await Task.sleep(for: .seconds(seconds))
            state.withLock { $0.timedOut = true }
            await stop()
        }
        _ = await exit()
        timer.cancel()
        await outputEnded(within: .seconds(2))
        return result
    }

    /// Ends the child: SIGTERM, then SIGKILL when it has not ended after `grace`; its exit status.
    @discardableResult
    public func stop(grace: Duration = .seconds(2)) async -> Int32 {
        signal(SIGTERM)
        let killer = Task { [self] in
            try await Task.sleep(for: grace)
            signal(SIGKILL)
        }
        let status = await exit()
        killer.cancel()
        return status
    }

    /// Waits until `condition` holds for standard output and standard error so far (true), or
    /// `limit` has passed (false): a test waits for what the child says, not a guessed time.
    public func waitForOutput(within limit: Duration = .seconds(30),
                              _ condition: @escaping (_ standardOutput: String, _ standardError: String) -> Bool) async -> Bool {
        await eventually(within: limit) { condition(standardOutput, standardError) }
    }

    /// Waits for the end of the child's output streams, at most `limit`.
    private func outputEnded(within limit: Duration) async {
        let once = Locked<CheckedContinuation<Void, Never>?>(nil)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            once.withLock { $0 = continuation }
            let resume: @Sendable () -> Void = { once.withLock { $0.take() }?.resume() }
            let ended: Bool = state.withLock { state in
                if state.openStreams == 0 { return true }
                state.streamWaiters.append(resume)
                return false
            }
            if ended { resume(); return }
            Task {
                try? await Task.sleep(for: limit)
                resume()
            }
        }
    }

    /// What the run left behind; the exit status is -1 while the child runs.
    private var result: ToolRun {
        state.withLock {
            ToolRun(status: $0.exitStatus ?? -1, standardOutput: String(decoding: $0.standardOutput, as: UTF8.self),
                    standardError: String(decoding: $0.standardError, as: UTF8.self), timedOut: $0.timedOut)
        }
    }

    /// Waits, blocking the calling thread, for the child to end for at most `seconds` (then ends
    /// it as ``finish(within:)`` does). Only for code that cannot suspend: a static trait
    /// condition, or a ``runBlocking(_:)`` body. Never call it on the cooperative pool.
    public func finishSynchronously(within seconds: Double) -> ToolRun {
        let exited = DispatchSemaphore(value: 0)
        onExit { _ in exited.signal() }
        if exited.wait(timeout: .now() + seconds) == .timedOut {
            state.withLock { $0.timedOut = true }
            signal(SIGTERM)
            if exited.wait(timeout: .now() + 2) == .timedOut {
                signal(SIGKILL)
                exited.wait()
            }
        }
        let streams = DispatchSemaphore(value: 0)
        let ended: Bool = state.withLock { state in
            if state.openStreams == 0 { return true }
            state.streamWaiters.append { streams.signal() }
            return false
        }
        if !ended { _ = streams.wait(timeout: .now() + 2) }
        return result
    }
}

/// Runs `tool` with `arguments` and `environment` in `directory`, standard input `input`, and
/// awaits its end without holding a thread; killed (and reported `timedOut`) after `timeout`
/// seconds. At most twice ``concurrentJobs`` such children run at once (others wait their turn,
/// suspended, before their time limit starts). Standard error goes into standard output unless `mergingStandardError` is false.
/// - Throws: when the tool cannot be started.
public func runTool(_ tool: String, _ arguments: [String], environment: [String: String], input: String = "",
                    timeout: Double = 10, in directory: URL? = nil, mergingStandardError: Bool = true) async throws -> ToolRun {
    await JobGate.children.enter()
    defer { Task { await JobGate.children.leave() } }
    let child = try ChildProcess(tool, arguments, environment: environment, in: directory, mergingStandardError: mergingStandardError)
    if !input.isEmpty { try? child.write(input) }
    child.closeInput()
    return await child.finish(within: timeout)
}

/// ``runTool(_:_:environment:input:timeout:in:mergingStandardError:)`` blocking the calling
/// thread: only for code that cannot suspend (a static trait condition, PostgreSQLTestServer's
/// synchronous steps inside ``runBlocking(_:)``). Never call it on the cooperative pool.
/// - Throws: when the tool cannot be started.
public func runToolSynchronously(_ tool: String, _ arguments: [String], environment: [String: String], input: String = "",
                                 timeout: Double = 10, in directory: URL? = nil, mergingStandardError: Bool = true) throws -> ToolRun {
    let child = try ChildProcess(tool, arguments, environment: environment, in: directory, mergingStandardError: mergingStandardError)
    if !input.isEmpty { try? child.write(input) }
    child.closeInput()
    return child.finishSynchronously(within: timeout)
}

/// The built `nfctool` run as a user runs it: `arguments`, standard input `input` (empty: end of
/// file at once), this process's environment without libnfc's variables, changed by
/// `environment`; standard output and error apart. A run that does not end within `timeout`
/// seconds is killed, recorded as an issue and returns status -1.
/// - Throws: ``ExecutableNotBuilt`` when nfctool was not built; when it cannot be started.
public func runBuiltNFCTool(_ arguments: [String], environment: [String: String] = [:], input: String = "",
                            timeout: Double = 120) async throws -> ToolRun {
    var childEnvironment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("LIBNFC_") }
    childEnvironment.merge(environment) { _, new in new }
    let run = try await runTool(try Executables.nfctool(), arguments, environment: childEnvironment, input: input,
                                timeout: timeout, mergingStandardError: false)
    guard run.timedOut else { return run }
    Issue.record("nfctool \(arguments) did not exit within \(Int(timeout)) s")
    return ToolRun(status: -1, standardOutput: run.standardOutput, standardError: run.standardError, timedOut: true)
}

/// A child that exits before reading its input must not kill the test process with SIGPIPE:
/// writes to it fail instead. Evaluated once.
let ignoreBrokenPipes: Void = { _ = signal(SIGPIPE, SIG_IGN) }()
