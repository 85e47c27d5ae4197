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
    /// No reader: the connection string named none, or it could not be opened.
    case noReader = 3
    /// The tag holds no NDEF (not formatted, or not an NDEF platform).
    case notNDEF = 4
    /// The tag is read-only (locked), so nothing was written.
    case readOnly = 5
    /// The message does not fit the tag; nothing was written.
    case capacityExceeded = 6
    /// The tag left the field (or stopped answering) during the operation.
    case tagLost = 7
    /// What the tag holds differs from what was expected or written (`verify`, read-back).
    case verifyMismatch = 8
    /// A password or key was refused, or is needed and was not given.
    case authenticationFailed = 9
    /// The tag or reader cannot do this (e.g. lock a Type 4 tag, ISO 15693 on a PN532).
    case unsupported = 10
    /// The tag already holds data that the command would overwrite; nothing was written (use
    /// `--force`).
    case holdsData = 11
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
        case .noReader: "no reader (none found, or it could not be opened)"
        case .notNDEF: "the tag holds no NDEF (not formatted, or not an NDEF tag)"
        case .readOnly: "the tag is read-only; nothing was written"
        case .capacityExceeded: "the message does not fit the tag; nothing was written"
        case .tagLost: "the tag left the field during the operation"
        case .verifyMismatch: "the tag does not hold what was expected or written"
        case .authenticationFailed: "password or key refused, or needed and not given"
        case .unsupported: "the tag or reader cannot do this"
        case .holdsData: "the tag holds data the command would overwrite (use --force)"
        case .usage: "usage error (unknown command or option, missing or bad value)"
        case .dataError: "data error (malformed input)"
        }
    }
}
