/// A named option a command accepts: a flag (`--json`) or an option with a value
/// (`--url <url>`, `--url=<url>`).
///
/// Declare them as static constants on the command and read them back from
/// ``ParsedArguments`` by comparing with those constants.
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

    /// Declares a flag: an option without a value, present or absent.
    public static func flag(_ name: String, short: Character? = nil, help: String, repeatable: Bool = false)
        -> CommandOption
    {
        CommandOption(name: name, shortName: short, valueName: nil, help: help, isRepeatable: repeatable)
    }

    /// Declares an option that takes a value, as `--name value` or `--name=value`.
    ///
    /// The value is the next argument unless that one starts with `-` (other than `-` alone);
    /// `--name=-value` passes a value that starts with `-`.
    public static func option(
        _ name: String, short: Character? = nil, valueName: String, help: String, repeatable: Bool = false
    ) -> CommandOption {
        CommandOption(name: name, shortName: short, valueName: valueName, help: help, isRepeatable: repeatable)
    }

    /// Whether the option takes no value.
    public var isFlag: Bool { valueName == nil }

    /// How an error message names it: `--url <url>` or `--json`.
    public var synopsis: String {
        valueName.map { "--\(name) <\($0)>" } ?? "--\(name)"
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
}
