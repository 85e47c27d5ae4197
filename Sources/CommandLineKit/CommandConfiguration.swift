/// What a command is called, what it says about itself, and what it accepts.
///
/// Help text, the usage line and error messages are all generated from this.
public struct CommandConfiguration: Sendable {
    /// The name typed on the command line: `devices`, `encode`. The root's name is the tool's.
    public var name: String
    /// One line: the OVERVIEW in its own help and its line in its parent's SUBCOMMANDS.
    public var abstract: String
    /// Paragraphs after the overview in its own help; may be empty. Line breaks are kept,
    /// long lines are wrapped at 80 columns.
    public var discussion: String
    /// The tool's version, printed by `--version`; only the root sets it.
    public var version: String?
    /// The named options, in the order help lists them. `-h`/`--help` (and `--version` on the
    /// root) are added by the tool.
    public var options: [CommandOption]
    /// The positional arguments, in order.
    public var arguments: [CommandArgument]
    /// The subcommands, in the order help lists them.
    public var subcommands: [any ToolCommand.Type]
    /// Options that cannot be given together, checked by the parser (a usage error).
    public var exclusions: [CommandExclusion]
    /// The exit statuses and what each means, in the order help lists them; usually on the
    /// root only, where they hold for every command. Help shows them after the discussion
    /// (`Exit status:`), man pages in their EXIT STATUS section.
    public var exitStatuses: [ExitStatusDescription]

    /// Creates a configuration.
    public init(
        name: String,
        abstract: String,
        discussion: String = "",
        version: String? = nil,
        options: [CommandOption] = [],
        arguments: [CommandArgument] = [],
        subcommands: [any ToolCommand.Type] = [],
        exclusions: [CommandExclusion] = [],
        exitStatuses: [ExitStatusDescription] = []
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.version = version
        self.options = options
        self.arguments = arguments
        self.subcommands = subcommands
        self.exclusions = exclusions
        self.exitStatuses = exitStatuses
    }

    /// The subcommand called `name`, if any.
    public func subcommand(named name: String) -> (any ToolCommand.Type)? {
        subcommands.first { $0.configuration.name == name }
    }
}

/// Options of one command that cannot be given together: the parser refuses a command line
/// with two of them (exit 64), with ``message``.
public struct CommandExclusion: Sendable, Hashable {
    /// The options, any two of which conflict.
    public let options: [CommandOption]
    /// The usage error's message.
    public let message: String

    /// Declares that no two of `options` may be given together; `message` defaults to
    /// `--a and --b cannot be used together`.
    public init(_ options: CommandOption..., message: String? = nil) {
        self.options = options
        self.message = message ?? options.map { "--\($0.name)" }.joined(separator: " and ") + " cannot be used together"
    }
}

/// One exit status of a tool, its stable name and a few words on what it means: a row of the
/// table that help and the man pages print.
public struct ExitStatusDescription: Sendable, Hashable {
    /// The status.
    public let code: ExitCode
    /// Its stable name, the JSON error object's `code` when the error has no more specific one:
    /// `noTag`, `usage`.
    public let name: String
    /// What it means, in a few words: `no tag came within the timeout`.
    public let meaning: String

    /// Describes `code`, called `name`; without a name, the kit's own
    /// (``ExitCode/standardName``), else `status<N>`.
    public init(_ code: ExitCode, name: String? = nil, _ meaning: String) {
        self.code = code
        self.name = name ?? code.standardName ?? "status\(code.rawValue)"
        self.meaning = meaning
    }
}
