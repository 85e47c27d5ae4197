import NFCTestSupport
import Testing
@testable import NFCToolCore

/// A command line nfctool must reject, and the first line it must print on standard error.
struct RejectedCommandLine: Sendable, CustomTestStringConvertible {
    let arguments: [String]
    let error: String
    var testDescription: String { arguments.joined(separator: " ") }
}

@Suite("nfctool's usage errors", .timeLimit(.minutes(5)))
struct UsageErrorTests {
    static let devicesUsage = """
        Usage: nfctool devices [--json] [--verbose]
          See 'nfctool devices --help' for more information.

        """
    static let rootUsage = """
        Usage: nfctool <subcommand>
          See 'nfctool --help' for more information.

        """

    @Test("an unknown option prints the error, the usage line and where to get help")
    func unknownOptionWholeText() async {
        let run = await runNFCTool(["devices", "--bogus"])
        #expect(run.status == .usage)
        #expect(run.status.rawValue == 64)
        #expect(run.standardOutput == "")
        #expect(run.standardError == "Error: Unknown option '--bogus'\n" + Self.devicesUsage)
    }

    @Test("an unknown command prints the error with the root usage")
    func unknownCommandWholeText() async {
        let run = await runNFCTool(["frobnicate"])
        #expect(run.status == .usage)
        #expect(run.standardOutput == "")
        #expect(run.standardError == "Error: Unknown command 'frobnicate'\n" + Self.rootUsage)
    }

    @Test(
        "bad command lines exit 64 with Error: on standard error and nothing on standard output",
        arguments: [
            RejectedCommandLine(arguments: ["--bogus"], error: "Unknown option '--bogus'"),
            RejectedCommandLine(arguments: ["-x"], error: "Unknown option '-x'"),
            RejectedCommandLine(arguments: ["help", "nope"], error: "Unknown command 'nope'"),
            RejectedCommandLine(arguments: ["devices", "-x"], error: "Unknown option '-x'"),
            RejectedCommandLine(arguments: ["devices", "--version"], error: "Unknown option '--version'"),
            RejectedCommandLine(
                arguments: ["devices", "--json=yes"],
                error: "The option '--json' does not take any value, but 'yes' was specified."),
            RejectedCommandLine(arguments: ["devices", "reader"], error: "Unexpected argument 'reader'"),
            RejectedCommandLine(arguments: ["devices", "--json", "--json"], error: "The option '--json' can be given only once"),
            RejectedCommandLine(arguments: ["--", "devices"], error: "Unexpected argument 'devices'"),
        ])
    func rejected(_ line: RejectedCommandLine) async {
        let run = await runNFCTool(line.arguments)
        #expect(run.status == .usage)
        // A command line with --json gets the error object (docs/cli.md, "Errors as JSON").
        #expect(JSONAnswer.answer(run.standardOutput) == "")
        #expect(run.standardError.hasPrefix("Error: \(line.error)\nUsage: nfctool"))
        #expect(run.standardError.hasSuffix("for more information.\n"))
    }

    @Test("the exit statuses are the documented numbers")
    func exitStatusNumbers() {
        #expect(ExitCode.success.rawValue == 0)
        #expect(ExitCode.failure.rawValue == 1)
        #expect(ExitCode.usage.rawValue == 64)
        #expect(ExitCode.dataError.rawValue == 65)
    }
}
