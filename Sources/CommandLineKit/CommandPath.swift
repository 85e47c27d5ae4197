/// The commands named so far on a command line, from the root: `nfctool`, `nfctool ndef`,
/// `nfctool ndef encode`. Never empty.
struct CommandPath: Sendable {
    /// The tool's root command.
    let root: any ToolCommand.Type
    /// The subcommands after the root, in order.
    private(set) var subcommands: [any ToolCommand.Type] = []

    init(root: any ToolCommand.Type) {
        self.root = root
    }

    /// The command the rest of the command line is for.
    var leaf: any ToolCommand.Type { subcommands.last ?? root }

    /// Whether no subcommand has been named.
    var isRoot: Bool { subcommands.isEmpty }

    /// The names, root first: `["nfctool", "ndef", "encode"]`.
    var names: [String] { ([root] + subcommands).map { $0.configuration.name } }

    /// The path with `subcommand` appended.
    func appending(_ subcommand: any ToolCommand.Type) -> CommandPath {
        var path = self
        path.subcommands.append(subcommand)
        return path
    }
}
