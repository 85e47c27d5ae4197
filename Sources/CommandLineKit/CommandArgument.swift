/// A positional argument a command accepts, such as `<file>`.
///
/// Positional arguments are matched in declaration order: required ones first, then optional
/// ones; only the last may be repeatable.
public struct CommandArgument: Sendable, Hashable {
    /// The placeholder in help: `file` shows as `<file>`.
    public let valueName: String
    /// One line for the ARGUMENTS section of the help.
    public let help: String
    /// Whether the argument may be left out.
    public let isOptional: Bool
    /// Whether it takes every remaining positional argument.
    public let isRepeatable: Bool
    /// What a shell completes it with; by default a file name when `valueName` mentions a file
    /// (``CompletionKind/inferred(fromValueName:)``).
    public let completion: CompletionKind

    /// Declares a positional argument.
    public init(
        _ valueName: String, help: String, isOptional: Bool = false, isRepeatable: Bool = false,
        completion: CompletionKind? = nil
    ) {
        self.valueName = valueName
        self.help = help
        self.isOptional = isOptional
        self.isRepeatable = isRepeatable
        self.completion = completion ?? .inferred(fromValueName: valueName)
    }

    /// How the usage line shows it: `<file>`, `[<file>]`, `<file> ...`, `[<file> ...]`.
    var usageSynopsis: String {
        let base = "<\(valueName)>\(isRepeatable ? " ..." : "")"
        return isOptional ? "[\(base)]" : base
    }
}
