
/// How one step of a reader self-test ended.
public enum SelfTestOutcome: String, Sendable, Hashable, Encodable {
    /// The step ran and found what it should.
    case passed
    /// The step ran and did not.
    case failed
    /// The step was not run (the tag does not have the path, or an option said not to).
    case skipped
}

/// One step of a reader self-test: what it checked, how it ended, what it found and how long it
/// took.
public struct SelfTestStep: Sendable, Hashable, Encodable {
    /// The step's stable name: `reader`, `identify`, `presence`, `ndef-read`, `page-read`,
    /// `fast-read`, `dump`, `removal`, `write-test`, `restore`.
    public var step: String
    /// How it ended.
    public var result: SelfTestOutcome
    /// What it found, or why it failed or was skipped, in words.
    public var detail: String
    /// How long it took, in milliseconds.
    public var milliseconds: Int

    /// Creates a step.
    public init(step: String, result: SelfTestOutcome, detail: String, milliseconds: Int) {
        self.step = step
        self.result = result
        self.detail = detail
        self.milliseconds = milliseconds
    }
}

/// The report of a reader self-test (``ReaderSelfTest``): the reader, the tag, every step.
public struct SelfTestReport: Sendable, Hashable, Encodable {
    /// The connection string the reader was opened with.
    public var connection: String
    /// The reader's name.
    public var reader: String
    /// The reader's chip and firmware where it says (libnfc readers).
    public var firmware: String?
    /// The PC/SC profile chosen, PC/SC readers only.
    public var profile: String?
    /// The tag's model, once identified.
    public var model: String?
    /// The tag's UID in upper-case hex, once identified.
    public var uid: String?
    /// Every step run or skipped, in order.
    public var steps: [SelfTestStep]

    /// Creates an empty report for a reader.
    public init(connection: String, reader: String, firmware: String?, profile: String?) {
        self.connection = connection
        self.reader = reader
        self.firmware = firmware
        self.profile = profile
        steps = []
    }

    /// True when at least one step ran and none failed (a skipped step is listed, not failed).
    public var passed: Bool {
        steps.contains { $0.result == .passed } && !steps.contains { $0.result == .failed }
    }

    private enum CodingKeys: String, CodingKey { case connection, reader, firmware, profile, model, uid, passed, steps }

    /// The JSON form: the fields above and `passed`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(connection, forKey: .connection)
        try container.encode(reader, forKey: .reader)
        try container.encode(firmware, forKey: .firmware)
        try container.encode(profile, forKey: .profile)
        try container.encode(model, forKey: .model)
        try container.encode(uid, forKey: .uid)
        try container.encode(passed, forKey: .passed)
        try container.encode(steps, forKey: .steps)
    }
}
