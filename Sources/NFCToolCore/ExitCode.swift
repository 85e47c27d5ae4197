public import CommandLineKit

/// The exit statuses `nfctool` adds to the kit's (0 success, 1 failure, 64 usage, 65 data
/// error): the one place they are defined.
extension ExitCode {
    /// No tag came within the timeout (`scan`, and the commands that wait for a tag), or, for a
    /// command that writes, more than one tag answered (nothing was written).
    public static let noTag = ExitCode(rawValue: 2)
    /// No reader: the connection string named none, or it could not be opened.
    public static let noReader = ExitCode(rawValue: 3)
    /// The tag holds no NDEF (not formatted, or not an NDEF platform).
    public static let notNDEF = ExitCode(rawValue: 4)
    /// The tag is read-only (locked), so nothing was written.
    public static let readOnly = ExitCode(rawValue: 5)
    /// The message does not fit the tag; nothing was written.
    public static let capacityExceeded = ExitCode(rawValue: 6)
    /// The tag left the field (or stopped answering) during the operation.
    public static let tagLost = ExitCode(rawValue: 7)
    /// What the tag holds differs from what was expected or written (`verify`, read-back).
    public static let verifyMismatch = ExitCode(rawValue: 8)
    /// A password or key was refused, or is needed and was not given.
    public static let authenticationFailed = ExitCode(rawValue: 9)
    /// The tag or reader cannot do this (e.g. lock a Type 4 tag, ISO 15693 on a PN532).
    public static let unsupported = ExitCode(rawValue: 10)
    /// The tag already holds data that the command would overwrite; nothing was written (use
    /// `--force`).
    public static let holdsData = ExitCode(rawValue: 11)
    /// `batch` was stopped by SIGHUP before it ended by itself (128 + 1); the tags in progress
    /// were finished and recorded.
    public static let hangUp = ExitCode(rawValue: 129)
    /// `batch` was stopped by Ctrl-C (SIGINT) before it ended by itself (128 + 2, as a shell
    /// reports it); the tags in progress were finished and recorded.
    public static let interrupted = ExitCode(rawValue: 130)
    /// `batch` was stopped by SIGTERM before it ended by itself (128 + 15); the tags in
    /// progress were finished and recorded.
    public static let terminated = ExitCode(rawValue: 143)

    /// Every status nfctool uses, with its stable name (the JSON error object's `code` when the
    /// error has no more specific one) and a few words on what it means, in the order of the help.
    static let nfctoolStatuses: [ExitStatusDescription] = [
        .init(.success, "success"),
        .init(.failure, "failure (reader, tag or I/O error)"),
        .init(.noTag, name: "noTag", "no tag came within the timeout (or, to write, more than one)"),
        .init(.noReader, name: "noReader", "no reader (none found, or it could not be opened)"),
        .init(.notNDEF, name: "notNDEF", "the tag holds no NDEF (not formatted, or not an NDEF tag)"),
        .init(.readOnly, name: "readOnly", "the tag is read-only; nothing was written"),
        .init(.capacityExceeded, name: "capacityExceeded", "the message does not fit the tag; nothing was written"),
        .init(.tagLost, name: "tagLost", "the tag left the field during the operation"),
        .init(.verifyMismatch, name: "verifyMismatch", "the tag does not hold what was expected or written"),
        .init(.authenticationFailed, name: "authenticationFailed", "password or key refused, or needed and not given"),
        .init(.unsupported, name: "unsupported", "the tag or reader cannot do this"),
        .init(.holdsData, name: "holdsData", "the tag holds data the command would overwrite (use --force)"),
        .init(.usage, "usage error (unknown command or option, missing or bad value)"),
        .init(.dataError, "data error (malformed input)"),
        .init(.hangUp, name: "hangUp", "batch stopped by SIGHUP (the tags in progress were finished)"),
        .init(.interrupted, name: "interrupted", "batch stopped by Ctrl-C (the tags in progress were finished)"),
        .init(.terminated, name: "terminated", "batch stopped by SIGTERM (the tags in progress were finished)"),
    ]
}

extension CommandError {
    /// No tag came within the timeout (exit 2).
    public static func noTag(_ message: String) -> CommandError {
        CommandError(message, exitCode: .noTag)
    }
}
