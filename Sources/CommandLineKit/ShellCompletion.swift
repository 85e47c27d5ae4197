/// The shells ``ShellCompletion`` writes scripts for.
public enum Shell: String, Sendable, CaseIterable {
    /// GNU bash (with or without the bash-completion package).
    case bash
    /// zsh's completion system (`compinit`).
    case zsh
    /// fish.
    case fish
}

/// Tab-completion scripts for a tool, generated from its commands' configurations, so that
/// they offer exactly what `--help` lists: subcommands (nested ones too), options, and for an
/// option's value or a positional argument what its ``CompletionKind`` says (words of a closed
/// set, file names, or candidates the tool prints at completion time).
///
/// At the root, `help` is offered too, followed by command names and `--man`.
public struct ShellCompletion: Sendable {
    /// The tool's root command; its name is the command completed.
    public let root: any ToolCommand.Type

    /// The scripts of the tool whose commands hang off `root`.
    public init(root: any ToolCommand.Type) {
        self.root = root
    }

    /// The script for `shell`, ending in a newline.
    public func script(for shell: Shell) -> String {
        switch shell {
        case .bash: bashScript
        case .zsh: zshScript
        case .fish: fishScript
        }
    }

    var tool: String { root.configuration.name }
    /// A shell identifier made from the tool's name: `nfctool`, `pn532_emulator`.
    var identifier: String {
        String(tool.map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }
    var paths: [CommandPath] { ManualPages.allPaths(root) }

    /// A command's options as help lists them (aliases too), with the built-in ones.
    func options(_ path: CommandPath) -> [CommandOption] {
        (path.leaf.configuration.options + HelpFormatter(path).builtInOptions).flatMap(\.helpEntries)
    }

    /// `-d --device`: how an option can be typed.
    func spellings(_ option: CommandOption) -> [String] {
        (option.shortName.map { ["-\($0)"] } ?? []) + ["--\(option.name)"]
    }

    /// `text` in POSIX single quotes (`'` as `'\''`).
    static func singleQuoted(_ text: String) -> String {
        "'" + text.reduce(into: "") { result, character in
            if character == "'" { result += "'\\''" } else { result.append(character) }
        } + "'"
    }
}

