@_exported public import CommandLineKit
/// nfctool's version, printed by `nfctool --version`: the one place it is written.
public let nfctoolVersion = "0.1.0"

/// Runs nfctool as a user would from a shell, in-process.
///
/// `arguments` excludes the program name. Returns the exit status (see ``ExitCode``); writes
/// only through `io`, never exits. `nfctool` with no arguments prints its help and returns
/// ``ExitCode/success``, as swift-argument-parser does for a command made of subcommands.
public func runTool(arguments: [String], environment: [String: String], io: any ToolIO) async -> ExitCode {
    await CommandLineTool(root: NFCToolCommand.self).run(arguments: arguments, environment: environment, io: io)
}

/// Runs nfctool with the arguments' bytes, as the process got them: an argument that is not
/// UTF-8 is a usage error (64).
public func runTool(argumentBytes: [[UInt8]], environment: [String: String], io: any ToolIO) async -> ExitCode {
    await CommandLineTool(root: NFCToolCommand.self).run(argumentBytes: argumentBytes, environment: environment, io: io)
}

/// The root command, `nfctool`: groups every command.
struct NFCToolCommand: CommandGroup {
    static let configuration = CommandConfiguration(
        name: "nfctool",
        abstract: "Read, write and provision NFC tags through libnfc or PC/SC (pcscd).",
        version: nfctoolVersion,
        subcommands: [DevicesCommand.self, ScanCommand.self, NDEFCommand.self, ReadCommand.self, WriteCommand.self, BatchCommand.self, LedgerCommand.self,
                      LockCommand.self, FormatCommand.self, EraseCommand.self, ProtectCommand.self, UnprotectCommand.self,
                      InfoCommand.self, DumpCommand.self, VerifyCommand.self, APDUCommand.self, EmulateCommand.self, DoctorCommand.self,
                      WatchCommand.self, SunCommand.self, SelfTestCommand.self, NTAG424Command.self, CompletionCommand.self],
        exitStatuses: ExitCode.nfctoolStatuses
    )
}
