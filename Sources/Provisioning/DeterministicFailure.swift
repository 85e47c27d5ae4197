public import NFCTags

/// A failure that the next tag of the same kind would have too: the same message on the same
/// model, the same state. ``BatchOptions/maxConsecutiveFailures`` in a row stop the run.
public enum DeterministicFailure: String, Sendable, Hashable {
    /// The message does not fit the tag.
    case capacity = "the message does not fit"
    /// The tag is read-only.
    case readOnly = "read-only"
    /// The tag holds no NDEF and is not to be formatted.
    case notFormatted = "not NDEF formatted"
    /// The tag (or reader) cannot do what the run asks.
    case unsupported = "not supported"

    /// The deterministic failure of a tag error's code; nil for other errors (a tag pulled
    /// away, a wrong password, a read-back mismatch).
    public init?(_ code: NFCTagError.Code) {
        switch code {
        case .capacityExceeded: self = .capacity
        case .readOnly: self = .readOnly
        case .notNDEFFormatted: self = .notFormatted
        case .notSupported, .refused: self = .unsupported
        default: return nil
        }
    }
}
