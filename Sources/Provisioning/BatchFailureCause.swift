public import NFCTags

/// Why a batch's tag failed, as a short stable code: what the station line counts failures by,
/// and what `nfctool batch --events` writes as a failure's `cause`.
///
/// It is derived from the typed error in one place (``init(_:)-(NFCTagError)``), so that every
/// front end (the station line, the events, a ledger's per-attempt cause) says the same thing
/// for the same failure. The raw values are part of the `--events` schema (docs/batch.md).
public enum BatchFailureCause: String, Sendable, Hashable, Codable, CaseIterable {
    /// The tag left the field or stopped answering mid-way (``NFCTagError/Code/connectionLost``):
    /// an RF loss, a tag pulled away too early.
    case tagLost
    /// The tag refused a command (NAK) or answered with the wrong shape, or its memory breaks
    /// the NDEF rules (``NFCTagError/Code/tagResponse``, ``NFCTagError/Code/malformedTag``,
    /// ``NFCTagError/Code/malformedMessage``).
    case tagResponse
    /// The read-back after the write differed (``NFCTagError/Code/verificationFailed``).
    case verification
    /// The tag is read-only (``NFCTagError/Code/readOnly``).
    case readOnly
    /// The message does not fit (``NFCTagError/Code/capacityExceeded``).
    case capacity
    /// The tag is not NDEF formatted, or holds data a format would not overwrite
    /// (``NFCTagError/Code/notNDEFFormatted``, ``NFCTagError/Code/alreadyFormatted``).
    case notFormatted
    /// The tag or reader cannot do what the run asks, or policy refused it
    /// (``NFCTagError/Code/notSupported``, ``NFCTagError/Code/refused``).
    case unsupported
    /// A password or key was needed or refused (``NFCTagError/Code/passwordRequired``,
    /// ``NFCTagError/Code/authenticationFailed``).
    case authentication
    /// The chip was not shown genuine (`--require-genuine`: no signature, or no key for it).
    case notGenuine
    /// The tag's data could not be built or encoded (a template or manifest row, an argument
    /// out of range: ``NFCTagError/Code/invalidMessage``, ``NFCTagError/Code/invalidParameter``).
    case data
    /// The ledger could not claim or record the tag.
    case ledger

    /// The cause of a tag error, by its code.
    public init(_ error: NFCTagError) {
        self.init(code: error.code)
    }

    /// The cause of a tag error code: the coarse view of the ledger's cause
    /// (``FailureCause/init(_:)``, the one derivation from the typed error).
    public init(code: NFCTagError.Code) {
        self.init(FailureCause(NFCTagError(code, "")))
    }

    /// The station line's (coarser) view of a ledger cause: the RF errors of a WRITE, a READ or
    /// another command and a tag gone are all ``tagLost``.
    public init(_ cause: FailureCause) {
        switch cause {
        case .rfWrite, .rfRead, .rf, .tagLost: self = .tagLost
        case .tagResponse, .malformedTag: self = .tagResponse
        case .verifyMismatch: self = .verification
        case .locked: self = .readOnly
        case .capacity: self = .capacity
        case .notFormatted, .holdsData: self = .notFormatted
        case .unsupported, .twoTags, .other: self = .unsupported
        case .password: self = .authentication
        case .counterfeit, .notGenuine: self = .notGenuine
        case .data: self = .data
        case .ledger: self = .ledger
        }
    }

    /// A word or two for the station line: `lost`, `NAK`, `verify`…
    public var short: String {
        switch self {
        case .tagLost: "lost"
        case .tagResponse: "NAK"
        case .verification: "verify"
        case .readOnly: "read-only"
        case .capacity: "too big"
        case .notFormatted: "no NDEF"
        case .unsupported: "unsupported"
        case .authentication: "auth"
        case .notGenuine: "not genuine"
        case .data: "data"
        case .ledger: "ledger"
        }
    }
}
