import CommandLineKit
import NFCKit

/// `nfctool completion bash|zsh|fish`: prints the shell's completion script, generated from the
/// command definitions (CommandLineKit's ``ShellCompletion``); `--list-devices` prints what the
/// scripts complete `--device` with.
struct CompletionCommand: ToolCommand {
    static let shell = CommandArgument(
        "shell", help: "bash, zsh or fish.", isOptional: true, completion: .words(Shell.allCases.map(\.rawValue)))
    static let listDevices = CommandOption.flag(
        "list-devices",
        help: "Print what --device completes to, one per line: 'default', the connection strings of the readers found (libnfc, PC/SC), then sim:MODEL for each simulator model. The scripts run this.")

    static let configuration = CommandConfiguration(
        name: "completion",
        abstract: "Print the tab-completion script for bash, zsh or fish.",
        discussion: """
            The script completes commands, options, the values of options that take a closed \
            set of words, file names where an option takes a file, and --device with the readers \
            found and the simulator's models. The Debian package installs all three; from a \
            source build, install one:
              nfctool completion bash > ~/.local/share/bash-completion/completions/nfctool
              nfctool completion zsh > ~/.zfunc/_nfctool    (a directory in $fpath)
              nfctool completion fish > ~/.config/fish/completions/nfctool.fish
            The man pages come from the same definitions: nfctool help --man [COMMAND].
            """,
        options: [listDevices],
        arguments: [shell]
    )

    /// The shell whose script to print; nil with --list-devices.
    let selectedShell: Shell?

    init(_ arguments: ParsedArguments) throws(CommandError) {
        let name = arguments.value(of: Self.shell)
        if arguments.contains(Self.listDevices) {
            if name != nil { throw .usage("--list-devices takes no shell") }
            selectedShell = nil
            return
        }
        guard let name else { throw .usage("Missing expected argument '<shell>' (bash, zsh or fish)") }
        guard let shell = Shell(rawValue: name) else {
            throw .invalidValue(name, for: Self.shell, reason: "use bash, zsh or fish")
        }
        selectedShell = shell
    }

    func run(_ context: CommandContext) async throws(CommandError) {
        guard let shell = selectedShell else {
            // Completion must never fail: a reader that cannot be listed is simply not offered.
            await NFCReaderDiscovery.setVerboseLogging(false)
            let readers = (try? await NFCReaderDiscovery.listReaders()) ?? []
            let values = ["default"] + readers.map(\.connectionString) + NFCReaderDiscovery.simulatorModelNames.map { "sim:" + $0 }
            context.io.write(values.joined(separator: "\n") + "\n")
            return
        }
        context.io.write(Array(ShellCompletion(root: NFCToolCommand.self).script(for: shell).utf8), to: .standardOutput)
    }
}

/// What every `--device` option completes to: the values `nfctool completion --list-devices` prints.
let deviceCompletion = CompletionKind.dynamic(["completion", "--list-devices"])
