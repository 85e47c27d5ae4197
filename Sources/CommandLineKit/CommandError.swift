/// Why a command stopped: thrown while validating parsed arguments or while running.
///
/// The exit status says what kind of stop it is. A ``ExitCode/usage`` error prints
/// `Error: <message>`, the usage line and a pointer to `--help` on standard error; any other
/// prints `Error: <message>` alone.
public struct CommandError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What to tell the user, without the `Error: ` prefix.
    public var message: String
    /// The status the tool exits with.
    public var exitCode: ExitCode

    /// Creates an error that exits with `exitCode`.
    public init(_ message: String, exitCode: ExitCode) {
        self.message = message
        self.exitCode = exitCode
    }

    /// The command line is wrong (exit 64): the usage line follows the message.
    public static func usage(_ message: String) -> CommandError {
        CommandError(message, exitCode: .usage)
    }

    /// The input data is malformed (exit 65), e.g. undecodable NDEF bytes.
    public static func dataError(_ message: String) -> CommandError {
        CommandError(message, exitCode: .dataError)
    }

    /// The command could not do what was asked (exit 1): a reader, tag or I/O error.
    public static func failure(_ message: String) -> CommandError {
        CommandError(message, exitCode: .failure)
    }

    /// A usage error for a value an option does not accept, worded as swift-argument-parser
    /// words it: `The value 'x' is invalid for '--count <count>'`, then `: reason` if given.
    public static func invalidValue(_ value: String, for option: CommandOption, reason: String? = nil)
        -> CommandError
    {
        let detail = reason.map { ": \($0)" } ?? ""
        return .usage("The value '\(value)' is invalid for '\(option.synopsis)'\(detail)")
    }

    /// A usage error for a value a positional argument does not accept.
    public static func invalidValue(_ value: String, for argument: CommandArgument, reason: String? = nil)
        -> CommandError
    {
        let detail = reason.map { ": \($0)" } ?? ""
        return .usage("The value '\(value)' is invalid for '<\(argument.valueName)>'\(detail)")
    }

    /// The message.
    public var description: String { message }
}
