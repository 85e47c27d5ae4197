/// What a running command gets from the tool.
public struct CommandContext: Sendable {
    /// Standard input, output and error.
    public let io: any ToolIO
    /// The process environment (a dictionary in tests).
    public let environment: [String: String]
    /// The command's full name, e.g. `["nfctool", "ndef", "encode"]`.
    public let commandPath: [String]
    /// The command's help, exactly as `--help` prints it; formatted when asked for (the few
    /// commands that print it), not at every start.
    public var helpText: String { makeHelpText() }
    /// Formats ``helpText``.
    private let makeHelpText: @Sendable () -> String

    /// Creates a context. `helpText` is evaluated only when a command asks for it.
    public init(
        io: any ToolIO, environment: [String: String], commandPath: [String], helpText: @autoclosure @escaping @Sendable () -> String
    ) {
        self.io = io
        self.environment = environment
        self.commandPath = commandPath
        self.makeHelpText = helpText
    }

    /// Prints `text` and a newline on standard output, wrapped to 80 columns.
    public func say(_ text: String) {
        io.write(text.wrapped(to: HelpFormatter.screenWidth) + "\n")
    }

    /// Asks before an irreversible step: goes on when `confirmed` (`--yes`); else refuses (exit
    /// 64) when standard input is not a terminal, and asks on standard error when it is.
    /// - Throws: ``CommandError`` usage when not confirmed and nobody can be asked; failure when
    ///   the answer is not yes (nothing was done).
    public func confirm(_ warning: String, confirmed: Bool) throws(CommandError) {
        if confirmed { return }
        guard io.isStandardInputTerminal else {
            throw .usage("\(warning) Add --yes to confirm (standard input is not a terminal, so nobody can be asked).")
        }
        io.write((warning + " Type 'yes' to go on:").wrapped(to: HelpFormatter.screenWidth) + " ", to: .standardError)
        let answer = io.readStandardInputLine().map { $0.split(whereSeparator: \.isWhitespace).joined(separator: " ").lowercased() }
        guard answer == "yes" else {
            throw .failure("not confirmed; nothing was written")
        }
    }
}
