/// Why a command stopped: thrown while validating parsed arguments or while running.
///
/// The exit status says what kind of stop it is. A ``ExitCode/usage`` error prints
/// `Error: <message>`, the usage line and a pointer to `--help` on standard error; any other
/// prints `Error: <message>` alone.
///
/// A command run with `--json` also prints the error as one JSON object on standard output
/// (``jsonObject(statusName:)``): its ``code`` (or, without one, the exit status's name), the
/// exit status, the message and the ``offset`` where there is one.
public struct CommandError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What to tell the user, without the `Error: ` prefix.
    public var message: String
    /// The status the tool exits with.
    public var exitCode: ExitCode
    /// A stable name for what went wrong, more specific than the exit status, when the error
    /// underneath had one: the code of a tag, NDEF or NTAG 424 error (`notNDEFFormatted`,
    /// `lengthPastEnd`, `macMismatch`). `nil`: the exit status's name stands for it.
    public var code: String?
    /// The byte (or character) offset at fault in the input or tag memory, when the error
    /// underneath named one.
    public var offset: Int?

    /// Creates an error that exits with `exitCode`, with a typed `code` and an `offset` where
    /// the error underneath has them.
    public init(_ message: String, exitCode: ExitCode, code: String? = nil, offset: Int? = nil) {
        self.message = message
        self.exitCode = exitCode
        self.code = code
        self.offset = offset
    }

    /// The command line is wrong (exit 64): the usage line follows the message.
    public static func usage(_ message: String) -> CommandError {
        CommandError(message, exitCode: .usage)
    }

    /// The input data is malformed (exit 65), e.g. undecodable NDEF bytes; `code` and `offset`
    /// as the decoder's error gave them.
    public static func dataError(_ message: String, code: String? = nil, offset: Int? = nil) -> CommandError {
        CommandError(message, exitCode: .dataError, code: code, offset: offset)
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
