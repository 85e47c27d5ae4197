import Foundation
import NDEF
import NFCTestSupport
import Provisioning
import Testing
import VirtualTags

/// The counter `{n}`'s last value ends a batch cleanly: the tags that got a value are done and
/// recorded, the run stops saying the counter is used up, and nothing is counted failed that the
/// ledger does not hold (before: the next claim's "used up" was a ledger error and a failed tag
/// without a row).
@Suite("Batch: the counter's end stops the run", .timeLimit(.minutes(2)))
struct BatchCounterEndTests {
    @Test("a run from the counter's second-last value: two tags done, the third untouched, stop counterUsedUp, nothing failed")
    func lastValueHandedOutHere() async throws {
        let (ledger, directory) = try BatchTests.ledger()
        defer { try? FileManager.default.removeItem(at: directory) }
        let start = LedgerCounter.maximum - 1
        let coordinator = try BatchCoordinator(
            ledger: ledger, runID: try ledger.startRun(template: "https://ex.io/{n}", manifest: nil, readers: []),
            source: .template(usesCounter: true, start: start) { _, n in try BatchTests.url("https://ex.io/\(n ?? -1)") },
            options: BatchOptions())
        let reader = try SimulatorConfiguration.makeReader("sim:ntag215*3?poll-wait=0")
        await BatchWorker(reader: reader, coordinator: coordinator, events: { _ in }).run()
        let summary = await coordinator.summary
        #expect(summary.stop == .counterUsedUp, "\(summary)")
        #expect(summary.stopReason.contains("used up"), "\(summary.stopReason)")
        #expect(summary.done == 2 && summary.failed == 0 && summary.ledgerError == nil, "\(summary)")
        let attempts = try ledger.attempts()
        #expect(attempts.map(\.counter) == [start, LedgerCounter.maximum])
        #expect(attempts.allSatisfy { $0.status == "done" && $0.verified })
        let onTags = await BatchTests.messages(reader)
        #expect(onTags.count == 2)
        for attempt in attempts { #expect(onTags[attempt.uid] == (try BatchTests.url("https://ex.io/\(attempt.counter ?? -1)"))) }
    }

    @Test("the counter used up by another run on the ledger: the tag is skipped, nothing written or failed, stop counterUsedUp")
    func usedUpElsewhere() async throws {
        let (ledger, directory) = try BatchTests.ledger()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try ledger.allocateCounter(start: LedgerCounter.maximum)  // another process took the last value
        let coordinator = try BatchCoordinator(
            ledger: ledger, runID: try ledger.startRun(template: "https://ex.io/{n}", manifest: nil, readers: []),
            source: .template(usesCounter: true, start: 1) { _, n in try BatchTests.url("https://ex.io/\(n ?? -1)") },
            options: BatchOptions())
        let reader = try SimulatorConfiguration.makeReader("sim:ntag215*2?poll-wait=0")
        await BatchWorker(reader: reader, coordinator: coordinator, events: { _ in }).run()
        let summary = await coordinator.summary
        #expect(summary.stop == .counterUsedUp, "\(summary)")
        #expect(summary.done == 0 && summary.failed == 0 && summary.ledgerError == nil, "\(summary)")
        #expect(try ledger.attempts().isEmpty)
        #expect(await BatchTests.messages(reader).isEmpty)
    }
}
