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
    static let listEmulatorDevices = CommandOption.flag(
        "list-emulator-devices",
        help: "Print what emulate's device option completes to, one per line: 'default', then the libnfc readers found (only they can have target mode; not PC/SC readers, not the simulator). The scripts run this.")

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
        options: [listDevices, listEmulatorDevices],
        arguments: [shell],
        exclusions: [CommandExclusion(listDevices, listEmulatorDevices)]
    )

    /// Which `--device` values to print instead of a script.
    enum DeviceList {
        /// Every command's but emulate's: readers of every stack and the simulator's models.
        case tagReaders
        /// emulate's: libnfc readers only.
        case emulators
    }

    /// The shell whose script to print; nil with a device list.
    let selectedShell: Shell?
    /// The device list to print; nil with a shell.
    let deviceList: DeviceList?

    init(_ arguments: ParsedArguments) throws(CommandError) {
        let name = arguments.value(of: Self.shell)
        for (option, list) in [(Self.listDevices, DeviceList.tagReaders), (Self.listEmulatorDevices, .emulators)] where arguments.contains(option) {
            if name != nil { throw .usage("--\(option.name) takes no shell") }
            selectedShell = nil
            deviceList = list
            return
        }
        deviceList = nil
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
            let values: [String]
            switch deviceList {
            case .emulators:
                let readers = (try? await NFCReaderDiscovery.listLibNFCReaders()) ?? []
                values = ["default"] + readers.map(\.connectionString)
            case .tagReaders, nil:
                let readers = (try? await NFCReaderDiscovery.listReaders()) ?? []
                values = ["default"] + readers.map(\.connectionString) + NFCReaderDiscovery.simulatorModelNames.map { "sim:" + $0 }
            }
            context.io.write(values.joined(separator: "\n") + "\n")
            return
        }
        context.io.write(Array(ShellCompletion(root: NFCToolCommand.self).script(for: shell).utf8), to: .standardOutput)
    }
}

/// What every `--device` option completes to: the values `nfctool completion --list-devices` prints.
let deviceCompletion = CompletionKind.dynamic(["completion", "--list-devices"])

/// What emulate's `--device` completes to: `nfctool completion --list-emulator-devices`.
let emulatorDeviceCompletion = CompletionKind.dynamic(["completion", "--list-emulator-devices"])
