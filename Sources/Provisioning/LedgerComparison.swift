import NFCTags

/// A tag as it is now (``ProvisionedTagState``) against what the ledger recorded for its UID:
/// the latest `done` attempt (of one named run, when the caller gives only its attempts). What
/// the ledger keeps is compared, no more: the model, the message's summary (each record's type
/// and its URI or text) and its size in bytes, whether it was locked, whether a password was set.
/// The ledger keeps no message bytes, so two messages with the same summary and size (the same
/// URI, a MIME record of the same type and size) are not told apart; nor does it keep an
/// originality verdict for a done tag (`verify --expect-genuine` checks the chip itself).
public struct LedgerComparison: Sendable, Hashable, Encodable {
    /// One thing the ledger recorded, and what the tag shows.
    public struct Check: Sendable, Hashable, Encodable {
        /// What is compared: `ledger`, `model`, `message`, `bytes`, `lock`, `password`.
        public var check: String
        /// What the ledger recorded (JSON `expected`, as the other checks of `verify`).
        public var expected: String
        /// What the tag shows.
        public var found: String
        /// Whether they agree.
        public var ok: Bool

        /// A check.
        public init(check: String, expected: String, found: String, ok: Bool) {
            self.check = check
            self.expected = expected
            self.found = found
            self.ok = ok
        }
    }

    /// The tag's UID, upper-case hex.
    public var uid: String
    /// The attempt compared with, nil when the ledger has no done attempt for the UID.
    public var attempt: LedgerAttempt?
    /// The checks, in order; a UID the ledger has not done gives the one check `ledger`.
    public var checks: [Check]

    /// A comparison as a caller makes it (a tag that could not be read: one failed check).
    public init(uid: String, attempt: LedgerAttempt?, checks: [Check]) {
        self.uid = uid
        self.attempt = attempt
        self.checks = checks
    }

    /// Whether the ledger has the tag done and every check agrees.
    public var matches: Bool { attempt != nil && checks.allSatisfy(\.ok) }
    /// The checks that disagree.
    public var differences: [Check] { checks.filter { !$0.ok } }

    private enum CodingKeys: String, CodingKey { case uid, match, attempt, checks }
    private enum AttemptKeys: String, CodingKey { case id, runName, station, finished }

    /// `uid`, `match`, `attempt` (`id`, `runName`, `station`, `finished`; null when the ledger
    /// has none) and `checks`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(uid, forKey: .uid)
        try container.encode(matches, forKey: .match)
        if let attempt {
            var nested = container.nestedContainer(keyedBy: AttemptKeys.self, forKey: .attempt)
            try nested.encode(attempt.id, forKey: .id)
            try nested.encode(attempt.runName, forKey: .runName)
            try nested.encode(attempt.station, forKey: .station)
            try nested.encode(attempt.finished, forKey: .finished)
        } else {
            try container.encodeNil(forKey: .attempt)
        }
        try container.encode(checks, forKey: .checks)
    }

    /// The latest `done` attempt of `uid` (upper-case hex) among `attempts`, nil when none is.
    public static func recordedAttempt(uid: String, in attempts: [LedgerAttempt]) -> LedgerAttempt? {
        attempts.filter { $0.uid == uid && $0.status == LedgerAttemptStatus.done.rawValue }.max { $0.id < $1.id }
    }

    /// Compares `state` with the latest done attempt of its UID among `attempts` (a ledger's,
    /// or one run's).
    public init(_ state: ProvisionedTagState, attempts: [LedgerAttempt]) {
        uid = state.uid
        guard let attempt = Self.recordedAttempt(uid: state.uid, in: attempts) else {
            attempt = nil
            let others = attempts.filter { $0.uid == state.uid }
            let found: String
            if others.isEmpty {
                found = "not in the ledger"
            } else if others.contains(where: { $0.status == LedgerAttemptStatus.counterfeit.rawValue }) {
                found = "recorded as counterfeit (refused by batch --require-genuine), never done"
            } else {
                found = "recorded only as failed (\(others.count) attempt\(others.count == 1 ? "" : "s")), never done"
            }
            checks = [Check(check: "ledger", expected: "a done attempt", found: found, ok: false)]
            return
        }
        self.attempt = attempt
        var checks = [Check(check: "model", expected: attempt.model, found: state.model, ok: attempt.model == state.model)]
        checks += Self.messageChecks(state, attempt)
        checks.append(Self.lockCheck(state.lock, recorded: attempt.locked))
        checks.append(Self.protectionCheck(state.protection, recorded: attempt.protected))
        self.checks = checks
    }

    /// The message's summary and size.
    static func messageChecks(_ state: ProvisionedTagState, _ attempt: LedgerAttempt) -> [Check] {
        if state.isNTAG424 {
            // The ledger keeps the SUN template and the file's size; the chip answers a new
            // message (counter, MAC) at every read.
            return [Check(check: "message", expected: attempt.summary, found: "not compared: an NTAG 424 DNA's SUN message changes at every read", ok: true)]
        }
        switch state.message {
        case .unavailable(let reason):
            return [Check(check: "message", expected: attempt.summary, found: reason, ok: false)]
        case .message(let summary, let bytes):
            return [
                Check(check: "message", expected: attempt.summary, found: summary, ok: summaryMatches(recorded: attempt.summary, found: summary, mirror: state.mirror)),
                Check(check: "bytes", expected: String(attempt.bytes), found: String(bytes), ok: attempt.bytes == bytes),
            ]
        }
    }

    /// Whether summaries agree, byte for byte; with a mirror on, the recorded placeholder
    /// characters may read as what the chip mirrors there (hex digits, and the `x` between UID
    /// and counter), and nothing else may differ.
    static func summaryMatches(recorded: String, found: String, mirror: NTAGMirror?) -> Bool {
        let (recorded, found) = (Array(recorded.utf8), Array(found.utf8))
        guard recorded != found else { return true }
        guard let mirror, recorded.count == found.count,
              let first = recorded.indices.first(where: { recorded[$0] != found[$0] }),
              let last = recorded.indices.last(where: { recorded[$0] != found[$0] })
        else { return false }
        let pattern = mirror.placeholder
        // The placeholder occurrence that covers every difference.
        let lowest = max(0, last - pattern.count + 1), highest = min(first, recorded.count - pattern.count)
        guard lowest <= highest else { return false }
        return (lowest...highest).contains { start in
            guard recorded[start..<(start + pattern.count)].elementsEqual(pattern) else { return false }
            return zip(pattern, found[start..<(start + pattern.count)]).allSatisfy { placeholder, shown in
                placeholder == NTAGMirrorBits.separator ? shown == placeholder : isUpperHexDigit(shown)
            }
        }
    }

    private static func isUpperHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    /// `locked` against the lock state.
    static func lockCheck(_ lock: ProvisionedTagState.Lock, recorded: Bool) -> Check {
        let found: String
        switch lock {
        case .locked: found = "locked"
        case .notLocked: found = "not locked"
        case .partly(let gaps): found = "read-only but not locked for good: " + gaps.joined(separator: "; ")
        case .unknown(let reason): found = "unknown (\(reason))"
        }
        let ok = recorded ? lock == .locked : lock == .notLocked
        return Check(check: "lock", expected: recorded ? "locked" : "not locked", found: found, ok: ok)
    }

    /// `protected` against the password protection.
    static func protectionCheck(_ protection: ProvisionedTagState.Protection, recorded: Bool) -> Check {
        let (found, isProtected): (String, Bool?) = switch protection {
        case .none: ("none", false)
        case .protected(let how): (how, true)
        case .unknown(let reason): ("unknown (\(reason))", nil)
        }
        return Check(check: "password", expected: recorded ? "protected" : "none", found: found, ok: isProtected == recorded)
    }
}

/// What `verify --ledger --count N` found over its tags, in the order they came.
public struct LedgerSampleSummary: Sendable, Hashable, Encodable {
    /// Every tag's comparison.
    public private(set) var tags: [LedgerComparison] = []

    /// Tags checked.
    public var checked: Int { tags.count }
    /// Tags that matched the ledger.
    public var matched: Int { tags.filter(\.matches).count }
    /// The tags that did not.
    public var mismatched: [LedgerComparison] { tags.filter { !$0.matches } }

    /// An empty summary.
    public init() {}

    /// Counts one tag's comparison.
    public mutating func add(_ comparison: LedgerComparison) { tags.append(comparison) }

    private enum CodingKeys: String, CodingKey { case checked, matched, mismatched, tags }
    private enum MismatchKeys: String, CodingKey { case uid, differences }

    /// `checked`, `matched`, `mismatched` (each `uid` with its `differences`) and `tags` (every
    /// comparison).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(checked, forKey: .checked)
        try container.encode(matched, forKey: .matched)
        var list = container.nestedUnkeyedContainer(forKey: .mismatched)
        for comparison in mismatched {
            var item = list.nestedContainer(keyedBy: MismatchKeys.self)
            try item.encode(comparison.uid, forKey: .uid)
            try item.encode(comparison.differences, forKey: .differences)
        }
        try container.encode(tags, forKey: .tags)
    }
}
