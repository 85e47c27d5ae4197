/// The exit statuses `nfctool` uses: the one place they are defined.
///
/// Values follow BSD's `sysexits.h` where one fits, as swift-argument-parser's do.
public enum ExitCode: Int32, Sendable, Hashable, CaseIterable {
    /// The command did what was asked. Also: help or the version was printed.
    case success = 0
    /// The command could not do what was asked: a reader or tag error, an I/O error.
    case failure = 1
    /// No tag came within the timeout (`scan`, and later the commands that wait for a tag).
    case noTag = 2
    /// The command line was wrong: an unknown command or option, a missing or bad value
    /// (`EX_USAGE`).
    case usage = 64
    /// The input data was malformed, e.g. bytes that are not a valid NDEF message
    /// (`EX_DATAERR`).
    case dataError = 65

    /// A few words on what the status means, for the help text.
    public var summary: String {
        switch self {
        case .success: "success"
        case .failure: "failure (reader, tag or I/O error)"
        case .noTag: "no tag came within the timeout"
        case .usage: "usage error (unknown command or option, missing or bad value)"
        case .dataError: "data error (malformed input)"
        }
    }
}
