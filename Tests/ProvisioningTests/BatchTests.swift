import Foundation
import Synchronization
import NDEF
import NFCCore
import NFCTags
import NFCTestSupport
import Provisioning
import Testing
import VirtualTags

/// Batch provisioning on simulated stacks of tags: every tag gets its own data, the ledger
/// holds exactly what the tags hold, counters and rows are never used twice.
@Suite("Batch provisioning on the simulator")
struct BatchTests {
    /// What every tag handed out by `reader` holds now, by UID.
    static func messages(_ reader: SimulatedReader) async -> [String: NDEFMessage] {
        let states = await reader.withField { field in
            (field.removedTags + (field.currentTag.map { [$0] } ?? []) + field.waitingTags)
                .compactMap { ($0 as? any PersistentVirtualTag)?.tagState }
        }
        var result: [String: NDEFMessage] = [:]
        for state in states {
            guard let (check, target) = try? await Self.open(state), let tag = try? await NFCTag.connect(to: target, on: check),
                  let message = try? await tag.ndef.readNDEF(), !message.isEmpty
            else { continue }
            result[state.uid.uppercased()] = message
        }
        return result
    }

    static func open(_ state: TagState) async throws -> (SimulatedReader, TargetInfo)? {
        guard let tag = TagModel.named(state.model)?.restore(state) else { return nil }
        let reader = SimulatedReader(tags: [tag], emptyFieldWait: .zero)
        guard let target = try await reader.poll(for: Modulation.allCases, timeout: .zero) else { return nil }
        return (reader, target)
    }

    static func url(_ text: String) throws -> NDEFMessage {
        NDEFMessage(records: [try NDEFPayload.wellKnownTypeURIPayload(url: text)])
    }

    static func ledger() throws -> (Ledger, URL) {
        let directory = try temporaryDirectory()
        return (try Ledger(path: directory.appendingPathComponent("ledger.db").path), directory)
    }

    @Test("a template with {uid} and {n:05} provisions a stack of 6 NTAG215s; the ledger matches the tags")
    func templateRun() async throws {
        let (ledger, directory) = try Self.ledger()
        defer { try? FileManager.default.removeItem(at: directory) }
        let template = try ProvisioningTemplate("https://ex.io/t/{uid}/{n:05}")
        let run = try ledger.startRun(template: template.text, manifest: nil, readers: ["sim:ntag215*6"])
        let coordinator = try BatchCoordinator(
            ledger: ledger, runID: run,
            source: .template(usesCounter: true, start: 1) { uid, n in try Self.url(template.render(uid: uid, counter: n)) },
            options: BatchOptions(count: 6))
        let reader = try SimulatorConfiguration.makeReader("sim:ntag215*6?poll-wait=0")
        let events = EventLog()
        await BatchWorker(reader: reader, coordinator: coordinator, events: { events.append($0) }).run()
        let summary = await coordinator.summary
        #expect(summary.done == 6 && summary.failed == 0)
        let attempts = try ledger.attempts()
        #expect(attempts.map(\.counter) == [1, 2, 3, 4, 5, 6])
        #expect(Set(attempts.map(\.uid)).count == 6)
        let onTags = await Self.messages(reader)
        for attempt in attempts {
            #expect(onTags[attempt.uid] == (try Self.url("https://ex.io/t/\(attempt.uid)/\(String(format: "%05d", attempt.counter ?? 0))")))
            #expect(attempt.verified && attempt.status == "done")
        }
        #expect(events.all.filter { if case .removeTag = $0 { true } else { false } }.count == 6)
    }

    @Test("a manifest run stopped after 2 tags resumes at row 3; a tag already in the ledger is refused")
    func manifestResume() async throws {
        let (ledger, directory) = try Self.ledger()
        defer { try? FileManager.default.removeItem(at: directory) }
        let rows = try Manifest.parseCSV("url\n" + (0..<5).map { "https://ex.io/row/\($0)" }.joined(separator: "\n") + "\n")
        let source = BatchSource.manifest(rows: rows, matchByUID: false) { row, _ in try Self.url(row.value("url") ?? "") }
        let first = try BatchCoordinator(ledger: ledger, runID: try ledger.startRun(template: nil, manifest: "m.csv", readers: []),
                                         source: source, options: BatchOptions(count: 2))
        let reader1 = try SimulatorConfiguration.makeReader("sim:ntag215*2?poll-wait=0")
        await BatchWorker(reader: reader1, coordinator: first, events: { _ in }).run()
        #expect(try ledger.doneRows() == [0, 1])

        // The same two tags come back first (refused: already provisioned), then three new ones.
        let again = try BatchCoordinator(ledger: ledger, runID: try ledger.startRun(template: nil, manifest: "m.csv", readers: []),
                                         source: source, options: BatchOptions())
        let reader2 = try SimulatorConfiguration.makeReader("sim:ntag215*5?poll-wait=0")
        await BatchWorker(reader: reader2, coordinator: again, events: { _ in }).run()
        let summary = await again.summary
        #expect(summary.done == 3 && summary.skipped == 2)
        #expect(try ledger.doneRows() == [0, 1, 2, 3, 4])
        let byRow = Dictionary(try ledger.attempts().filter { $0.status == "done" }.map { ($0.row ?? -1, $0.uid) }, uniquingKeysWith: { a, _ in a })
        let onTags = await Self.messages(reader2)
        for row in 2..<5 { #expect(onTags[byRow[row] ?? ""] == (try Self.url("https://ex.io/row/\(row)"))) }
    }

    @Test("two readers share one run: no counter or tag used twice")
    func twoReaders() async throws {
        let (ledger, directory) = try Self.ledger()
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try ledger.startRun(template: "{n}", manifest: nil, readers: ["a", "b"])
        let coordinator = try BatchCoordinator(
            ledger: ledger, runID: run, source: .template(usesCounter: true, start: 100) { _, n in try Self.url("https://ex.io/\(n ?? 0)") },
            options: BatchOptions())
        let a = try SimulatorConfiguration.makeReader("sim:ntag215*4?poll-wait=0&uid=04AA0000000001")
        let b = try SimulatorConfiguration.makeReader("sim:ntag213*4?poll-wait=0&uid=04BB0000000001")
        let workers = [BatchWorker(reader: a, coordinator: coordinator, events: { _ in }),
                       BatchWorker(reader: b, coordinator: coordinator, events: { _ in })]
        // Each stack runs dry; stop the run once both are empty.
        await withTaskGroup(of: Void.self) { group in
            for worker in workers { group.addTask { await worker.run() } }
            group.addTask {
                while await coordinator.summary.done < 8 { try? await Task.sleep(for: .milliseconds(20)) }
                await coordinator.stop("both stacks done")
            }
        }
        let attempts = try ledger.attempts()
        #expect(attempts.count == 8)
        #expect(Set(attempts.compactMap(\.counter)) == Set(100..<108))
        #expect(Set(attempts.map(\.reader)).count == 2)
    }

    @Test("a tag pulled away mid-write is recorded as failed, holds no half message, and its row is used by the next tag")
    func tornTag() async throws {
        let (ledger, directory) = try Self.ledger()
        defer { try? FileManager.default.removeItem(at: directory) }
        let rows = try Manifest.parseCSV("url\nhttps://ex.io/row/0/" + String(repeating: "x", count: 60) + "\n")
        let coordinator = try BatchCoordinator(
            ledger: ledger, runID: try ledger.startRun(template: nil, manifest: nil, readers: []),
            source: .manifest(rows: rows, matchByUID: false) { row, _ in try Self.url(row.value("url") ?? "") }, options: BatchOptions())
        // The first tag leaves after its 8th command (during the writes); the second is whole.
        let reader = try SimulatorConfiguration.makeReader("sim:ntag215*2?poll-wait=0&leave-after=8")
        let events = EventLog()
        await BatchWorker(reader: reader, coordinator: coordinator, events: { events.append($0) }).run()
        let attempts = try ledger.attempts()
        #expect(attempts.map(\.status) == ["failed", "done"])
        #expect(attempts.map(\.row) == [0, 0])
        let onTags = await Self.messages(reader)
        #expect(onTags[attempts[0].uid] == nil)  // nothing readable as a message…
        // …and what it holds parses: the empty message (old = factory-empty), never half of one.
        let states = await reader.withField { $0.removedTags.compactMap { ($0 as? any PersistentVirtualTag)?.tagState } }
        let torn = try #require(states.first { $0.uid.uppercased() == attempts[0].uid })
        let (check, target) = try #require(try await Self.open(torn))
        #expect(try await NFCTag.connect(to: target, on: check).ndef.readNDEF() == .empty)
        #expect(onTags[attempts[1].uid] == (try Self.url(rows[0].value("url") ?? "")))
    }
}

/// Collects events from any thread.
final class EventLog: Sendable {
    private let events = Mutex<[BatchEvent]>([])
    func append(_ event: BatchEvent) { events.withLock { $0.append(event) } }
    var all: [BatchEvent] { events.withLock { $0 } }
}
