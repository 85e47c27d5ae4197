/// A process exit status, as a command-line tool returns it.
///
/// The kit defines the statuses every tool has (after BSD's `sysexits.h`, as
/// swift-argument-parser does); a tool adds its own as static constants in an extension
/// (nfctool: `noTag`, `noReader`, …).
public struct ExitCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The number the process exits with.
    public let rawValue: Int32

    /// The status `rawValue`.
    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// The command did what was asked. Also: help or the version was printed.
    public static let success = ExitCode(rawValue: 0)
    /// The command could not do what was asked: a device, data or I/O error.
    public static let failure = ExitCode(rawValue: 1)
    /// The command line was wrong: an unknown command or option, a missing or bad value
    /// (`EX_USAGE`).
    public static let usage = ExitCode(rawValue: 64)
    /// The input data was malformed (`EX_DATAERR`).
    public static let dataError = ExitCode(rawValue: 65)

    /// The kit's name for its own statuses (`success`, `failure`, `usage`, `dataError`), as
    /// the JSON error object's `code` gives them; `nil` for a tool's own status (the tool names
    /// those in its ``ExitStatusDescription``s).
    public var standardName: String? {
        switch self {
        case .success: "success"
        case .failure: "failure"
        case .usage: "usage"
        case .dataError: "dataError"
        default: nil
        }
    }

    /// The number.
    public var description: String { String(rawValue) }
}
