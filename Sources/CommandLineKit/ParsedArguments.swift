/// A command line as parsed against a command's configuration: every option occurrence in
/// the order typed, and the positional arguments.
///
/// Order matters to some commands: `ndef encode --url A --text B --url C` makes three records
/// in that order, so ``occurrences`` keeps the sequence across different options.
public struct ParsedArguments: Sendable, Hashable {
    /// One option as it appeared on the command line.
    public struct Occurrence: Sendable, Hashable {
        /// Which declared option it was (whether typed by long or short name).
        public let option: CommandOption
        /// Its value; `nil` for a flag.
        public let value: String?

        /// Creates an occurrence.
        public init(option: CommandOption, value: String?) {
            self.option = option
            self.value = value
        }
    }

    /// Every option occurrence, in command-line order.
    public let occurrences: [Occurrence]
    /// The positional arguments, in order (including any after `--`).
    public let positionals: [String]
    /// The positional arguments as declared, to tell which positional value belongs to which.
    private let declaredArguments: [CommandArgument]

    /// Creates parsed arguments (the parser does; tests of `init(_:)` may too).
    public init(occurrences: [Occurrence], positionals: [String], declaredArguments: [CommandArgument] = []) {
        self.occurrences = occurrences
        self.positionals = positionals
        self.declaredArguments = declaredArguments
    }

    /// Whether the option (a flag, usually) appeared at least once.
    public func contains(_ option: CommandOption) -> Bool {
        occurrences.contains { $0.option == option }
    }

    /// The values of every occurrence of `option`, in order.
    public func values(of option: CommandOption) -> [String] {
        occurrences.compactMap { $0.option == option ? $0.value : nil }
    }

    /// The value of `option`, or `nil` when it was not given. (A non-repeatable option
    /// appears at most once: the parser rejects a second one.)
    public func value(of option: CommandOption) -> String? {
        values(of: option).last
    }

    /// The value of `option` converted by `convert`, or `nil` when it was not given.
    /// - Throws: ``CommandError`` (usage: `The value 'x' is invalid for '--name <value>'`)
    ///   when `convert` returns `nil`.
    public func value<Value>(of option: CommandOption, as convert: (String) -> Value?) throws(CommandError)
        -> Value?
    {
        guard let text = value(of: option) else { return nil }
        guard let converted = convert(text) else {
            throw .invalidValue(text, for: option, reason: DecimalText.refusal(text, otherwise: nil))
        }
        return converted
    }

    /// The values of every occurrence of a typed option, converted, in order. (The parser has
    /// checked them; arguments made by hand are checked here.)
    /// - Throws: ``CommandError`` (usage) for a value the option's type refuses.
    public func values<Value>(of option: TypedOption<Value>) throws(CommandError) -> [Value] {
        var converted: [Value] = []
        for text in values(of: option.option) {
            switch option.type.convert(text) {
            case .success(let value): converted.append(value)
            case .failure(let error): throw .invalidValue(text, for: option.option, reason: error.reason)
            }
        }
        return converted
    }

    /// The value of a typed option, converted, or `nil` when it was not given.
    /// - Throws: ``CommandError`` (usage) for a value the option's type refuses.
    public func value<Value>(of option: TypedOption<Value>) throws(CommandError) -> Value? {
        try values(of: option).last
    }

    /// The positional values that `argument` took: none or one, or all the remaining ones for
    /// a repeatable argument.
    public func values(of argument: CommandArgument) -> [String] {
        guard let index = declaredArguments.firstIndex(of: argument), index < positionals.count else { return [] }
        return argument.isRepeatable ? Array(positionals[index...]) : [positionals[index]]
    }

    /// The positional value `argument` took, or `nil` when it was left out.
    public func value(of argument: CommandArgument) -> String? {
        values(of: argument).first
    }
}
