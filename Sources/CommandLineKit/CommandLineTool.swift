import Foundation
import NFCCore

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
/// - A command that declares a `--json` flag (``CommandError/jsonFlagName``) and was given it
///   prints a failure also as JSON on standard output (``CommandError/jsonObject(statusName:)``):
///   its standard output is held until it ends, and on failure it is one JSON document, the
///   error object alone, or the command's answer with `error` added to it. A command that
///   streams lines (``ToolCommand/streamsOutput(_:)``) writes through, and its error object is
///   one more line. A usage error of such a command line gives the object too, found from the
///   words typed (`--json` before any `--`), since the line did not parse; so does a line
///   holding `--json` that names no command (an unknown command).
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
        var remaining = arguments[...]
        // A --json answer held until the command ends (one that streams lines writes through).
        var answer: JSONAnswerBuffer?
        do throws(CommandError) {
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
                    try Self.checkOutput(io, of: path.leaf)
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
                if Self.asksForJSON(path.leaf, remaining), !path.leaf.streamsOutput(parsed) { answer = JSONAnswerBuffer(io) }
                let context = CommandContext(
                    io: answer ?? io, environment: environment, commandPath: path.names, helpText: formatter.helpText)
                try await command.run(context)
                answer?.flush()
            }
            try Self.checkOutput(io, of: path.leaf)
            return .success
        } catch {
            io.write(HelpFormatter(path).errorText(error), to: .standardError)
            // A line that named no command (an unknown one, or `--json` before any) asks for JSON
            // when it holds `--json`: the command it meant would have declared it.
            let groupAsksForJSON = !path.leaf.configuration.subcommands.isEmpty
                && arguments.prefix { $0 != "--" }.contains("--\(CommandError.jsonFlagName)")
            if Self.asksForJSON(path.leaf, remaining) || groupAsksForJSON {
                let object = error.jsonObject(statusName: Self.statusName(error.exitCode, path))
                if let answer { answer.flush(failing: object) } else { io.write(object) }
            }
            return error.exitCode
        }
    }

    /// Whether `command` declares the `--json` flag and `words` (its part of the command line)
    /// give it, by its long name (or an alias) or its short letter alone or in a group, before any `--`.
    static func asksForJSON(_ command: any ToolCommand.Type, _ words: ArraySlice<String>) -> Bool {
        guard let flag = command.configuration.options.first(where: { $0.name == CommandError.jsonFlagName && $0.isFlag }) else {
            return false
        }
        return words.prefix { $0 != "--" }.contains { word in
            if word.hasPrefix("--") { return flag.answers(to: String(word.dropFirst(2))) }
            guard let letter = flag.shortName, word.hasPrefix("-") else { return false }
            return word.dropFirst().contains(letter)
        }
    }

    /// The name of `status`: as the nearest command up `path` that lists exit statuses names
    /// it, else the kit's name for it, else `status<N>`.
    static func statusName(_ status: ExitCode, _ path: CommandPath) -> String {
        let commands: [any ToolCommand.Type] = [path.root] + path.subcommands
        for command in commands.reversed() {
            if let described = command.configuration.exitStatuses.first(where: { $0.code == status }) { return described.name }
        }
        return status.standardName ?? "status\(status.rawValue)"
    }

    /// Output lost is not success (`ledger export > /dev/full`, a full disk): a failed write to
    /// standard output is an error once the command is done, unless the reader went away from
    /// a command that ends quietly then.
    /// - Throws: ``CommandError`` failure `cannot write standard output: …`.
    private static func checkOutput(_ io: any ToolIO, of command: any ToolCommand.Type) throws(CommandError) {
        guard let failure = io.standardOutputFailure else { return }
        if failure == .closed, command.endsQuietlyWhenOutputCloses { return }
        throw .failure("cannot write standard output: \(failure)")
    }

    /// Runs the command that the process's arguments name, as ``run(arguments:environment:io:)``,
    /// from their bytes: an argument that is not valid UTF-8 is a usage error (exit 64) naming
    /// it, rather than text with U+FFFD in place of its bytes (written to a tag, a ledger).
    public func run(argumentBytes: [[UInt8]], environment: [String: String], io: any ToolIO) async -> ExitCode {
        var arguments: [String] = []
        for (index, bytes) in argumentBytes.enumerated() {
            switch UnicodeValidation.decodeUTF8(bytes) {
            case .success(let text):
                arguments.append(text)
            case .failure(let invalid):
                let error = CommandError.usage(
                    "argument \(index + 1) is not UTF-8 text (byte \(String(format: "0x%02X", bytes[invalid.offset])) at offset \(invalid.offset)); give text as UTF-8")
                io.write(HelpFormatter(CommandPath(root: root)).errorText(error), to: .standardError)
                return error.exitCode
            }
        }
        return await run(arguments: arguments, environment: environment, io: io)
    }

    /// The process's arguments, without the program name, as the bytes the kernel passed.
    public static var processArgumentBytes: [[UInt8]] {
        (1..<Int(CommandLine.argc)).map { index in
            guard let argument = CommandLine.unsafeArgv[index] else { return [] }
            return Array(UnsafeRawBufferPointer(start: argument, count: strlen(argument)))
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
