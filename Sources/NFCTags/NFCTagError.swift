/// The error of the tag-platform layer (NDEF on a tag): a stable ``code`` to match, a human
/// ``reason``, the byte ``offset`` in tag memory where a malformed structure was found, and the
/// reader failure that caused it, if any.
///
/// Reader failures are mapped rather than passed through, so that callers match one type:
/// `tagLost`, `timeout` and `rfError` become ``Code/connectionLost``; a reader's `notSupported`
/// (a command it cannot carry, nothing sent) stays ``Code/notSupported``; a NAK or an answer of
/// the wrong shape becomes ``Code/tagResponse``; the original stays in ``readerError``.
public struct NFCTagError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Stable error codes.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// No NDEF area: CC magic not `E1`, unsupported major version, no NDEF TLV, or read
        /// access refused (Type 2 Tag 1.2, 6.1 and 5.4).
        case notNDEFFormatted
        /// The tag is read-only (CC3 write access not 0x0); nothing was written.
        case readOnly
        /// The message does not fit; the reason says by how many bytes. Nothing was written.
        case capacityExceeded
        /// The capability container or TLV area breaks the Type 2 Tag rules; ``offset`` is the
        /// byte address in tag memory.
        case malformedTag
        /// The stored NDEF message does not decode (``offset`` is in tag memory).
        case malformedMessage
        /// The tag refused a command (NAK) or answered with the wrong length.
        case tagResponse
        /// The tag left the field, or did not answer.
        case connectionLost
        /// Read-back after a write differs from what was written.
        case verificationFailed
        /// The message could not be encoded.
        case invalidMessage
        /// The tag cannot do this (e.g. a Type 4 tag with no permanent lock mechanism); nothing
        /// was changed.
        case notSupported
        /// The area is password- or key-protected and no password/key was given; nothing was
        /// written.
        case passwordRequired
        /// The tag refused the password or key (PWD_AUTH NAK, wrong PACK, Classic
        /// authentication).
        case authenticationFailed
        /// ``NFCNDEFTag/format(force:)`` found data on the tag and was not forced; nothing was
        /// written.
        case alreadyFormatted
        /// An argument out of range (a block number, a password length, a too-long APDU).
        case invalidParameter
        /// Refused by policy before anything was sent: e.g. selecting a payment application
        /// without opting in.
        case refused
    }

    /// The stable code.
    public var code: Code
    /// A human explanation.
    public var reason: String
    /// The byte address in tag memory the error concerns, when there is one.
    public var offset: Int?
    /// The reader failure underneath, when there is one.
    public var readerError: NFCReaderDeviceError?
    /// Whether the reader failure happened while reading from or writing to the tag, where the
    /// tag layer knows (Type 2 READ, FAST_READ and WRITE); nil otherwise.
    public var exchange: Exchange?

    /// Which way a failed exchange with the tag went.
    public enum Exchange: String, Sendable, Hashable, CaseIterable {
        /// A command that reads tag memory (Type 2 READ 0x30, FAST_READ 0x3A).
        case read
        /// A command that writes tag memory (Type 2 WRITE 0xA2).
        case write
    }

    /// Creates an error.
    public init(_ code: Code, at offset: Int? = nil, _ reason: String, readerError: NFCReaderDeviceError? = nil) {
        self.code = code
        self.reason = reason
        self.offset = offset
        self.readerError = readerError
    }

    /// Maps a reader failure: lost/timeout/RF error → ``Code/connectionLost``, a reader that
    /// cannot carry the command → ``Code/notSupported``, others → ``Code/tagResponse``.
    /// `exchange` says whether the command read or wrote tag memory, when the caller knows.
    public init(_ readerError: NFCReaderDeviceError, during what: String, exchange: Exchange? = nil) {
        switch readerError.code {
        case .tagLost, .timeout, .rfError, .closed, .aborted, .notConnected:
            self.init(.connectionLost, "\(what): \(readerError.reason)", readerError: readerError)
        case .notSupported:
            // The reader cannot carry the command (e.g. a PC/SC reader without a transparent
            // session): nothing reached the tag.
            self.init(.notSupported, "\(what): \(readerError.reason)", readerError: readerError)
        default:
            self.init(.tagResponse, "\(what): \(readerError.reason)", readerError: readerError)
        }
        self.exchange = exchange
    }

    /// `reason [code]` and the offset when known.
    public var description: String {
        if let offset { return "\(reason) at offset \(offset) [\(code.rawValue)]" }
        return "\(reason) [\(code.rawValue)]"
    }
}
