import Foundation
public import NDEF
import NFCCore
public import NFCTags

/// What one tag gets: its message and how the ledger describes it.
public struct BatchItem: Sendable {
    /// The message to write.
    public var message: NDEFMessage
    /// A few words for the ledger and the operator (`URI https://…`).
    public var summary: String
    /// The manifest row it came from.
    public var row: Int?
    /// The counter value it used.
    public var counter: Int?
    /// The NTAG21x mirror its message asks for (a manifest row's own), nil for
    /// ``BatchOptions/mirror``.
    public var mirror: NTAGMirror? = nil
}

/// Where each tag's data comes from.
public enum BatchSource: Sendable {
    /// A template: `build(uid, counter)` makes the message; a counter is allocated from the
    /// ledger per tag (at least `start`) when `usesCounter`.
    case template(usesCounter: Bool, start: Int, build: @Sendable (_ uid: [UInt8], _ counter: Int?) throws -> NDEFMessage)
    /// A manifest: rows consumed in order, skipping rows the ledger has done, or — with
    /// `matchByUID` — the row whose `uid` column names the tag.
    /// `mirror(row)` is the NTAG21x mirror a row's message asks for (its `url` column's
    /// `{mirror:…}`), nil for none.
    case manifest(
        rows: [ManifestRow], matchByUID: Bool, build: @Sendable (_ row: ManifestRow, _ uid: [UInt8]) throws -> NDEFMessage,
        mirror: @Sendable (_ row: ManifestRow) -> NTAGMirror? = { _ in nil })
}

/// Why ``BatchOptions/admission`` turned a tag away, as the ledger records it.
public struct BatchRefusal: Sendable, Hashable {
    /// The attempt's status in the ledger (``LedgerAttemptStatus/counterfeit``, or `failed`).
    public var status: LedgerAttemptStatus
    /// The ledger's error text.
    public var reason: String

    /// A refusal.
    public init(status: LedgerAttemptStatus, reason: String) {
        self.status = status
        self.reason = reason
    }
}

/// How a batch runs.
public struct BatchOptions: Sendable {
    /// Stop after this many tags done (nil: until the data or the operator stops it).
    public var count: Int?
    /// Stop after this many failed tags (nil: never).
    public var maxFailures: Int?
    /// Stop after this many consecutive tags failed the same deterministic way (the message
    /// does not fit, the tag is read-only, not NDEF formatted, or cannot do it): the next tags
    /// of the run would fail the same way. Nil never stops for it.
    public var maxConsecutiveFailures: Int? = 3
    /// Format blank (not NDEF) tags first.
    public var format = false
    /// Lock each tag after its verified write.
    public var lock = false
    /// Protect each NTAG21x with this password after the write and before the lock, if any (the
    /// lock sets CFGLCK, which freezes AUTH0 and ACCESS; the lock then authenticates with it).
    public var password: NTAGPassword?
    /// Write a tag whose UID the ledger already has as done.
    public var allowRewrite = false
    /// How a new tag is told from one that stays: a tag just handled is no new arrival until
    /// the reader has found an empty field for `debounce` (or a different tag); polls back off
    /// while a tag stays. See ``NFCTags/TagPresenceTracker``.
    public var presence = TagPresenceTracker.Options(debounce: .milliseconds(300), pollSlice: .milliseconds(200))
    /// How long one poll waits before checking for a stop (``presence``'s poll slice).
    public var pollSlice: Duration {
        get { presence.pollSlice }
        set { presence.pollSlice = newValue }
    }
    /// Stop when no new tag has come for this long (nil: wait for ever). A tag left on the
    /// reader is not a new tag.
    public var idleTimeout: Duration?
    /// The command timeout for tag operations.
    public var commandTimeout: Duration = .seconds(1)
    /// A check each tag must pass before anything is claimed or written for it (e.g. its
    /// originality signature): nil admits the tag; a refusal skips it, recorded in the ledger
    /// with the refusal's status (`counterfeit` for a chip not shown genuine) and reason (no row,
    /// no counter used).
    public var admission: (@Sendable (NFCTag) async -> BatchRefusal?)?
    /// Each message holds this NTAG21x mirror's placeholder characters once: tags are written
    /// with ``NFCTags/Type2Tag/writeNDEF(_:mirror:at:verify:)`` (NTAG213/215/216 only).
    public var mirror: NTAGMirror?
    /// NTAG 424 DNA mode: instead of writing the item's message, each tag is personalized for
    /// SUN with its own diversified keys and its URL read back and verified; the ledger's
    /// summary holds the URL template and the key identifiers (never a key).
    public var ntag424: NTAG424BatchPersonalization?

    /// Creates options.
    public init(count: Int? = nil, maxFailures: Int? = nil) {
        self.count = count
        self.maxFailures = maxFailures
    }
}

/// What a batch tells the operator, as it happens.
public enum BatchEvent: Sendable, Hashable {
    /// Waiting for a tag on `reader`.
    case waiting(reader: String)
    /// A tag was written, verified (and locked/protected) and recorded.
    case done(reader: String, uid: String, summary: String)
    /// A tag failed; the ledger has the attempt.
    case failed(reader: String, uid: String, error: String)
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

/// A station of a named run on a shared ledger: who it is, how long it may hold a row, and where
/// it keeps verified tags it could not record.
public struct SharedRun: Sendable {
    /// The run's name (`--run`).
    public var name: String
    /// This station's name (`--station`).
    public var station: String
    /// How long a claimed row stays this station's without being recorded.
    public var lease: Duration
    /// The local journal of tags written but not recorded.
    public var journal: BatchJournal

    /// Creates a station's view of a run.
    public init(name: String, station: String, lease: Duration, journal: BatchJournal) {
        self.name = name
        self.station = station
        self.lease = lease
        self.journal = journal
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
    /// Why the batch stopped.
    public var stopReason = ""
    /// The ledger error that stopped the run, if one did (not one that only made it pause: an
    /// unreachable shared ledger). A run stopped by the ledger has failed, whether or not a tag
    /// was in progress: `nfctool batch` exits 1.
    public var ledgerError: String?
}

/// Hands out each tag's data and keeps the totals for every worker of a run: manifest rows and
/// counters are never handed out twice, and the stop conditions (count, failures, data exhausted,
/// the operator) are decided in one place.
public actor BatchCoordinator {
    /// The ledger everything is recorded in.
    public nonisolated let ledger: any ProvisioningLedger
    /// The run's id in the ledger.
    public nonisolated let runID: Int64
    /// The named run this station works on a shared ledger, if any.
    public nonisolated let shared: SharedRun?
    let source: BatchSource
    let options: BatchOptions
    private var doneRows: Set<Int>
    private var claimedRows: Set<Int> = []
    private var uidsThisRun: Set<String> = []
    private var inFlight = 0
    /// The totals so far.
    public private(set) var summary = BatchSummary()
    private var stopped = false
    /// A named run: the ledger could not be reached (since when, last reconnection try).
    private var unavailable: (error: String, lastTry: ContinuousClock.Instant)?
    /// A named run: no row was free at the last claim (checked again before the next tag).
    private var waitingForRows: (held: Int, lastCheck: ContinuousClock.Instant)?
    /// A named run: every row is done.
    private var runComplete = false
    private var events: (@Sendable (BatchEvent) -> Void)?
    /// The deterministic failure of the last tags and how many tags in a row had it.
    private var repeatedFailure: (kind: DeterministicFailure, count: Int)?

    /// A coordinator for `source` on `ledger` (rows the ledger has done are skipped: `--resume`).
    /// With `shared`, this station works the named run: rows are claimed from the ledger,
    /// counters drawn from it, and first the journal of an earlier session is recorded.
    public init(ledger: any ProvisioningLedger, runID: Int64, source: BatchSource, options: BatchOptions, shared: SharedRun? = nil) throws(LedgerError) {
        self.ledger = ledger
        self.runID = runID
        self.source = source
        self.options = options
        self.shared = shared
        doneRows = shared == nil ? try ledger.doneRows() : []
        if let shared { _ = try Self.replay(shared.journal, into: ledger) }
    }

    /// Where the coordinator's own notices (ledger unavailable, back, waiting for rows) go.
    public func setEvents(_ events: @escaping @Sendable (BatchEvent) -> Void) { self.events = events }

    /// Whether workers should stop taking tags; the first reason found is kept in the summary.
    public func shouldStop() -> Bool {
        if stopped { return true }
        if let count = options.count, summary.done + inFlight >= count {
            if inFlight == 0 { stop("count reached") }
            return true
        }
        if let max = options.maxFailures, summary.failed >= max {
            stop("\(max) failures")
            return true
        }
        if shared != nil {
            if runComplete {
                if inFlight == 0 { stop("the run has no row left") }
                return true
            }
            return false
        }
        if case .manifest(let rows, let byUID, _, _) = source, !byUID,
           !rows.contains(where: { !doneRows.contains($0.index) && !claimedRows.contains($0.index) }) {
            if inFlight == 0 { stop("the manifest has no row left") }
            return true
        }
        return false
    }

    /// Whether a worker may take a tag now (a named run): false while the ledger cannot be
    /// reached (every second the journal is tried again; once it is recorded, tags are taken
    /// again) or while no row is free (checked every half second).
    public func readyForTag() -> Bool {
        guard let shared else { return true }
        let now = ContinuousClock.now
        if let down = unavailable {
            guard now - down.lastTry >= .seconds(1) else { return false }
            do throws(LedgerError) {
                // A real round trip first: an empty journal alone would need no server, and the
                // station would say "back" every second while it is still away.
                _ = try ledger.progress(run: shared.name)
                let recorded = try Self.replay(shared.journal, into: ledger)
                unavailable = nil
                events?(.ledgerStatus(.back(recorded: recorded)))
            } catch {
                unavailable = (error.description, now)
                return false
            }
        }
        if let waiting = waitingForRows {
            guard now - waiting.lastCheck >= .milliseconds(500) else { return false }
            do throws(LedgerError) {
                let progress = try ledger.progress(run: shared.name)
                if progress.rowsDone >= progress.rows {
                    runComplete = true
                    waitingForRows = nil
                } else if progress.rows - progress.rowsDone - progress.rowsHeld > 0 {
                    waitingForRows = nil
                } else {
                    waitingForRows = (waiting.held, now)
                    return false
                }
            } catch {
                ledgerFailed(error)
                return false
            }
        }
        return true
    }

    /// The ledger failed: unreachable (the station pauses and says so) or otherwise (the run stops).
    private func ledgerFailed(_ error: LedgerError) {
        guard let shared, error.isUnavailable else {
            stop(ledgerError: error)
            return
        }
        if unavailable == nil {
            let held = (try? shared.journal.entries().count) ?? 0
            events?(.ledgerStatus(.unavailable(error: error.description, journalled: held, journal: shared.journal.path)))
        }
        unavailable = (error.description, .now)
    }

    /// Records `journal`'s attempts in `ledger` (each once: they carry keys) and empties it;
    /// returns how many.
    static func replay(_ journal: BatchJournal, into ledger: any ProvisioningLedger) throws(LedgerError) -> Int {
        let entries = try journal.entries()
        for entry in entries { try ledger.record(entry) }
        if !entries.isEmpty { try journal.clear() }
        return entries.count
    }

    /// Records a verified (or failed) attempt. In a named run a ledger that cannot be reached
    /// gets it later: it goes to the journal (written, not recorded), and the station pauses.
    func record(_ attempt: LedgerAttempt) -> Result<Bool, LedgerError> {
        do throws(LedgerError) {
            try ledger.record(attempt)
            return .success(true)
        } catch {
            guard let shared, error.isUnavailable else {
                stop(ledgerError: error)
                return .failure(error)
            }
            do throws(LedgerError) {
                try shared.journal.append(attempt)
            } catch {
                stop(ledgerError: LedgerError("the journal \(shared.journal.path) cannot be written: \(error)"))
                return .failure(error)
            }
            ledgerFailed(error)
            return .success(false)
        }
    }

    /// The run's overall progress (a named run), for the operator's progress line.
    public func runProgress() -> RunProgress? {
        guard let shared, unavailable == nil else { return nil }
        return try? ledger.progress(run: shared.name)
    }

    /// Stops the run (Ctrl-C): tags in progress finish, no new tag is taken.
    public func stop(_ reason: String) {
        if !stopped { summary.stopReason = reason }
        stopped = true
    }

    /// Stops the run because the ledger failed (not merely unreachable): the run has failed
    /// (``BatchSummary/ledgerError``), in a named run as in a run of its own.
    func stop(ledgerError error: LedgerError) {
        if summary.ledgerError == nil { summary.ledgerError = error.description }
        stop("ledger error: \(error)")
    }

    /// The data for the tag `uid`, or a reason to skip it.
    func claim(uid: [UInt8]) throws -> Result<BatchItem, SkipReason> {
        if let shared { return try claimShared(uid: uid, shared) }
        let hex = Hex.encode(uid, uppercase: true)
        let inLedger = options.allowRewrite ? false : try ledger.isDone(uid: hex)
        if uidsThisRun.contains(hex) || inLedger {
            return .failure(SkipReason("already provisioned (in the ledger); --allow-rewrite writes it again"))
        }
        switch source {
        case .template(let usesCounter, let start, let build):
            let counter = usesCounter ? try ledger.allocateCounter(start: start) : nil
            let message = try Self.built(counter: counter, row: nil) { try build(uid, counter) }
            inFlight += 1
            uidsThisRun.insert(hex)
            return .success(BatchItem(message: message, summary: Self.describe(message), row: nil, counter: counter))
        case .manifest(let rows, let byUID, let build, let mirror):
            let free = rows.lazy.filter { !self.doneRows.contains($0.index) && !self.claimedRows.contains($0.index) }
            let row = byUID ? free.first { $0.value("uid")?.uppercased() == hex } : free.first
            guard let row else {
                return .failure(SkipReason(byUID ? "no manifest row for this UID" : "the manifest has no row left"))
            }
            let message = try Self.built(counter: nil, row: row.index) { try build(row, uid) }
            claimedRows.insert(row.index)
            inFlight += 1
            uidsThisRun.insert(hex)
            return .success(BatchItem(message: message, summary: Self.describe(message), row: row.index, counter: nil, mirror: mirror(row)))
        }
    }

    /// A named run's claim: a row or a counter from the ledger, in one transaction with its use.
    private func claimShared(uid: [UInt8], _ shared: SharedRun) throws -> Result<BatchItem, SkipReason> {
        let hex = Hex.encode(uid, uppercase: true)
        if unavailable != nil { return .failure(SkipReason("the ledger is unavailable; not written")) }
        do {
            switch source {
            case .template(let usesCounter, let start, let build):
                var counter: Int?
                if usesCounter {
                    switch try ledger.claimCounter(run: shared.name, uid: hex, station: shared.station, start: start) {
                    case .claimed(let value): counter = value
                    case .uidTaken: return .failure(SkipReason("already provisioned in run '\(shared.name)'"))
                    }
                } else if !options.allowRewrite, try ledger.isDone(uid: hex) {
                    return .failure(SkipReason("already provisioned (in the ledger); --allow-rewrite writes it again"))
                }
                let message = try Self.built(counter: counter, row: nil) { try build(uid, counter) }
                inFlight += 1
                return .success(BatchItem(message: message, summary: Self.describe(message), row: nil, counter: counter))
            case .manifest(_, _, let build, let mirror):
                switch try ledger.claimRow(run: shared.name, uid: hex, station: shared.station, lease: shared.lease) {
                case .claimed(let row):
                    // Every row was checked before the first tag; one that still cannot build
                    // comes back when its lease ends.
                    let message = try Self.built(counter: nil, row: row.index) { try build(row, uid) }
                    inFlight += 1
                    return .success(BatchItem(message: message, summary: Self.describe(message), row: row.index, counter: nil, mirror: mirror(row)))
                case .uidTaken(let why):
                    return .failure(SkipReason("already provisioned: \(why)"))
                case .noneFree(let held):
                    if waitingForRows == nil { events?(.ledgerStatus(.waitingForRows(held: held))) }
                    waitingForRows = (held, .now)
                    return .failure(SkipReason("no free row now (\(held) held at other stations); not written"))
                case .runComplete:
                    runComplete = true
                    return .failure(SkipReason("the run has no row left"))
                }
            }
        } catch let error as LedgerError {
            ledgerFailed(error)
            // Unreachable: the station pauses, the tag is left alone. Any other ledger error is
            // the tag's failure (the run stops), as it is in a run of its own.
            guard error.isUnavailable else { throw error }
            return .failure(SkipReason("the ledger is unavailable; not written"))
        }
    }

    /// Records the end of a claimed tag: a failed tag gives its manifest row back (a counter is
    /// never given back).
    func finish(uid: String, item: BatchItem, success: Bool) {
        inFlight -= 1
        if success {
            summary.done += 1
            summary.lastUID = uid
            if let row = item.row { doneRows.insert(row) }
        } else {
            summary.failed += 1
            uidsThisRun.remove(uid)
            if let row = item.row { claimedRows.remove(row) }
        }
        if let count = options.count, summary.done >= count { stop("count reached") }
        if let max = options.maxFailures, summary.failed >= max { stop("\(max) failures") }
    }

    /// Counts a tag refused before any write.
    func skipped() { summary.skipped += 1 }

    /// Counts a tag refused before any write as counterfeit.
    func counterfeit() { summary.counterfeit += 1 }

    /// Notes how a tag ended: `failure` is its deterministic failure, nil for a tag done or one
    /// that failed for another reason. After ``BatchOptions/maxConsecutiveFailures`` tags in a
    /// row with the same one, the run stops.
    func noteOutcome(_ failure: DeterministicFailure?) {
        guard let failure else {
            repeatedFailure = nil
            return
        }
        let count = repeatedFailure?.kind == failure ? (repeatedFailure?.count ?? 0) + 1 : 1
        repeatedFailure = (failure, count)
        if let max = options.maxConsecutiveFailures, count >= max {
            stop("\(count) tags in a row failed the same way (\(failure.rawValue)); the next would too")
        }
    }

    /// Whether the claim of the tag `uid` would hand it data (not skip it as already
    /// provisioned); false in a named run, whose claims are decided in the shared ledger.
    func mayBeNew(uid: [UInt8]) -> Bool {
        guard shared == nil else { return false }
        let hex = Hex.encode(uid, uppercase: true)
        if uidsThisRun.contains(hex) { return false }
        if !options.allowRewrite, (try? ledger.isDone(uid: hex)) != false { return false }
        return true
    }

    /// The encoded size of the smallest message a tag `uid` can get, known before any counter
    /// or row is claimed: a template's message built with the first counter value the run can
    /// hand out (a later one has at least as many digits); nil for a manifest (a row is given
    /// back when its tag fails) or a message that cannot be built.
    func smallestMessageBytes(uid: [UInt8]) -> Int? {
        guard case .template(let usesCounter, let start, let build) = source else { return nil }
        return try? build(uid, usesCounter ? start : nil).encodedForTag().count
    }

    /// Counts a tag that failed before anything was written to it and that holds no claim (its
    /// data could not be built, the ledger failed, or its refusal could not be recorded).
    func failedUnclaimed() {
        summary.failed += 1
        if let max = options.maxFailures, summary.failed >= max { stop("\(max) failures") }
    }

    /// `make()`, its error wrapped in a ``BuildFailure`` that keeps the counter or row used.
    private static func built(counter: Int?, row: Int?, _ make: () throws -> NDEFMessage) throws(BuildFailure) -> NDEFMessage {
        do {
            return try make()
        } catch {
            throw BuildFailure(reason: "\(error)", counter: counter, row: row)
        }
    }

    /// A tag's message could not be built from its data (a placeholder gave bytes that are no
    /// valid value): nothing was written; the counter it drew stays used.
    struct BuildFailure: Error {
        var reason: String
        var counter: Int?
        var row: Int?
    }

    /// `URI https://…`, `Text "…"`, or the record types: how the ledger and the operator see a
    /// message.
    public static func describe(_ message: NDEFMessage) -> String {
        message.records.map { record -> String in
            switch try? record.content() {
            case .uri(let uri)?: "URI \(uri)"
            case .text(let text)?: "Text \"\(text.text)\""
            default: "\(record.typeNameFormat) \(String(decoding: record.type.array, as: UTF8.self))"
            }
        }.joined(separator: "; ")
    }

    /// Why a tag was skipped.
    struct SkipReason: Error {
        var text: String
        init(_ text: String) { self.text = text }
    }
}

/// One reader's loop: wait for a tag, provision it, record it, wait until it has left.
public struct BatchWorker: Sendable {
    /// The reader.
    public let reader: any NFCReader
    /// The run's coordinator.
    public let coordinator: BatchCoordinator
    /// Where events go (progress display, logs).
    public let events: @Sendable (BatchEvent) -> Void

    /// Creates a worker.
    public init(reader: any NFCReader, coordinator: BatchCoordinator, events: @escaping @Sendable (BatchEvent) -> Void) {
        self.reader = reader
        self.coordinator = coordinator
        self.events = events
    }

    /// Runs until the coordinator says stop, the idle timeout passes without a new tag, or the
    /// task is cancelled (then the tag in progress is finished first: it is never left
    /// half-written by the stop).
    ///
    /// Each tag is handled once per stay in the field: after its work the worker says "take it
    /// away" and releases it; while it stays (found again at every poll, as PC/SC readers do,
    /// or reported present) it is neither handled nor skipped again, and the polls back off. It
    /// counts as new only after the reader has found an empty field for the debounce time, or a
    /// different tag.
    public func run() async {
        let name = await reader.connectionString
        let modulations = await reader.supportedModulations.filter { $0 != .jewel }
        let options = coordinator.options
        var tracker = TagPresenceTracker(options: options.presence)
        var announced = false
        var crowded = false
        var listingFailures = 0
        let clock = ContinuousClock()
        var idleSince = clock.now
        while !Task.isCancelled, !(await coordinator.shouldStop()) {
            if !announced { events(.waiting(reader: name)); announced = true }
            if let idle = options.idleTimeout, clock.now - idleSince >= idle {
                await coordinator.stop("no new tag for \(Self.describe(idle))")
                return
            }
            // A named run whose ledger is away, or whose rows are all held: take no tag.
            guard await coordinator.readyForTag() else {
                try? await Task.sleep(for: .milliseconds(100))
                idleSince = clock.now
                continue
            }
            let seen: TagPresenceTracker.Observation
            do {
                seen = try await tracker.step(on: reader, for: modulations)
            } catch {
                events(.readerFailed(reader: name, error: error.description))
                return
            }
            guard let target = seen.arrival else { continue }
            // Two tags answering together: write neither (the reader took one of them by
            // chance); wait, polling as before, until one is left.
            // A listing that fails writes nothing either: the tag is taken again at the next poll,
            // and a reader that cannot list three times running has failed.
            let inField: [TargetInfo]
            do {
                inField = try await reader.tagsInField(with: target, limit: 2)
                listingFailures = 0
            } catch {
                listingFailures += 1
                if listingFailures >= 3 {
                    events(.readerFailed(reader: name, error: "cannot tell how many tags are in the field: \(error.description)"))
                    return
                }
                _ = tracker.forget()
                try? await Task.sleep(for: options.pollSlice)
                continue
            }
            if inField.count > 1 {
                if !crowded { events(.severalTags(reader: name, count: inField.count)); crowded = true }
                _ = tracker.forget()
                try? await Task.sleep(for: options.pollSlice)
                continue
            }
            crowded = false
            announced = false
            // The tag's work runs to its end even when the run is cancelled meanwhile.
            let worker = self
            await Task { await worker.provision(target, readerName: name) }.value
            // Released: a stack handed out on deselect presents its next tag; a tag that stays
            // is not taken again.
            await tracker.release(on: reader)
            idleSince = clock.now
        }
    }

    /// `3 s`, `0.5 s`: a duration for the operator.
    static func describe(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
    }

    /// Why `tag` must fail before anything is claimed for it (no counter drawn, no row held),
    /// from its NDEF state: read-only, not NDEF formatted without `format`, or too small for the
    /// smallest message the run can give it. Nil when it may go on (and for NTAG 424 DNA runs,
    /// which personalize instead of writing a message).
    func refusalBeforeClaim(_ tag: NFCTag, uid: [UInt8]) async -> (error: NFCTagError, kind: DeterministicFailure)? {
        let options = coordinator.options
        // A tag the claim would skip (already provisioned) is left to it; a named run's claim
        // decides in the shared ledger.
        guard options.ntag424 == nil, await coordinator.mayBeNew(uid: uid),
              let query = try? await tag.ndef.queryNDEFStatus() else { return nil }
        let model = tag.identity.model
        switch query.status {
        case .readOnly:
            return (NFCTagError(.readOnly, "the \(model) is read-only; nothing was written, no counter used"), .readOnly)
        case .notSupported:
            guard !options.format else { return nil }
            return (NFCTagError(.notNDEFFormatted, "the \(model) is not NDEF formatted (--format formats it); nothing was written, no counter used"), .notFormatted)
        case .readWrite:
            guard let bytes = await coordinator.smallestMessageBytes(uid: uid), bytes > query.capacity else { return nil }
            return (NFCTagError(
                .capacityExceeded,
                "the message of \(bytes) bytes does not fit the \(model) (capacity \(query.capacity) bytes, too big by \(bytes - query.capacity)); nothing was written, no counter used"),
                .capacity)
        }
    }

    /// Everything for one tag.
    func provision(_ target: TargetInfo, readerName: String) async {
        let uid = Hex.encode(target.identifier, uppercase: true)
        let started = Ledger.now()
        let tag: NFCTag
        do {
            // Identification leaves the tag selected (it re-selects a chip its GET_VERSION sent idle).
            tag = try await NFCTag.connect(to: target, on: reader, commandTimeout: coordinator.options.commandTimeout)
        } catch {
            events(.skipped(reader: readerName, uid: uid, reason: error.description))
            await coordinator.skipped()
            events(.removeTag(reader: readerName, uid: uid))
            return
        }
        if let admission = coordinator.options.admission, let refusal = await admission(tag) {
            let attempt = LedgerAttempt(
                run: coordinator.runID, uid: uid, model: tag.identity.model, summary: "refused", bytes: 0, verified: false,
                error: refusal.reason, started: started, finished: Ledger.now(), reader: readerName, status: refusal.status.rawValue)
            // A refusal the ledger cannot record is a failure (the run stops): the operator
            // must not take the tag for one the ledger knows about.
            if case .failure(let error) = await coordinator.record(attempt) {
                events(.failed(reader: readerName, uid: uid, error: "\(refusal.reason); the ledger could not record the refusal: \(error)"))
                await coordinator.failedUnclaimed()
            } else {
                // A counterfeit is counted apart; a chip not shown genuine (no signature, no key
                // for it) was refused as asked but is no done tag: a failure, as the ledger says.
                if refusal.status == .counterfeit {
                    events(.skipped(reader: readerName, uid: uid, reason: refusal.reason))
                    await coordinator.counterfeit()
                } else {
                    events(.failed(reader: readerName, uid: uid, error: refusal.reason))
                    await coordinator.failedUnclaimed()
                }
            }
            events(.removeTag(reader: readerName, uid: uid))
            return
        }
        if let refusal = await refusalBeforeClaim(tag, uid: target.identifier.array) {
            // Nothing was written and no counter drawn: the ledger has the attempt.
            let attempt = LedgerAttempt(
                run: coordinator.runID, uid: uid, model: tag.identity.model, summary: "not written", bytes: 0, verified: false,
                error: refusal.error.description, started: started, finished: Ledger.now(), reader: readerName, status: "failed")
            _ = await coordinator.record(attempt)
            events(.failed(reader: readerName, uid: uid, error: refusal.error.description))
            await coordinator.failedUnclaimed()
            await coordinator.noteOutcome(refusal.kind)
            events(.removeTag(reader: readerName, uid: uid))
            return
        }
        let item: BatchItem
        do {
            switch try await coordinator.claim(uid: target.identifier.array) {
            case .success(let claimed): item = claimed
            case .failure(let reason):
                events(.skipped(reader: readerName, uid: uid, reason: reason.text))
                await coordinator.skipped()
                events(.removeTag(reader: readerName, uid: uid))
                return
            }
        } catch let failure as BatchCoordinator.BuildFailure {
            // Nothing was written; the ledger has the failed attempt (with the counter it drew).
            let reason = "the tag's data could not be built: \(failure.reason); nothing was written"
            let shared = coordinator.shared
            let attempt = LedgerAttempt(
                run: coordinator.runID, uid: uid, model: tag.identity.model, row: failure.row, counter: failure.counter,
                summary: "not built", bytes: 0, verified: false, error: reason, started: started, finished: Ledger.now(),
                reader: readerName, status: "failed", runName: shared?.name, station: shared?.station,
                key: shared == nil ? nil : UUID().uuidString)
            _ = await coordinator.record(attempt)
            await coordinator.failedUnclaimed()
            events(.failed(reader: readerName, uid: uid, error: reason))
            await coordinator.stop("data error: \(failure.reason)")
            events(.removeTag(reader: readerName, uid: uid))
            return
        } catch {
            await coordinator.failedUnclaimed()
            events(.failed(reader: readerName, uid: uid, error: "ledger error: \(error); nothing was written"))
            await coordinator.stop(ledgerError: error as? LedgerError ?? LedgerError("\(error)"))
            events(.removeTag(reader: readerName, uid: uid))
            return
        }
        let options = coordinator.options
        var locked = false, protected = false
        var failure: String?
        var failureCode: NFCTagError.Code?
        var bytes = 0
        do throws(NFCTagError) {
            bytes = try item.message.encodedForTag().count
            let ndef = tag.ndef
            let mirror = options.ntag424 == nil ? item.mirror ?? options.mirror : nil
            // Every check before the first write: the chip can mirror, be locked, take a password.
            if mirror != nil {
                guard case .miFare(let mifare) = tag, let type2 = mifare.type2 else {
                    throw NFCTagError(.notSupported, "mirroring needs an NTAG213, NTAG215 or NTAG216; nothing was written")
                }
                try type2.checkMirror()
            }
            if options.lock { try await ndef.checkLockable() }
            // Protection needs an identified NTAG21x / Ultralight EV1.
            var protectable: Type2Tag?
            if options.password != nil {
                guard case .miFare(let mifare) = tag, let type2 = mifare.type2, type2.profile != nil else {
                    throw NFCTagError(.notSupported, "password protection needs an NTAG21x or Ultralight EV1; nothing was written")
                }
                protectable = type2
            }
            // The message (with its mirror) written to `tag`.
            func write(_ tag: NFCTag, verify: Bool) async throws(NFCTagError) {
                if let mirror {
                    guard case .miFare(let mifare) = tag, let type2 = mifare.type2 else {
                        throw NFCTagError(.notSupported, "mirroring needs an NTAG213, NTAG215 or NTAG216")
                    }
                    guard let offset = mirror.placeholderOffset(in: try item.message.encodedForTag()) else {
                        throw NFCTagError(.invalidParameter, "the message does not hold the mirror's placeholder exactly once")
                    }
                    try await type2.writeNDEF(item.message, mirror: mirror, at: offset, verify: verify)
                } else {
                    try await tag.ndef.writeNDEF(item.message, verify: verify)
                }
            }
            if options.format, try await ndef.queryNDEFStatus().status == .notSupported {
                if options.ntag424 == nil, let (rehearsal, _) = await tag.rehearsal() {
                    // The format and the write, with nothing sent: the message's checks see the
                    // tag as the format will leave it (a Type 2 CC is written once).
                    try await rehearsal.ndef.format(force: false)
                    try await write(rehearsal, verify: false)
                }
                try await ndef.format(force: false)
            }
            if let ntag424 = options.ntag424 {
                bytes = ntag424.template.file.count
                _ = try await ntag424.run(on: tag)
            } else {
                try await write(tag, verify: true)
            }
            // Protection before the lock: the lock sets CFGLCK on NTAG21x, after which AUTH0 and
            // ACCESS can never change. Once protected (AUTH0 = 4), the lock's writes to the
            // dynamic lock and configuration pages need PWD_AUTH with the new password.
            if let password = options.password, var type2 = protectable {
                try await type2.setPassword(password)
                protected = true
                if options.lock {
                    type2.password = password
                    try await type2.writeLock()
                    locked = true
                }
            } else if options.lock {
                try await ndef.writeLock()
                locked = true
            }
        } catch {
            failure = error.description
            failureCode = error.code
        }
        await coordinator.noteOutcome(failureCode.flatMap(DeterministicFailure.init))
        let shared = coordinator.shared
        let attempt = LedgerAttempt(
            run: coordinator.runID, uid: uid, model: tag.identity.model, row: item.row, counter: item.counter,
            summary: options.ntag424.map { "SUN URL \($0.template.template); \($0.keySummary)" } ?? item.summary, bytes: bytes, verified: failure == nil, locked: locked, protected: protected,
            error: failure, started: started, finished: Ledger.now(), reader: readerName, status: failure == nil ? "done" : "failed",
            runName: shared?.name, station: shared?.station, key: shared == nil ? nil : UUID().uuidString)
        // Written only now, after the verify: a crash before this line leaves no "done". A
        // named run's ledger that cannot be reached gets it from the journal later.
        switch await coordinator.record(attempt) {
        case .success(true): break
        case .success(false): break  // journalled: the coordinator told the operator
        case .failure(let error):
            failure = failure ?? "the ledger could not record the tag: \(error)"
        }
        await coordinator.finish(uid: uid, item: item, success: failure == nil)
        if let failure {
            events(.failed(reader: readerName, uid: uid, error: failure))
        } else {
            events(.done(reader: readerName, uid: uid, summary: item.summary))
        }
        events(.removeTag(reader: readerName, uid: uid))
    }
}

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
