import Foundation
import Synchronization
import NDEF
import NFCCore
import NFCTags
import NFCTestSupport
import Provisioning
import Testing
import VirtualTags

/// A tag left on the reader after its work (issue 18): handled once, never skipped at every
/// poll, the polls backing off, and the idle timeout counting time without a *new* tag — on a
/// reader that checks presence as a PN532 does, one that re-detects the card at every poll and
/// says it is there (PC/SC), and one that cannot tell at all.
@Suite("Batch: a tag that stays on the reader", .timeLimit(.minutes(3)))
struct BatchPresenceTests {
    /// A one-tag run (`--count 2`, idle timeout `idle`) on `reader`, ended by its own stop or,
    /// failing that, cancelled at a generous deadline. Returns the summary, the events, how long
    /// it ran and whether it ended by itself.
    static func run(
        _ reader: SimulatedReader, idle: Duration, debounce: Duration = .milliseconds(300),
        during: (@Sendable (EventLog) async throws -> Void)? = nil
    ) async throws -> (BatchSummary, [BatchEvent], Duration, Bool, Ledger, URL) {
        let directory = try temporaryDirectory()
        let ledger = try Ledger(path: directory.appendingPathComponent("ledger.db").path)
        let template = try ProvisioningTemplate("https://ex.io/{n}")
        var options = BatchOptions(count: 2)
        options.idleTimeout = idle
        options.presence.debounce = debounce
        let coordinator = try BatchCoordinator(
            ledger: ledger, runID: try ledger.startRun(template: template.text, manifest: nil, readers: ["sim:ntag215"]),
            source: .template(usesCounter: true, start: 1) { uid, n in
                NDEFMessage(records: [try .wellKnownTypeURIPayload(url: template.render(uid: uid, counter: n))])
            },
            options: options)
        let events = EventLog()
        let started = ContinuousClock.now
        // Only the first events are kept: a run that floods must fail, not fill the memory.
        let seen = Atomic<Int>(0)
        let worker = Task {
            await BatchWorker(reader: reader, coordinator: coordinator, events: { event in
                if seen.add(1, ordering: .relaxed).newValue <= 200 { events.append(event) }
            }).run()
        }
        try await during?(events)
        // Wait for the end with a deadline far beyond the idle timeout: a run that spins never ends.
        let ended = await waitForEnd(of: worker, within: .seconds(60))
        return (await coordinator.summary, events.all, ContinuousClock.now - started, ended, ledger, directory)
    }

    /// Waits until `task` has finished by itself (true) or `limit` has passed (false: it is then
    /// cancelled, and waited for).
    static func waitForEnd(of task: Task<Void, Never>, within limit: Duration) async -> Bool {
        let ended = await withTaskGroup(of: Bool.self) { group in
            group.addTask { await task.value; return true }
            group.addTask { try? await Task.sleep(for: limit); return false }
            let first = await group.next() ?? false
            // The waiting child ends only with the task: cancel it when the time is up.
            if !first { task.cancel() }
            group.cancelAll()
            return first
        }
        return ended
    }

    static func lines(_ events: [BatchEvent]) -> [String] {
        events.map { event in
            switch event {
            case .waiting: "waiting"
            case .tagFound(_, let uid): "found \(uid)"
            case .done(_, let uid, _): "done \(uid)"
            case .failed(_, let uid, _, _): "failed \(uid)"
            case .skipped(_, let uid, _): "skipped \(uid)"
            case .removeTag(_, let uid): "remove \(uid)"
            case .readerFailed: "reader failed"
            case .severalTags(_, let count): "\(count) tags"
            case .ledgerStatus: "ledger"
            }
        }
    }

    @Test(
        "one tag left on the reader: written once, never skipped, few polls, and the run ends after its idle timeout",
        arguments: ["selected", "field", "none"])
    func tagLeftOnReader(presence: String) async throws {
        let reader = try SimulatorConfiguration.makeReader("sim:ntag215?poll-wait=200&presence=\(presence)")
        // The idle timeout ends this run: 5 s, so that a pool kept busy by other suites cannot let
        // it run out before the first tag is polled.
        let (summary, events, elapsed, ended, ledger, directory) = try await Self.run(reader, idle: .seconds(5))
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(ended, "the batch did not end by itself (\(events.count) events)")
        #expect(Self.lines(events) == ["waiting", "found 0453494D000001", "done 0453494D000001", "remove 0453494D000001", "waiting"], "\(Self.lines(events).prefix(12))")
        #expect(summary.done == 1 && summary.skipped == 0 && summary.failed == 0)
        #expect(summary.stopReason == "no new tag for 5 s")
        // Polls back off: at most one per presence interval (100 ms) while the tag stays, with room.
        let polls = await reader.pollCount
        let bound = Int(elapsed / .milliseconds(100)) + 5
        #expect(polls <= bound, "\(polls) polls in \(elapsed)")
        // The ledger, read afresh, holds the one tag.
        let attempts = try Ledger(path: directory.appendingPathComponent("ledger.db").path).attempts()
        #expect(attempts.map(\.uid) == ["0453494D000001"] && attempts.allSatisfy { $0.status == "done" })
        _ = ledger
    }

    @Test("the tag taken away and put back is a new arrival, refused once as already provisioned; then the idle timeout ends the run")
    func takenAwayAndBack() async throws {
        let reader = try SimulatorConfiguration.makeReader("sim:ntag215?poll-wait=20&presence=field")
        let (summary, events, _, ended, _, directory) = try await Self.run(reader, idle: .seconds(30), debounce: .zero) { events in
            // Once the tag is done: take it away, let the worker see an empty field, put it back.
            let deadline = ContinuousClock.now + .seconds(30)
            while !events.all.contains(where: { if case .removeTag = $0 { true } else { false } }) {
                guard ContinuousClock.now < deadline else { return }
                try await Task.sleep(for: .milliseconds(10))
            }
            let before = await reader.pollCount
            await reader.withField { $0.removeTag() }
            while await reader.pollCount < before + 2, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            await reader.withField { field in if let tag = field.removedTags.last { field.present(tag) } }
        }
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(ended)
        #expect(Self.lines(events) == [
            "waiting", "found 0453494D000001", "done 0453494D000001", "remove 0453494D000001", "waiting", "found 0453494D000001",
            "skipped 0453494D000001", "remove 0453494D000001",
            "waiting",
        ])
        #expect(summary.done == 1 && summary.skipped == 1)
    }

    @Test("a stack handed out on deselect is still taken tag by tag, with no debounce wait between different tags")
    func stackUnchanged() async throws {
        let reader = try SimulatorConfiguration.makeReader("sim:ntag215*3?poll-wait=20")
        // --count 2 ends it; the idle timeout is a fallback (a busy pool stretched a 1 s one past
        // the gap between two tags).
        let (summary, events, _, ended, _, directory) = try await Self.run(reader, idle: .seconds(30), debounce: .seconds(30))
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(ended)
        // --count 2: two tags, each once.
        #expect(summary.done == 2 && summary.skipped == 0)
        #expect(summary.stopReason == "count reached")
        #expect(Self.lines(events).filter { $0.hasPrefix("done") } == ["done 0453494D000001", "done 0453494D000002"])
    }
}

@Suite("Batch: a field it cannot list", .timeLimit(.minutes(2)))
struct BatchUnlistableFieldTests {
    @Test("two tags in the field and a reader whose listing fails: neither tag is written, the reader is reported failed, the ledger holds no attempt")
    func listingFailsWritesNothing() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = directory.appendingPathComponent("a.json").path, second = directory.appendingPathComponent("b.json").path
        // The simulated field of two behind an interposer whose listing fails.
        let field = try SimulatorConfiguration.makeReader("sim:ntag215:\(first)+ntag213:\(second)?poll-wait=20")
        let reader = ScriptedReader(
            interposingOn: field, modulations: field.supportedModulations, listingFailure: NFCReaderDeviceError(.rfError, "listing failed")
        ) { command, _ in .forward(command) }
        let ledgerPath = directory.appendingPathComponent("ledger.db").path
        let ledger = try Ledger(path: ledgerPath)
        let template = try ProvisioningTemplate("https://ex.io/{n}")
        var options = BatchOptions(count: 1)
        options.idleTimeout = .seconds(30)  // a fallback: the failed listing ends the run
        let coordinator = try BatchCoordinator(
            ledger: ledger, runID: try ledger.startRun(template: template.text, manifest: nil, readers: ["sim:listing-fails"]),
            source: .template(usesCounter: true, start: 1) { uid, n in
                NDEFMessage(records: [try .wellKnownTypeURIPayload(url: template.render(uid: uid, counter: n))])
            },
            options: options)
        let events = EventLog()
        let worker = Task { await BatchWorker(reader: reader, coordinator: coordinator, events: { events.append($0) }).run() }
        #expect(await BatchPresenceTests.waitForEnd(of: worker, within: .seconds(60)))
        #expect(BatchPresenceTests.lines(events.all).contains("reader failed"), "\(BatchPresenceTests.lines(events.all))")
        #expect(await coordinator.summary.done == 0)
        // From the other side: a fresh ledger connection, and neither tag file holds the URL.
        #expect(try Ledger(path: ledgerPath).attempts().isEmpty)
        for file in [first, second] {
            let text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
            #expect(!text.contains("ex.io"), "\(file): \(text.prefix(200))")
        }
    }
}
