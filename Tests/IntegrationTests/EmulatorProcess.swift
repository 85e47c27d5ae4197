import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Built executables, next to the test runner in the products directory (any scratch path).
enum Built {
    static func executable(_ name: String) -> URL? {
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

    /// A program on PATH (libnfc's tools), or `nil`.
    static func onPath(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

/// A running `pn532-emulator`: started with arguments, its pty read from its first line,
/// stopped when the test ends.
final class EmulatorProcess {
    let process = Process()
    let pty: String
    private let output = Pipe()

    init(_ arguments: [String]) throws {
        let executable = try #require(Built.executable("pn532-emulator"), "pn532-emulator is not next to the test runner")
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // The first line is the pty path.
        var line = [UInt8]()
        let handle = output.fileHandleForReading
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let byte = handle.readData(ofLength: 1)
            if byte.isEmpty { break }
            if byte[byte.startIndex] == 0x0A { break }
            line.append(byte[byte.startIndex])
        }
        pty = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespaces)
        guard pty.hasPrefix("/dev/") else {
            process.terminate()
            throw EmulatorFailure(message: "the emulator printed '\(pty)' instead of its pty")
        }
    }

    /// libnfc's connection string for it.
    var connectionString: String { "pn532_uart:\(pty)" }

    deinit {
        stop()
    }

    /// Ends the emulator: SIGTERM, then SIGKILL if it is still there after 2 s. Foundation's
    /// `waitUntilExit()` can spin for ever on Linux once a child is gone, so it is not used.
    func stop() {
        let pid = process.processIdentifier
        guard pid > 0, kill(pid, 0) == 0 else { return }
        kill(pid, SIGTERM)
        let deadline = Date().addingTimeInterval(2)
        while Date() < deadline {
            var status: Int32 = 0
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid || (reaped == -1 && errno == ECHILD) { return }
            Thread.sleep(forTimeInterval: 0.005)
        }
        kill(pid, SIGKILL)
    }

    struct EmulatorFailure: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}

/// What one run of a program left behind.
struct ProgramRun {
    let status: Int32
    let standardOutput: String
    let standardError: String
    let timedOut: Bool
}

/// Runs a program with a time limit, stdin from /dev/null, libnfc quiet unless `environment`
/// says otherwise.
func runProgram(_ path: String, _ arguments: [String], environment: [String: String] = [:], timeout: TimeInterval = 20) throws -> ProgramRun {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfckit-run-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let outURL = directory.appendingPathComponent("out"), errURL = directory.appendingPathComponent("err")
    _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
    let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("LIBNFC_") }
    env["LIBNFC_LOG_LEVEL"] = "0"
    env.merge(environment) { _, new in new }
    process.environment = env
    process.currentDirectoryURL = directory
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
    let timedOut = process.isRunning
    if timedOut {
        process.terminate()
        let killDeadline = Date().addingTimeInterval(2)
        while process.isRunning && Date() < killDeadline { Thread.sleep(forTimeInterval: 0.01) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
    try out.close()
    try err.close()
    return ProgramRun(status: process.terminationStatus,
                      standardOutput: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
                      standardError: String(decoding: try Data(contentsOf: errURL), as: UTF8.self),
                      timedOut: timedOut)
}
