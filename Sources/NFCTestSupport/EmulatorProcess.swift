public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Executables the end-to-end tests need: the built `pn532-emulator`, next to the test runner,
/// and libnfc's tools from `libnfc-bin` / `libnfc-examples`.
public enum Executables {
    /// The built `nfctool`'s path.
    /// - Throws: ``ExecutableNotBuilt`` when it is not next to the test runner.
    public static func nfctool() throws -> String {
        guard let url = built("nfctool") else { throw ExecutableNotBuilt(name: "nfctool") }
        return url.path
    }

    /// The built `pn532-emulator`, or `nil` when it was not built.
    public static let emulator: URL? = built("pn532-emulator")

    /// A product of this package, next to the test runner in the build products directory,
    /// whatever `--scratch-path` the tests were built with.
    public static func built(_ name: String) -> URL? {
        var directories: [URL] = []
        #if os(Linux)
        directories.append(URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent())
        #endif
        directories.append(contentsOf: Bundle.allBundles.filter { $0.bundlePath.hasSuffix(".xctest") }
            .map { $0.bundleURL.deletingLastPathComponent() })
        directories.append(Bundle.main.bundleURL)
        return directories.map { $0.appendingPathComponent(name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// A libnfc tool on PATH (or /usr/bin), if installed.
    public static func libnfcTool(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return (path.split(separator: ":").map(String.init) + ["/usr/bin"])
            .map { "\($0)/\(name)" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

/// A product of this package a test runs is not next to the test runner.
public struct ExecutableNotBuilt: Error, CustomStringConvertible {
    /// The product's name (`nfctool`).
    public let name: String
    /// What is missing and how to get it.
    public var description: String { "\(name) is not next to the test runner: build it with swift build --build-tests" }
}

/// Why the emulator could not be started or did not answer.
public enum EmulatorTestError: Error, CustomStringConvertible {
    case notBuilt
    case noPTYLine(String)
    case noReply(String)

    /// What went wrong.
    public var description: String {
        switch self {
        case .notBuilt: "pn532-emulator is not next to the test runner (build with --build-tests)"
        case .noPTYLine(let text): "the emulator printed no pty path: \(text)"
        case .noReply(let command): "no answer to control command '\(command)'"
        }
    }
}

/// Reads one line from `descriptor`, waiting at most `timeout` seconds.
private func readLine(from descriptor: Int32, buffer: inout [UInt8], timeout: Double) -> String? {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
        if let newline = buffer.firstIndex(of: 0x0A) {
            let line = String(decoding: buffer[..<newline], as: UTF8.self)
            buffer.removeSubrange(...newline)
            return line
        }
        let remaining = deadline.timeIntervalSinceNow
        guard remaining > 0 else { return nil }
        var descriptors = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
        guard poll(&descriptors, 1, Int32(remaining * 1000) + 1) > 0 else { return nil }
        var chunk = [UInt8](repeating: 0, count: 1024)
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        buffer += chunk[0..<count]
    }
}

/// The built emulator running as a subprocess, controlled through its standard input.
///
/// Starting it waits for the pty line and a control command waits for its answer: both block, so
/// they run on a thread of their own (``runBlocking(_:)``) and are awaited, never on the
/// cooperative pool. ``stop()`` blocks nothing: it asks the emulator to quit and leaves the
/// waiting for its end to a thread of its own.
public final class EmulatorProcess: @unchecked Sendable {
    public let process = Process()
    /// The emulator's pseudo-terminal: `/dev/pts/N`.
    public let ptyPath: String
    /// What libnfc is told to open: a link to ``ptyPath`` named for this emulator alone. The
    /// kernel hands a freed `/dev/pts/N` to the next emulator, and NFCKit holds a reader by its
    /// connection string (a lock file per string, across processes); with the bare pty path a
    /// holder of an earlier emulator's reader made a later emulator on the same number "in use
    /// by another session" (seen in full runs).
    public let devicePath: String
    /// Where the emulator writes its trace.
    public let tracePath: String
    private let input = Pipe()
    private let output = Pipe()
    /// Guards ``buffer`` and ``stopped``: a control command and `stop()` may come from different threads.
    private let lock = NSLock()
    private var buffer: [UInt8] = []
    private var stopped = false

    /// Starts `pn532-emulator` with `arguments` (a trace file is added) and waits, off the
    /// cooperative pool, until it prints its pty path.
    public static func start(_ arguments: [String]) async throws -> EmulatorProcess {
        try await runBlocking { try EmulatorProcess(launching: arguments) }
    }

    private init(launching arguments: [String]) throws {
        guard let executable = Executables.emulator else { throw EmulatorTestError.notBuilt }
        tracePath = FileManager.default.temporaryDirectory.appendingPathComponent("pn532-trace-\(UUID().uuidString)").path
        process.executableURL = executable
        process.arguments = arguments + ["--trace", tracePath]
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        ignoreBrokenPipes
        try process.run()
        guard let line = readLine(from: output.fileHandleForReading.fileDescriptor, buffer: &buffer, timeout: 5),
              line.hasPrefix("/dev/") else {
            process.terminate()
            reapInBackground(process)
            throw EmulatorTestError.noPTYLine("")
        }
        ptyPath = line
        let link = FileManager.default.temporaryDirectory.appendingPathComponent("nfckit-pn532-\(UUID().uuidString)").path
        guard symlink(line, link) == 0 else {
            process.terminate()
            reapInBackground(process)
            throw EmulatorTestError.noPTYLine("cannot link \(link) to \(line): errno \(errno)")
        }
        devicePath = link
    }

    /// Sends a control command and returns the emulator's answer line (waited for off the
    /// cooperative pool).
    @discardableResult
    public func control(_ command: String) async throws -> String {
        try await runBlocking { try self.exchange(command) }
    }

    /// A control command and its answer, blocking the calling thread until the answer comes.
    private func exchange(_ command: String) throws -> String {
        lock.lock()
        defer { lock.unlock() }
        try input.fileHandleForWriting.write(contentsOf: Data((command + "\n").utf8))
        guard let line = readLine(from: output.fileHandleForReading.fileDescriptor, buffer: &buffer, timeout: 5) else {
            throw EmulatorTestError.noReply(command)
        }
        return line
    }

    /// The trace lines so far.
    public var trace: [String] {
        ((try? String(contentsOfFile: tracePath, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Stops the emulator and removes its trace, without waiting: the emulator is told to quit
    /// (a few bytes into its standard input) and a thread of its own waits for its end (SIGTERM,
    /// then SIGKILL, as ``reap(_:)``). The tag file is already whole: the emulator stores each
    /// write before it answers it.
    public func stop() {
        lock.lock()
        let first = !stopped
        stopped = true
        lock.unlock()
        guard first else { return }
        if process.isRunning { try? input.fileHandleForWriting.write(contentsOf: Data("quit\n".utf8)) }
        reapInBackground(process)
        try? FileManager.default.removeItem(atPath: tracePath)
        unlink(devicePath)
    }

    /// libnfc's connection string for this emulator.
    public var connectionString: String { "pn532_uart:\(devicePath)" }

    deinit { stop() }

    /// The environment that points libnfc at this emulator and nothing else.
    public var libnfcEnvironment: [String: String] {
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("LIBNFC_") }
        environment["LIBNFC_DEFAULT_DEVICE"] = connectionString
        environment["LIBNFC_AUTO_SCAN"] = "false"
        environment["LIBNFC_INTRUSIVE_SCAN"] = "false"
        environment["LIBNFC_LOG_LEVEL"] = "1"
        return environment
    }
}

/// Runs `tool` with `arguments` against `emulator` (libnfc pointed at it and nothing else):
/// ``runTool(_:_:environment:input:timeout:in:mergingStandardError:)`` with the emulator's environment.
public func runTool(_ tool: String, _ arguments: [String], against emulator: EmulatorProcess, input: String = "",
                    timeout: Double = 10, in directory: URL? = nil) async throws -> ToolRun {
    try await runTool(tool, arguments, environment: emulator.libnfcEnvironment, input: input, timeout: timeout, in: directory)
}

/// Ends a long-lived fixture child started with `Process` (an emulator, a daemon): SIGTERM, then
/// SIGKILL after 2 s, reaping it with `waitpid`. It blocks the calling thread: from asynchronous
/// code await ``reaped(_:)``, or hand a teardown to ``reapInBackground(_:)``
/// (Foundation's `waitUntilExit()` can spin for ever on Linux once the child is gone). Never for a
/// ``ChildProcess``, whose end its termination handler reports.
public func reap(_ process: Process) {
    reap(pid: process.processIdentifier)
}

/// ``reap(_:)`` by process identifier (which, unlike a `Process`, crosses to another thread).
public func reap(pid: Int32) {
    guard pid > 0 else { return }
    var status: Int32 = 0
    if waitpid(pid, &status, WNOHANG) != 0 { return }  // already gone (or reaped by Foundation)
    kill(pid, SIGTERM)
    let deadline = Date().addingTimeInterval(2)
    while Date() < deadline {
        let reaped = waitpid(pid, &status, WNOHANG)
        if reaped == pid || reaped == -1 { return }
        usleep(5_000)
    }
    kill(pid, SIGKILL)
    _ = waitpid(pid, &status, 0)
}

/// Ends a fixture child like ``reap(_:)`` without blocking the caller: a thread of its own waits
/// (first up to 2 s for it to end by itself, as after a "quit", then SIGTERM and SIGKILL). For
/// teardown from a `defer` or `deinit`, where nothing may block the cooperative pool.
public func reapInBackground(_ process: Process) {
    let pid = process.processIdentifier
    guard pid > 0 else { return }
    Thread {
        var status: Int32 = 0
        let deadline = Date().addingTimeInterval(2)
        while Date() < deadline {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid || reaped == -1 { return }
            usleep(5_000)
        }
        kill(pid, SIGTERM)
        let last = Date().addingTimeInterval(2)
        while Date() < last {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid || reaped == -1 { return }
            usleep(5_000)
        }
        kill(pid, SIGKILL)
        _ = waitpid(pid, &status, 0)
    }.start()
}

/// Waits, off the cooperative pool, until `process` has ended (``reap(_:)``: SIGTERM, then
/// SIGKILL after 2 s): for a test that needs the child gone before it goes on.
public func reaped(_ process: Process) async {
    let pid = process.processIdentifier
    _ = try? await runBlocking { reap(pid: pid) }
}

/// A fresh temporary directory.
public func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("pn532-e2e-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// nfcpy, an independent reader stack, reading the tag file `tagFile` (a `model` tag) through a
/// PN532 emulator linked at /dev/EMUn: `body` is Python run after `tag = clf.connect(…)` with
/// `tag` in scope (e.g. `print('uri', tag.ndef.records[0].iri)`).
public func runNFCPy(model: String, tagFile: String, _ body: String, timeout: Double = 30) async throws -> ToolRun {
    let python = try ExternalTool.nfcpy.require()
    let name = "EMU\(UInt32.random(in: 0..<1_000_000))"
    let emulator = try await EmulatorProcess.start(["--tag", "\(model):\(tagFile)", "--link", "/dev/\(name)"])
    defer { emulator.stop() }
    let script = """
        import nfc
        clf = nfc.ContactlessFrontend('tty:\(name):pn532')
        tag = clf.connect(rdwr={'on-connect': lambda tag: False}, terminate=lambda: False, iterations=3)
        \(body)
        clf.close()
        """
    return try await runTool(python, ["-c", script], against: emulator, timeout: timeout)
}
