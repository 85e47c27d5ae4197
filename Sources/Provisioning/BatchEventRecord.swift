import Foundation
import NFCCore

/// One line of `nfctool batch --events`: a batch event as a JSON object for a GUI, with the
/// ISO 8601 time it happened. The fields present depend on ``event``; docs/batch.md gives the
/// schema. Absent fields are left out, never written as `null`.
public struct BatchEventRecord: Sendable, Hashable, Encodable {
    /// What happened: `waiting`, `tagFound`, `done`, `failed`, `skipped`, `counterfeit`,
    /// `takeAway`, `severalTags`, `readerLost`, `ledger`, `runProgress`, `progress`, `summary`.
    public var event: String
    /// When, ISO 8601 in UTC with milliseconds (`2025-01-31T12:00:00.123Z`).
    public var time: String
    /// The reader's connection string (per-reader events).
    public var reader: String?
    /// The tag's UID in hex.
    public var uid: String?
    /// What a done tag got (`done`).
    public var message: String?
    /// The failure's sentence (`failed`, `readerLost`, `ledger` when unavailable).
    public var error: String?
    /// The failure's short typed code (``FailureCause``'s raw value, as the ledger stores it; `failed`).
    public var cause: String?
    /// Why a tag was skipped or refused (`skipped`, `counterfeit`).
    public var reason: String?
    /// Tags in the field (`severalTags`).
    public var count: Int?
    /// The shared ledger's state (`ledger`): `unavailable`, `back`, `waitingForRows`, `void`
    /// (a tag recorded void: ``VoidTag``), `voidErased`, `voidNotErased`.
    public var state: String?
    /// Tags held in the journal (`ledger` unavailable), recorded from it (`ledger` back), or
    /// rows held at other stations (`ledger` waitingForRows).
    public var tags: Int?
    /// The journal's path (`ledger` unavailable).
    public var journal: String?
    /// The named run (`runProgress`, and `progress`/`summary` of a named run).
    public var run: String?
    /// Tags done: this process's (`summary`), or as the station line shows them (`progress`,
    /// `runProgress`: the run's).
    public var done: Int?
    /// The total shown as `done/total`, when there is one.
    public var total: Int?
    /// Tags failed in this process.
    public var failed: Int?
    /// Failures in this process by cause (``FailureCause`` raw value → count).
    public var failures: [String: Int]?
    /// Tags skipped in this process.
    public var skipped: Int?
    /// Counterfeit chips refused in this process.
    public var counterfeit: Int?
    /// Tags per minute.
    public var ratePerMinute: Double?
    /// Seconds left at that rate.
    public var etaSeconds: Double?
    /// Seconds since the batch started (`progress`), or the whole run's length (`summary`).
    public var seconds: Double?
    /// Stations that recorded tags in the named run (`runProgress`).
    public var stations: Int?
    /// Why the batch stopped, as ``BatchStop``'s raw value (`summary`).
    public var stop: String?
    /// Why the batch stopped, in words (`summary`).
    public var stopReason: String?
    /// The ledger's location (`summary`).
    public var ledger: String?

    /// A record of `event` named `name` at `time`, every other field absent.
    public init(event name: String, time: String) {
        self.event = name
        self.time = time
    }

    /// The record of a batch event at `time` (ISO 8601).
    public init(_ event: BatchEvent, time: String) {
        switch event {
        case .waiting(let reader):
            self.init(event: "waiting", time: time)
            self.reader = reader
        case .tagFound(let reader, let uid):
            self.init(event: "tagFound", time: time)
            (self.reader, self.uid) = (reader, uid)
        case .done(let reader, let uid, let summary):
            self.init(event: "done", time: time)
            (self.reader, self.uid, message) = (reader, uid, summary)
        case .failed(let reader, let uid, let error, let cause):
            self.init(event: "failed", time: time)
            (self.reader, self.uid, self.error, self.cause) = (reader, uid, error, cause.rawValue)
        case .skipped(let reader, let uid, let reason):
            self.init(event: reason.hasPrefix("counterfeit") ? "counterfeit" : "skipped", time: time)
            (self.reader, self.uid, self.reason) = (reader, uid, reason)
        case .removeTag(let reader, let uid):
            self.init(event: "takeAway", time: time)
            (self.reader, self.uid) = (reader, uid)
        case .readerFailed(let reader, let error):
            self.init(event: "readerLost", time: time)
            (self.reader, self.error) = (reader, error)
        case .severalTags(let reader, let count):
            self.init(event: "severalTags", time: time)
            (self.reader, self.count) = (reader, count)
        case .ledgerStatus(.progress(let report)):
            self.init(event: "runProgress", time: time)
            (run, done, total, stations) = (report.run, report.done, report.total, report.stations)
            ratePerMinute = report.rate.map { $0 * 60 }
            etaSeconds = report.secondsLeft
        case .ledgerStatus(let status):
            self.init(event: "ledger", time: time)
            switch status {
            case .unavailable(let error, let journalled, let journal):
                (state, self.error, tags, self.journal) = ("unavailable", error, journalled, journal)
            case .back(let recorded): (state, tags) = ("back", recorded)
            case .waitingForRows(let held): (state, tags) = ("waitingForRows", held)
            case .voidTag(let tag): (state, reader, uid, reason) = ("void", tag.reader, tag.uid, tag.sentence)
            case .voidErased(let tag, let error): (state, reader, uid, self.error) = (error == nil ? "voidErased" : "voidNotErased", tag.reader, tag.uid, error)
            case .progress: break
            }
        case .feedback(let reader, let note):
            self.init(event: "feedback", time: time)
            self.reader = reader
            switch note {
            case .unavailable: state = "unavailable"
            case .failed(let error): (state, self.error) = ("failed", error)
            }
        }
    }

    /// A `progress` record: the station line's figures `elapsed` after the start.
    public static func progress(_ status: BatchStationStatus, elapsed: Duration, time: String) -> BatchEventRecord {
        var record = BatchEventRecord(event: "progress", time: time)
        record.fill(status)
        (record.done, record.total) = (status.shownDone, status.shownTotal)
        record.ratePerMinute = status.tagsPerMinute(elapsed: elapsed)
        record.etaSeconds = status.secondsLeft(elapsed: elapsed)
        record.seconds = BatchReportText.seconds(elapsed)
        return record
    }

    /// The closing `summary` record: this process's totals, why it stopped, and the ledger.
    public static func summary(
        _ summary: BatchSummary, status: BatchStationStatus, seconds: Double, ledger: String, time: String
    ) -> BatchEventRecord {
        var record = BatchEventRecord(event: "summary", time: time)
        record.fill(status)
        (record.done, record.failed, record.skipped, record.counterfeit) = (summary.done, summary.failed, summary.skipped, summary.counterfeit)
        record.seconds = seconds
        record.ratePerMinute = seconds > 0 ? Double(summary.done) / seconds * 60 : nil
        (record.stop, record.stopReason, record.ledger) = ((summary.stop ?? .readersStopped).rawValue, summary.stopReason, ledger)
        return record
    }

    private mutating func fill(_ status: BatchStationStatus) {
        (failed, skipped, counterfeit) = (status.failed, status.skipped, status.counterfeit)
        failures = Dictionary(uniqueKeysWithValues: status.failures.map { ($0.key.rawValue, $0.value) })
        run = status.run?.run
    }

    /// The record as one line of JSON with its newline (keys sorted; characters a terminal acts
    /// on written as `\u` escapes, so the line is safe on a terminal too).
    public func jsonLine() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Every field is a string, number, dictionary or nil: encoding cannot fail.
        guard let data = try? encoder.encode(self) else { return Array("{\"event\":\"\(event)\",\"time\":\"\(time)\"}\n".utf8) }
        return Array(TerminalSafeText.escapingInJSON(String(decoding: data, as: UTF8.self)).utf8) + [0x0A]
    }
}
