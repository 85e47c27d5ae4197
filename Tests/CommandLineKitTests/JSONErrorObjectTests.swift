@testable import CommandLineKit
import Foundation
import NFCTestSupport
import Testing

/// A tool whose command takes `-j`/`--json` (alias `--machine`) and fails as told, with its own
/// named exit status.
private enum JSONTool {
    static let busy = ExitCode(rawValue: 7)

    struct Root: CommandGroup {
        static let configuration = CommandConfiguration(
            name: "jtool", abstract: "A tool for the JSON error object.", version: "1",
            subcommands: [Fail.self, Plain.self],
            exitStatuses: [.init(.success, "success"), .init(.failure, "failure"), .init(busy, name: "busy", "busy"), .init(.usage, "usage error")])
    }

    struct Fail: ToolCommand {
        static let json = CommandOption.flag("json", short: "j", help: "JSON.", aliases: ["machine"])
        static let how = CommandOption.option("how", valueName: "how", help: "busy, typed, unnamed or written.")
        static let configuration = CommandConfiguration(name: "fail", abstract: "Fails.", options: [json, how])
        let how: String
        init(_ arguments: ParsedArguments) throws(CommandError) { how = arguments.value(of: Self.how) ?? "busy" }
        func run(_ context: CommandContext) async throws(CommandError) {
            switch how {
            case "typed": throw CommandError("bad byte\u{1B}", exitCode: .dataError, code: "lengthPastEnd", offset: 12)
            case "unnamed": throw CommandError("odd", exitCode: ExitCode(rawValue: 42))
            case "written":
                context.io.write("{\"partial\":1}\n")
                throw CommandError("after the answer", exitCode: busy)
            default: throw CommandError("the device is busy", exitCode: busy)
            }
        }
    }

    struct Plain: ToolCommand {
        static let configuration = CommandConfiguration(name: "plain", abstract: "No --json.")
        init(_ arguments: ParsedArguments) {}
        func run(_ context: CommandContext) async throws(CommandError) { throw .failure("no") }
    }
}

@Suite("CommandLineTool: the JSON error object of a command given --json", .timeLimit(.minutes(2)))
struct JSONErrorObjectTests {
    static func run(_ arguments: [String]) async -> (ExitCode, String, String) {
        let io = CapturedIO()
        let status = await CommandLineTool(root: JSONTool.Root.self).run(arguments: arguments, environment: [:], io: io)
        return (status, io.standardOutput, io.standardError)
    }

    @Test("the exit status's name is the code when the error has none; the tool's own statuses by the names it gives them")
    func statusNameIsTheDefaultCode() async {
        let (status, output, error) = await Self.run(["fail", "--json"])
        #expect(status.rawValue == 7)
        #expect(output == #"{"error":{"code":"busy","exitStatus":7,"message":"the device is busy"}}"# + "\n")
        #expect(error == "Error: the device is busy\n")
        let (_, unnamed, _) = await Self.run(["fail", "--json", "--how", "unnamed"])
        #expect(unnamed == #"{"error":{"code":"status42","exitStatus":42,"message":"odd"}}"# + "\n")
    }

    @Test("a typed code and offset go in the object; control characters are escaped")
    func typedCodeAndOffset() async {
        let (status, output, _) = await Self.run(["fail", "--how", "typed", "--json"])
        #expect(status == .dataError)
        #expect(output == #"{"error":{"code":"lengthPastEnd","exitStatus":65,"message":"bad byte\u001b","offset":12}}"# + "\n")
    }

    @Test("the short letter, alone or in a group, and an alias ask for it too", arguments: [["-j"], ["-j", "--how", "busy"], ["--machine"]])
    func otherSpellings(_ words: [String]) async {
        let (_, output, _) = await Self.run(["fail"] + words)
        #expect(output.hasPrefix(#"{"error":{"code":"busy""#), "\(output)")
    }

    @Test("a parse error of a command with --json: usage, after the usage text on standard error")
    func parseError() async {
        let (status, output, error) = await Self.run(["fail", "--json", "--how"])
        #expect(status == .usage)
        #expect(output == #"{"error":{"code":"usage","exitStatus":64,"message":"Missing value for '--how <how>'"}}"# + "\n")
        #expect(error.hasPrefix("Error: Missing value for '--how <how>'\nUsage: jtool fail"))
    }

    @Test("an answer printed before the failure gets the error inside it: one JSON document")
    func afterAnswer() async {
        let (_, output, _) = await Self.run(["fail", "--json", "--how", "written"])
        #expect(output == #"{"partial":1,"error":{"code":"busy","exitStatus":7,"message":"after the answer"}}"# + "\n")
    }

    @Test("no object without --json, for --json after '--', or for a command that has no --json")
    func noObject() async {
        for arguments in [["fail"], ["fail", "--", "--json"], ["plain", "--json"], ["plain"], ["nope"], ["nope", "--", "--json"]] {
            let (status, output, _) = await Self.run(arguments)
            #expect(status != .success)
            #expect(output == "", "\(arguments)")
        }
    }

    @Test("an unknown command on a line holding --json: the usage object (the command meant may have taken --json)")
    func unknownCommandObject() async {
        let (status, output, _) = await Self.run(["nope", "--json"])
        #expect(status == .usage)
        #expect(output == #"{"error":{"code":"usage","exitStatus":64,"message":"Unknown command 'nope'"}}"# + "\n")
    }
}

@Suite("JSONAnswerBuffer: merging the error object into an answer", .timeLimit(.minutes(1)))
struct JSONAnswerMergeTests {
    static let error = #"{"error":{"code":"busy","exitStatus":7,"message":"m"}}"# + "\n"

    @Test("a pretty object gets error as its last key, spaced as its own; an empty object, error alone inside")
    func prettyAndEmpty() throws {
        let pretty = "{\n  \"match\" : false\n}\n"
        let merged = JSONAnswerBuffer.merging(Self.error, into: Array(pretty.utf8))
        #expect(merged == "{\n  \"match\" : false,\n  \"error\" : {\"code\":\"busy\",\"exitStatus\":7,\"message\":\"m\"}\n}\n")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(merged.utf8)) as? [String: Any])
        #expect(object["match"] as? Bool == false && object["error"] is [String: Any])
        #expect(JSONAnswerBuffer.merging(Self.error, into: Array("{}\n".utf8)) == #"{"error":{"code":"busy","exitStatus":7,"message":"m"}}"# + "\n")
    }

    @Test("what is not one object without an error key is kept, and the object follows on its own line",
          arguments: ["[1,2]\n", "{\"error\":\"its own\"}\n", "{\"a\":1}\n{\"b\":2}\n", "not json"])
    func keptApart(_ answer: String) {
        let merged = JSONAnswerBuffer.merging(Self.error, into: Array(answer.utf8))
        #expect(merged == answer + (answer.hasSuffix("\n") ? "" : "\n") + Self.error)
    }

    @Test("nothing held: the error object alone")
    func nothingHeld() {
        #expect(JSONAnswerBuffer.merging(Self.error, into: []) == Self.error)
    }
}
