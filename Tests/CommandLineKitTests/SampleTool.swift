@testable import CommandLineKit

/// A command tree that exercises every part of the framework, independent of nfctool's.
///
///     sample [--version]
///       encode [--url <uri> ...] [--text <text> ...] [--output <file>] [--force] [--count <n>] [<input> ...]
///       check <file>        (fails as the file name asks: "bad-data", "broken", "bad-usage")
///       cat                 (copies standard input to standard output)
///       group
///         leaf
///       many                (13 flags and an argument: the usage line shortens)
///       crowd               (13 flags: the usage line shortens)
struct SampleTool: CommandGroup {
    static let configuration = CommandConfiguration(
        name: "sample",
        abstract: "A tool to test the command framework.",
        version: "9.9.9",
        subcommands: [Encode.self, Check.self, Cat.self, Group.self, Many.self, Crowd.self]
    )

    static let tool = CommandLineTool(root: SampleTool.self)

    struct Encode: ToolCommand {
        static let url = CommandOption.option(
            "url", short: "u", valueName: "uri", help: "Add a URI record.", repeatable: true)
        static let text = CommandOption.option("text", valueName: "text", help: "Add a Text record.", repeatable: true)
        static let output = CommandOption.option("output", short: "o", valueName: "file", help: "Write here.")
        static let force = CommandOption.flag("force", short: "f", help: "Overwrite.")
        static let count = CommandOption.option("count", valueName: "n", help: "How many times.")
        static let input = CommandArgument("input", help: "Files to read.", isOptional: true, isRepeatable: true)

        static let configuration = CommandConfiguration(
            name: "encode",
            abstract: "Encode records.",
            options: [url, text, output, force, count],
            arguments: [input]
        )

        let count: Int

        init(_ arguments: ParsedArguments) throws(CommandError) {
            count = try arguments.value(of: Self.count) { Int($0) } ?? 1
        }

        func run(_ context: CommandContext) async throws(CommandError) {
            context.io.printLine("count=\(count)")
        }
    }

    struct Check: ToolCommand {
        static let file = CommandArgument("file", help: "The file to check.")
        static let configuration = CommandConfiguration(
            name: "check", abstract: "Check a file.", arguments: [file])

        let file: String

        init(_ arguments: ParsedArguments) throws(CommandError) {
            file = arguments.value(of: Self.file) ?? ""
            if file == "bad-usage" { throw .invalidValue(file, for: Self.file, reason: "not a file name") }
        }

        func run(_ context: CommandContext) async throws(CommandError) {
            context.io.write("checking \(file)\n")
            switch file {
            case "bad-data": throw .dataError("\(file) is not NDEF")
            case "broken": throw .failure("the reader went away")
            default: context.io.printLine("\(file) is fine")
            }
        }
    }

    struct Cat: ToolCommand {
        static let configuration = CommandConfiguration(name: "cat", abstract: "Copy standard input to standard output.")

        init(_ arguments: ParsedArguments) {}

        func run(_ context: CommandContext) async throws(CommandError) {
            guard !context.io.isStandardInputTerminal else { throw .usage("Nothing piped in") }
            context.io.write(try context.io.readStandardInput(limit: 1 << 20), to: .standardOutput)
        }
    }

    struct Group: CommandGroup {
        static let configuration = CommandConfiguration(
            name: "group",
            abstract: "A group of one, with a long abstract that has to wrap because it is wider than the column.",
            discussion: "A discussion paragraph.",
            subcommands: [Leaf.self]
        )

        struct Leaf: ToolCommand {
            static let verboseOption = CommandOption.option(
                "a-very-long-option-name", valueName: "value", help: "Its help goes on the next line.")
            static let configuration = CommandConfiguration(
                name: "leaf", abstract: "The leaf.", options: [verboseOption])

            init(_ arguments: ParsedArguments) {}

            func run(_ context: CommandContext) async throws(CommandError) {
                context.io.printLine("leaf ran in \(context.commandPath.joined(separator: " "))")
            }
        }
    }

    struct Many: ToolCommand {
        static let configuration = CommandConfiguration(
            name: "many",
            abstract: "Too many options to list in the usage line.",
            options: (1...13).map { CommandOption.flag("flag\($0)", help: "Flag \($0).") },
            arguments: [CommandArgument("file", help: "A file.", isOptional: true)]
        )

        init(_ arguments: ParsedArguments) {}

        func run(_ context: CommandContext) async throws(CommandError) {}
    }

    struct Crowd: ToolCommand {
        static let configuration = CommandConfiguration(
            name: "crowd",
            abstract: "Too many options, no arguments.",
            options: (1...13).map { CommandOption.flag("flag\($0)", help: "Flag \($0).") }
        )

        init(_ arguments: ParsedArguments) {}

        func run(_ context: CommandContext) async throws(CommandError) {}
    }
}

/// What one in-process run of a command tree left behind.
struct InToolRun: Sendable {
    let status: ExitCode
    let standardOutput: String
    let standardOutputBytes: [UInt8]
    let standardError: String
}

/// Runs any command tree in-process.
func run(_ tool: CommandLineTool, _ arguments: [String], standardInput: [UInt8] = []) async -> InToolRun {
    let io = CapturedIO(standardInput: standardInput)
    let status = await tool.run(arguments: arguments, environment: [:], io: io)
    return InToolRun(
        status: status, standardOutput: io.standardOutput, standardOutputBytes: io.standardOutputBytes,
        standardError: io.standardError)
}
