import Foundation
public import NDEF
import NFCCore
import NFCTags

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
    /// The counter `{n}` handed out its last value (``LedgerCounter/maximum``), here or, found
    /// at a claim, elsewhere: why the run stops once no tag is in progress.
    private var counterUsedUp: String?
    private var events: (@Sendable (BatchEvent) -> Void)?
    /// The deterministic failure of the last tags and how many tags in a row had it.
    private var repeatedFailure: (kind: DeterministicFailure, count: Int)?
    /// A named run: the claims this station's tags hold, by row: the claim's lease epoch and
    /// when its lease ends by this station's clock (counted from before the claim or renewal
    /// was sent, so never later than the ledger's own end).
    private var leases: [Int: (epoch: Int64, until: ContinuousClock.Instant)] = [:]
    /// How long the last tags' work took here (first write to the end of the lock), for the
    /// check before a tag's first write.
    private var tagTimes: [Duration] = []
    /// Lease renewals sent (each one round trip).
    public private(set) var renewals = 0
    /// Void tags found before anyone listened (the journal recorded at the start).
    private var unreported: [VoidTag] = []
    /// Void tags found by a journal's replay, waiting for their reader's worker to erase them
    /// (``BatchOptions/voidErase``).
    private var toErase: [VoidTag] = []

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
        if let shared {
            let replayed = try Self.replay(shared.journal, into: ledger)
            // Told once someone listens (``setEvents(_:)``); erased by their reader's worker with --void-erase.
            summary.voidOpen = replayed.voids.count
            unreported = replayed.voids
            if options.voidErase { toErase = replayed.voids }
        }
    }

    /// The coordinator runs on its ledger's executor, a thread of its own: every ledger call
    /// it makes (SQLite's busy waits, PostgreSQL's round trips) blocks that thread, never one of
    /// Swift's cooperative pool.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { ledger.executor.unownedExecutor }

    /// Where the coordinator's own notices (ledger unavailable, back, waiting for rows) go.
    public func setEvents(_ events: @escaping @Sendable (BatchEvent) -> Void) {
        self.events = events
        for void in unreported { events(.ledgerStatus(.voidTag(void))) }
        unreported = []
    }

    /// Whether workers should stop taking tags; the first reason found is kept in the summary.
    public func shouldStop() -> Bool {
        if stopped { return true }
        if let count = options.count, summary.done + inFlight >= count {
            if inFlight == 0 { stop(.countReached, "count reached") }
            return true
        }
        if let max = options.maxFailures, summary.failed >= max {
            stop(.maxFailures, "\(max) failures")
            return true
        }
        if let counterUsedUp {
            if inFlight == 0 { stop(.counterUsedUp, counterUsedUp) }
            return true
        }
        if shared != nil {
            if runComplete {
                if inFlight == 0 { stop(.runDone, "the run has no row left") }
                return true
            }
            return false
        }
        if case .manifest(let rows, let byUID, _, _) = source, !byUID,
           !rows.contains(where: { !doneRows.contains($0.index) && !claimedRows.contains($0.index) }) {
            if inFlight == 0 { stop(.manifestDone, "the manifest has no row left") }
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
                let replayed = try Self.replay(shared.journal, into: ledger)
                unavailable = nil
                events?(.ledgerStatus(.back(recorded: replayed.recorded)))
                for void in replayed.voids { noteVoid(void, fromJournal: true) }
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

    /// At the end of a named run: records what waits in the journal when the ledger is back;
    /// what it cannot record stays in the journal and is counted in ``BatchSummary/unrecorded``
    /// (the run has not succeeded: those tags are written but the ledger does not know them).
    public func settleJournal() {
        guard let shared else { return }
        do throws(LedgerError) {
            guard !(try shared.journal.entries()).isEmpty else { return }
            _ = try ledger.progress(run: shared.name)  // a real round trip first, as in readyForTag()
            let replayed = try Self.replay(shared.journal, into: ledger)
            unavailable = nil
            (summary.unrecorded, summary.journal) = (0, nil)
            events?(.ledgerStatus(.back(recorded: replayed.recorded)))
            for void in replayed.voids { noteVoid(void, fromJournal: true) }
        } catch {
            // An unreadable journal counts as one tag at least: its content is not in the ledger.
            summary.unrecorded = max(1, (try? shared.journal.entries().count) ?? 1)
            summary.journal = shared.journal.path
        }
    }

    /// Records `journal`'s attempts in `ledger` (each once: they carry keys) and empties it;
    /// returns how many, and the tags among them the ledger recorded void (their row or counter
    /// went to another station while this one was cut off).
    static func replay(_ journal: BatchJournal, into ledger: any ProvisioningLedger) throws(LedgerError) -> (recorded: Int, voids: [VoidTag]) {
        let entries = try journal.entries()
        var voids: [VoidTag] = []
        for entry in entries {
            let recorded = try ledger.recordOutcome(entry)
            if recorded.isVoid { voids.append(VoidTag(entry, recorded)) }
        }
        if !entries.isEmpty { try journal.clear() }
        return (entries.count, voids)
    }

    /// A tag this station wrote was recorded void: the operator is told (now, or once someone
    /// listens), it counts as unaccounted for, and — found by a journal's replay with
    /// ``BatchOptions/voidErase`` — it waits for its reader's worker to erase it.
    func noteVoid(_ void: VoidTag, fromJournal: Bool) {
        summary.voidOpen += 1
        // A tag of this session that waited in the journal was counted done: it is not.
        if fromJournal, void.session == runID, summary.done > 0 { summary.done -= 1 }
        if let events { events(.ledgerStatus(.voidTag(void))) } else { unreported.append(void) }
        if fromJournal && options.voidErase { toErase.append(void) }
    }

    /// A void tag found by a journal's replay that is waiting to be erased on `reader`, if any.
    func voidToErase(on reader: String) -> VoidTag? {
        guard let index = toErase.firstIndex(where: { $0.reader == reader }) else { return nil }
        return toErase.remove(at: index)
    }

    /// A void tag was erased: recorded as erased in the ledger (then it is accounted for).
    /// - Returns: nil, or why the ledger could not record it (the tag stays unaccounted for).
    func voidErased(_ void: VoidTag) -> String? {
        do throws(LedgerError) {
            _ = try ledger.resolveVoid(run: void.run, uid: void.uid, as: .erased)
            summary.voidOpen -= 1
            summary.voidErased += 1
            return nil
        } catch {
            return "erased, but the ledger could not record it (\(error)): run 'nfctool ledger resolve --run \(void.run) --uid \(void.uid) --erased'"
        }
    }

    /// What may happen before a claimed tag's first write (``checkLease(before:)``).
    enum LeaseCheck: Sendable {
        /// The lease has comfortably more time left than a tag takes: write.
        case write
        /// Do not write (the sentence says why; nothing was written).
        case refuse(String)
    }

    /// How long a tag takes here: the median of the last tags' work (a stopped process or
    /// one slow tag does not count for long), a quarter of a second before the first.
    private var tagTime: Duration {
        guard !tagTimes.isEmpty else { return .milliseconds(250) }
        return tagTimes.sorted()[tagTimes.count / 2]
    }

    /// Notes how long a tag's work took (first write to the end of the lock).
    func noteTagTime(_ duration: Duration) {
        tagTimes.append(duration)
        if tagTimes.count > 5 { tagTimes.removeFirst() }
    }

    /// Whether `item`'s tag may be written now: in a named run its row's lease must have more
    /// than twice a tag's time left (and at least half the lease, else it is renewed first:
    /// one round trip). A claim lost meanwhile, or a lease too short for a tag, refuses the
    /// tag before anything is written; a ledger that cannot be reached to renew lets it go on
    /// only while the lease still has that time left.
    func checkLease(before item: BatchItem) -> LeaseCheck {
        guard let shared, let row = item.row, let epoch = item.epoch, let held = leases[row], held.epoch == epoch else { return .write }
        let needed = tagTime * 2
        let sent = ContinuousClock.now
        if held.until - sent >= max(needed, shared.lease / 2) { return .write }
        do throws(LedgerError) {
            renewals += 1
            guard try ledger.renewLease(run: shared.name, row: row, station: shared.station, epoch: epoch, lease: shared.lease) else {
                leases[row] = nil
                return .refuse("row \(row) of run '\(shared.name)' was claimed by another station meanwhile; nothing was written")
            }
            leases[row] = (epoch, sent + shared.lease)
            guard shared.lease >= needed else {
                return .refuse(
                    "--lease \(BatchWorker.describe(shared.lease)) is not comfortably longer than a tag takes here "
                        + "(\(BatchWorker.describe(tagTime))): give a longer --lease; nothing was written")
            }
            return .write
        } catch {
            ledgerFailed(error)
            if held.until - sent >= needed { return .write }
            return .refuse("the ledger cannot be reached to renew row \(row)'s lease, which has too little time left; nothing was written")
        }
    }

    /// Keeps `item`'s row claimed while its tag is worked: each time half the lease has passed
    /// the lease is renewed (one round trip), until the task is cancelled (the work ended), the
    /// claim is lost, or the ledger cannot be reached (fencing then decides at the record).
    func keepLease(_ item: BatchItem) async {
        guard let shared, let row = item.row, let epoch = item.epoch else { return }
        while !Task.isCancelled, let held = leases[row], held.epoch == epoch {
            do {
                try await Task.sleep(until: held.until - shared.lease / 2, clock: .continuous)
            } catch {
                return
            }
            guard leases[row]?.epoch == epoch else { return }
            let sent = ContinuousClock.now
            renewals += 1
            do throws(LedgerError) {
                guard try ledger.renewLease(run: shared.name, row: row, station: shared.station, epoch: epoch, lease: shared.lease) else {
                    leases[row] = nil
                    return
                }
                leases[row] = (epoch, sent + shared.lease)
            } catch {
                return
            }
        }
    }

    /// What recording an attempt did.
    enum RecordResult: Sendable {
        /// The ledger has it, as ``RecordedAttempt/status`` says (`void`: see ``VoidTag``).
        case recorded(RecordedAttempt)
        /// The ledger could not be reached: it waits in the journal.
        case journalled
    }

    /// Records a verified (or failed) attempt. In a named run a ledger that cannot be reached
    /// gets it later: it goes to the journal (written, not recorded), and the station pauses.
    func record(_ attempt: LedgerAttempt) -> Result<RecordResult, LedgerError> {
        do throws(LedgerError) {
            return .success(.recorded(try ledger.recordOutcome(attempt)))
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
            return .success(.journalled)
        }
    }

    /// The run's overall progress (a named run), for the operator's progress line.
    public func runProgress() -> RunProgress? {
        guard let shared, unavailable == nil else { return nil }
        return try? ledger.progress(run: shared.name)
    }

    /// Stops the run as its program asks (``BatchStop/requested``): tags in progress finish, no
    /// new tag is taken.
    public func stop(_ reason: String) {
        stop(.requested, reason)
    }

    /// Stops taking tags for `kind` (`reason` in words); the first stop is the one the summary
    /// keeps.
    public func stop(_ kind: BatchStop, _ reason: String) {
        if !stopped {
            summary.stopReason = reason
            summary.stop = kind
        }
        stopped = true
    }

    /// Stops the run because the ledger failed (not merely unreachable): the run has failed
    /// (``BatchSummary/ledgerError``), in a named run as in a run of its own.
    func stop(ledgerError error: LedgerError) {
        if summary.ledgerError == nil { summary.ledgerError = error.description }
        stop(.ledgerError, "ledger error: \(error)")
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
            var counter: Int?
            if usesCounter {
                switch try nextCounter(start: start) {
                case .success(let value): counter = value
                case .failure(let reason): return .failure(reason)
                }
            }
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
                    case .claimed(let value):
                        counter = value
                        if value == LedgerCounter.maximum { counterUsedUp = LedgerCounter.usedUp(run: shared.name).message }
                    case .uidTaken: return .failure(SkipReason("already provisioned in run '\(shared.name)'"))
                    }
                } else if !options.allowRewrite, try ledger.isDone(uid: hex) {
                    return .failure(SkipReason("already provisioned (in the ledger); --allow-rewrite writes it again"))
                }
                let message = try Self.built(counter: counter, row: nil) { try build(uid, counter) }
                inFlight += 1
                return .success(BatchItem(message: message, summary: Self.describe(message), row: nil, counter: counter))
            case .manifest(_, _, let build, let mirror):
                let sent = ContinuousClock.now
                switch try ledger.claimRow(run: shared.name, uid: hex, station: shared.station, lease: shared.lease) {
                case .claimed(let row, let epoch):
                    leases[row.index] = (epoch, sent + shared.lease)
                    // Every row was checked before the first tag; one that still cannot build
                    // comes back when its lease ends.
                    let message = try Self.built(counter: nil, row: row.index) { try build(row, uid) }
                    inFlight += 1
                    return .success(BatchItem(
                        message: message, summary: Self.describe(message), row: row.index, counter: nil, mirror: mirror(row), epoch: epoch))
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
        } catch let error as LedgerError where error.isCounterUsedUp {
            return .failure(SkipReason(counterExhausted(error)))
        } catch let error as LedgerError {
            ledgerFailed(error)
            // Unreachable: the station pauses, the tag is left alone. Any other ledger error is
            // the tag's failure (the run stops), as it is in a run of its own.
            guard error.isUnavailable else { throw error }
            return .failure(SkipReason("the ledger is unavailable; not written"))
        }
    }

    /// The next value of the ledger's counter `{n}`; a skip when it is used up (another process
    /// took the last value: the end of the run, not this tag's failure). Handing out the last
    /// value ends the run once the tags in progress are finished.
    private func nextCounter(start: Int) throws(LedgerError) -> Result<Int, SkipReason> {
        let value: Int
        do throws(LedgerError) {
            value = try ledger.allocateCounter(start: start)
        } catch {
            guard error.isCounterUsedUp else { throw error }
            return .failure(SkipReason(counterExhausted(error)))
        }
        if value == LedgerCounter.maximum { counterUsedUp = LedgerCounter.usedUp(run: nil).message }
        return .success(value)
    }

    /// The counter `{n}` is used up (found at a claim): the run stops once the tags in progress
    /// are finished; the tag at hand is skipped, with nothing written or recorded. The reason.
    private func counterExhausted(_ error: LedgerError) -> String {
        if counterUsedUp == nil { counterUsedUp = error.message }
        if inFlight == 0 { stop(.counterUsedUp, error.message) }
        return "\(error.message); nothing was written"
    }

    /// Records the end of a claimed tag: a failed tag gives its manifest row back (a counter is
    /// never given back).
    func finish(uid: String, item: BatchItem, success: Bool) {
        inFlight -= 1
        if let row = item.row, leases[row]?.epoch == item.epoch { leases[row] = nil }
        if success {
            summary.done += 1
            summary.lastUID = uid
            if let row = item.row { doneRows.insert(row) }
        } else {
            summary.failed += 1
            uidsThisRun.remove(uid)
            if let row = item.row { claimedRows.remove(row) }
        }
        if let count = options.count, summary.done >= count { stop(.countReached, "count reached") }
        if let max = options.maxFailures, summary.failed >= max { stop(.maxFailures, "\(max) failures") }
    }

    /// Ends a claimed tag that was recorded void: neither done nor failed (``noteVoid(_:fromJournal:)``
    /// counts it); its row is another station's.
    func finishVoid(item: BatchItem) {
        inFlight -= 1
        if let row = item.row, leases[row]?.epoch == item.epoch { leases[row] = nil }
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
            stop(.repeatedFailure, "\(count) tags in a row failed the same way (\(failure.rawValue)); the next would too")
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
        if let max = options.maxFailures, summary.failed >= max { stop(.maxFailures, "\(max) failures") }
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
