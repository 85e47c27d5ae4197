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

    /// Creates a configuration.
    public init(
        name: String,
        abstract: String,
        discussion: String = "",
        version: String? = nil,
        options: [CommandOption] = [],
        arguments: [CommandArgument] = [],
        subcommands: [any ToolCommand.Type] = []
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.version = version
        self.options = options
        self.arguments = arguments
        self.subcommands = subcommands
    }

    /// The subcommand called `name`, if any.
    func subcommand(named name: String) -> (any ToolCommand.Type)? {
        subcommands.first { $0.configuration.name == name }
    }
}
