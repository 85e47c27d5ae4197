/// Why a reader could not do what was asked: one error type for every reader (libnfc, the
/// simulator), with a stable ``code`` users can match and a human ``reason``.
public struct NFCReaderDeviceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a stable name.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// No tag answered in time, or the tag did not answer a command.
        case timeout
        /// The tag left the field (or was released) between commands.
        case tagLost
        /// A transmission error on the air interface (bad CRC, parity, collision).
        case rfError
        /// The tag refused the key: MIFARE Classic authentication failed.
        case authenticationFailed
        /// The tag answered with a NAK (4-bit ACK/NAK of ISO 14443-3), carried in ``detail``.
        case nak
        /// The reader cannot do this (a modulation it lacks, e.g. ISO 15693 on libnfc).
        case notSupported
        /// No such reader, or it could not be opened.
        case deviceNotFound
        /// The reader is in use by another session.
        case busy
        /// Input/output error talking to the reader.
        case io
        /// An argument out of range (a frame too long, a bad key length).
        case invalidArgument
        /// The answer did not fit the buffer.
        case overflow
        /// The operation was aborted (by the user or a timeout of the caller).
        case aborted
        /// The reader's chip reported an error.
        case chip
        /// The reader has been closed.
        case closed
        /// A command for a tag that a reader session reported but the app has not connected to
        /// (CoreNFC's `connect(to:)`): nothing was sent.
        case notConnected
    }

    /// The stable code.
    public var code: Code
    /// A human explanation.
    public var reason: String
    /// A code-specific value: the NAK nibble for ``Code/nak``.
    public var detail: UInt8?

    /// Creates an error.
    public init(_ code: Code, _ reason: String, detail: UInt8? = nil) {
        self.code = code
        self.reason = reason
        self.detail = detail
    }

    /// "reason [code]".
    public var description: String { "\(reason) [\(code.rawValue)]" }
}
