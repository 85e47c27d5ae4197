import CommandLineKit
import Foundation
import NFCTestSupport
import Testing

/// A small tool declared with the kit, with what roff and the shells find awkward: a leading
/// dot and apostrophe, backslashes, hyphens, text outside ASCII, an example block, nested
/// subcommands, a closed set of words, a file, a repeatable argument.
enum PagesSampleTool {
    struct Root: CommandGroup {
        static let configuration = CommandConfiguration(
            name: "sample", abstract: "A sample tool for the generators.", version: "1.2.3",
            subcommands: [Fetch.self, Group.self],
            exitStatuses: [.init(.success, "success"), .init(.failure, "it failed"), .init(.usage, "usage error")])
    }

    enum Mode: String, CaseIterable, Sendable { case fast, slow, read_only = "read-only" }

    struct Fetch: ToolCommand {
        static let output = CommandOption.option("output", short: "o", valueName: "file", help: "Write to this file (default: standard output).")
        static let mode = TypedOption(.option("mode", valueName: "mode", help: "How: fast, slow or read-only."), ValueType<Mode>.choice)
        static let url = CommandOption.option("url", valueName: "uri", help: "A URL; may be given again.", repeatable: true)
        static let verbose = CommandOption.flag("verbose", short: "v", help: "Say more (it's [loud]).", aliases: ["loud"])
        static let target = CommandArgument("target", help: "What to fetch.", isRepeatable: true)
        static let configuration = CommandConfiguration(
            name: "fetch", abstract: "Fetch things \u{2014} quickly.",
            discussion: """
                .leading dot starts this line, and a backslash \\ sits here.
                'quoted at the start' and a \u{2026} ellipsis.

                Examples:
                  sample fetch --mode fast -o out.txt a b
                  .hidden-looking example
                """,
            options: [output, mode.option, url, verbose], arguments: [target])
        init(_ arguments: ParsedArguments) {}
        func run(_ context: CommandContext) async throws(CommandError) {}
    }

    struct Group: CommandGroup {
        static let configuration = CommandConfiguration(name: "group", abstract: "Group the inner ones.", subcommands: [Inner.self])
    }

    struct Inner: ToolCommand {
        static let input = CommandArgument("input-file", help: "A file to read.")
        static let configuration = CommandConfiguration(
            name: "inner", abstract: "The inner command.", options: [.flag("json", help: "JSON.")], arguments: [input])
        init(_ arguments: ParsedArguments) {}
        func run(_ context: CommandContext) async throws(CommandError) {}
    }

    static let pages = ManualPages(root: Root.self, date: "2026-01-02")
    static let completion = ShellCompletion(root: Root.self)
}

/// Writes `text` to a new temporary file and returns its path.
private func temporaryFile(_ text: String, name: String) throws -> String {
    let directory = try temporaryDirectory()
    let url = directory.appendingPathComponent(name)
    try Data(text.utf8).write(to: url)
    return url.path
}

/// Runs `script` with bash (`-c`), standard error merged into the output.
private func shell(_ program: String, _ script: String, environment: [String: String] = [:]) async throws -> ToolRun {
    var env = ProcessInfo.processInfo.environment
    env.merge(environment) { $1 }
    return try await runTool(program, ["-c", script], environment: env, timeout: 60)
}

@Suite("CommandLineKit: man pages from the command definitions", .timeLimit(.minutes(3)))
struct ManualPagesTests {
    static let groff = ExternalTool.program("groff", package: "groff")
    static let mandoc = ExternalTool.program("mandoc", package: "mandoc")

    @Test("every command has a page: the root, groups and nested commands, named tool-sub-sub")
    func everyCommandHasAPage() throws {
        #expect(PagesSampleTool.pages.commandNames == [["sample"], ["sample", "fetch"], ["sample", "group"], ["sample", "group", "inner"]])
        #expect(ManualPages.pageName(["sample", "group", "inner"]) == "sample-group-inner")
        let inner = try #require(PagesSampleTool.pages.page(["sample", "group", "inner"]))
        #expect(inner.contains(".TH \"SAMPLE\\-GROUP\\-INNER\" 1 \"2026-01-02\" \"sample 1.2.3\" \"User Commands\""))
        #expect(PagesSampleTool.pages.page(["nope"]) == nil)
    }

    @Test("text is escaped for roff: a leading dot or apostrophe, backslashes, hyphens, non-ASCII")
    func escaping() throws {
        let page = try #require(PagesSampleTool.pages.page(["fetch"]))
        #expect(page.contains("\\&.leading dot starts this line, and a backslash \\e sits here."))
        #expect(page.contains("\\&'quoted at the start' and a \\[u2026] ellipsis."))
        #expect(page.contains("\\&.hidden\\-looking example"))
        #expect(page.contains("\\fB\\-o\\fR, \\fB\\-\\-output\\fR \\fIfile\\fR"))
        #expect(page.contains("sample\\-fetch \\- Fetch things \\[u2014] quickly."))
        // No line outside the macros this generator writes starts a request by accident.
        let macros: Set<String> = [".\\\"", ".TH", ".SH", ".PP", ".TP", ".B", ".BR", ".br", ".RS", ".RE", ".nf", ".fi"]
        for line in page.split(separator: "\n") where line.hasPrefix(".") || line.hasPrefix("'") {
            #expect(macros.contains(String(line.split(separator: " ").first ?? "")), "stray request: \(line)")
        }
        #expect(!page.contains("\u{2026}") && !page.unicodeScalars.contains { $0.value > 0x7F })
    }

    @Test("the root page lists the commands and the exit statuses; a command inherits the root's statuses")
    func rootPage() throws {
        let root = try #require(PagesSampleTool.pages.page([]))
        #expect(root.contains(".SH COMMANDS"))
        #expect(root.contains(".BR sample\\-fetch (1)."))
        #expect(root.contains(".SH EXIT STATUS\n.TP\n\\fB0\\fR\nsuccess\n.TP\n\\fB1\\fR\nit failed\n.TP\n\\fB64\\fR\nusage error"))
        let inner = try #require(PagesSampleTool.pages.page(["group", "inner"]))
        #expect(inner.contains(".SH EXIT STATUS\n.TP\n\\fB0\\fR"))
        #expect(inner.contains(".SH SEE ALSO\n.BR sample (1),\n.BR sample\\-group (1)\n"))
    }

    @Test("groff renders every page without a warning, showing the text as written", Self.groff.trait)
    func groffRendersWithoutWarnings() async throws {
        let groff = try Self.groff.require()
        for names in PagesSampleTool.pages.commandNames {
            let path = try temporaryFile(try #require(PagesSampleTool.pages.page(names)), name: "page.1")
            let warnings = try await shell("/bin/bash", "\(groff) -man -Tutf8 -ww -z '\(path)' 2>&1")
            #expect(warnings.status == 0 && warnings.output.isEmpty, "\(names): \(warnings.output)")
        }
        let path = try temporaryFile(try #require(PagesSampleTool.pages.page(["fetch"])), name: "fetch.1")
        let rendered = try await shell("/bin/bash", "\(groff) -man -Tutf8 -P -cbou '\(path)' 2>/dev/null", environment: ["LC_ALL": "C.UTF-8"])
        let text = rendered.output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(text.contains(".leading dot starts this line, and a backslash \\ sits here."), "\(text)")
        #expect(text.contains("'quoted at the start' and a \u{2026} ellipsis."))
        #expect(text.contains("sample fetch --mode fast -o out.txt a b") || text.contains("sample fetch \u{2212}\u{2212}mode fast \u{2212}o out.txt a b"))
        #expect(text.contains("Fetch things \u{2014} quickly."))
    }

    @Test("mandoc's lint finds nothing to warn about in any page", Self.mandoc.trait)
    func mandocLint() async throws {
        let mandoc = try Self.mandoc.require()
        for names in PagesSampleTool.pages.commandNames {
            let path = try temporaryFile(try #require(PagesSampleTool.pages.page(names)), name: ManualPages.pageName(names) + ".1")
            let lint = try await shell("/bin/bash", "\(mandoc) -T lint -W warning '\(path)' 2>&1")
            #expect(lint.status == 0 && lint.output.isEmpty, "\(names): \(lint.output)")
        }
    }

    @Test("'tool help --man [command]' prints the page; SOURCE_DATE_EPOCH dates it")
    func helpMan() async throws {
        let io = CapturedIO()
        let status = await CommandLineTool(root: PagesSampleTool.Root.self)
            .run(arguments: ["help", "--man", "group", "inner"], environment: ["SOURCE_DATE_EPOCH": "1767312000"], io: io)
        #expect(status == .success)
        #expect(io.standardOutput == PagesSampleTool.pages.page(["group", "inner"]))
        let unknown = CapturedIO()
        #expect(await CommandLineTool(root: PagesSampleTool.Root.self).run(arguments: ["help", "--man", "nope"], environment: [:], io: unknown) == .usage)
    }

    @Test("the date of a Unix time is the one GNU date gives", arguments: [0, 951_782_400, 1_700_000_000, 1_767_312_000, 4_107_542_399])
    func dates(seconds: Int) async throws {
        let gnu = try await runTool("/bin/date", ["-u", "-d", "@\(seconds)", "+%F"], environment: [:])
        #expect(ManualPages.date(unixTime: seconds) + "\n" == gnu.output)
    }
}

@Suite("CommandLineKit: shell completion scripts from the command definitions", .timeLimit(.minutes(3)))
struct ShellCompletionTests {
    static let zsh = ExternalTool.program("zsh", package: "zsh")
    static let fish = ExternalTool.program("fish", package: "fish")

    /// What the bash script offers for `words` (the last one being completed), as bash would
    /// call it: COMP_WORDS/COMP_CWORD only, or a whole COMP_LINE.
    static func bashCompletes(_ words: [String], line: String? = nil, in directory: String = "/") async throws -> [String] {
        let script = try temporaryFile(PagesSampleTool.completion.script(for: .bash), name: "sample.bash")
        let quoted = words.map { "'" + $0 + "'" }.joined(separator: " ")
        let setup = line.map { "COMP_LINE='\($0)'; COMP_POINT=${#COMP_LINE}; COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1)" }
            ?? "COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1)"
        let run = try await shell("/bin/bash", "cd '\(directory)' && source '\(script)' && \(setup) && _sample && printf '%s\\n' \"${COMPREPLY[@]}\"")
        #expect(run.status == 0, "\(run.output)")
        return run.output.split(separator: "\n").map(String.init)
    }

    @Test("bash -n, zsh -n and fish -n accept the scripts")
    func syntax() async throws {
        let bash = try await shell("/bin/bash", "bash -n '\(try temporaryFile(PagesSampleTool.completion.script(for: .bash), name: "s.bash"))'")
        #expect(bash.status == 0 && bash.output.isEmpty, "\(bash.output)")
        if Self.zsh.isAvailable || isContinuousIntegration {
            let zsh = try Self.zsh.require()
            let run = try await runTool(zsh, ["-n", try temporaryFile(PagesSampleTool.completion.script(for: .zsh), name: "_sample")], environment: [:])
            #expect(run.status == 0 && run.output.isEmpty, "\(run.output)")
        }
        if Self.fish.isAvailable || isContinuousIntegration {
            let fish = try Self.fish.require()
            let run = try await runTool(fish, ["-n", try temporaryFile(PagesSampleTool.completion.script(for: .fish), name: "sample.fish")], environment: [:])
            #expect(run.status == 0 && run.output.isEmpty, "\(run.output)")
        }
    }

    @Test("bash completes subcommands, nested ones, options, words of a closed set, and files")
    func bashCompletion() async throws {
        #expect(try await Self.bashCompletes(["sample", "f"]) == ["fetch"])
        #expect(try await Self.bashCompletes(["sample", ""]) == ["fetch", "group", "help"])
        #expect(try await Self.bashCompletes(["sample", "group", "i"]) == ["inner"])
        #expect(try await Self.bashCompletes(["sample", "help", "g"]) == ["group"])
        #expect(try await Self.bashCompletes(["sample", "fetch", "--m"]) == ["--mode"])
        #expect(try await Self.bashCompletes(["sample", "fetch", "--l"]) == ["--loud"])
        #expect(try await Self.bashCompletes(["sample", "fetch", "--mode", ""]) == ["fast", "slow", "read-only"])
        #expect(try await Self.bashCompletes(["sample", "fetch", "--mode", "r"]) == ["read-only"])
        #expect(try await Self.bashCompletes(["sample", "fetch", "--mode=s"]) == ["--mode=slow"])
        // A value is skipped when finding the command: `--url group` is no subcommand.
        #expect(try await Self.bashCompletes(["sample", "fetch", "--url", "x", "-v", "--mode", "f"]) == ["fast"])
        let directory = try temporaryDirectory()
        try Data().write(to: directory.appendingPathComponent("notes.txt"))
        #expect(try await Self.bashCompletes(["sample", "fetch", "-o", "no"], in: directory.path) == ["notes.txt"])
        #expect(try await Self.bashCompletes(["sample", "group", "inner", "no"], in: directory.path) == ["notes.txt"])
        // With a real command line, bash replaces only what follows the last '=' or ':'.
        #expect(try await Self.bashCompletes(["sample", "fetch", "--mode", "=", "s"], line: "sample fetch --mode=s") == ["slow"])
    }

    @Test("fish completes subcommands, nested ones, options and words of a closed set", Self.fish.trait)
    func fishCompletion() async throws {
        let fish = try Self.fish.require()
        let script = try temporaryFile(PagesSampleTool.completion.script(for: .fish), name: "sample.fish")
        func completes(_ line: String) async throws -> [String] {
            let run = try await runTool(fish, ["--no-config", "-c", "source '\(script)'; complete -C '\(line)'"], environment: ["HOME": NSTemporaryDirectory()])
            return run.output.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
        }
        #expect(try await completes("sample f") == ["fetch"])
        #expect(try await completes("sample group i") == ["inner"])
        await #expect(try Set(completes("sample fetch --mode ")) == ["fast", "slow", "read-only"])
        #expect(try await completes("sample fetch --mo") == ["--mode"])
    }
}
