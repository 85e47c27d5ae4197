import Foundation
import NDEF
import NFCCore
import NFCTags

/// What a batch tells the operator, as it happens.
public enum BatchEvent: Sendable, Hashable {
    /// Waiting for a tag on `reader`.
    case waiting(reader: String)
    /// A tag came onto `reader`, alone: its work (checks, write, verification, record) starts.
    case tagFound(reader: String, uid: String)
    /// A tag was written, verified (and locked/protected) and recorded.
    case done(reader: String, uid: String, summary: String)
    /// A tag failed; the ledger has the attempt. `cause` is the failure's short typed code
    /// (``FailureCause``, the code the ledger stores), `error` the sentence.
    case failed(reader: String, uid: String, error: String, cause: FailureCause)
    /// A tag was refused before any write (already provisioned, no data for it).
    case skipped(reader: String, uid: String, reason: String)
    /// The operator should take the tag away; the next is accepted once it has left.
    case removeTag(reader: String, uid: String)
    /// The reader failed (unplugged, closed); the worker stopped.
    case readerFailed(reader: String, error: String)
    /// `count` tags answer together on `reader`: none is written until only one is left
    /// (said once per crowded field).
    case severalTags(reader: String, count: Int)
    /// What the station's shared ledger is doing (a named run): unreachable, back, waiting for
    /// rows, the run's overall progress.
    case ledgerStatus(LedgerStatus)
    /// Reader feedback (``BatchOptions/feedback``) on `reader`: each note at most once per reader.
    case feedback(reader: String, FeedbackNote)
}

/// What the operator is told about reader feedback (`--feedback`).
public enum FeedbackNote: Sendable, Hashable {
    /// The reader has no buzzer or LED NFCKit drives: the run goes on without feedback on it.
    case unavailable
    /// A feedback command failed (`error`): the tag's result stands; later failures on the
    /// reader are not told again.
    case failed(error: String)
}

/// The shared ledger's state as the operator is told it.
public enum LedgerStatus: Sendable, Hashable {
    /// The ledger cannot be reached: the station takes no tag until it is back. `journalled`
    /// verified tags are held in the local journal, written but not recorded.
    case unavailable(error: String, journalled: Int, journal: String)
    /// The ledger is back: `recorded` journalled tags were recorded; tags are taken again.
    case back(recorded: Int)
    /// No row is free now: `held` rows are being written at other stations (they come back if
    /// those fail or their lease ends). No tag is taken meanwhile.
    case waitingForRows(held: Int)
    /// The run's overall progress.
    case progress(RunProgressReport)
    /// A tag written here was recorded void: its row or counter went to another station while
    /// this one was cut off. It must be discarded or erased (``VoidTag/sentence``).
    case voidTag(VoidTag)
    /// A void tag still on its reader was erased (`--void-erase`; `error` nil), or could not be.
    case voidErased(VoidTag, error: String?)
}

/// The run's overall count for the operator: done of total, rate and time left.
public struct RunProgressReport: Sendable, Hashable {
    /// The run's name.
    public var run: String
    /// Tags done in the run, at every station.
    public var done: Int
    /// Rows in the run (nil for a template run).
    public var total: Int?
    /// Tags per second over the last samples, run-wide.
    public var rate: Double?
    /// Seconds left at that rate.
    public var secondsLeft: Double?
    /// Stations that recorded tags in the run.
    public var stations: Int

    /// A report of `done` of `total` tags in `run` at `stations` stations, `rate` tags per
    /// second, `secondsLeft` to go.
    public init(run: String, done: Int, total: Int?, rate: Double?, secondsLeft: Double?, stations: Int) {
        (self.run, self.done, self.total, self.rate, self.secondsLeft, self.stations) = (run, done, total, rate, secondsLeft, stations)
    }
}

/// Run-wide rate and ETA from samples of the run's done count (a sliding window of 30 s).
public struct RunProgressMeter: Sendable {
    private var samples: [(at: ContinuousClock.Instant, done: Int)] = []
    /// A meter with no samples.
    public init() {}

    /// Adds a sample and returns the report.
    public mutating func report(run: String, progress: RunProgress, at now: ContinuousClock.Instant = .now) -> RunProgressReport {
        let done = progress.rows > 0 ? progress.rowsDone : progress.tagsDone
        samples.append((now, done))
        while samples.count > 2, let oldest = samples.first, now - oldest.at > .seconds(30) { samples.removeFirst() }
        var rate: Double?
        if let first = samples.first, now - first.at > .milliseconds(500) {
            let seconds = Double((now - first.at).components.seconds) + Double((now - first.at).components.attoseconds) / 1e18
            rate = Double(done - first.done) / seconds
        }
        let total = progress.rows > 0 ? progress.rows : nil
        let left = total.flatMap { total in rate.flatMap { $0 > 0 ? Double(total - done) / $0 : nil } }
        return RunProgressReport(run: run, done: done, total: total, rate: rate, secondsLeft: left, stations: progress.stations.count)
    }
}

/// The totals of a batch.
public struct BatchSummary: Sendable, Hashable, Codable {
    /// Tags written, verified and recorded.
    public var done = 0
    /// Tags that failed.
    public var failed = 0
    /// Tags refused before any write.
    public var skipped = 0
    /// Tags refused before any write because their chip is not genuine (`--require-genuine`):
    /// counted apart from ``skipped``.
    public var counterfeit = 0
    /// The last UID done.
    public var lastUID: String?
    /// Why the batch stopped, in words.
    public var stopReason = ""
    /// Why the batch stopped, as a stable name; nil while it runs.
    public var stop: BatchStop?
    /// The ledger error that stopped the run, if one did (not one that only made it pause: an
    /// unreachable shared ledger). A run stopped by the ledger has failed, whether or not a tag
    /// was in progress: `nfctool batch` exits 1.
    public var ledgerError: String?
    /// Tags written and verified whose attempts still wait in the journal at the end (the
    /// shared ledger stayed unreachable): not in the ledger, so the run has not succeeded.
    public var unrecorded = 0
    /// The journal they wait in.
    public var journal: String?
    /// Tags written here and recorded void (their row or counter went to another station)
    /// that are not accounted for (not erased by `--void-erase`): the run has not succeeded
    /// until each is discarded or erased and resolved (`nfctool ledger resolve`).
    public var voidOpen = 0
    /// Void tags this station erased (`--void-erase`).
    public var voidErased = 0

    /// Totals of `done`, `failed`, `skipped` and `counterfeit` tags (a run starts with none).
    public init(done: Int = 0, failed: Int = 0, skipped: Int = 0, counterfeit: Int = 0) {
        (self.done, self.failed, self.skipped, self.counterfeit) = (done, failed, skipped, counterfeit)
    }
}
