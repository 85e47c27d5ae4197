import CommandLineKit
import Testing

/// A command line as a user types it, against a small declared configuration: typed values,
/// aliases and exclusions are the parser's, before any command exists.
@Suite("CommandLineKit: typed values, aliases and exclusions", .timeLimit(.minutes(1)))
struct ParserTypedValuesTests {
    enum Speed: String, CaseIterable, Sendable { case slow, fast }

    static let seconds = TypedOption(.option("timeout", short: "t", valueName: "s", help: "Seconds."), .seconds(upTo: 60))
    static let count = TypedOption(.option("count", valueName: "n", help: "How many."), .integer(in: 1...9, reason: "from 1 to 9"))
    static let speed = TypedOption(.option("speed", valueName: "speed", help: "How fast."), ValueType<Speed>.choice)
    static let plan = CommandOption.flag("plan", help: "Plan only.", aliases: ["dry-run"])
    static let json = CommandOption.flag("json", help: "JSON.")
    static let raw = CommandOption.flag("raw", help: "Raw.")
    static let configuration = CommandConfiguration(
        name: "tool", abstract: "A tool.",
        options: [seconds.option, count.option, speed.option, plan, json, raw],
        exclusions: [CommandExclusion(json, raw)])

    func parse(_ tokens: [String]) throws(CommandError) -> ParsedArguments {
        switch try HelpFormatter(tool: Self.configuration).parser.parse(tokens) {
        case .run(let arguments): return arguments
        case .help, .version: throw .failure("not a run")
        }
    }

    func usageMessage(_ tokens: [String]) -> String? {
        do {
            _ = try parse(tokens)
            return nil
        } catch {
            return error.exitCode == .usage ? error.message : "exit \(error.exitCode)"
        }
    }

    @Test("A typed value is converted: seconds, a whole number, a word of a closed set")
    func converted() throws {
        let arguments = try parse(["-t", "2.5", "--count=3", "--speed", "fast"])
        #expect(try arguments.value(of: Self.seconds) == 2.5)
        #expect(try arguments.value(of: Self.count) == 3)
        #expect(try arguments.value(of: Self.speed) == .fast)
        #expect(try parse([]).value(of: Self.seconds) == nil)
    }

    @Test("A bad value is a usage error naming the option, with the type's reason")
    func refused() {
        #expect(usageMessage(["--timeout", "0"]) == "The value '0' is invalid for '--timeout <s>': seconds greater than 0 and at most 60, in decimal digits")
        #expect(usageMessage(["--timeout", "61"]) == "The value '61' is invalid for '--timeout <s>': seconds greater than 0 and at most 60, in decimal digits")
        #expect(usageMessage(["--count", "x"]) == "The value 'x' is invalid for '--count <n>': from 1 to 9")
        #expect(usageMessage(["--speed", "slowly"]) == "The value 'slowly' is invalid for '--speed <speed>': use slow, fast")
    }

    @Test("A negative number is taken as the value and said to be negative, not a missing value")
    func negative() {
        #expect(usageMessage(["--timeout", "-1"])
            == "The value '-1' is invalid for '--timeout <s>': the value is negative; seconds greater than 0 and at most 60, in decimal digits")
        #expect(usageMessage(["-t", "-0.5"])?.hasPrefix("The value '-0.5' is invalid for '--timeout <s>': the value is negative") == true)
        #expect(usageMessage(["--count", "-3"]) == "The value '-3' is invalid for '--count <n>': the value is negative; from 1 to 9")
        #expect(usageMessage(["--timeout", "--count"]) == "Missing value for '--timeout <s>'")
    }

    @Test("Numbers are decimal digits: 0x10, 1e1, inf and nan are refused, not 16, 10 and infinity")
    func decimalOnly() throws {
        for text in ["0x10", "0X1p3", "1e1", "inf", "nan", "+5", " 5", "5 ", "1_0", "."] {
            #expect(usageMessage(["--timeout", text])?.hasPrefix("The value '\(text)' is invalid for '--timeout <s>'") == true, "\(text)")
        }
        #expect(try parse(["--timeout", "16"]).value(of: Self.seconds) == 16)
        #expect(try parse(["--timeout", ".5"]).value(of: Self.seconds) == 0.5)
        #expect(try parse(["--timeout", "2."]).value(of: Self.seconds) == 2)
    }

    @Test("An unknown option is reported before a bad value, as before values were typed")
    func parseErrorsFirst() {
        #expect(usageMessage(["--timeout", "0", "--bogus"]) == "Unknown option '--bogus'")
    }

    @Test("An alias is the same option; help lists it as 'The same as'")
    func alias() throws {
        #expect(try parse(["--dry-run"]).contains(Self.plan))
        #expect(try parse(["--plan", "--dry-run"]).occurrences.count == 1)
        #expect(usageMessage(["--dry-run", "--dry-run"]) == "The option '--plan' can be given only once")
        let help = HelpFormatter(tool: Self.configuration).helpText
        #expect(help.contains("  --dry-run               The same as --plan.\n"))
        #expect(help.contains("[--plan] [--dry-run]"))
    }

    @Test("Exclusive options are refused together with the declared message")
    func exclusive() throws {
        #expect(usageMessage(["--json", "--raw"]) == "--json and --raw cannot be used together")
        #expect(try parse(["--json"]).contains(Self.json))
        let custom = CommandConfiguration(
            name: "tool", abstract: "", options: [Self.json, Self.raw],
            exclusions: [CommandExclusion(Self.raw, Self.json, message: "--raw and --json cannot be combined")])
        #expect(throws: CommandError.usage("--raw and --json cannot be combined")) {
            try HelpFormatter(tool: custom).parser.parse(["--raw", "--json"])
        }
    }

    @Test("A one-command tool's error text names it and points to its help")
    func errorText() {
        let text = HelpFormatter(tool: Self.configuration).errorText(.usage("Unknown option '--x'"))
        #expect(text.hasPrefix("Error: Unknown option '--x'\nUsage: tool [--timeout <s>]"))
        #expect(text.hasSuffix("  See 'tool --help' for more information.\n"))
    }
}
