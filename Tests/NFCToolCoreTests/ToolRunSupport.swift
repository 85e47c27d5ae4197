import NFCToolCore

/// What one in-process run of a tool left behind (a child process's run is NFCTestSupport's
/// `ToolRun`).
struct InToolRun: Sendable {
    let status: ExitCode
    let standardOutput: String
    let standardOutputBytes: [UInt8]
    let standardError: String
}

/// Runs nfctool in-process with `arguments` (without the program name), as a shell would.
func runNFCTool(
    _ arguments: [String], standardInput: [UInt8] = [], environment: [String: String] = [:]
) async -> InToolRun {
    let io = CapturedIO(standardInput: standardInput)
    let status = await runTool(arguments: arguments, environment: environment, io: io)
    return InToolRun(
        status: status, standardOutput: io.standardOutput, standardOutputBytes: io.standardOutputBytes,
        standardError: io.standardError)
}
