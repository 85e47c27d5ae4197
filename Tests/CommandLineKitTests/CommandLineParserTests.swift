import Testing
@testable import CommandLineKit

@Suite("Parsing a command's options and arguments", .timeLimit(.minutes(5)))
struct CommandLineParserTests {
    typealias Encode = SampleTool.Encode

    static let encodeParser = CommandLineParser(
        configuration: Encode.configuration, builtInOptions: [HelpFormatter.helpOption])
    static let rootParser = CommandLineParser(
        configuration: SampleTool.configuration, builtInOptions: [HelpFormatter.versionOption, HelpFormatter.helpOption])

    func parsed(_ tokens: [String]) throws -> ParsedArguments {
        guard case .run(let arguments) = try Self.encodeParser.parse(tokens) else {
            Issue.record("expected arguments to run with")
            return ParsedArguments(occurrences: [], positionals: [])
        }
        return arguments
    }

    func usageError(_ tokens: [String]) -> String? {
        do {
            _ = try Self.encodeParser.parse(tokens)
            return nil
        } catch {
            #expect(error.exitCode == .usage)
            return error.message
        }
    }

    @Test("occurrences keep command-line order across different options")
    func orderAcrossOptions() throws {
        let arguments = try parsed(["--url", "A", "--text", "B", "-u", "C", "--force", "--text=D"])
        #expect(
            arguments.occurrences == [
                .init(option: Encode.url, value: "A"), .init(option: Encode.text, value: "B"),
                .init(option: Encode.url, value: "C"), .init(option: Encode.force, value: nil),
                .init(option: Encode.text, value: "D"),
            ])
        #expect(arguments.values(of: Encode.url) == ["A", "C"])
        #expect(arguments.values(of: Encode.text) == ["B", "D"])
        #expect(arguments.contains(Encode.force))
        #expect(!arguments.contains(Encode.output))
        #expect(arguments.value(of: Encode.output) == nil)
    }

    @Test("--name=value keeps everything after the first =, including a leading -")
    func inlineValues() throws {
        let arguments = try parsed(["--text=a=b", "--url=-x", "--output="])
        #expect(arguments.values(of: Encode.text) == ["a=b"])
        #expect(arguments.values(of: Encode.url) == ["-x"])
        #expect(arguments.value(of: Encode.output) == "")
    }

    @Test("- alone is a value and a positional argument")
    func dashAlone() throws {
        let arguments = try parsed(["--output", "-", "-"])
        #expect(arguments.value(of: Encode.output) == "-")
        #expect(arguments.positionals == ["-"])
    }

    @Test("-- ends the options: what follows is positional, even -h")
    func terminator() throws {
        let arguments = try parsed(["in1", "--force", "--", "--url", "-h", "in2"])
        #expect(arguments.occurrences == [.init(option: Encode.force, value: nil)])
        #expect(arguments.positionals == ["in1", "--url", "-h", "in2"])
        #expect(arguments.values(of: Encode.input) == ["in1", "--url", "-h", "in2"])
    }

    @Test("short flags group; a value option last in a group takes the next argument")
    func shortGroups() throws {
        let arguments = try parsed(["-fu", "X", "-o", "out"])
        #expect(
            arguments.occurrences == [
                .init(option: Encode.force, value: nil), .init(option: Encode.url, value: "X"),
                .init(option: Encode.output, value: "out"),
            ])
    }

    @Test("no arguments at all is fine")
    func empty() throws {
        let arguments = try parsed([])
        #expect(arguments.occurrences.isEmpty && arguments.positionals.isEmpty)
        #expect(arguments.value(of: Encode.input) == nil)
    }

    @Test("-h or --help anywhere before -- asks for help, even after an error", arguments: [
        ["-h"], ["--help"], ["--url", "A", "-h"], ["--bogus", "--help"], ["-fh"], ["--url", "-h"],
    ])
    func helpRequests(_ tokens: [String]) throws {
        #expect(try Self.encodeParser.parse(tokens) == .help)
    }

    @Test("--version is the root's, not a subcommand's")
    func versionOnlyOnRoot() throws {
        #expect(try Self.rootParser.parse(["--version"]) == .version)
        #expect(usageError(["--version"]) == "Unknown option '--version'")
    }

    @Test(
        "one usage error per rule",
        arguments: [
            (["--bogus"], "Unknown option '--bogus'"),
            (["--bogus=1"], "Unknown option '--bogus'"),
            (["-z"], "Unknown option '-z'"),
            (["-fz"], "Unknown option '-z'"),
            (["--url"], "Missing value for '--url <uri>'"),
            (["--url", "--force"], "Missing value for '--url <uri>'"),
            (["-u"], "Missing value for '-u <uri>'"),
            (["-uf", "X"], "Missing value for '-u <uri>'"),
            (["--force=yes"], "The option '--force' does not take any value, but 'yes' was specified."),
            (["-o", "a", "--output", "b"], "The option '--output <file>' can be given only once"),
            (["--force", "-f"], "The option '--force' can be given only once"),
        ])
    func usageErrors(_ tokens: [String], _ message: String) {
        #expect(usageError(tokens) == message)
    }

    @Test("positional arguments are counted against the declaration")
    func positionalCounts() throws {
        let check = CommandLineParser(
            configuration: SampleTool.Check.configuration, builtInOptions: [HelpFormatter.helpOption])
        #expect(throws: CommandError.usage("Missing expected argument '<file>'")) { try check.parse([]) }
        #expect(throws: CommandError.usage("Unexpected argument 'b'")) { try check.parse(["a", "b"]) }
        #expect(throws: CommandError.usage("2 unexpected arguments: 'b', 'c'")) { try check.parse(["a", "b", "c"]) }
        guard case .run(let arguments) = try check.parse(["a"]) else {
            Issue.record("expected arguments")
            return
        }
        #expect(arguments.value(of: SampleTool.Check.file) == "a")
    }

    @Test("a value that does not convert is a usage error naming the option")
    func conversion() throws {
        #expect(try parsed(["--count", "3"]).value(of: Encode.count) { Int($0) } == 3)
        #expect(throws: CommandError.usage("The value 'three' is invalid for '--count <n>'")) {
            try parsed(["--count", "three"]).value(of: Encode.count) { Int($0) }
        }
    }
}
