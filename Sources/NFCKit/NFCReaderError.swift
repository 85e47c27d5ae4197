public import Foundation
public import NFCTags

/// Why a reader session ended, or why one of its operations failed: CoreNFC's `NFCReaderError`,
/// with the same name and the same code names, so ported code such as
/// `(error as? NFCReaderError)?.code == .readerSessionInvalidationErrorUserCanceled` matches.
///
/// Errors of the layers below are mapped rather than passed through, so callers match one type:
/// ``init(_:)-(NFCTagError)`` maps an `NFCTagError` from a tag operation and
/// ``init(_:)-(NFCReaderDeviceError)`` an `NFCReaderDeviceError` (the low-level failure of a
/// reader device); the original stays in ``tagError`` or ``readerError``.
///
/// The error bridges to `NSError` with CoreNFC's domain and code numbers (``errorCode``), and its
/// `localizedDescription` is the human ``reason``.
public struct NFCReaderError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError, CustomNSError {
    /// What went wrong: CoreNFC's code names and numbers, plus two NFCKit codes (1000 and up)
    /// for NDEF conditions CoreNFC reports through `queryNDEFStatus` or not at all.
    public enum Code: Int, Sendable, Hashable, CaseIterable {
        /// The reader or the tag cannot do this (a modulation, a lock mechanism, a tag type), or
        /// the reader has no target mode for card emulation.
        case readerErrorUnsupportedFeature = 1
        /// A password or key is needed, or was refused; or a policy refused the command.
        case readerErrorSecurityViolation = 2
        /// An argument out of range, a message that cannot be encoded, a configuration refused
        /// (a FeliCa wildcard system code), or a tag that holds data where a blank one was expected.
        case readerErrorInvalidParameter = 3
        /// A parameter of the wrong length (an AID longer than 16 bytes, a system code not 2 bytes).
        case readerErrorInvalidParameterLength = 4
        /// A parameter outside its bounds (a block range that is not one).
        case readerErrorParameterOutOfBound = 5
        /// CoreNFC: the device's NFC radio is off. Never raised by NFCKit (a reader that cannot
        /// be used ends the session with ``readerSessionInvalidationErrorSessionTerminatedUnexpectedly``).
        case readerErrorRadioDisabled = 6
        /// The tag left the field, did not answer, or is not the one the session detected.
        case readerTransceiveErrorTagConnectionLost = 100
        /// CoreNFC: too many retries. Never raised by NFCKit (a tag that stops answering is
        /// ``readerTransceiveErrorTagConnectionLost``).
        case readerTransceiveErrorRetryExceeded = 101
        /// The tag refused a command (NAK) or answered with the wrong shape.
        case readerTransceiveErrorTagResponseError = 102
        /// The session was already invalidated: a session is not reusable.
        case readerTransceiveErrorSessionInvalidated = 103
        /// A tag command before the session's `connect(to:)` connected the tag (or after it
        /// connected another one): refused without sending anything.
        case readerTransceiveErrorTagNotConnected = 104
        /// CoreNFC: a command longer than the tag or the reader takes. NFCKit refuses such a
        /// command before sending it, as ``readerErrorInvalidParameter``.
        case readerTransceiveErrorPacketTooLong = 105
        /// The session was invalidated by the app (`invalidate()`) or the task consuming it was
        /// cancelled.
        case readerSessionInvalidationErrorUserCanceled = 200
        /// The session ran for its whole timeout (60 s by default, as CoreNFC's).
        case readerSessionInvalidationErrorSessionTimeout = 201
        /// The reader could not be opened, was closed, or failed during the session.
        case readerSessionInvalidationErrorSessionTerminatedUnexpectedly = 202
        /// Another session (of this process or another, of any kind) is using this reader.
        case readerSessionInvalidationErrorSystemIsBusy = 203
        /// An ``NFCNDEFReaderSession`` created with `invalidateAfterFirstRead` read its message.
        case readerSessionInvalidationErrorFirstNDEFTagRead = 204
        /// CoreNFC: an `NFCTagCommandConfiguration` out of range. Never raised by NFCKit, which
        /// has no such configuration.
        case tagCommandConfigurationErrorInvalidParameters = 300
        /// The tag is read-only; nothing was written.
        case ndefReaderSessionErrorTagNotWritable = 400
        /// Reading back what was written gave something else.
        case ndefReaderSessionErrorTagUpdateFailure = 401
        /// The message does not fit the tag; nothing was written.
        case ndefReaderSessionErrorTagSizeTooSmall = 402
        /// The message to write has no bytes at all.
        case ndefReaderSessionErrorZeroLengthMessage = 403
        /// NFCKit: the tag holds no NDEF area (not formatted for NDEF). CoreNFC says this through
        /// `queryNDEFStatus` (`.notSupported`).
        case notNDEFFormatted = 1000
        /// NFCKit: the NDEF data on the tag is malformed.
        case invalidNDEFMessage = 1001

        /// NFCKit's earlier name of ``readerSessionInvalidationErrorUserCanceled``.
        public static var userCanceled: Code { .readerSessionInvalidationErrorUserCanceled }
        /// NFCKit's earlier name of ``readerSessionInvalidationErrorSessionTimeout``.
        public static var sessionTimeout: Code { .readerSessionInvalidationErrorSessionTimeout }
        /// NFCKit's earlier name of ``readerTransceiveErrorSessionInvalidated``.
        public static var sessionInvalidated: Code { .readerTransceiveErrorSessionInvalidated }
        /// NFCKit's earlier name of ``readerSessionInvalidationErrorFirstNDEFTagRead``.
        public static var firstNDEFTagRead: Code { .readerSessionInvalidationErrorFirstNDEFTagRead }
        /// NFCKit's earlier name of ``readerSessionInvalidationErrorSystemIsBusy``.
        public static var readerBusy: Code { .readerSessionInvalidationErrorSystemIsBusy }
        /// NFCKit's earlier name of ``readerSessionInvalidationErrorSessionTerminatedUnexpectedly``.
        public static var readerUnavailable: Code { .readerSessionInvalidationErrorSessionTerminatedUnexpectedly }
        /// NFCKit's earlier name of ``readerTransceiveErrorTagConnectionLost``.
        public static var tagConnectionLost: Code { .readerTransceiveErrorTagConnectionLost }
        /// NFCKit's earlier name of ``readerTransceiveErrorTagResponseError``.
        public static var tagResponseError: Code { .readerTransceiveErrorTagResponseError }
        /// NFCKit's earlier name of ``ndefReaderSessionErrorTagNotWritable``.
        public static var notWritable: Code { .ndefReaderSessionErrorTagNotWritable }
        /// NFCKit's earlier name of ``ndefReaderSessionErrorTagSizeTooSmall``.
        public static var capacityExceeded: Code { .ndefReaderSessionErrorTagSizeTooSmall }
        /// NFCKit's earlier name of ``ndefReaderSessionErrorTagUpdateFailure``.
        public static var updateFailure: Code { .ndefReaderSessionErrorTagUpdateFailure }
        /// NFCKit's earlier name of ``readerErrorUnsupportedFeature``.
        public static var unsupportedFeature: Code { .readerErrorUnsupportedFeature }
        /// NFCKit's earlier name of ``readerErrorSecurityViolation``.
        public static var securityViolation: Code { .readerErrorSecurityViolation }
        /// NFCKit's earlier name of ``readerErrorInvalidParameter``.
        public static var invalidParameter: Code { .readerErrorInvalidParameter }

        /// The code's name, as written in Swift (`readerSessionInvalidationErrorUserCanceled`).
        public var name: String { String(describing: self) }
    }

    // CoreNFC spells each code as a static member of the error type too
    // (`NFCReaderError.readerSessionInvalidationErrorUserCanceled.rawValue`): one per code.

    /// CoreNFC's `NFCReaderError.readerErrorUnsupportedFeature`: ``Code/readerErrorUnsupportedFeature``.
    public static var readerErrorUnsupportedFeature: Code { .readerErrorUnsupportedFeature }
    /// CoreNFC's `NFCReaderError.readerErrorSecurityViolation`: ``Code/readerErrorSecurityViolation``.
    public static var readerErrorSecurityViolation: Code { .readerErrorSecurityViolation }
    /// CoreNFC's `NFCReaderError.readerErrorInvalidParameter`: ``Code/readerErrorInvalidParameter``.
    public static var readerErrorInvalidParameter: Code { .readerErrorInvalidParameter }
    /// CoreNFC's `NFCReaderError.readerErrorInvalidParameterLength`: ``Code/readerErrorInvalidParameterLength``.
    public static var readerErrorInvalidParameterLength: Code { .readerErrorInvalidParameterLength }
    /// CoreNFC's `NFCReaderError.readerErrorParameterOutOfBound`: ``Code/readerErrorParameterOutOfBound``.
    public static var readerErrorParameterOutOfBound: Code { .readerErrorParameterOutOfBound }
    /// CoreNFC's `NFCReaderError.readerErrorRadioDisabled`: ``Code/readerErrorRadioDisabled``.
    public static var readerErrorRadioDisabled: Code { .readerErrorRadioDisabled }
    /// CoreNFC's `NFCReaderError.readerTransceiveErrorTagConnectionLost`: ``Code/readerTransceiveErrorTagConnectionLost``.
    public static var readerTransceiveErrorTagConnectionLost: Code { .readerTransceiveErrorTagConnectionLost }
    /// CoreNFC's `NFCReaderError.readerTransceiveErrorRetryExceeded`: ``Code/readerTransceiveErrorRetryExceeded``.
    public static var readerTransceiveErrorRetryExceeded: Code { .readerTransceiveErrorRetryExceeded }
    /// CoreNFC's `NFCReaderError.readerTransceiveErrorTagResponseError`: ``Code/readerTransceiveErrorTagResponseError``.
    public static var readerTransceiveErrorTagResponseError: Code { .readerTransceiveErrorTagResponseError }
    /// CoreNFC's `NFCReaderError.readerTransceiveErrorSessionInvalidated`: ``Code/readerTransceiveErrorSessionInvalidated``.
    public static var readerTransceiveErrorSessionInvalidated: Code { .readerTransceiveErrorSessionInvalidated }
    /// CoreNFC's `NFCReaderError.readerTransceiveErrorTagNotConnected`: ``Code/readerTransceiveErrorTagNotConnected``.
    public static var readerTransceiveErrorTagNotConnected: Code { .readerTransceiveErrorTagNotConnected }
    /// CoreNFC's `NFCReaderError.readerTransceiveErrorPacketTooLong`: ``Code/readerTransceiveErrorPacketTooLong``.
    public static var readerTransceiveErrorPacketTooLong: Code { .readerTransceiveErrorPacketTooLong }
    /// CoreNFC's `NFCReaderError.readerSessionInvalidationErrorUserCanceled`: ``Code/readerSessionInvalidationErrorUserCanceled``.
    public static var readerSessionInvalidationErrorUserCanceled: Code { .readerSessionInvalidationErrorUserCanceled }
    /// CoreNFC's `NFCReaderError.readerSessionInvalidationErrorSessionTimeout`: ``Code/readerSessionInvalidationErrorSessionTimeout``.
    public static var readerSessionInvalidationErrorSessionTimeout: Code { .readerSessionInvalidationErrorSessionTimeout }
    /// CoreNFC's `NFCReaderError.readerSessionInvalidationErrorSessionTerminatedUnexpectedly`: ``Code/readerSessionInvalidationErrorSessionTerminatedUnexpectedly``.
    public static var readerSessionInvalidationErrorSessionTerminatedUnexpectedly: Code { .readerSessionInvalidationErrorSessionTerminatedUnexpectedly }
    /// CoreNFC's `NFCReaderError.readerSessionInvalidationErrorSystemIsBusy`: ``Code/readerSessionInvalidationErrorSystemIsBusy``.
    public static var readerSessionInvalidationErrorSystemIsBusy: Code { .readerSessionInvalidationErrorSystemIsBusy }
    /// CoreNFC's `NFCReaderError.readerSessionInvalidationErrorFirstNDEFTagRead`: ``Code/readerSessionInvalidationErrorFirstNDEFTagRead``.
    public static var readerSessionInvalidationErrorFirstNDEFTagRead: Code { .readerSessionInvalidationErrorFirstNDEFTagRead }
    /// CoreNFC's `NFCReaderError.tagCommandConfigurationErrorInvalidParameters`: ``Code/tagCommandConfigurationErrorInvalidParameters``.
    public static var tagCommandConfigurationErrorInvalidParameters: Code { .tagCommandConfigurationErrorInvalidParameters }
    /// CoreNFC's `NFCReaderError.ndefReaderSessionErrorTagNotWritable`: ``Code/ndefReaderSessionErrorTagNotWritable``.
    public static var ndefReaderSessionErrorTagNotWritable: Code { .ndefReaderSessionErrorTagNotWritable }
    /// CoreNFC's `NFCReaderError.ndefReaderSessionErrorTagUpdateFailure`: ``Code/ndefReaderSessionErrorTagUpdateFailure``.
    public static var ndefReaderSessionErrorTagUpdateFailure: Code { .ndefReaderSessionErrorTagUpdateFailure }
    /// CoreNFC's `NFCReaderError.ndefReaderSessionErrorTagSizeTooSmall`: ``Code/ndefReaderSessionErrorTagSizeTooSmall``.
    public static var ndefReaderSessionErrorTagSizeTooSmall: Code { .ndefReaderSessionErrorTagSizeTooSmall }
    /// CoreNFC's `NFCReaderError.ndefReaderSessionErrorZeroLengthMessage`: ``Code/ndefReaderSessionErrorZeroLengthMessage``.
    public static var ndefReaderSessionErrorZeroLengthMessage: Code { .ndefReaderSessionErrorZeroLengthMessage }

    /// The stable code.
    public var code: Code
    /// A human explanation.
    public var reason: String
    /// The tag error this was mapped from, if any.
    public var tagError: NFCTagError?
    /// The reader device error this was mapped from, if any.
    public var readerError: NFCReaderDeviceError?

    /// Creates an error.
    public init(_ code: Code, _ reason: String, tagError: NFCTagError? = nil, readerError: NFCReaderDeviceError? = nil) {
        self.code = code
        self.reason = reason
        self.tagError = tagError
        self.readerError = readerError
    }

    /// Maps a tag-platform error: `readOnly` → ``Code/ndefReaderSessionErrorTagNotWritable``,
    /// `capacityExceeded` → ``Code/ndefReaderSessionErrorTagSizeTooSmall``, `connectionLost` →
    /// ``Code/readerTransceiveErrorTagConnectionLost``, `tagResponse` →
    /// ``Code/readerTransceiveErrorTagResponseError``, `passwordRequired`,
    /// `authenticationFailed` and `refused` → ``Code/readerErrorSecurityViolation``,
    /// `notSupported` → ``Code/readerErrorUnsupportedFeature``, `verificationFailed` →
    /// ``Code/ndefReaderSessionErrorTagUpdateFailure``, `malformedTag` and `malformedMessage` →
    /// ``Code/invalidNDEFMessage``, `invalidMessage`, `invalidParameter` and `alreadyFormatted`
    /// → ``Code/readerErrorInvalidParameter``, `notNDEFFormatted` → ``Code/notNDEFFormatted``.
    public init(_ tagError: NFCTagError) {
        let code: Code =
            switch tagError.code {
            case .notNDEFFormatted: .notNDEFFormatted
            case .readOnly: .ndefReaderSessionErrorTagNotWritable
            case .capacityExceeded: .ndefReaderSessionErrorTagSizeTooSmall
            case .malformedTag, .malformedMessage: .invalidNDEFMessage
            case .tagResponse: .readerTransceiveErrorTagResponseError
            case .connectionLost: .readerTransceiveErrorTagConnectionLost
            case .verificationFailed: .ndefReaderSessionErrorTagUpdateFailure
            case .invalidMessage, .invalidParameter, .alreadyFormatted: .readerErrorInvalidParameter
            case .notSupported: .readerErrorUnsupportedFeature
            case .passwordRequired, .authenticationFailed, .refused: .readerErrorSecurityViolation
            }
        // A tag used before connect(to:): nothing was sent, whatever the tag layer calls it.
        let notConnected = tagError.readerError?.code == .notConnected
        self.init(
            notConnected ? .readerTransceiveErrorTagNotConnected : code, tagError.description, tagError: tagError,
            readerError: tagError.readerError)
    }

    /// Maps a reader device error: `notConnected` → ``Code/readerTransceiveErrorTagNotConnected``;
    /// `timeout`, `tagLost`, `rfError` and `aborted` →
    /// ``Code/readerTransceiveErrorTagConnectionLost``; `nak` and `overflow` →
    /// ``Code/readerTransceiveErrorTagResponseError``; `authenticationFailed` →
    /// ``Code/readerErrorSecurityViolation``; `notSupported` → ``Code/readerErrorUnsupportedFeature``;
    /// `busy` → ``Code/readerSessionInvalidationErrorSystemIsBusy``; `invalidArgument` →
    /// ``Code/readerErrorInvalidParameter``; `deviceNotFound`, `io`, `chip` and `closed` →
    /// ``Code/readerSessionInvalidationErrorSessionTerminatedUnexpectedly``.
    public init(_ readerError: NFCReaderDeviceError) {
        let code: Code =
            switch readerError.code {
            case .timeout, .tagLost, .rfError, .aborted: .readerTransceiveErrorTagConnectionLost
            case .nak, .overflow: .readerTransceiveErrorTagResponseError
            case .authenticationFailed: .readerErrorSecurityViolation
            case .notSupported: .readerErrorUnsupportedFeature
            case .busy: .readerSessionInvalidationErrorSystemIsBusy
            case .invalidArgument: .readerErrorInvalidParameter
            case .deviceNotFound, .io, .chip, .closed: .readerSessionInvalidationErrorSessionTerminatedUnexpectedly
            case .notConnected: .readerTransceiveErrorTagNotConnected
            }
        self.init(code, readerError.description, readerError: readerError)
    }

    /// "reason [code name]".
    public var description: String { "\(reason) [\(code.name)]" }

    /// The human ``reason``: what `error.localizedDescription` gives.
    public var errorDescription: String? { reason }

    /// CoreNFC's error domain, `NFCError`.
    public static var errorDomain: String { "NFCError" }

    /// CoreNFC's number for ``code`` (`(error as NSError).code`).
    public var errorCode: Int { code.rawValue }

    /// Nothing beyond the localized description.
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: reason] }
}

/// NFCKit's earlier name of ``NFCReaderError``, kept so code written against it still builds.
public typealias NFCReaderSessionError = NFCReaderError
