import Foundation
import NDEF
import NFCTestSupport
import Provisioning
import Testing

/// A SQLite ledger whose `progress` first blocks its thread for `delay`, as a SQLite busy wait
/// or a PostgreSQL round trip to a slow server does; everything else goes to the real ledger.
final class SlowLedger: ProvisioningLedger, @unchecked Sendable {
    let inner: Ledger
    let delay: Duration
    /// A thread of its own, as the real ledgers have.
    let executor = LedgerExecutor(name: "slow ledger")

    init(_ inner: Ledger, delay: Duration) {
        self.inner = inner
        self.delay = delay
    }

    var location: String { inner.location }
    func startRun(name: String?, station: String?, template: String?, manifest: String?, readers: [String]) throws(LedgerError) -> Int64 {
        try inner.startRun(name: name, station: station, template: template, manifest: manifest, readers: readers)
    }
    func finishRun(_ id: Int64) throws(LedgerError) { try inner.finishRun(id) }
    func allocateCounter(start: Int) throws(LedgerError) -> Int { try inner.allocateCounter(start: start) }
    func record(_ attempt: LedgerAttempt) throws(LedgerError) -> Int64 { try inner.record(attempt) }
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
        try inner.claimCounter(run: run, uid: uid, station: station, start: start)
    }
    func releaseClaims(run: String, station: String) throws(LedgerError) -> Int { try inner.releaseClaims(run: run, station: station) }
    func progress(run: String) throws(LedgerError) -> RunProgress {
        Thread.sleep(forTimeInterval: Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18)
        return try inner.progress(run: run)
    }
    func setManifestDigest(_ digest: String, session id: Int64) throws(LedgerError) { try inner.setManifestDigest(digest, session: id) }
    func doneManifests() throws(LedgerError) -> [RecordedManifest] { try inner.doneManifests() }
}

/// The ledgers' calls block (SQLite waits for the file up to `lockWait`, PostgreSQL for the
/// server): the batch coordinator makes them on its ledger's thread, so Swift's cooperative
/// pool, whose few threads every task shares, stays free for the readers' tasks.
@Suite("Ledger: blocking calls stay off the cooperative pool", .timeLimit(.minutes(1)))
struct LedgerExecutorTests {
    @Test("more blocking ledger calls at once than the pool has threads: other tasks still run at once")
    func blockingCallsLeaveThePoolFree() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // One more coordinator than the pool has threads (one per core): before, each blocked call
        // held a pool thread, and the probe below waited for them all.
        let count = ProcessInfo.processInfo.activeProcessorCount + 1
        var coordinators: [BatchCoordinator] = []
        for index in 0..<count {
            let ledger = SlowLedger(try Ledger(path: directory.appendingPathComponent("l\(index).db").path), delay: .seconds(5))
            let run = try ledger.startRun(name: "r", station: "s", template: "x", manifest: nil, readers: ["sim"])
            let journal = BatchJournal(path: directory.appendingPathComponent("j\(index).jsonl").path)
            coordinators.append(try BatchCoordinator(
                ledger: ledger, runID: run,
                source: .template(usesCounter: true, start: 1) { _, n in NDEFMessage(records: [try .wellKnownTypeURIPayload(url: "https://ex.io/\(n ?? 0)")]) },
                options: BatchOptions(count: 1), shared: SharedRun(name: "r", station: "s", lease: .seconds(60), journal: journal)))
        }
        // How long a pool task waits right now, before any ledger call blocks: in a full run other
        // suites may keep the pool busy, which is not what this test measures.
        let baselineStart = ContinuousClock.now
        _ = await Task.detached { ContinuousClock.now }.value
        let baseline = ContinuousClock.now - baselineStart
        let started = ContinuousClock.now
        let calls = Task {
            await withTaskGroup(of: RunProgress?.self) { group in
                for coordinator in coordinators { group.addTask { await coordinator.runProgress() } }
                var answered = 0
                for await progress in group where progress != nil { answered += 1 }
                return answered
            }
        }
        try await Task.sleep(for: .milliseconds(200))
        // A task of the pool, as a reader's would be.
        let probeStart = ContinuousClock.now
        _ = await Task.detached { ContinuousClock.now }.value
        let probe = ContinuousClock.now - probeStart
        // Before, it waited until a blocked call returned (about 5 s); the margin is for a loaded machine.
        #expect(probe < baseline + .seconds(3), "a pool task waited \(probe) behind blocked ledger calls (\(baseline) before they began)")
        // The slow calls themselves complete, side by side (each on its ledger's thread), not
        // two rounds of the pool's threads.
        #expect(await calls.value == count)
        let elapsed = ContinuousClock.now - started
        #expect(elapsed < .seconds(9) + baseline * 2, "the blocked calls took \(elapsed)")
    }
}
