import Foundation
import Synchronization
import NDEF
import NFCCore
import NFCTags
import NFCTestSupport
import Provisioning
import Testing
import VirtualTags

/// A SQLite ledger whose `record` or `allocateCounter` fails on demand (a disk full, a lost
/// server); everything else goes to the real ledger.
final class FailingLedger: ProvisioningLedger, @unchecked Sendable {
    let inner: Ledger
    let failRecord: Bool
    let failCounter: Bool
    /// While true, the shared-run calls fail as an unreachable server's do (a stopped PostgreSQL).
    let outage = Locked(false)
    /// Calls made to the ledger during the outage (each a round trip a real server would have seen).
    let callsDuringOutage = Locked(0)

    private func checkOutage() throws(LedgerError) {
        guard outage.withLock({ $0 }) else { return }
        callsDuringOutage.withLock { $0 += 1 }
        throw LedgerError("server closed the connection unexpectedly (simulated)", sqlState: "08006", isUnavailable: true)
    }

    init(_ inner: Ledger, failRecord: Bool = false, failCounter: Bool = false) {
        self.inner = inner
        self.failRecord = failRecord
        self.failCounter = failCounter
    }

    var location: String { inner.location }
    func startRun(name: String?, station: String?, template: String?, manifest: String?, readers: [String]) throws(LedgerError) -> Int64 {
        try inner.startRun(name: name, station: station, template: template, manifest: manifest, readers: readers)
    }
    func finishRun(_ id: Int64) throws(LedgerError) { try inner.finishRun(id) }
    func allocateCounter(start: Int) throws(LedgerError) -> Int {
        if failCounter { throw LedgerError("disk I/O error (simulated)") }
        return try inner.allocateCounter(start: start)
    }
    func record(_ attempt: LedgerAttempt) throws(LedgerError) -> Int64 {
        if failRecord { throw LedgerError("disk I/O error (simulated)") }
        try checkOutage()
        return try inner.record(attempt)
    }
    func doneRows() throws(LedgerError) -> Set<Int> { try inner.doneRows() }
    func isDone(uid: String) throws(LedgerError) -> Bool { try inner.isDone(uid: uid) }
    func attempts(run: String?) throws(LedgerError) -> [LedgerAttempt] { try inner.attempts(run: run) }
    func stats(run: String?) throws(LedgerError) -> LedgerStats { try inner.stats(run: run) }
    func runNames() throws(LedgerError) -> [String] { try inner.runNames() }
    func loadManifest(run: String, rows: [ManifestRow], source: String) throws(LedgerError) -> ManifestLoad {
        try inner.loadManifest(run: run, rows: rows, source: source)
    }
    func claimRow(run: String, uid: String, station: String, lease: Duration) throws(LedgerError) -> RowClaim {
        try inner.claimRow(run: run, uid: uid, station: station, lease: lease)
    }
    func claimCounter(run: String, uid: String, station: String, start: Int) throws(LedgerError) -> CounterClaim {
        try checkOutage()
        return try inner.claimCounter(run: run, uid: uid, station: station, start: start)
    }
    func releaseClaims(run: String, station: String) throws(LedgerError) -> Int { try inner.releaseClaims(run: run, station: station) }
    func progress(run: String) throws(LedgerError) -> RunProgress {
        try checkOutage()
        return try inner.progress(run: run)
    }
    func setManifestDigest(_ digest: String, session id: Int64) throws(LedgerError) { try inner.setManifestDigest(digest, session: id) }
    func doneManifests() throws(LedgerError) -> [RecordedManifest] { try inner.doneManifests() }
}

/// A ledger that fails is a failed tag: the summary counts it (so `nfctool batch` exits 1), the
/// run stops, nothing is written to the tag.
@Suite("Batch: a ledger that fails counts as a failed tag", .timeLimit(.minutes(2)))
struct BatchLedgerFailureTests {
    static func run(_ ledger: FailingLedger, admission: (@Sendable (NFCTag) async -> BatchRefusal?)? = nil) async throws -> (BatchSummary, [BatchEvent], SimulatedReader) {
        let run = try ledger.inner.startRun(template: "x", manifest: nil, readers: ["sim"])
        var options = BatchOptions(count: 2)
        options.admission = admission
        options.idleTimeout = .seconds(30)  // a fallback: the run stops on the ledger error; long, so a starved pool cannot end it first
        let coordinator = try BatchCoordinator(
            ledger: ledger, runID: run,
            source: .template(usesCounter: true, start: 1) { _, n in NDEFMessage(records: [try .wellKnownTypeURIPayload(url: "https://ex.io/\(n ?? 0)")]) },
            options: options)
        let reader = try SimulatorConfiguration.makeReader("sim:ntag215*2?poll-wait=0")
        let events = Mutex<[BatchEvent]>([])
        await BatchWorker(reader: reader, coordinator: coordinator, events: { event in events.withLock { $0.append(event) } }).run()
        return (await coordinator.summary, events.withLock { $0 }, reader)
    }

    @Test("a --require-genuine refusal the ledger cannot record: failed (not skipped), the run stops")
    func refusalNotRecorded() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ledger = FailingLedger(try Ledger(path: directory.appendingPathComponent("l.db").path), failRecord: true)
        let (summary, events, _) = try await Self.run(ledger) { _ in BatchRefusal(status: .counterfeit, reason: "not genuine") }
        #expect(summary.failed == 1 && summary.skipped == 0 && summary.done == 0, "\(summary)")
        #expect(summary.stopReason.contains("ledger error"), "\(summary)")
        #expect(events.contains { if case .failed = $0 { true } else { false } })
    }

    @Test("a counter the ledger cannot allocate: failed, the run stops, no tag written")
    func claimFails() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ledger = FailingLedger(try Ledger(path: directory.appendingPathComponent("l.db").path), failCounter: true)
        let (summary, _, reader) = try await Self.run(ledger)
        #expect(summary.failed == 1 && summary.done == 0, "\(summary)")
        #expect(summary.stopReason.contains("ledger error"), "\(summary)")
        // Nothing was written: every tag of the stack still holds no message.
        #expect(await BatchTests.messages(reader).isEmpty)
    }

    @Test("a named run ending with tags still in its journal (the server still away) has failed, naming the journal; recorded once the server is back")
    func endingWithAJournalFails() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("l.db").path
        let ledger = FailingLedger(try Ledger(path: path))
        let run = try ledger.startRun(name: "r", station: "s", template: "x", manifest: nil, readers: ["sim"])
        let journal = BatchJournal(path: directory.appendingPathComponent("j.jsonl").path)
        let coordinator = try BatchCoordinator(
            ledger: ledger, runID: run,
            source: .template(usesCounter: true, start: 1) { _, n in NDEFMessage(records: [try .wellKnownTypeURIPayload(url: "https://ex.io/\(n ?? 0)")]) },
            options: BatchOptions(count: 1), shared: SharedRun(name: "r", station: "s", lease: .seconds(60), journal: journal))
        // A tag written and verified while the server was away waits in the journal.
        try journal.append(LedgerContractTests.attempt(run, "04AA", run: "r", station: "s", counter: 1, key: "s-1"))
        ledger.outage.withLock { $0 = true }
        await coordinator.settleJournal()
        let away = await coordinator.summary
        #expect(away.unrecorded == 1 && away.journal == journal.path)
        let failure = try #require(BatchReportText.failure(of: away))
        #expect(failure.message.contains("1 tag written but not recorded") && failure.message.contains(journal.path), "\(failure.message)")
        #expect(try journal.entries().count == 1)
        // The server is back: the journal is recorded (read afresh from the file) and the run has not failed.
        ledger.outage.withLock { $0 = false }
        await coordinator.settleJournal()
        #expect(await coordinator.summary.unrecorded == 0)
        #expect(BatchReportText.failure(of: await coordinator.summary) == nil)
        #expect(try journal.entries().isEmpty)
        #expect(try Ledger(path: path).attempts(run: "r").map(\.key) == ["s-1"])
    }

    @Test("a named run whose server is away with an empty journal says 'back' only once a round trip succeeds, not every second")
    func backOnlyAfterRoundTrip() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ledger = FailingLedger(try Ledger(path: directory.appendingPathComponent("l.db").path))
        let run = try ledger.startRun(name: "r", station: "s", template: "x", manifest: nil, readers: ["sim"])
        var options = BatchOptions(count: 3)
        options.idleTimeout = .seconds(30)  // a fallback: count 3 ends the run; long, so a busy pool cannot end it first
        let journal = BatchJournal(path: directory.appendingPathComponent("j.jsonl").path)
        let coordinator = try BatchCoordinator(
            ledger: ledger, runID: run,
            source: .template(usesCounter: true, start: 1) { _, n in NDEFMessage(records: [try .wellKnownTypeURIPayload(url: "https://ex.io/\(n ?? 0)")]) },
            options: options, shared: SharedRun(name: "r", station: "s", lease: .seconds(60), journal: journal))
        let events = Locked<[BatchEvent]>([])
        await coordinator.setEvents { event in events.withLock { $0.append(event) } }
        @Sendable func count(_ match: @Sendable (LedgerStatus) -> Bool) -> Int {
            events.withLock { $0.filter { if case .ledgerStatus(let status) = $0 { match(status) } else { false } }.count }
        }
        let isBack: @Sendable (LedgerStatus) -> Bool = { if case .back = $0 { true } else { false } }
        let isUnavailable: @Sendable (LedgerStatus) -> Bool = { if case .unavailable = $0 { true } else { false } }
        ledger.outage.withLock { $0 = true }
        let reader = try SimulatorConfiguration.makeReader("sim:ntag215*4?poll-wait=0")
        let worker = Task { await BatchWorker(reader: reader, coordinator: coordinator, events: { event in events.withLock { $0.append(event) } }).run() }
        defer { worker.cancel() }
        // The first tag finds the server away; then the station waits. Three of its one-second
        // retries pass with the server still away: none may say "back".
        #expect(await eventually(within: .seconds(30)) { count(isUnavailable) == 1 })
        #expect(await eventually(within: .seconds(30)) { ledger.callsDuringOutage.withLock { $0 } >= 4 })
        #expect(count(isBack) == 0, "\(events.withLock { $0 })")
        #expect(count(isUnavailable) == 1)
        #expect(try journal.entries().isEmpty)
        // The server is back: the next retry's round trip succeeds, "back" once, and the run completes.
        ledger.outage.withLock { $0 = false }
        #expect(await eventually(within: .seconds(30)) { count(isBack) == 1 })
        await worker.value
        #expect(count(isBack) == 1)
        #expect(await coordinator.summary.done == 3)
    }
}
