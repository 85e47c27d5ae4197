/// A command-line tool made of ``ToolCommand``s: finds the command a command line names,
/// answers help and version requests, parses, validates, runs, and turns errors into text on
/// standard error and an exit status.
///
/// - `tool --help`, `tool -h`, `tool help`, `tool help <command> [<subcommand>]`,
///   `tool <command> --help` and `tool <command> -h` print the same help, exit 0.
/// - `tool help --man [<command> [<subcommand>]]` prints the command's man page (roff,
///   ``ManualPages``), exit 0.
/// - `tool --version` prints `tool <version>`, exit 0.
/// - A command group run without a subcommand (`tool` alone) prints its help, exit 0, as
///   swift-argument-parser does.
/// - Usage errors print `Error: …`, `Usage: …` and `  See 'tool <command> --help' for more
///   information.` on standard error, exit 64; other errors print `Error: …`, exit with their
///   own status.
/// - A command whose standard output could not be written (``ToolIO/standardOutputFailure``)
///   exits 1 with `Error: cannot write standard output: …`, even when it succeeded otherwise;
///   a command that streams events (``ToolCommand/endsQuietlyWhenOutputCloses``) ends with 0
///   and no message when the reader went away.
public struct CommandLineTool: Sendable {
    /// The root command: its name is the tool's name, its version the tool's version.
    public let root: any ToolCommand.Type

    /// Creates a tool whose commands hang off `root`.
    public init(root: any ToolCommand.Type) {
        self.root = root
    }

    /// Runs the command `arguments` name (without the program name) and returns the exit
    /// status. Never throws and never exits the process: everything goes through `io`.
    public func run(arguments: [String], environment: [String: String], io: any ToolIO) async -> ExitCode {
        var path = CommandPath(root: root)
        do throws(CommandError) {
            var remaining = arguments[...]
            while let word = remaining.first, !word.hasPrefix("-"), !path.leaf.configuration.subcommands.isEmpty {
                remaining.removeFirst()
                if path.isRoot, word == "help" {
                    path = try helpPath(for: remaining.filter { $0 != "--man" })
                    if remaining.contains("--man") {
                        let pages = ManualPages(root: root, date: ManualPages.date(environment: environment))
                        io.write(Array(pages.page(path).utf8), to: .standardOutput)
                    } else {
                        io.write(HelpFormatter(path).helpText)
                    }
                    return .success
                }
                guard let subcommand = path.leaf.configuration.subcommand(named: word) else {
                    throw .usage("Unknown command '\(word)'")
                }
                path = path.appending(subcommand)
            }

            let formatter = HelpFormatter(path)
            let parser = CommandLineParser(configuration: path.leaf.configuration, builtInOptions: formatter.builtInOptions)
            switch try parser.parse(remaining) {
            case .help:
                io.write(formatter.helpText)
            case .version:
                io.printLine("\(root.configuration.name) \(root.configuration.version ?? "")")
            case .run(let parsed):
                let command = try path.leaf.init(parsed)
                let context = CommandContext(
                    io: io, environment: environment, commandPath: path.names, helpText: formatter.helpText)
                try await command.run(context)
            }
            // Output lost is not success: `ledger export > /dev/full`, a full disk.
            if let failure = io.standardOutputFailure {
                if failure == .closed, path.leaf.endsQuietlyWhenOutputCloses { return .success }
                throw .failure("cannot write standard output: \(failure)")
            }
            return .success
        } catch {
            io.write(HelpFormatter(path).errorText(error), to: .standardError)
            return error.exitCode
        }
    }

    /// The command `help <command> [<subcommand>]…` asks about (`-h`/`--help` words ignored).
    /// - Throws: ``CommandError`` (usage) for a name that is not a subcommand.
    private func helpPath(for words: ArraySlice<String>) throws(CommandError) -> CommandPath {
        var path = CommandPath(root: root)
        for word in words where word != "-h" && word != "--help" {
            guard let subcommand = path.leaf.configuration.subcommand(named: word) else {
                throw .usage("Unknown command '\(word)'")
            }
            path = path.appending(subcommand)
        }
        return path
    }
}
