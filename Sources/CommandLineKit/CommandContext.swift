/// What a running command gets from the tool.
public struct CommandContext: Sendable {
    /// Standard input, output and error.
    public let io: any ToolIO
    /// The process environment (a dictionary in tests).
    public let environment: [String: String]
    /// The command's full name, e.g. `["nfctool", "ndef", "encode"]`.
    public let commandPath: [String]
    /// The command's help, exactly as `--help` prints it.
    public let helpText: String

    /// Creates a context.
    public init(io: any ToolIO, environment: [String: String], commandPath: [String], helpText: String) {
        self.io = io
        self.environment = environment
        self.commandPath = commandPath
        self.helpText = helpText
    }
}
