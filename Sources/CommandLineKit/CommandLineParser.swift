/// Parses the part of a command line that belongs to one command (after its name) against
/// that command's configuration. Knows nothing of what the options mean.
///
/// Accepts `--name value`, `--name=value`, flags, `-x` short names and grouped short flags
/// (`-vj`, a value option last in a group takes the next argument), `--` to end options, and
/// positional arguments. `-h`/`--help` anywhere before `--` asks for help, even among errors;
/// on the root, `--version` asks for the version. After the tokens, every value is checked by
/// its option's ``ValueType`` and the configuration's ``CommandExclusion``s are enforced.
public struct CommandLineParser: Sendable {
    /// What the command line asks for.
    public enum Outcome: Equatable, Sendable {
        /// Print the command's help.
        case help
        /// Print the tool's version.
        case version
        /// Run the command with these arguments.
        case run(ParsedArguments)
    }

    /// The command's options, arguments and exclusions.
    public let configuration: CommandConfiguration
    /// The built-in options (`--version`, `-h, --help`) this command accepts.
    public let builtInOptions: [CommandOption]

    /// A parser for `configuration`, accepting `builtInOptions` besides its own.
    public init(configuration: CommandConfiguration, builtInOptions: [CommandOption]) {
        self.configuration = configuration
        self.builtInOptions = builtInOptions
    }

    /// Parses `tokens`.
    /// - Throws: ``CommandError`` (usage) for an unknown option, a missing or unexpected value,
    ///   a non-repeatable option given twice, positional arguments that do not fit, a value its
    ///   option's type refuses, or options declared exclusive given together.
    public func parse(_ tokens: some Collection<String>) throws(CommandError) -> Outcome {
        let options = tokens.prefix { $0 != "--" }
        if options.contains("-h") || options.contains("--help") { return .help }
        if builtInOptions.contains(HelpFormatter.versionOption), options.contains("--version") { return .version }

        var occurrences: [ParsedArguments.Occurrence] = []
        var positionals: [String] = []
        var remaining = tokens[...]
        var spellings: Set<String> = []
        func record(_ option: CommandOption, _ value: String?, as spelling: String) throws(CommandError) {
            if !option.isRepeatable, occurrences.contains(where: { $0.option == option }) {
                // An alias of a flag given besides its name (`--plan --dry-run`) says the same thing twice.
                if option.isFlag, !spellings.contains(spelling) { return }
                throw .usage("The option '\(option.synopsis)' can be given only once")
            }
            spellings.insert(spelling)
            occurrences.append(.init(option: option, value: value))
        }
        func nextValue(for option: CommandOption, typedAs name: String) throws(CommandError) -> String {
            guard let next = remaining.first, Self.isValue(next) else {
                throw .usage("Missing value for '\(name) <\(option.valueName ?? "value")>'")
            }
            remaining.removeFirst()
            return next
        }

        while let token = remaining.popFirst() {
            if token == "--" {
                positionals.append(contentsOf: remaining)
                break
            } else if token.hasPrefix("--") {
                let body = token.dropFirst(2)
                let name = String(body.prefix { $0 != "=" })
                let inlineValue = body.firstIndex(of: "=").map { String(body[body.index(after: $0)...]) }
                guard let option = find(long: name) else { throw .usage("Unknown option '--\(name)'") }
                if option.isFlag {
                    if let inlineValue {
                        throw .usage(
                            "The option '--\(name)' does not take any value, but '\(inlineValue)' was specified.")
                    }
                    if let request = builtInRequest(option) { return request }
                    try record(option, nil, as: name)
                } else {
                    if let inlineValue {
                        try record(option, inlineValue, as: name)
                    } else {
                        try record(option, try nextValue(for: option, typedAs: "--\(name)"), as: name)
                    }
                }
            } else if token.hasPrefix("-"), token.count > 1 {
                let letters = token.dropFirst()
                for (position, letter) in zip(letters.indices, letters) {
                    guard let option = find(short: letter) else { throw .usage("Unknown option '-\(letter)'") }
                    if let request = builtInRequest(option) { return request }
                    if option.isFlag {
                        try record(option, nil, as: option.name)
                    } else if letters.index(after: position) == letters.endIndex {
                        try record(option, try nextValue(for: option, typedAs: "-\(letter)"), as: option.name)
                    } else {
                        throw .usage("Missing value for '-\(letter) <\(option.valueName ?? "value")>'")
                    }
                }
            } else {
                positionals.append(token)
            }
        }
        try checkPositionals(positionals)
        try checkValues(occurrences)
        try checkExclusions(occurrences)
        return .run(
            ParsedArguments(occurrences: occurrences, positionals: positionals, declaredArguments: configuration.arguments))
    }

    /// Whether `token` can be an option's value: anything but an option (`-` alone can, and so
    /// can a negative number such as `-1`: no option is spelt with a digit, and the value's
    /// type then says it is negative rather than the value being "missing").
    private static func isValue(_ token: String) -> Bool {
        token == "-" || !token.hasPrefix("-") || token.dropFirst().first.map { $0.isASCII && ($0.isNumber || $0 == ".") } == true
    }

    private func find(long name: String) -> CommandOption? {
        (configuration.options + builtInOptions).first { $0.answers(to: name) }
    }

    /// Checks every value against its option's type, in command-line order.
    private func checkValues(_ occurrences: [ParsedArguments.Occurrence]) throws(CommandError) {
        for occurrence in occurrences {
            guard let check = occurrence.option.check, let value = occurrence.value else { continue }
            if case .invalid(let reason) = check(value) {
                throw .invalidValue(value, for: occurrence.option, reason: reason)
            }
        }
    }

    /// Refuses two options that the configuration declares exclusive.
    private func checkExclusions(_ occurrences: [ParsedArguments.Occurrence]) throws(CommandError) {
        for exclusion in configuration.exclusions {
            let given = exclusion.options.filter { option in occurrences.contains { $0.option == option } }
            if given.count > 1 { throw .usage(exclusion.message) }
        }
    }

    private func find(short letter: Character) -> CommandOption? {
        (configuration.options + builtInOptions).first { $0.shortName == letter }
    }

    /// `.help` or `.version` for the built-in flags, `nil` for the command's own options.
    private func builtInRequest(_ option: CommandOption) -> Outcome? {
        switch option {
        case HelpFormatter.helpOption: .help
        case HelpFormatter.versionOption: .version
        default: nil
        }
    }

    /// Rejects too few or too many positional arguments for the declared ones.
    private func checkPositionals(_ positionals: [String]) throws(CommandError) {
        let declared = configuration.arguments
        let required = declared.prefix { !$0.isOptional && !$0.isRepeatable }.count
        if positionals.count < required {
            throw .usage("Missing expected argument '<\(declared[positionals.count].valueName)>'")
        }
        if declared.last?.isRepeatable == true { return }
        let extra = positionals.dropFirst(declared.count)
        switch extra.count {
        case 0: return
        case 1: throw .usage("Unexpected argument '\(extra[extra.startIndex])'")
        default: throw .usage("\(extra.count) unexpected arguments: '\(extra.joined(separator: "', '"))'")
        }
    }
}
