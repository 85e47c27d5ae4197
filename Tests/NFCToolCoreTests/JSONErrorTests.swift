import CommandLineKit
import Foundation
import NFCTestSupport
import Testing
@testable import NFCToolCore

/// A failing command given `--json`: one JSON error object on standard output, besides
/// `Error: …` on standard error (docs/cli.md, "Errors as JSON").
@Suite("--json failures print one JSON error object on standard output", .timeLimit(.minutes(10)))
struct JSONErrorTests {
    /// A command line that fails, and the code its error object must carry.
    struct FailingRun: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        let code: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    /// A command line that fails for every command with `--json`, keyed by the command's path
    /// (without the tool's name); ``everyJSONCommandHasAFailingRun()`` keeps it complete.
    static let failingRuns: [String: FailingRun] = {
        let noTag = ["--device", "sim:empty?poll-wait=0", "--timeout", "0.2"]
        let runs: [FailingRun] = [
            // Its only failure at run time (no reader) depends on the machine: a usage error.
            .init(arguments: ["devices", "--json", "surplus"], code: "usage"),
            // Its failures depend on the machine: a usage error.
            .init(arguments: ["doctor", "--json", "surplus"], code: "usage"),
            .init(arguments: ["scan", "--json"] + noTag, code: "noTag"),
            .init(arguments: ["ndef", "encode", "--json", "--json-file", "/nonexistent/message.json"], code: "failure"),
            .init(arguments: ["ndef", "decode", "--json", "d1010c55"], code: "lengthPastEnd"),
            .init(arguments: ["read", "--json", "--device", "sim:nonexistent-model"], code: "usage"),
            .init(arguments: ["write", "--json", "--url", "https://example.com"] + noTag, code: "noTag"),
            .init(arguments: ["batch", "--json", "--device", "sim:nonexistent-model", "--url", "https://example.com/{n}", "--ledger", "/nonexistent/dir/l.db"], code: "usage"),
            .init(arguments: ["ledger", "stats", "--json", "/nonexistent/ledger.db"], code: "usage"),
            .init(arguments: ["ledger", "runs", "--json", "/nonexistent/ledger.db"], code: "usage"),
            .init(arguments: ["ledger", "resolve", "--json", "/nonexistent/ledger.db", "--uid", "04A1", "--erased"], code: "usage"),
            .init(arguments: ["lock", "--json", "--yes", "--device", "sim:type4"], code: "notSupported"),
            .init(arguments: ["format", "--json", "--yes"] + noTag, code: "noTag"),
            .init(arguments: ["erase", "--json"] + noTag, code: "noTag"),
            .init(arguments: ["protect", "--json", "--device", "sim:ntag215"], code: "usage"),
            .init(arguments: ["unprotect", "--json", "--password-file", "/nonexistent/password"] + noTag, code: "usage"),
            .init(arguments: ["info", "--json"] + noTag, code: "noTag"),
            .init(arguments: ["dump", "--json"] + noTag, code: "noTag"),
            .init(arguments: ["verify", "--json", "--expect-ndef", "/nonexistent/expected.ndef", "--device", "sim:ntag215"], code: "failure"),
            .init(arguments: ["apdu", "--json", "--device", "sim:ntag215", "00A4040007D2760000850101"], code: "notSupported"),
            .init(arguments: ["emulate", "--json", "--url", "https://example.com", "--device", "sim:ntag215"], code: "unsupported"),
            .init(arguments: ["watch", "--json", "--device", "sim:nonexistent-model"], code: "usage"),
            .init(arguments: ["selftest", "--json", "--format"] + noTag, code: "usage"),
            .init(arguments: ["sun", "verify", "--json", "--keys", "/nonexistent/sdm.keys", "https://example.com/?picc_data=00&cmac=00"], code: "failure"),
            .init(arguments: ["ntag424", "setup", "--json", "--url", "https://example.com/?p={sun:picc}&m={sun:mac}", "--keys", "/nonexistent/new.keys", "--yes"] + noTag, code: "failure"),
        ]
        var table: [String: FailingRun] = [:]
        for run in runs {
            let path = run.arguments.prefix { !$0.hasPrefix("-") }
            let command = path.first == "ledger" || path.first == "ndef" || path.first == "sun" || path.first == "ntag424" ? path.prefix(2) : path.prefix(1)
            table[command.joined(separator: " ")] = run
        }
        return table
    }()

    /// Every command of nfctool that declares `--json`, from the command tree.
    static let jsonCommands: [CommandTree.Node] = CommandTree.all(from: NFCToolCommand.self).filter { node in
        node.command.configuration.options.contains { $0.name == CommandError.jsonFlagName }
    }

    /// The one JSON error object a run printed (its whole standard output), with the checks
    /// every such object must pass against the run's status and standard error.
    static func errorObject(stdout: String, stderr: String, status: Int32) throws -> [String: Any] {
        #expect(status != 0)
        let lines = stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 2 && lines.last == "", "not one line: \(stdout)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any], "\(stdout)")
        #expect(Array(object.keys) == ["error"], "\(object)")
        let error = try #require(object["error"] as? [String: Any], "\(object)")
        #expect(error["exitStatus"] as? Int == Int(status), "\(error)")
        let message = try #require(error["message"] as? String)
        #expect(!message.isEmpty)
        #expect(stderr.hasPrefix("Error: "), "\(stderr)")
        #expect(Set(error.keys).isSubset(of: ["code", "exitStatus", "message", "offset"]), "\(error)")
        return error
    }

    @Test("every command that takes --json has a failing run in the table (a new command cannot be missed)")
    func everyJSONCommandHasAFailingRun() {
        #expect(Self.jsonCommands.count >= 20, "\(Self.jsonCommands.map(\.testDescription))")
        for node in Self.jsonCommands {
            let key = node.path.dropFirst().joined(separator: " ")
            #expect(Self.failingRuns[key] != nil, "no failing run for '\(key)' in JSONErrorTests.failingRuns")
        }
        #expect(Set(Self.failingRuns.keys) == Set(Self.jsonCommands.map { $0.path.dropFirst().joined(separator: " ") }))
    }

    @Test("a failing run with --json: non-zero status, and standard output is one JSON object with its code, status and message",
          arguments: JSONErrorTests.jsonCommands)
    func failingRunPrintsOneErrorObject(_ node: CommandTree.Node) async throws {
        let failing = try #require(Self.failingRuns[node.path.dropFirst().joined(separator: " ")])
        let run = await runNFCTool(failing.arguments)
        let error = try Self.errorObject(stdout: run.standardOutput, stderr: run.standardError, status: run.status.rawValue)
        #expect(error["code"] as? String == failing.code, "\(error)")
        #expect(run.standardError.hasPrefix("Error: \(error["message"] as? String ?? "?")"), "\(run.standardError)")
    }

    @Test("the same run without --json prints nothing on standard output and the same error", arguments: JSONErrorTests.jsonCommands)
    func withoutJSONNothingOnStandardOutput(_ node: CommandTree.Node) async throws {
        let failing = try #require(Self.failingRuns[node.path.dropFirst().joined(separator: " ")])
        let withJSON = await runNFCTool(failing.arguments)
        let without = await runNFCTool(failing.arguments.filter { $0 != "--json" })
        #expect(without.status == withJSON.status)
        #expect(without.standardOutput == "", "\(without.standardOutput)")
        // The text on standard error is unchanged by --json (the usage line names the options typed, not the ones given).
        #expect(without.standardError.prefix { $0 != "\n" } == withJSON.standardError.prefix { $0 != "\n" })
    }

    @Test("a usage error the parser finds (an unknown option) gives the object too, code usage, for every command with --json",
          arguments: JSONErrorTests.jsonCommands)
    func parseErrorPrintsTheObject(_ node: CommandTree.Node) async throws {
        let run = await runNFCTool(Array(node.path.dropFirst()) + ["--json", "--no-such-option"])
        #expect(run.status == .usage)
        let error = try Self.errorObject(stdout: run.standardOutput, stderr: run.standardError, status: run.status.rawValue)
        #expect(error["code"] as? String == "usage")
        #expect(error["message"] as? String == "Unknown option '--no-such-option'")
    }

    @Test("--json after '--', or given to a command without --json, prints no object")
    func noObjectWithoutTheFlag() async {
        let afterDashes = await runNFCTool(["ndef", "decode", "--", "--json"])
        #expect(afterDashes.status == .usage)
        #expect(afterDashes.standardOutput == "")
        let noFlag = await runNFCTool(["completion", "--json"])
        #expect(noFlag.status == .usage)
        #expect(noFlag.standardOutput == "")
    }

    @Test("a line with --json that names no command (an unknown one, or --json before the command) gives the usage object: a script asking for JSON gets it")
    func unknownCommandPrintsTheObject() async throws {
        for arguments in [["no-such-command", "--json"], ["ledger", "no-such-command", "--json"], ["--json", "write"]] {
            let run = await runNFCTool(arguments)
            #expect(run.status == .usage)
            let error = try Self.errorObject(stdout: run.standardOutput, stderr: run.standardError, status: run.status.rawValue)
            #expect(error["code"] as? String == "usage", "\(arguments)")
        }
        // Without --json, or after '--', nothing on standard output.
        for arguments in [["no-such-command"], ["no-such-command", "--", "--json"]] {
            let run = await runNFCTool(arguments)
            #expect(run.status == .usage && run.standardOutput == "", "\(arguments): \(run.standardOutput)")
        }
    }

    @Test("an NDEF decoding error carries the decoder's code and byte offset")
    func decodingErrorHasOffset() async throws {
        // A short record whose payload length (0x0C) runs past the end of 4 bytes.
        let run = await runNFCTool(["ndef", "decode", "--json", "d1010c55"])
        let error = try Self.errorObject(stdout: run.standardOutput, stderr: run.standardError, status: run.status.rawValue)
        #expect(error["exitStatus"] as? Int == 65)
        #expect(error["code"] as? String == "lengthPastEnd")
        #expect(error["offset"] as? Int != nil, "\(error)")
        // No offset where the error has none.
        let noTag = await runNFCTool(["scan", "--json", "--device", "sim:empty?poll-wait=0", "--timeout", "0.1"])
        let noTagError = try Self.errorObject(stdout: noTag.standardOutput, stderr: noTag.standardError, status: noTag.status.rawValue)
        #expect(noTagError["offset"] == nil)
        #expect(noTagError["code"] as? String == "noTag")
        #expect(noTagError["exitStatus"] as? Int == 2)
    }

    @Test("the object is terminal-safe: a bidirectional override and an escape in the message are \\u escapes, exact when decoded")
    func objectIsTerminalSafe() async throws {
        let path = "/nonexistent/\u{202E}evil\u{1B}[31m.ndef"
        let run = await runNFCTool(["ndef", "decode", "--json", "--input", path])
        #expect(!run.standardOutput.contains("\u{202E}") && !run.standardOutput.contains("\u{1B}"), "\(run.standardOutput)")
        let error = try Self.errorObject(stdout: run.standardOutput, stderr: run.standardError, status: run.status.rawValue)
        #expect((error["message"] as? String)?.contains(path) == true, "\(error)")
    }

    @Test("every exit status nfctool documents has a name, unique, and docs/cli.md's table lists it")
    func statusNamesAreDocumented() throws {
        let statuses = ExitCode.nfctoolStatuses
        #expect(Set(statuses.map(\.name)).count == statuses.count)
        #expect(statuses.allSatisfy { !$0.name.hasPrefix("status") })
        let docs = try String(contentsOf: CLIDocsTests.docsPath, encoding: .utf8)
        for status in statuses {
            #expect(docs.contains("| \(status.code.rawValue) | `\(status.name)` |"), "docs/cli.md's exit status table lacks \(status.name)")
        }
        #expect(docs.contains("## Errors as JSON"))
    }
}

/// The same, through the built nfctool in a fresh process: standard output read from the
/// other side of a file, as a script reads it.
@Suite("--json failures from the built nfctool", .timeLimit(.minutes(10)))
struct JSONErrorEndToEndTests {
    @Test("the built binary prints one error object on standard output, its exitStatus the process's status",
          arguments: ["ndef decode", "scan", "ledger stats", "read", "watch", "lock"])
    func builtBinaryPrintsTheObject(_ key: String) async throws {
        let failing = try #require(JSONErrorTests.failingRuns[key])
        let run = try await runBuiltNFCTool(failing.arguments)
        let error = try JSONErrorTests.errorObject(stdout: run.standardOutput, stderr: run.standardError, status: run.status)
        #expect(error["code"] as? String == failing.code, "\(error)")
    }

    @Test("a usage error of the parser, from the built binary")
    func builtBinaryUsageError() async throws {
        let run = try await runBuiltNFCTool(["info", "--json", "--timeout", "x"])
        #expect(run.status == 64)
        let error = try JSONErrorTests.errorObject(stdout: run.standardOutput, stderr: run.standardError, status: run.status)
        #expect(error["code"] as? String == "usage")
        #expect(run.standardError.contains("Usage: nfctool info"), "\(run.standardError)")
    }
}
