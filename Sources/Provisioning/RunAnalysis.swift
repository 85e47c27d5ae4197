import Foundation

/// What a ledger's attempts (or one named run's) say about the work: failures by cause, the
/// time span and rate, splits per reader, chip model and station, tags locked and protected.
///
/// The one definition of these figures for both ledgers: built from
/// ``ProvisioningLedger/attempts(run:)`` (``ProvisioningLedger/analysis(run:)``), used by
/// `ledger stats` and `ledger report`.
public struct RunAnalysis: Sendable, Hashable, Codable {
    /// Attempts counted.
    public var attempts: Int
    /// Tags done (distinct UIDs with a `done` attempt).
    public var done: Int
    /// Failed attempts.
    public var failed: Int
    /// Attempts refused as counterfeit.
    public var counterfeit: Int
    /// Void tags (distinct UIDs): written and verified while their row or counter went to another
    /// station, to be discarded or erased (``LedgerAttemptStatus/void``). Not failures.
    public var void: Int
    /// Void attempts nobody has recorded as discarded or erased yet (`ledger resolve`).
    public var voidOpen: Int
    /// Tags done and locked (distinct UIDs).
    public var locked: Int
    /// Tags done and password-protected (distinct UIDs).
    public var protected: Int
    /// Attempts that did not end done (failed and counterfeit) by ``FailureCause`` code
    /// (`unrecorded` for attempts from before the ledger kept causes), most first.
    public var failuresByCause: [CauseCount]
    /// The first attempt's start (ISO 8601), if any.
    public var firstStart: String?
    /// The last attempt's end (ISO 8601), if any.
    public var lastFinish: String?
    /// Seconds from ``firstStart`` to ``lastFinish``.
    public var seconds: Double?
    /// Tags done per minute over the span (nil with fewer than two tags done).
    public var tagsPerMinute: Double?
    /// Per reader (connection string), by name.
    public var readers: [Split]
    /// Per chip model, by name.
    public var models: [Split]
    /// Per station (named runs; attempts without one are left out), by name.
    public var stations: [Split]

    /// A count of attempts with one cause.
    public struct CauseCount: Sendable, Hashable, Codable {
        /// The ``FailureCause`` code, or `unrecorded`.
        public var cause: String
        /// Attempts.
        public var count: Int
    }

    /// One reader's, model's or station's share.
    public struct Split: Sendable, Hashable, Codable {
        /// The reader, model or station.
        public var name: String
        /// Attempts.
        public var attempts: Int
        /// Tags done (distinct UIDs).
        public var done: Int
        /// Failed attempts.
        public var failed: Int
        /// Counterfeit attempts.
        public var counterfeit: Int
    }

    /// The analysis of `attempts` (any order).
    public init(_ attempts: [LedgerAttempt]) {
        let done = attempts.filter { $0.status == LedgerAttemptStatus.done.rawValue }
        self.attempts = attempts.count
        self.done = Set(done.map(\.uid)).count
        failed = attempts.count { $0.status == LedgerAttemptStatus.failed.rawValue }
        counterfeit = attempts.count { $0.status == LedgerAttemptStatus.counterfeit.rawValue }
        let voided = attempts.filter { $0.status == LedgerAttemptStatus.void.rawValue }
        void = Set(voided.map(\.uid)).count
        voidOpen = voided.count { $0.resolution == nil }
        locked = Set(done.filter(\.locked).map(\.uid)).count
        protected = Set(done.filter(\.protected).map(\.uid)).count
        var causes: [String: Int] = [:]
        for attempt in attempts where attempt.status != LedgerAttemptStatus.done.rawValue && attempt.status != LedgerAttemptStatus.void.rawValue {
            causes[FailureCause.label(attempt.cause), default: 0] += 1
        }
        failuresByCause = causes.map { CauseCount(cause: $0.key, count: $0.value) }
            .sorted { $0.count != $1.count ? $0.count > $1.count : $0.cause < $1.cause }
        let starts = attempts.compactMap { a in LedgerTime.parse(a.started).map { (a.started, $0) } }
        let ends = attempts.compactMap { a in LedgerTime.parse(a.finished).map { (a.finished, $0) } }
        let first = starts.min { $0.1 < $1.1 }, last = ends.max { $0.1 < $1.1 }
        firstStart = first?.0
        lastFinish = last?.0
        if let first, let last {
            let span = max(0, last.1.timeIntervalSince(first.1))
            seconds = span
            tagsPerMinute = self.done >= 2 && span > 0 ? Double(self.done) / span * 60 : nil
        }
        readers = Self.splits(attempts, by: { $0.reader })
        models = Self.splits(attempts, by: { $0.model })
        stations = Self.splits(attempts, by: { $0.station })
    }

    private static func splits(_ attempts: [LedgerAttempt], by key: (LedgerAttempt) -> String?) -> [Split] {
        var groups: [String: [LedgerAttempt]] = [:]
        for attempt in attempts {
            guard let name = key(attempt) else { continue }
            groups[name, default: []].append(attempt)
        }
        return groups.keys.sorted().map { name in
            let group = groups[name] ?? []
            return Split(
                name: name, attempts: group.count,
                done: Set(group.filter { $0.status == LedgerAttemptStatus.done.rawValue }.map(\.uid)).count,
                failed: group.count { $0.status == LedgerAttemptStatus.failed.rawValue },
                counterfeit: group.count { $0.status == LedgerAttemptStatus.counterfeit.rawValue })
        }
    }
}

extension ProvisioningLedger {
    /// The analysis of the ledger's attempts (the named run's, when given): ``RunAnalysis``.
    public func analysis(run: String? = nil) throws(LedgerError) -> RunAnalysis {
        RunAnalysis(try attempts(run: run))
    }

    /// ``stats(run:)`` with, when `analysed`, its ``LedgerStats/analysis``.
    public func stats(run: String?, analysed: Bool) throws(LedgerError) -> LedgerStats {
        var stats = try stats(run: run)
        if analysed { stats.analysis = try analysis(run: run) }
        return stats
    }
}
