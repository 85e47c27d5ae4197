/// What a reader self-test may do.
public struct SelfTestOptions: Sendable, Hashable {
    /// How long to wait for the tag, for its removal and for its return.
    public var waitLimit: Duration
    /// Whether the removal step asks the user to take the tag away and put it back (off for
    /// scripts: the step is reported skipped).
    public var checksRemoval: Bool
    /// Whether a tag without NDEF may be formatted for the write steps (`--format --yes`).
    public var formatsBlankTag: Bool

    /// Creates options.
    public init(waitLimit: Duration, checksRemoval: Bool = true, formatsBlankTag: Bool = false) {
        self.waitLimit = waitLimit
        self.checksRemoval = checksRemoval
        self.formatsBlankTag = formatsBlankTag
    }
}
