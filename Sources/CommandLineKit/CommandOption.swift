/// A named option a command accepts: a flag (`--json`) or an option with a value
/// (`--url <url>`, `--url=<url>`).
///
/// Declare them as static constants on the command and read them back from
/// ``ParsedArguments`` by comparing with those constants. Two options are the same option when
/// they have the same long name (a command never declares a name twice).
///
/// An option may check its value while the command line is parsed (``ValueType``, usually
/// through ``TypedOption``), and may have aliases: other long names for the same option, each
/// listed in help as "The same as --name."
public struct CommandOption: Sendable, Hashable {
    /// The long name, without the leading `--`: `url` for `--url`.
    public let name: String
    /// The one-letter short name, without the leading `-`: `v` for `-v`.
    public let shortName: Character?
    /// The placeholder for the value in help (`url` shows as `<url>`); `nil` for a flag.
    public let valueName: String?
    /// One line for the OPTIONS section of the help.
    public let help: String
    /// Whether the option may appear more than once; each occurrence is kept, in order.
    public let isRepeatable: Bool
    /// Other long names for the same option (`dry-run` for `plan`), without `--`.
    public let aliases: [String]
    /// What a shell completes the value with (``ShellCompletion``); ``CompletionKind/none``
    /// for a flag.
    public let completion: CompletionKind
    /// Checks a value while the command line is parsed; nil: any value is accepted.
    let check: (@Sendable (String) -> ValueCheck)?

    private init(
        name: String, shortName: Character?, valueName: String?, help: String, isRepeatable: Bool, aliases: [String],
        completion: CompletionKind?, check: (@Sendable (String) -> ValueCheck)?
    ) {
        self.name = name
        self.shortName = shortName
        self.valueName = valueName
        self.help = help
        self.isRepeatable = isRepeatable
        self.aliases = aliases
        self.completion = completion ?? valueName.map(CompletionKind.inferred(fromValueName:)) ?? .none
        self.check = check
    }

    /// Declares a flag: an option without a value, present or absent.
    public static func flag(
        _ name: String, short: Character? = nil, help: String, repeatable: Bool = false, aliases: [String] = []
    ) -> CommandOption {
        CommandOption(
            name: name, shortName: short, valueName: nil, help: help, isRepeatable: repeatable, aliases: aliases,
            completion: CompletionKind.none, check: nil)
    }

    /// Declares an option that takes a value, as `--name value` or `--name=value`.
    ///
    /// The value is the next argument unless that one starts with `-` (other than `-` alone);
    /// `--name=-value` passes a value that starts with `-`.
    ///
    /// `completion` says what a shell offers for the value; by default a file name when
    /// `valueName` mentions a file (`file`, `key-file`, `file|uri`), else nothing
    /// (``CompletionKind/inferred(fromValueName:)``).
    public static func option(
        _ name: String, short: Character? = nil, valueName: String, help: String, repeatable: Bool = false,
        aliases: [String] = [], completion: CompletionKind? = nil
    ) -> CommandOption {
        CommandOption(
            name: name, shortName: short, valueName: valueName, help: help, isRepeatable: repeatable, aliases: aliases,
            completion: completion, check: nil)
    }

    /// This option, its values checked by `type` at parse time; a closed set of words
    /// (``ValueType/choice(_:)``) becomes what the shell completes, unless the option says
    /// otherwise.
    func checked<Value>(by type: ValueType<Value>) -> CommandOption {
        let completion = type.words.map(CompletionKind.words) ?? self.completion
        return CommandOption(
            name: name, shortName: shortName, valueName: valueName, help: help, isRepeatable: isRepeatable,
            aliases: aliases, completion: completion, check: type.check)
    }

    /// This option with `completion` as what a shell offers for its value.
    public func completing(_ completion: CompletionKind) -> CommandOption {
        CommandOption(
            name: name, shortName: shortName, valueName: valueName, help: help, isRepeatable: isRepeatable,
            aliases: aliases, completion: completion, check: check)
    }

    /// Whether the option takes no value.
    public var isFlag: Bool { valueName == nil }

    /// How an error message names it: `--url <url>` or `--json`.
    public var synopsis: String {
        valueName.map { "--\(name) <\($0)>" } ?? "--\(name)"
    }

    /// Whether `name` (without `--`) is this option's name or one of its aliases.
    func answers(to name: String) -> Bool {
        self.name == name || aliases.contains(name)
    }

    /// The option as help lists it, then one entry per alias ("The same as --name.").
    var helpEntries: [CommandOption] {
        [self]
            + aliases.map {
                CommandOption(
                    name: $0, shortName: nil, valueName: valueName, help: "The same as --\(name).",
                    isRepeatable: isRepeatable, aliases: [], completion: completion, check: nil)
            }
    }

    /// How the help's OPTIONS section labels it: `-o, --output <file>` or `--json`.
    var helpLabel: String {
        let names = (shortName.map { "-\($0), " } ?? "") + "--\(name)"
        return valueName.map { "\(names) <\($0)>" } ?? names
    }

    /// How the usage line shows it: `[--json]`, `[--url <url> ...]`.
    var usageSynopsis: String {
        "[\(synopsis)\(isRepeatable ? " ..." : "")]"
    }

    /// Options are the same option when their long names are.
    public static func == (lhs: CommandOption, rhs: CommandOption) -> Bool { lhs.name == rhs.name }

    /// Hashes the long name.
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

/// What a ``ValueType`` says of one value.
enum ValueCheck: Sendable {
    /// The value is accepted.
    case valid
    /// The value is refused; the reason, if any, follows the usage error's message.
    case invalid(reason: String?)
}

/// The type of an option's value: how its text becomes a `Value`, checked when the command line
/// is parsed, so that a bad value is a usage error naming the option
/// (`The value 'x' is invalid for '--timeout <s>'`, then `: reason` when the type gives one)
/// before the command is even created.
public struct ValueType<Value: Sendable>: Sendable {
    /// Converts a value's text; `.failure(reason)` (reason may be nil) refuses it.
    public let convert: @Sendable (String) -> Result<Value, ValueTypeError>
    /// Every value the type accepts, when they are a closed set of words (``choice(_:)``);
    /// shells complete them.
    public let words: [String]?

    /// A type from a conversion that says why it refuses a value; `words`, when given, are
    /// every value it accepts.
    public init(words: [String]? = nil, _ convert: @escaping @Sendable (String) -> Result<Value, ValueTypeError>) {
        self.convert = convert
        self.words = words
    }

    /// A type from a conversion that returns nil for a value it refuses, with `reason` (if any)
    /// after the usage error; `words`, when given, are every value it accepts.
    public init(reason: String? = nil, words: [String]? = nil, _ convert: @escaping @Sendable (String) -> Value?) {
        self.convert = { text in convert(text).map { .success($0) } ?? .failure(ValueTypeError(reason)) }
        self.words = words
    }

    var check: @Sendable (String) -> ValueCheck {
        { [convert] text in
            switch convert(text) {
            case .success: .valid
            case .failure(let error): .invalid(reason: error.reason)
            }
        }
    }
}

/// Why a ``ValueType`` refused a value.
public struct ValueTypeError: Error, Sendable, Hashable {
    /// Said after the usage error (`…: reason`); nil for none.
    public var reason: String?

    /// An error with `reason`.
    public init(_ reason: String?) {
        self.reason = reason
    }
}

/// Numbers as a command line spells them: decimal digits only. `Double("0x10")` is 16 and
/// `Double("1e3")`, `Double("inf")` are numbers too; on a command line they are mistakes.
public enum DecimalText {
    /// The number `text` spells as `[-]digits[.digits]` (or `[-].digits`), or `nil`.
    public static func number(_ text: String) -> Double? {
        var body = Substring(text)
        if body.hasPrefix("-") { body = body.dropFirst() }
        let parts = body.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard !body.isEmpty, parts.count <= 2, parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              parts.contains(where: { !$0.isEmpty })
        else { return nil }
        return Double(text)
    }

    /// Whether `text` is a negative number (`-1`, `-0.5`): said as such in a usage error rather
    /// than as "invalid".
    public static func isNegative(_ text: String) -> Bool {
        text.hasPrefix("-") && (number(text).map { $0 < 0 } ?? false)
    }

    /// Why a value that is not a usable number was refused: negative, or not decimal digits.
    static func refusal(_ text: String, otherwise reason: String?) -> String? {
        if isNegative(text) { return "the value is negative" + (reason.map { "; \($0)" } ?? "") }
        return reason
    }
}

extension ValueType where Value == Double {
    /// A number of seconds greater than 0 and at most `maximum`, in decimal digits (`2.5`;
    /// not `0x10`, `1e3` or `inf`).
    public static func seconds(upTo maximum: Double) -> ValueType {
        let limit = maximum.rounded() == maximum && abs(maximum) < 1e15 ? String(Int(maximum)) : String(maximum)
        let reason = "seconds greater than 0 and at most \(limit), in decimal digits"
        return ValueType { text in
            guard let value = DecimalText.number(text), value > 0, value <= maximum else {
                return .failure(ValueTypeError(DecimalText.refusal(text, otherwise: reason)))
            }
            return .success(value)
        }
    }

    /// A number in `range`, in decimal digits.
    public static func number(in range: ClosedRange<Double>, reason: String? = nil) -> ValueType {
        ValueType { text in
            guard let value = DecimalText.number(text), range.contains(value) else {
                return .failure(ValueTypeError(DecimalText.refusal(text, otherwise: reason)))
            }
            return .success(value)
        }
    }
}

extension ValueType where Value == Int {
    /// A whole number in `range`, in decimal digits.
    public static func integer(in range: ClosedRange<Int>, reason: String? = nil) -> ValueType {
        ValueType { text in
            guard let value = Int(text), range.contains(value) else {
                return .failure(ValueTypeError(DecimalText.refusal(text, otherwise: reason)))
            }
            return .success(value)
        }
    }
}

extension ValueType {
    /// One of a closed set of words, each standing for a value; the reason lists the words.
    public static func choice(_ choices: KeyValuePairs<String, Value>) -> ValueType {
        let table = choices.map { ($0.key, $0.value) }
        let reason = "use " + table.map(\.0).joined(separator: ", ")
        return ValueType(reason: reason, words: table.map(\.0)) { text in table.first { $0.0 == text }?.1 }
    }
}

extension ValueType where Value: RawRepresentable & CaseIterable, Value.RawValue == String {
    /// One of the enumeration's raw values; the reason lists them.
    public static var choice: ValueType {
        let reason = "use " + Value.allCases.map(\.rawValue).joined(separator: ", ")
        return ValueType(reason: reason, words: Value.allCases.map(\.rawValue)) { Value(rawValue: $0) }
    }
}

/// An option whose value has a type: declared once with its ``ValueType``, checked by the
/// parser, and read back converted (``ParsedArguments/value(of:)-(TypedOption<Value>)``).
///
/// Put ``option`` in the command's ``CommandConfiguration/options``.
public struct TypedOption<Value: Sendable>: Sendable {
    /// The option, with its value check.
    public let option: CommandOption
    /// The type of its values.
    public let type: ValueType<Value>

    /// Declares `option` with values of `type`.
    public init(_ option: CommandOption, _ type: ValueType<Value>) {
        self.option = option.checked(by: type)
        self.type = type
    }
}
