import Foundation
import NDEF
import NFCCore
public import NFCTags

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
        let modulations = await reader.supportedModulations
        let options = coordinator.options
        var tracker = TagPresenceTracker(options: options.presence)
        var announced = false
        var crowded = false
        var listingFailures = 0
        let clock = ContinuousClock()
        var idleSince = clock.now
        var feedback = BatchFeedback(reader: reader, name: name, events: events)
        if options.feedback { await feedback.announce() }
        while !Task.isCancelled, !(await coordinator.shouldStop()) {
            if !announced { events(.waiting(reader: name)); announced = true }
            if let idle = options.idleTimeout, clock.now - idleSince >= idle {
                await coordinator.stop(.idle, "no new tag for \(Self.describe(idle))")
                return
            }
            // A named run whose ledger is away, or whose rows are all held: take no tag.
            guard await coordinator.readyForTag() else {
                try? await Task.sleep(for: .milliseconds(100))
                idleSince = clock.now
                continue
            }
            // A void tag the journal's replay found, written on this reader (--void-erase).
            if let void = await coordinator.voidToErase(on: name) {
                await eraseVoid(void, modulations: modulations)
                await tracker.release(on: reader)
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
            let outcome = await Task { await worker.provision(target, readerName: name) }.value
            // The reader's beep and LED, once the result is recorded and before the tag is
            // released (they go through its connection).
            if options.feedback, let outcome { await feedback.signal(outcome) }
            // Released: a stack handed out on deselect presents its next tag; a tag that stays
            // is not taken again.
            await tracker.release(on: reader)
            idleSince = clock.now
        }
    }

    /// Erases a void tag found by a journal's replay if it is still on the reader (the
    /// reader's tag has its UID), and says what became of it.
    func eraseVoid(_ void: VoidTag, modulations: [Modulation]) async {
        let options = coordinator.options
        guard let target = try? await reader.poll(for: modulations, timeout: options.pollSlice),
              Hex.encode(target.identifier, uppercase: true) == void.uid else {
            events(.ledgerStatus(.voidErased(void, error: "it is no longer on the reader")))
            return
        }
        do {
            let tag = try await NFCTag.connect(to: target, on: reader, commandTimeout: options.commandTimeout)
            try await tag.ndef.format(force: true)
        } catch {
            events(.ledgerStatus(.voidErased(void, error: "\(error)")))
            return
        }
        events(.ledgerStatus(.voidErased(void, error: await coordinator.voidErased(void))))
    }

    /// `3 s`, `0.5 s`: a duration for the operator.
    static func describe(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
    }

    /// Why `tag` must fail before anything is claimed for it (no counter drawn, no row held),
    /// from its NDEF state: read-only, not NDEF formatted without `format`, or too small for the
    /// smallest message the run can give it. Nil when it may go on (and for NTAG 424 DNA runs,
    /// which personalize instead of writing a message). A Type 2 tag's detection is kept in
    /// `detection`, so that the write starts from it instead of reading the same pages again.
    func refusalBeforeClaim(
        _ tag: NFCTag, uid: [UInt8], detection: inout Type2NDEFDetection?
    ) async -> (error: NFCTagError, kind: DeterministicFailure)? {
        let options = coordinator.options
        // A tag the claim would skip (already provisioned) is left to it; a named run's claim
        // decides in the shared ledger.
        guard options.ntag424 == nil, await coordinator.mayBeNew(uid: uid) else { return nil }
        let query: NDEFQuery
        if case .miFare(let mifare) = tag, let type2 = mifare.type2 {
            guard let detected = try? await type2.detectNDEF(forWrite: true) else { return nil }
            detection = detected
            query = detected.query
        } else {
            guard let answer = try? await tag.ndef.queryNDEFStatus() else { return nil }
            query = answer
        }
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
    /// - Returns: what the reader should signal: ``ReaderSignal/done``, ``ReaderSignal/failed``
    ///   (a counterfeit refused too), or nil for a tag skipped (not taken, nothing to show).
    func provision(_ target: TargetInfo, readerName: String) async -> ReaderSignal? {
        let uid = Hex.encode(target.identifier, uppercase: true)
        events(.tagFound(reader: readerName, uid: uid))
        let started = SQLiteLedger.now()
        let tag: NFCTag
        do {
            // Identification leaves the tag selected (it re-selects a chip its GET_VERSION sent idle).
            tag = try await NFCTag.connect(to: target, on: reader, commandTimeout: coordinator.options.commandTimeout)
        } catch {
            events(.skipped(reader: readerName, uid: uid, reason: error.description))
            await coordinator.skipped()
            events(.removeTag(reader: readerName, uid: uid))
            return nil
        }
        if let admission = coordinator.options.admission, let refusal = await admission(tag) {
            let attempt = LedgerAttempt(
                run: coordinator.runID, uid: uid, model: tag.identity.model, summary: "refused", bytes: 0, verified: false,
                error: refusal.reason, cause: FailureCause(refusal: refusal.status).rawValue, started: started, finished: SQLiteLedger.now(),
                reader: readerName, status: refusal.status.rawValue)
            // A refusal the ledger cannot record is a failure (the run stops): the operator
            // must not take the tag for one the ledger knows about.
            if case .failure(let error) = await coordinator.record(attempt) {
                events(.failed(reader: readerName, uid: uid, error: "\(refusal.reason); the ledger could not record the refusal: \(error)", cause: .ledger))
                await coordinator.failedUnclaimed()
            } else {
                // A counterfeit is counted apart; a chip not shown genuine (no signature, no key
                // for it) was refused as asked but is no done tag: a failure, as the ledger says.
                if refusal.status == .counterfeit {
                    events(.skipped(reader: readerName, uid: uid, reason: refusal.reason))
                    await coordinator.counterfeit()
                } else {
                    events(.failed(reader: readerName, uid: uid, error: refusal.reason, cause: .notGenuine))
                    await coordinator.failedUnclaimed()
                }
            }
            events(.removeTag(reader: readerName, uid: uid))
            return .failed
        }
        // The Type 2 detection read before the claim: the write starts from it (nothing is sent
        // to the tag in between but by this worker, and the tag stays selected).
        var detection: Type2NDEFDetection?
        if let refusal = await refusalBeforeClaim(tag, uid: target.identifier.array, detection: &detection) {
            // Nothing was written and no counter drawn: the ledger has the attempt.
            let attempt = LedgerAttempt(
                run: coordinator.runID, uid: uid, model: tag.identity.model, summary: "not written", bytes: 0, verified: false,
                error: refusal.error.description, cause: FailureCause(refusal.error).rawValue, started: started, finished: SQLiteLedger.now(),
                reader: readerName, status: "failed")
            _ = await coordinator.record(attempt)
            events(.failed(reader: readerName, uid: uid, error: refusal.error.description, cause: FailureCause(refusal.error)))
            await coordinator.failedUnclaimed()
            await coordinator.noteOutcome(refusal.kind)
            events(.removeTag(reader: readerName, uid: uid))
            return .failed
        }
        let item: BatchItem
        do {
            switch try await coordinator.claim(uid: target.identifier.array) {
            case .success(let claimed): item = claimed
            case .failure(let reason):
                events(.skipped(reader: readerName, uid: uid, reason: reason.text))
                await coordinator.skipped()
                events(.removeTag(reader: readerName, uid: uid))
                return nil
            }
        } catch let failure as BatchCoordinator.BuildFailure {
            // Nothing was written; the ledger has the failed attempt (with the counter it drew).
            let reason = "the tag's data could not be built: \(failure.reason); nothing was written"
            let shared = coordinator.shared
            let attempt = LedgerAttempt(
                run: coordinator.runID, uid: uid, model: tag.identity.model, row: failure.row, counter: failure.counter,
                summary: "not built", bytes: 0, verified: false, error: reason, cause: FailureCause.data.rawValue, started: started,
                finished: SQLiteLedger.now(),
                reader: readerName, status: "failed", runName: shared?.name, station: shared?.station,
                key: shared == nil ? nil : UUID().uuidString)
            _ = await coordinator.record(attempt)
            await coordinator.failedUnclaimed()
            events(.failed(reader: readerName, uid: uid, error: reason, cause: .data))
            await coordinator.stop(.dataError, "data error: \(failure.reason)")
            events(.removeTag(reader: readerName, uid: uid))
            return .failed
        } catch {
            await coordinator.failedUnclaimed()
            events(.failed(reader: readerName, uid: uid, error: "ledger error: \(error); nothing was written", cause: .ledger))
            await coordinator.stop(ledgerError: error as? LedgerError ?? LedgerError("\(error)"))
            events(.removeTag(reader: readerName, uid: uid))
            return .failed
        }
        let options = coordinator.options
        let shared = coordinator.shared
        // The row's lease must outlast the tag's work comfortably before the first write.
        if case .refuse(let reason) = await coordinator.checkLease(before: item) {
            let attempt = LedgerAttempt(
                run: coordinator.runID, uid: uid, model: tag.identity.model, row: item.row, counter: item.counter, summary: "not written",
                bytes: 0, verified: false, error: reason, cause: FailureCause.ledger.rawValue, started: started, finished: SQLiteLedger.now(),
                reader: readerName, status: "failed", runName: shared?.name, station: shared?.station,
                key: shared == nil ? nil : UUID().uuidString, epoch: item.epoch)
            _ = await coordinator.record(attempt)
            await coordinator.finish(uid: uid, item: item, success: false)
            events(.failed(reader: readerName, uid: uid, error: reason, cause: .ledger))
            events(.removeTag(reader: readerName, uid: uid))
            return .failed
        }
        // Renewed each time half the lease has passed, while the tag is worked.
        let keeper = Task { await self.coordinator.keepLease(item) }
        let workStarted = ContinuousClock.now
        var locked = false, protected = false
        var failure: String?
        var failureCode: NFCTagError.Code?
        var cause: FailureCause?
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
            // The message (with its mirror) written to `tag`; from `detected`, what the detection
            // read before the claim, when `tag` is still as it saw it.
            func write(_ tag: NFCTag, verify: Bool, detected: Type2NDEFDetection? = nil) async throws(NFCTagError) {
                if let mirror {
                    guard case .miFare(let mifare) = tag, let type2 = mifare.type2 else {
                        throw NFCTagError(.notSupported, "mirroring needs an NTAG213, NTAG215 or NTAG216")
                    }
                    guard let offset = mirror.placeholderOffset(in: try item.message.encodedForTag()) else {
                        throw NFCTagError(.invalidParameter, "the message does not hold the mirror's placeholder exactly once")
                    }
                    try await type2.writeNDEF(item.message, mirror: mirror, at: offset, verify: verify)
                } else if let detected, case .miFare(let mifare) = tag, let type2 = mifare.type2 {
                    try await type2.writeNDEF(item.message, verify: verify, detected: detected)
                } else {
                    try await tag.ndef.writeNDEF(item.message, verify: verify)
                }
            }
            var status = detection?.query.status
            if options.format, status == nil { status = try await ndef.queryNDEFStatus().status }
            if options.format, status == .notSupported {
                // Formatting changes what the detection saw.
                detection = nil
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
                try await write(tag, verify: true, detected: detection)
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
            cause = FailureCause(error)
        }
        keeper.cancel()
        if failure == nil { await coordinator.noteTagTime(ContinuousClock.now - workStarted) }
        await coordinator.noteOutcome(failureCode.flatMap(DeterministicFailure.init))
        let attempt = LedgerAttempt(
            run: coordinator.runID, uid: uid, model: tag.identity.model, row: item.row, counter: item.counter,
            summary: options.ntag424.map { "SUN URL \($0.template.template); \($0.keySummary)" } ?? item.summary, bytes: bytes, verified: failure == nil, locked: locked, protected: protected,
            error: failure, cause: cause?.rawValue, started: started, finished: SQLiteLedger.now(), reader: readerName,
            status: failure == nil ? "done" : "failed",
            runName: shared?.name, station: shared?.station, key: shared == nil ? nil : UUID().uuidString, epoch: item.epoch)
        // Written only now, after the verify: a crash before this line leaves no "done". A
        // named run's ledger that cannot be reached gets it from the journal later.
        switch await coordinator.record(attempt) {
        case .success(.recorded(let recorded)) where recorded.isVoid:
            // The row (or counter) went to another station while this one was cut off: the tag
            // is no done tag; the operator discards or erases it (--void-erase: at once).
            let void = VoidTag(attempt, recorded)
            await coordinator.noteVoid(void, fromJournal: false)
            await coordinator.finishVoid(item: item)
            if options.voidErase {
                do throws(NFCTagError) {
                    try await tag.ndef.format(force: true)
                    events(.ledgerStatus(.voidErased(void, error: await coordinator.voidErased(void))))
                } catch {
                    events(.ledgerStatus(.voidErased(void, error: error.description)))
                }
            }
            events(.removeTag(reader: readerName, uid: uid))
            return .failed
        case .success: break  // recorded, or journalled (the coordinator told the operator)
        case .failure(let error):
            failure = failure ?? "the ledger could not record the tag: \(error)"
        }
        await coordinator.finish(uid: uid, item: item, success: failure == nil)
        if let failure {
            events(.failed(reader: readerName, uid: uid, error: failure, cause: cause ?? .ledger))
        } else {
            events(.done(reader: readerName, uid: uid, summary: item.summary))
        }
        events(.removeTag(reader: readerName, uid: uid))
        return failure == nil ? .done : .failed
    }
}
