import Testing
@testable import CommandLineKit

@Suite("Running commands: help, validation, errors and exit statuses", .timeLimit(.minutes(5)))
struct CommandLineToolTests {
    let tool = SampleTool.tool

    @Test("a group run without a subcommand prints its help and succeeds")
    func groupWithoutSubcommand() async {
        let bare = await run(tool, ["group"])
        let help = await run(tool, ["group", "--help"])
        #expect(bare.status == .success)
        #expect(bare.standardOutput == help.standardOutput)
        #expect(bare.standardOutput.hasPrefix("OVERVIEW: A group of one"))
    }

    @Test("errors inside a group name the group's usage and help")
    func errorsInsideAGroup() async {
        let unknownCommand = await run(tool, ["group", "bogus"])
        #expect(unknownCommand.status == .usage)
        #expect(
            unknownCommand.standardError == """
                Error: Unknown command 'bogus'
                Usage: sample group <subcommand>
                  See 'sample group --help' for more information.

                """)
        let unknownOption = await run(tool, ["group", "--bogus", "leaf"])
        #expect(unknownOption.status == .usage)
        #expect(unknownOption.standardError.hasPrefix("Error: Unknown option '--bogus'\nUsage: sample group <subcommand>\n"))
        let nestedHelpWord = await run(tool, ["group", "help", "leaf"])
        #expect(nestedHelpWord.standardError.hasPrefix("Error: Unknown command 'help'\n"))
    }

    @Test("help for a nested command: help words, -h and --help agree")
    func nestedHelp() async {
        let viaHelp = await run(tool, ["help", "group", "leaf"])
        let viaFlag = await run(tool, ["group", "leaf", "-h"])
        #expect(viaHelp.status == .success && viaFlag.status == .success)
        #expect(viaHelp.standardOutput == viaFlag.standardOutput)
        #expect(
            viaHelp.standardOutput == """
                OVERVIEW: The leaf.

                USAGE: sample group leaf [--a-very-long-option-name <value>]

                OPTIONS:
                  --a-very-long-option-name <value>
                                          Its help goes on the next line.
                  -h, --help              Show help information.


                """)
    }

    @Test("a group's help wraps its overview and points at 'help' for its subcommands")
    func groupHelp() async {
        let run = await run(tool, ["help", "group"])
        #expect(
            run.standardOutput == """
                OVERVIEW: A group of one, with a long abstract that has to wrap because it is
                wider than the column.

                A discussion paragraph.

                USAGE: sample group <subcommand>

                OPTIONS:
                  -h, --help              Show help information.

                SUBCOMMANDS:
                  leaf                    The leaf.

                  See 'sample help group <subcommand>' for detailed help.

                """)
    }

    @Test("the root's help lists arguments, options and subcommands in the swift-argument-parser layout")
    func encodeHelp() async {
        let run = await run(tool, ["encode", "-h"])
        #expect(
            run.standardOutput == """
                OVERVIEW: Encode records.

                USAGE: sample encode [--url <uri> ...] [--text <text> ...] [--output <file>]
                                     [--force] [--count <n>] [<input> ...]

                ARGUMENTS:
                  <input>                 Files to read.

                OPTIONS:
                  -u, --url <uri>         Add a URI record.
                  --text <text>           Add a Text record.
                  -o, --output <file>     Write here.
                  -f, --force             Overwrite.
                  --count <n>             How many times.
                  -h, --help              Show help information.


                """)
    }

    @Test("more than 12 options shorten the usage line to <options>, as swift-argument-parser does")
    func longUsageLines() async {
        let many = await run(tool, ["many", "--bogus"])
        #expect(many.standardError.contains("\nUsage: sample many [<options>] [<file>]\n"))
        let crowd = await run(tool, ["crowd", "-h"])
        #expect(crowd.standardOutput.contains("\nUSAGE: sample crowd <options>\n"))
        #expect(crowd.standardOutput.contains("  --flag13                Flag 13.\n"))
    }

    @Test("a subcommand runs with its full path; the root's version is the tool's")
    func runsAndVersion() async {
        let leaf = await run(tool, ["group", "leaf"])
        #expect(leaf.standardOutput == "leaf ran in sample group leaf\n")
        #expect(leaf.status == .success)
        let version = await run(tool, ["--version"])
        #expect(version.standardOutput == "sample 9.9.9\n")
    }

    @Test("a usage error thrown by validation prints the command's usage, exit 64, before anything runs")
    func validationUsageError() async {
        let bad = await run(tool, ["check", "bad-usage"])
        #expect(bad.status == .usage)
        #expect(bad.standardOutput == "")
        #expect(
            bad.standardError == """
                Error: The value 'bad-usage' is invalid for '<file>': not a file name
                Usage: sample check <file>
                  See 'sample check --help' for more information.

                """)
        let count = await run(tool, ["encode", "--count", "x"])
        #expect(count.status == .usage)
        #expect(count.standardError.hasPrefix("Error: The value 'x' is invalid for '--count <n>'\nUsage: sample encode"))
    }

    @Test("a data error exits 65 and a failure exits 1, with Error: and no usage")
    func runtimeErrors() async {
        let data = await run(tool, ["check", "bad-data"])
        #expect(data.status == .dataError)
        #expect(data.standardOutput == "checking bad-data\n")
        #expect(data.standardError == "Error: bad-data is not NDEF\n")
        let failure = await run(tool, ["check", "broken"])
        #expect(failure.status == .failure)
        #expect(failure.standardError == "Error: the reader went away\n")
        let fine = await run(tool, ["check", "ok"])
        #expect(fine.status == .success)
        #expect(fine.standardOutput == "checking ok\nok is fine\n")
    }

    @Test("standard input is read as bytes, and whether it is a terminal is known")
    func standardInput() async {
        let bytes: [UInt8] = [0xD1, 0x01, 0x00, 0xFF, 0x0A]
        let piped = await run(tool, ["cat"], standardInput: bytes)
        #expect(piped.standardOutputBytes == bytes)
        let io = CapturedIO(isStandardInputTerminal: true)
        #expect(await tool.run(arguments: ["cat"], environment: [:], io: io) == .usage)
        #expect(io.standardError.hasPrefix("Error: Nothing piped in\nUsage: sample cat\n"))
    }
}
