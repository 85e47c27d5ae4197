import Foundation
import NFCTestSupport
import Testing
@testable import NFCToolCore

/// The built `nfctool`, next to the test runner in the build products directory.
enum BuiltProducts {
    static let nfctool: URL? = Executables.built("nfctool")
}

/// What one run of the built binary left behind.
struct ProcessRun {
    let status: Int32
    let standardOutput: String
    let standardError: String
}

/// Runs the built nfctool with `arguments`, standard input from /dev/null, and this process's
/// environment without libnfc's variables, changed by `environment`.
func runBuiltNFCTool(_ arguments: [String], environment: [String: String] = [:]) throws -> ProcessRun {
    let executable = try #require(BuiltProducts.nfctool, "nfctool is not next to the test runner")
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("nfctool-e2e-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let outputURL = directory.appendingPathComponent("stdout")
    let errorURL = directory.appendingPathComponent("stderr")
    _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
    let output = try FileHandle(forWritingTo: outputURL)
    let error = try FileHandle(forWritingTo: errorURL)

    var childEnvironment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("LIBNFC_") }
    childEnvironment.merge(environment) { _, new in new }
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.environment = childEnvironment
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = output
    process.standardError = error
    try process.run()
    // Bounded: a child that never exits is killed (and the test fails) instead of hanging CI.
    let deadline = Date().addingTimeInterval(120)
    while process.isRunning && Date() < deadline { usleep(2_000) }
    let timedOut = process.isRunning
    if timedOut {
        reap(process)
        Issue.record("nfctool \(arguments) did not exit within 120 s")
    }
    try output.close()
    try error.close()
    return ProcessRun(
        status: timedOut ? -1 : process.terminationStatus,
        standardOutput: String(decoding: try Data(contentsOf: outputURL), as: UTF8.self),
        standardError: String(decoding: try Data(contentsOf: errorURL), as: UTF8.self))
}

@Suite("The built nfctool, run as a user runs it", .timeLimit(.minutes(10)))
struct EndToEndTests {
    @Test("--version prints the version and exits 0")
    func version() throws {
        let run = try runBuiltNFCTool(["--version"])
        #expect(run.status == 0)
        #expect(run.standardOutput == "nfctool \(nfctoolVersion)\n")
        #expect(run.standardError == "")
    }

    @Test("--help prints what the in-process tool prints")
    func help() async throws {
        let run = try runBuiltNFCTool(["--help"])
        let inProcess = await runNFCTool(["--help"])
        #expect(run.status == 0)
        #expect(run.standardOutput == inProcess.standardOutput)
    }

    @Test("a bad option exits 64 with Error: and the usage on standard error")
    func badOption() throws {
        let run = try runBuiltNFCTool(["devices", "--bogus"])
        #expect(run.status == 64)
        #expect(run.standardOutput == "")
        #expect(run.standardError.hasPrefix("Error: Unknown option '--bogus'\nUsage: nfctool devices"))
    }

    @Test("devices without a reader: the message on standard output, exit 3, no libnfc noise on standard error")
    func devicesIsQuiet() throws {
        let run = try runBuiltNFCTool(["devices"])
        #expect(run.status == 3)
        #expect(run.standardOutput.hasPrefix("No NFC reader found (libnfc "))
        #expect(run.standardError == "Error: no NFC reader found\n")
        let json = try runBuiltNFCTool(["devices", "--json"])
        #expect(json.status == 3)
        #expect(json.standardOutput.hasPrefix("{\"devices\":[],\"libnfc\":\""))
        #expect(json.standardError == "Error: no NFC reader found\n")
    }

    @Test("devices --verbose lets libnfc's debug log through to standard error")
    func devicesVerbose() throws {
        let run = try runBuiltNFCTool(["devices", "--verbose"])
        #expect(run.status == 3)
        #expect(run.standardError.contains("debug\tlibnfc."))
    }

    @Test("the user's LIBNFC_LOG_LEVEL wins over --verbose")
    func userLogLevelWins() throws {
        let run = try runBuiltNFCTool(["devices", "--verbose"], environment: ["LIBNFC_LOG_LEVEL": "0"])
        #expect(run.status == 3)
        #expect(run.standardError == "Error: no NFC reader found\n")
    }
}
