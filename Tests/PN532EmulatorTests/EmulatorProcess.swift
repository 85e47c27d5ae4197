import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Executables the end-to-end tests need: the built `pn532-emulator`, next to the test runner,
/// and libnfc's tools from `libnfc-bin` / `libnfc-examples`.
enum Executables {
    static let emulator: URL? = built("pn532-emulator")

    static func built(_ name: String) -> URL? {
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
    static func libnfcTool(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return (path.split(separator: ":").map(String.init) + ["/usr/bin"])
            .map { "\($0)/\(name)" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

enum EmulatorTestError: Error, CustomStringConvertible {
    case notBuilt
    case noPTYLine(String)
    case noReply(String)

    var description: String {
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
final class EmulatorProcess {
    let process = Process()
    let ptyPath: String
    let tracePath: String
    private let input = Pipe()
    private let output = Pipe()
    private var buffer: [UInt8] = []

    /// Starts `pn532-emulator` with `arguments` (a trace file is added) and reads the pty path.
    init(_ arguments: [String]) throws {
        guard let executable = Executables.emulator else { throw EmulatorTestError.notBuilt }
        tracePath = FileManager.default.temporaryDirectory.appendingPathComponent("pn532-trace-\(UUID().uuidString)").path
        process.executableURL = executable
        process.arguments = arguments + ["--trace", tracePath]
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        guard let line = readLine(from: output.fileHandleForReading.fileDescriptor, buffer: &buffer, timeout: 5),
              line.hasPrefix("/dev/") else {
            process.terminate()
            throw EmulatorTestError.noPTYLine("")
        }
        ptyPath = line
    }

    /// Sends a control command and returns the emulator's answer line.
    @discardableResult
    func control(_ command: String) throws -> String {
        input.fileHandleForWriting.write(Data((command + "\n").utf8))
        guard let line = readLine(from: output.fileHandleForReading.fileDescriptor, buffer: &buffer, timeout: 5) else {
            throw EmulatorTestError.noReply(command)
        }
        return line
    }

    /// The trace lines so far.
    var trace: [String] {
        ((try? String(contentsOfFile: tracePath, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Stops the emulator and removes its trace.
    func stop() {
        if process.isRunning { _ = try? control("quit") }
        let deadline = Date().addingTimeInterval(2)
        while process.isRunning && Date() < deadline { usleep(5_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: tracePath)
    }

    /// The environment that points libnfc at this emulator and nothing else.
    var libnfcEnvironment: [String: String] {
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("LIBNFC_") }
        environment["LIBNFC_DEFAULT_DEVICE"] = "pn532_uart:\(ptyPath)"
        environment["LIBNFC_AUTO_SCAN"] = "false"
        environment["LIBNFC_INTRUSIVE_SCAN"] = "false"
        environment["LIBNFC_LOG_LEVEL"] = "1"
        return environment
    }
}

/// What one run of a tool left behind.
struct ToolRun {
    let status: Int32
    let output: String
    let timedOut: Bool
}

/// Runs `tool` with `arguments` against `emulator`, standard input `input`, killed after
/// `timeout` seconds; standard error is merged into the output.
func runTool(_ tool: String, _ arguments: [String], against emulator: EmulatorProcess, input: String = "",
             timeout: Double = 10, in directory: URL? = nil) throws -> ToolRun {
    let outputURL = FileManager.default.temporaryDirectory.appendingPathComponent("tool-\(UUID().uuidString)")
    _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
    defer { try? FileManager.default.removeItem(at: outputURL) }
    let output = try FileHandle(forWritingTo: outputURL)
    let stdin = Pipe()
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = arguments
    process.environment = emulator.libnfcEnvironment
    process.standardInput = stdin
    process.standardOutput = output
    process.standardError = output
    if let directory { process.currentDirectoryURL = directory }
    try process.run()
    stdin.fileHandleForWriting.write(Data(input.utf8))
    try stdin.fileHandleForWriting.close()
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning && Date() < deadline { usleep(2_000) }
    let timedOut = process.isRunning
    if timedOut { process.terminate() }
    process.waitUntilExit()
    try output.close()
    return ToolRun(status: process.terminationStatus,
                   output: String(decoding: try Data(contentsOf: outputURL), as: UTF8.self),
                   timedOut: timedOut)
}

/// A fresh temporary directory.
func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("pn532-e2e-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
