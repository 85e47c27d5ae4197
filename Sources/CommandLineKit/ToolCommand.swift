/// A command of the tool: declared by its ``configuration``, validated by its initializer,
/// then run.
///
/// The three stages are kept apart, as swift-argument-parser keeps them:
/// 1. parsing turns the command line into ``ParsedArguments`` using only the configuration
///    (unknown options, missing values and stray arguments are rejected here);
/// 2. ``init(_:)`` checks and converts the values into the command's own typed properties,
///    throwing ``CommandError/usage(_:)`` for a bad one;
/// 3. ``run(_:)`` does the work, throwing ``CommandError/dataError(_:)`` or
///    ``CommandError/failure(_:)``.
public protocol ToolCommand: Sendable {
    /// The command's name, help texts, options, arguments and subcommands.
    static var configuration: CommandConfiguration { get }

    /// Validates the parsed command line and keeps what ``run(_:)`` needs.
    /// - Throws: ``CommandError``, normally a usage error (exit 64).
    init(_ arguments: ParsedArguments) throws(CommandError)

    /// Does the work, writing through the context's I/O.
    /// - Throws: ``CommandError``: data error (65), failure (1), or usage (64).
    func run(_ context: CommandContext) async throws(CommandError)

    /// Whether the command ends quietly, with its own status, when whoever read its standard
    /// output went away (`| head -n 1`): true for a command that streams events until stopped.
    /// Otherwise a closed standard output is an error, as every failed write is (exit 1).
    static var endsQuietlyWhenOutputCloses: Bool { get }

    /// Whether the command, run with `arguments`, writes its standard output as it goes (one
    /// line per event, until stopped) rather than one answer at the end: with `--json`, its
    /// output is then written through, and a failure's error object is one more line.
    static func streamsOutput(_ arguments: ParsedArguments) -> Bool
}

extension ToolCommand {
    /// A closed standard output is an error.
    public static var endsQuietlyWhenOutputCloses: Bool { false }

    /// A command that ends quietly when its output closes streams; others answer once.
    public static func streamsOutput(_ arguments: ParsedArguments) -> Bool { endsQuietlyWhenOutputCloses }
}

/// A command that only groups subcommands (`nfctool`, `nfctool ndef`).
///
/// Run without a subcommand, it prints its help and succeeds, as swift-argument-parser does.
public protocol CommandGroup: ToolCommand {
    /// Creates the group; it has nothing to validate.
    init()
}

extension CommandGroup {
    /// Accepts the (option-free) command line.
    public init(_ arguments: ParsedArguments) throws(CommandError) {
        self.init()
    }

    /// Prints the group's help to standard output.
    public func run(_ context: CommandContext) async throws(CommandError) {
        context.io.write(context.helpText)
    }
}
