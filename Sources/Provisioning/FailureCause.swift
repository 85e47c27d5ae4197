public import NFCTags

/// Why an attempt did not end done, as a short stable code: the value of the ledgers' `cause`
/// column, of `ledger export`'s `cause` field and of `ledger stats`' failures by cause. Scripts
/// may match these codes; new ones may be added, existing ones never change meaning.
///
/// Derived in one place, ``init(_:)``, from the typed errors of the tag layer
/// (``NFCTagError``); the failures that are not tag errors (a counterfeit, the data, the
/// ledger) have their own cases, which the batch names where it meets them.
public enum FailureCause: String, Sendable, Hashable, CaseIterable, Codable {
    /// The tag or the field failed during a WRITE (an RF error or no answer, the tag still
    /// there as far as the reader knows).
    case rfWrite = "rf-write"
    /// The tag or the field failed during a READ or FAST_READ.
    case rfRead = "rf-read"
    /// The tag or the field failed during another command (identification, a password, a
    /// Type 4 APDU).
    case rf
    /// The tag left the field during the attempt.
    case tagLost = "tag-lost"
    /// The tag refused a command (NAK) or answered with the wrong length.
    case tagResponse = "tag-response"
    /// The read-back after the write differs from what was written.
    case verifyMismatch = "verify-mismatch"
    /// The message does not fit the tag.
    case capacity
    /// The tag is read-only (locked); nothing was written.
    case locked
    /// A password or key is needed, or the tag refused the one given.
    case password
    /// The tag holds no NDEF area and the run does not format.
    case notFormatted = "not-formatted"
    /// The tag's memory breaks its platform's rules (capability container, TLVs, message).
    case malformedTag = "malformed-tag"
    /// The tag (or reader) cannot do what the run asks: no mirror, no lock, no password.
    case unsupported
    /// The tag holds data and the run would not format over it.
    case holdsData = "holds-data"
    /// Two or more tags answered together (the batch writes neither and records no attempt;
    /// for displays of a station's events).
    case twoTags = "two-tags"
    /// Refused as a counterfeit: the chip's originality signature is not NXP's.
    case counterfeit
    /// Refused because the chip could not be shown genuine (no signature, no key for it).
    case notGenuine = "not-genuine"
    /// The tag's data could not be built (template, manifest row, message encoding).
    case data
    /// The ledger could not claim or record the tag.
    case ledger
    /// Anything else.
    case other

    /// The cause of a tag-layer error: reader failures by the way the exchange went
    /// (``NFCTagError/exchange``) or the tag leaving the field; the others by their code.
    public init(_ error: NFCTagError) {
        switch error.code {
        case .connectionLost:
            switch error.readerError?.code {
            case .tagLost?, .closed?, .notConnected?: self = .tagLost
            default:
                switch error.exchange {
                case .write?: self = .rfWrite
                case .read?: self = .rfRead
                case nil: self = .rf
                }
            }
        case .tagResponse: self = .tagResponse
        case .verificationFailed: self = .verifyMismatch
        case .capacityExceeded: self = .capacity
        case .readOnly: self = .locked
        case .passwordRequired, .authenticationFailed: self = .password
        case .notNDEFFormatted: self = .notFormatted
        case .malformedTag, .malformedMessage: self = .malformedTag
        case .notSupported, .refused: self = .unsupported
        case .alreadyFormatted: self = .holdsData
        case .invalidMessage, .invalidParameter: self = .data
        }
    }

    /// The cause of an admission refusal recorded with `status`: ``counterfeit`` for a
    /// counterfeit, ``notGenuine`` for a chip not shown genuine.
    public init(refusal status: LedgerAttemptStatus) {
        self = status == .counterfeit ? .counterfeit : .notGenuine
    }

    /// The label for `ledger stats` and the report of a stored cause: the code, or
    /// `unrecorded` for attempts written before the ledger kept causes.
    public static func label(_ stored: String?) -> String { stored ?? "unrecorded" }

    /// A word or two for batch's station line: `RF write`, `lost`, `verify`…
    public var short: String {
        switch self {
        case .rfWrite: "RF write"
        case .rfRead: "RF read"
        case .rf: "RF"
        case .tagLost: "lost"
        case .tagResponse: "NAK"
        case .verifyMismatch: "verify"
        case .capacity: "too big"
        case .locked: "read-only"
        case .password: "password"
        case .notFormatted: "no NDEF"
        case .malformedTag: "malformed"
        case .unsupported: "unsupported"
        case .holdsData: "holds data"
        case .twoTags: "two tags"
        case .counterfeit: "counterfeit"
        case .notGenuine: "not genuine"
        case .data: "data"
        case .ledger: "ledger"
        case .other: "other"
        }
    }
}
