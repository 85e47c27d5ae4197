public import NFCTags

/// Why a reader session ended, or why one of its operations failed: CoreNFC's `NFCReaderDeviceError`,
/// as one typed error with a stable ``code`` users can match and a human ``reason``.
///
/// Errors of the layers below are mapped rather than passed through, so callers match one type:
/// ``init(_:)-(NFCTagError)`` maps an `NFCTagError` from a tag operation and
/// ``init(_:)-(NFCReaderDeviceError)`` an `NFCReaderDeviceError`; the original stays in ``tagError`` or
/// ``readerError``.
public struct NFCReaderSessionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a stable name.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// The session was invalidated by the app (``NFCTagReaderSession/invalidate(errorMessage:)``)
        /// or the task consuming it was cancelled.
        case userCanceled
        /// The session ran for its whole timeout (60 s by default, as CoreNFC's).
        case sessionTimeout
        /// The session was already invalidated: a session is not reusable.
        case sessionInvalidated
        /// An ``NFCNDEFReaderSession`` created with `invalidateAfterFirstRead` read its message.
        case firstNDEFTagRead
        /// Another session is using this reader.
        case readerBusy
        /// No reader could be opened, it was closed, or it failed.
        case readerUnavailable
        /// The tag left the field, did not answer, or is not the one the session detected.
        case tagConnectionLost
        /// The tag refused a command (NAK) or answered with the wrong shape.
        case tagResponseError
        /// The tag is read-only; nothing was written.
        case notWritable
        /// The message does not fit the tag; nothing was written.
        case capacityExceeded
        /// The tag holds no NDEF area (not formatted for NDEF).
        case notNDEFFormatted
        /// The NDEF data on the tag is malformed.
        case invalidNDEFMessage
        /// Reading back what was written gave something else.
        case updateFailure
        /// The reader or the tag cannot do this (a modulation, a lock mechanism, a tag type).
        case unsupportedFeature
        /// A password or key is needed, or was refused; or a policy refused the command.
        case securityViolation
        /// An argument out of range, a message that cannot be encoded, or a tag that holds data
        /// where a blank one was expected.
        case invalidParameter
    }

    /// The stable code.
    public var code: Code
    /// A human explanation.
    public var reason: String
    /// The tag error this was mapped from, if any.
    public var tagError: NFCTagError?
    /// The reader error this was mapped from, if any.
    public var readerError: NFCReaderDeviceError?

    /// Creates an error.
    public init(_ code: Code, _ reason: String, tagError: NFCTagError? = nil, readerError: NFCReaderDeviceError? = nil) {
        self.code = code
        self.reason = reason
        self.tagError = tagError
        self.readerError = readerError
    }

    /// Maps a tag-platform error: `readOnly` → ``Code/notWritable``, `connectionLost` →
    /// ``Code/tagConnectionLost``, `passwordRequired`, `authenticationFailed` and `refused` →
    /// ``Code/securityViolation``, `notSupported` → ``Code/unsupportedFeature``,
    /// `verificationFailed` → ``Code/updateFailure``, `malformedTag` and `malformedMessage` →
    /// ``Code/invalidNDEFMessage``, `invalidMessage`, `invalidParameter` and `alreadyFormatted` →
    /// ``Code/invalidParameter``; the others keep their name.
    public init(_ tagError: NFCTagError) {
        let code: Code =
            switch tagError.code {
            case .notNDEFFormatted: .notNDEFFormatted
            case .readOnly: .notWritable
            case .capacityExceeded: .capacityExceeded
            case .malformedTag, .malformedMessage: .invalidNDEFMessage
            case .tagResponse: .tagResponseError
            case .connectionLost: .tagConnectionLost
            case .verificationFailed: .updateFailure
            case .invalidMessage, .invalidParameter, .alreadyFormatted: .invalidParameter
            case .notSupported: .unsupportedFeature
            case .passwordRequired, .authenticationFailed, .refused: .securityViolation
            }
        self.init(code, tagError.description, tagError: tagError, readerError: tagError.readerError)
    }

    /// Maps a reader error: `timeout`, `tagLost`, `rfError` and `aborted` →
    /// ``Code/tagConnectionLost``; `nak` and `overflow` → ``Code/tagResponseError``;
    /// `authenticationFailed` → ``Code/securityViolation``; `notSupported` →
    /// ``Code/unsupportedFeature``; `busy` → ``Code/readerBusy``; `invalidArgument` →
    /// ``Code/invalidParameter``; `deviceNotFound`, `io`, `chip` and `closed` →
    /// ``Code/readerUnavailable``.
    public init(_ readerError: NFCReaderDeviceError) {
        let code: Code =
            switch readerError.code {
            case .timeout, .tagLost, .rfError, .aborted: .tagConnectionLost
            case .nak, .overflow: .tagResponseError
            case .authenticationFailed: .securityViolation
            case .notSupported: .unsupportedFeature
            case .busy: .readerBusy
            case .invalidArgument: .invalidParameter
            case .deviceNotFound, .io, .chip, .closed: .readerUnavailable
            }
        self.init(code, readerError.description, readerError: readerError)
    }

    /// "reason [code]".
    public var description: String { "\(reason) [\(code.rawValue)]" }
}
