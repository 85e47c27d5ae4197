import Foundation

/// The help text, usage line and error text of a command, laid out as swift-argument-parser
/// lays them out: OVERVIEW, USAGE, ARGUMENTS, OPTIONS, SUBCOMMANDS; labels in a 26-column
/// gutter; 80 columns wide whatever the terminal, so that output is the same everywhere.
public struct HelpFormatter: Sendable {
    /// The width of help and usage text, whatever the terminal.
    public static let screenWidth = 80
    static let labelColumnWidth = 26
    static let helpIndent = 2

    /// `-h, --help`: every command has it.
    public static let helpOption = CommandOption.flag("help", short: "h", help: "Show help information.")
    /// `--version`: the root has it when its configuration has a version.
    public static let versionOption = CommandOption.flag("version", help: "Show the version.")

    /// The command's full name, root first: `["nfctool", "ndef", "encode"]`.
    public let names: [String]
    private let isRoot: Bool
    private let configuration: CommandConfiguration

    /// The formatter of the command `path` ends with.
    init(_ path: CommandPath) {
        names = path.names
        isRoot = path.isRoot
        configuration = path.leaf.configuration
    }

    /// The formatter of a tool that is one command (no subcommands): `pn532-emulator`.
    public init(tool configuration: CommandConfiguration) {
        names = [configuration.name]
        isRoot = true
        self.configuration = configuration
    }

    /// The options the tool adds to the command's own: `--version` on a versioned root, then
    /// `-h, --help`.
    public var builtInOptions: [CommandOption] {
        let version = isRoot && configuration.version != nil ? [Self.versionOption] : []
        return version + [Self.helpOption]
    }

    /// A parser for the command, with the built-in options.
    public var parser: CommandLineParser {
        CommandLineParser(configuration: configuration, builtInOptions: builtInOptions)
    }

    /// More options and arguments than this (or a line wider than 80 columns), and the usage
    /// line shows `<options>` instead of the options (swift-argument-parser's rule; every
    /// option here is optional).
    static let maximumUsageElements = 12

    /// `nfctool devices [--json] [--verbose]`, `nfctool ndef <subcommand>`, or for a command
    /// with many options `nfctool ndef encode <options>` (`[<options>] <file>` with arguments).
    public var usageLine: String {
        let name = names.joined(separator: " ")
        if !configuration.subcommands.isEmpty { return "\(name) <subcommand>" }
        let options = configuration.options.flatMap(\.helpEntries).map(\.usageSynopsis)
        let arguments = configuration.arguments.map(\.usageSynopsis)
        let full = ([name] + options + arguments).joined(separator: " ")
        // A long line is wrapped where it is printed (``wrappedUsage(_:)``), as
        // swift-argument-parser does; only very many elements become `<options>`.
        if options.count + arguments.count <= Self.maximumUsageElements {
            return full
        }
        if arguments.isEmpty || arguments.count > Self.maximumUsageElements { return "\(name) <options>" }
        return ([name, "[<options>]"] + arguments).joined(separator: " ")
    }

    /// A usage line longer than the screen, broken before a `[` element, the following lines
    /// indented under the first option as swift-argument-parser indents them.
    public static func wrappedUsage(_ line: String) -> String {
        guard line.count > screenWidth, let first = line.range(of: " [") else { return line }
        let indent = String(repeating: " ", count: line.distance(from: line.startIndex, to: first.lowerBound) + 1)
        var lines = [String(line[..<first.lowerBound])]
        for element in line[first.upperBound...].components(separatedBy: " [").map({ "[" + $0 }) {
            if lines[lines.count - 1].count + 1 + element.count > screenWidth {
                lines.append(indent + element)
            } else {
                lines[lines.count - 1] += " " + element
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The whole help, exactly as `--help` prints it (ending in a newline).
    public var helpText: String {
        var overview = configuration.abstract
        for paragraph in [configuration.discussion, Self.exitStatusTable(configuration.exitStatuses)] where !paragraph.isEmpty {
            overview += (overview.isEmpty ? "" : "\n\n") + paragraph
        }
        var text = overview.isEmpty ? "" : "OVERVIEW: \(overview)".wrapped(to: Self.screenWidth) + "\n\n"
        text += Self.wrappedUsage("USAGE: \(usageLine)") + "\n\n"
        let sections = [
            section("ARGUMENTS", configuration.arguments.map { ("<\($0.valueName)>", $0.help) }),
            section("OPTIONS", (configuration.options + builtInOptions).flatMap(\.helpEntries).map { ($0.helpLabel, $0.help) }),
            section("SUBCOMMANDS", configuration.subcommands.map { ($0.configuration.name, $0.configuration.abstract) }),
        ]
        text += sections.filter { !$0.isEmpty }.joined(separator: "\n")
        if !configuration.subcommands.isEmpty {
            var names = names
            names.insert("help", at: 1)
            text += "\n  See '\(names.joined(separator: " ")) <subcommand>' for detailed help."
        }
        return text + "\n"
    }

    /// `Exit status:` and a line per status (`  64  usage error`), or "" for none.
    static func exitStatusTable(_ statuses: [ExitStatusDescription]) -> String {
        guard !statuses.isEmpty else { return "" }
        return "Exit status:\n" + statuses.map { status in
            let number = String(status.code.rawValue)
            return "  " + number + String(repeating: " ", count: max(4 - number.count, 1)) + status.meaning
        }.joined(separator: "\n")
    }

    /// What a failed command prints on standard error: `Error: …`, and for a usage error the
    /// usage line and where to find help.
    public func errorText(_ error: CommandError) -> String {
        var text = "Error: \(error.message)\n"
        if error.exitCode == .usage {
            text += Self.wrappedUsage("Usage: \(usageLine)") + "\n"
            text += "  See '\(names.joined(separator: " ")) --help' for more information.\n"
        }
        return text
    }

    /// A titled section, or "" when it has no elements.
    private func section(_ title: String, _ elements: [(label: String, abstract: String)]) -> String {
        guard !elements.isEmpty else { return "" }
        return "\(title):\n" + elements.map { element($0.label, $0.abstract) }.joined()
    }

    /// One label and its abstract: on the same line when the label fits the gutter.
    private func element(_ label: String, _ abstract: String) -> String {
        let paddedLabel = String(repeating: " ", count: Self.helpIndent) + label
        guard !abstract.isEmpty else { return paddedLabel + "\n" }
        let wrappedAbstract = abstract.wrapped(to: Self.screenWidth, indent: Self.labelColumnWidth)
        if paddedLabel.count < Self.labelColumnWidth {
            return paddedLabel + wrappedAbstract.dropFirst(paddedLabel.count) + "\n"
        }
        return paddedLabel + "\n" + wrappedAbstract + "\n"
    }
}
