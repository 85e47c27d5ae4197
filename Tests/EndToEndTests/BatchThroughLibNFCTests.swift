import Foundation
import LibNFC
import NDEF
import NFCCore
import NFCTags
import NFCTestSupport
import Provisioning
import Testing
import VirtualTags

/// Batch provisioning through real libnfc and the PN532 emulator handing out a stack of
/// stickers: each deselect takes the tag away and brings the next, as an operator would.
@Suite("Batch provisioning through real libnfc and the PN532 emulator", .tags(.endToEnd, .emulator), .serialized, .timeLimit(.minutes(10)))
struct BatchThroughLibNFCTests {
    @Test("a stack of 5 NTAG215 in tag files: each written, verified and recorded; the files hold exactly the ledger's data")
    func stack() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let tags = directory.appendingPathComponent("tags").path
        let emulator = try EmulatorProcess(["--tag", "ntag215*5:\(tags)", "--hand-out", "deselect"])
        defer { emulator.stop() }
        let reader = try await LibNFCReader.open(emulator.connectionString)
        let ledger = try Ledger(path: directory.appendingPathComponent("ledger.db").path)
        let template = try ProvisioningTemplate("https://ex.io/t/{uid}?n={n:04}")
        let coordinator = try BatchCoordinator(
            ledger: ledger, runID: try ledger.startRun(template: template.text, manifest: nil, readers: [emulator.connectionString]),
            source: .template(usesCounter: true, start: 1) { uid, n in
                NDEFMessage(records: [try .wellKnownTypeURIPayload(url: template.render(uid: uid, counter: n))])
            },
            options: BatchOptions(count: 5))
        await BatchWorker(reader: reader, coordinator: coordinator, events: { _ in }).run()
        await reader.close()
        emulator.stop()
        #expect(await coordinator.summary.done == 5)
        let attempts = try ledger.attempts()
        #expect(attempts.count == 5 && attempts.allSatisfy { $0.status == "done" })
        // Every tag file holds exactly what the ledger says it got.
        for attempt in attempts {
            let file = TagFile(path: tags + "/" + attempt.uid.lowercased() + ".json")
            let tag = try file.loadTag()
            let check = SimulatedReader(tags: [tag], emptyFieldWait: .zero)
            let target = try #require(try await check.poll(for: [.iso14443A], timeout: .zero))
            let read = try await NFCTag.connect(to: target, on: check).ndef.readNDEF()
            let expected = "https://ex.io/t/\(attempt.uid)?n=" + String(format: "%04d", attempt.counter ?? -1)
            #expect(read == NDEFMessage(records: [try .wellKnownTypeURIPayload(url: expected)]))
        }
    }

    /// docs/benchmarks.md, from this file.
    static let benchmarksPath = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/benchmarks.md")

    /// The cells of the docs table row whose first cell is `label` (cell 0 is the label).
    static func row(_ label: String, in docs: String) -> [String]? {
        docs.split(separator: "\n").map(String.init).first { $0.hasPrefix("| \(label) |") }
            .map { $0.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    @Test("docs/benchmarks.md's batch figures are this trace's: tag commands per tag at the seam, PN532 frames per tag in the emulator trace")
    func batchFiguresMatchDocs() async throws {
        let tags = 5
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let emulator = try EmulatorProcess(["--tag", "ntag215*\(tags)", "--hand-out", "deselect"])
        defer { emulator.stop() }
        let reader = await TracingReader(try await LibNFCReader.open(emulator.connectionString))
        let ledger = try Ledger(path: directory.appendingPathComponent("ledger.db").path)
        // The benchmark's template: 40 bytes filled in.
        let template = try ProvisioningTemplate("https://example.com/t/{uid}?n={n:05}")
        let coordinator = try BatchCoordinator(
            ledger: ledger, runID: try ledger.startRun(template: template.text, manifest: nil, readers: [emulator.connectionString]),
            source: .template(usesCounter: true, start: 1) { uid, n in
                NDEFMessage(records: [try .wellKnownTypeURIPayload(url: template.render(uid: uid, counter: n))])
            },
            options: BatchOptions(count: tags))
        await BatchWorker(reader: reader, coordinator: coordinator, events: { _ in }).run()
        await reader.close()
        #expect(await coordinator.summary.done == tags)
        let commands = await reader.commands.count
        // PN532 frames as Scripts/bench-batch counts them: InDataExchange, InCommunicateThru and
        // InListPassiveTarget commands in the emulator's trace.
        let frames = emulator.trace.filter { $0.contains("> D4 40") || $0.contains("> D4 42") || $0.contains("> D4 4A") }.count
        #expect(commands % tags == 0, "\(commands) commands for \(tags) tags")
        let commandsPerTag = commands / tags
        // One poll per tag plus its exchanges; a run may end with one empty poll.
        let framesPerTag = frames / tags
        #expect((0...1).contains(frames - framesPerTag * tags), "\(frames) frames for \(tags) tags")

        let docs = try String(contentsOf: Self.benchmarksPath, encoding: .utf8)
        for label in ["NFCKit, in-process simulator, 1 reader", "NFCKit, in-process simulator, 4 readers",
                      "NFCKit, libnfc + PN532 emulator, 1 reader", "NFCKit, libnfc + PN532 emulator, 4 readers"] {
            let cells = try #require(Self.row(label, in: docs), "docs/benchmarks.md has no row '\(label)'")
            #expect(cells.count >= 7 && Double(cells[4]) == Double(commandsPerTag),
                    "docs/benchmarks.md says \(cells.count > 4 ? cells[4] : "?") tag commands per tag for '\(label)'; the trace has \(commandsPerTag)")
        }
        let one = try #require(Self.row("NFCKit, libnfc + PN532 emulator, 1 reader", in: docs))
        #expect(one.count >= 7 && Double(one[5]) == Double(framesPerTag),
                "docs/benchmarks.md says \(one.count > 5 ? one[5] : "?") PN532 frames per tag; the trace has \(framesPerTag)")
        #expect(docs.contains("(verification): \(commandsPerTag), against"), "the prose after the batch table names another count than \(commandsPerTag)")
        #expect(docs.contains("PN532 frames per tag: NFCKit \(framesPerTag).0 vs"), "the batch summary names another frame count than \(framesPerTag)")
    }
}
